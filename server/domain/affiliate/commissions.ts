import type { Knex } from 'knex';
import { countsByState } from '../../db/rows.ts';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import { InvalidStateError, NotFoundError, ValidationError } from '../../errors.ts';
import { SYSTEM, type AuditLog } from '../platform/audit.ts';
import { readRows } from '../participants/leaderboard.ts';
import { newId } from '../../crypto.ts';
import type { Commission, CommissionCounts, CommissionList, CommissionListQuery } from '../../../shared/schemas/commission.ts';
import type { CommissionStructure } from '../../../shared/schemas/reward-config.ts';

export { commissionFor, monthsBetween, percentOf, proportion } from './commission-math.ts';

/** One day in ms: `holdDuration` is in days. */
export const DAY_MS = 86_400_000;

/** A `commissions` row as read. */
export interface CommissionRow {
  id: string;
  program_id: string;
  transaction_id: string | null;
  reward_config_id: string;
  referrer_id: string;
  referred_id: string;
  event: 'LEAD' | 'SALE';
  status: Commission['status'];
  pre_refund_status: Commission['status'] | null;
  currency_iso: string;
  amount: number | string;
  original_amount: number | string;
  /** When a refund last changed `amount` (migration 022). */
  adjusted_at?: number | string | null;
  sale_amount: number | string | null;
  campaign_currency_iso: string;
  amount_in_campaign_currency: number | string;
  sale_amount_in_campaign_currency: number | string | null;
  exchange_rate: number | null;
  exchange_rate_at: number | string | null;
  hold_duration: number;
  auto_approve_at: number | string | null;
  payout_id: string | null;
  paid_amount: number | string | null;
  approved_at: number | string | null;
  payout_queued_at: number | string | null;
  paid_at: number | string | null;
  reversed_at: number | string | null;
  provider: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const num = (v: number | string | null): number | null => (v == null ? null : Number(v));

/** The wire shape of one commission (rest-v2 §2.12). */
export function toCommission(r: CommissionRow): Commission {
  return {
    id: r.id,
    status: r.status,
    createdAt: Number(r.created_at),
    currencyISO: r.currency_iso,
    referrerId: r.referrer_id,
    referredId: r.referred_id,
    event: r.event,
    amount: Number(r.amount),
    saleAmount: num(r.sale_amount),
    amountInCampaignCurrency: Number(r.amount_in_campaign_currency),
    saleAmountInCampaignCurrency: num(r.sale_amount_in_campaign_currency),
    campaignCurrencyISO: r.campaign_currency_iso,
    exchangeRate: r.exchange_rate == null ? null : Number(r.exchange_rate),
    exchangeRateAt: num(r.exchange_rate_at),
    fxError: null,
    holdDuration: r.hold_duration,
    approvedAt: num(r.approved_at),
    payoutQueuedAt: num(r.payout_queued_at),
    paidAt: num(r.paid_at),
    reversedAt: num(r.reversed_at),
    provider: r.provider,
  };
}

/** A new commission row: approved at once when it needs no approval and has no hold. */
export function newCommissionRow(
  program: Program,
  configId: string,
  affiliateId: string,
  customerId: string,
  s: CommissionStructure,
  now: number,
  m: { event: 'LEAD' | 'SALE'; transactionId: string | null; currency: string; amount: number; inCampaign: number; saleAmount: number | null; saleInCampaign: number | null; rate: { rate: number; at: number } | null },
): CommissionRow {
  const autoApproveAt = s.approvalRequired ? null : now + s.holdDuration * DAY_MS;
  const approved = autoApproveAt != null && autoApproveAt <= now;
  return {
    id: newId(),
    program_id: program.id,
    transaction_id: m.transactionId,
    reward_config_id: configId,
    referrer_id: affiliateId,
    referred_id: customerId,
    event: m.event,
    status: approved ? 'APPROVED' : 'PENDING',
    pre_refund_status: null,
    currency_iso: m.currency,
    amount: m.amount,
    original_amount: m.amount,
    sale_amount: m.saleAmount,
    campaign_currency_iso: program.currencyISO,
    amount_in_campaign_currency: m.inCampaign,
    sale_amount_in_campaign_currency: m.saleInCampaign,
    exchange_rate: m.rate?.rate ?? null,
    exchange_rate_at: m.rate?.at ?? null,
    hold_duration: s.holdDuration,
    auto_approve_at: autoApproveAt,
    payout_id: null,
    paid_amount: null,
    approved_at: approved ? now : null,
    payout_queued_at: null,
    paid_at: null,
    reversed_at: null,
    provider: null,
    created_at: now,
    updated_at: now,
  };
}

/** Whether a commission counts toward the affiliate's `commission_total` (the BY_COMMISSIONS board). */
export function counts(status: Commission['status']): boolean {
  return status === 'PENDING' || status === 'APPROVED' || status === 'PAID';
}

/** Ids we issue are [A-Za-z0-9]; anything else cannot name a commission (and NUL would upset PostgreSQL). */
export const plausibleId = (id: string) => /^[A-Za-z0-9_-]{1,64}$/.test(id);

/**
 * Commissions (rest-v2 §3.12 AF10–AF13): lists, approval and deletion. Commissions that need no
 * manual approval become APPROVED when their hold ends; `settle` applies that with one indexed
 * UPDATE before anything reads or pays them, so no job per commission is needed.
 */
export class Commissions {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly participants: Participants,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Approves every commission of the program whose hold has ended and that needs no manual approval,
   * each with its SYSTEM audit entry in the same transaction (`q`'s, or one of its own when `q` is
   * none: a read found them due).
   */
  async settle(q: Knex | Knex.Transaction, programId: string): Promise<number> {
    const now = this.clock.now();
    const due = (k: Knex | Knex.Transaction) => k('commissions').where({ program_id: programId, status: 'PENDING' }).whereNotNull('auto_approve_at').where('auto_approve_at', '<=', now);
    // Read first: an UPDATE takes SQLite's write lock even when it matches nothing, and most reads find nothing due.
    if (!(await due(q).first('id'))) return 0;
    const approve = async (trx: Knex.Transaction): Promise<number> => {
      // RETURNING: exactly the rows this statement moved (a concurrent settle's are not repeated).
      const moved: Array<{ id: string; referrer_id: string; auto_approve_at: number | string; amount: number | string; currency_iso: string }> = await due(trx)
        .update({ status: 'APPROVED', approved_at: trx.ref('auto_approve_at') as never, updated_at: now })
        .returning(['id', 'referrer_id', 'auto_approve_at', 'amount', 'currency_iso']);
      if (!moved.length) return 0;
      const program = await trx('programs').where({ id: programId }).first('team_id');
      for (const c of moved) {
        await this.audit.system(trx, {
          teamId: program.team_id,
          source: SYSTEM.commissionHold,
          action: 'system.commission.auto_approve',
          resourceType: 'commissions',
          resourceId: c.id,
          changes: {
            ids: { id: programId, participantId: c.referrer_id },
            fields: { status: { before: 'PENDING', after: 'APPROVED' }, approvedAt: { after: Number(c.auto_approve_at) }, amount: { after: Number(c.amount) }, currencyISO: { after: c.currency_iso } },
          },
        });
      }
      return moved.length;
    };
    return (q as Knex.Transaction).isTransaction ? approve(q as Knex.Transaction) : this.db.knex.transaction(approve);
  }

  /** AF10 (no participant) and AF11: newest first, `nextId` = the last id of the previous page, optional status filter. */
  async list(program: Program, query: CommissionListQuery, idOrEmail?: string): Promise<CommissionList> {
    const knex = this.db.knex;
    const referrerId = idOrEmail === undefined ? null : (await this.participants.resolve(knex, program, idOrEmail)).id;
    return this.page(program, query, referrerId);
  }

  /**
   * AF16: how many commissions AF10 lists in each status, and without a status (ALL, which counts
   * DELETED ones as AF10 lists them). Settles due approvals first, as AF10 does, then one grouped
   * read over the program's rows (`commissions_program_created` leads with program_id).
   */
  async counts(program: Program): Promise<CommissionCounts> {
    const knex = this.db.knex;
    await this.settle(knex, program.id);
    const rows: Array<{ state: string; n: number | string }> = await knex('commissions').where('program_id', program.id).groupBy('status').select({ state: 'status' }).count({ n: '*' });
    return countsByState(rows, { PENDING: 0, APPROVED: 0, PAID: 0, REVERSED: 0, DELETED: 0 }) satisfies CommissionCounts;
  }

  /** One page of the program's commissions, or of one affiliate's (the participant API reads this too). */
  async page(program: Program, query: CommissionListQuery, referrerId: string | null): Promise<CommissionList> {
    const knex = this.db.knex;
    await this.settle(knex, program.id);
    const q = knex('commissions').where(referrerId ? { referrer_id: referrerId, program_id: program.id } : { program_id: program.id });
    if (query.status) q.where('status', query.status);
    if (query.nextId) {
      const after = plausibleId(query.nextId) ? await knex('commissions').where({ id: query.nextId, program_id: program.id }).first('created_at', 'id') : undefined;
      if (!after) throw new ValidationError('nextId must be a commission id from the previous page.', [{ field: 'query.nextId', code: 'INVALID', message: 'Not a commission of this program.' }]);
      q.whereRaw('(created_at, id) < (?, ?)', [Number(after.created_at), after.id]);
    }
    const rows = await readRows<CommissionRow>(this.db, knex, q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit + 1));
    const page = rows.slice(0, query.limit);
    return { commissions: page.map(toCommission), limit: query.limit, nextId: rows.length > query.limit ? page[page.length - 1]!.id : null };
  }

  /** Reads and locks one commission of the program, 404 when there is none. */
  private async locked(trx: Knex.Transaction, program: Program, id: string): Promise<CommissionRow> {
    const row = plausibleId(id) ? await trx('commissions').where({ id, program_id: program.id }).forUpdate().first() : undefined;
    if (!row) throw new NotFoundError(`No commission ${id.slice(0, 64)} in program ${program.id}.`);
    return row as CommissionRow;
  }

  /**
   * AF12: PENDING → APPROVED (payable once its hold has passed). Approving an approved commission
   * changes nothing; a paid one is 406 (seed: States and transitions), as are reversed and deleted ones.
   */
  async approve(program: Program, id: string): Promise<{ success: true }> {
    await this.db.knex.transaction(async (trx) => {
      await this.settle(trx, program.id);
      const row = await this.locked(trx, program, id);
      if (row.status === 'APPROVED') return;
      if (row.status !== 'PENDING') throw new InvalidStateError(`Commission ${row.id} is ${row.status}; only PENDING commissions can be approved.`);
      const now = this.clock.now();
      await trx('commissions').where({ id: row.id }).update({ status: 'APPROVED', approved_at: now, updated_at: now });
    });
    return { success: true };
  }

  /** AF13: removes a PENDING commission (status DELETED, off the affiliate's totals); any other state is 406. */
  async remove(program: Program, id: string): Promise<{ success: true }> {
    await this.db.knex.transaction(async (trx) => {
      await this.settle(trx, program.id);
      const row = await this.locked(trx, program, id);
      if (row.status !== 'PENDING') throw new InvalidStateError(`Commission ${row.id} is ${row.status}; only PENDING commissions can be deleted.`);
      const now = this.clock.now();
      await trx('commissions').where({ id: row.id }).update({ status: 'DELETED', pre_refund_status: null, updated_at: now });
      await this.participants.adjustCounters(trx, program.id, row.referrer_id, { commission_total: -Number(row.amount_in_campaign_currency) });
    });
    return { success: true };
  }
}
