import type { Knex } from 'knex';
import { countsByState } from '../../db/rows.ts';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program, Programs } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import type { ParticipantRow } from '../participants/model.ts';
import type { Webhooks } from '../messaging/webhooks.ts';
import type { Commissions } from './commissions.ts';
import { DAY_MS, plausibleId } from './commissions.ts';
import { completeDocument } from '../programs/program-config.ts';
import { newId } from '../../crypto.ts';
import { InvalidStateError, NotFoundError, ValidationError } from '../../errors.ts';
import { readRows } from '../participants/leaderboard.ts';
import { money } from '../messaging/email-layout.ts';
import { payoutLines, type ParticipantCodesReader } from './payout-export.ts';
import { PayoutProviders, type BatchFile, type ExportFormat, type SendOutcome } from './payout-providers.ts';
import { Activity } from '../platform/activity.ts';
import { payoutMoney } from './payout-money.ts';
import type { ProgramEmails } from '../messaging/program-emails.ts';
import type { Jobs } from '../platform/jobs.ts';
import { SYSTEM, type AuditLog } from '../platform/audit.ts';
import { toProgram } from '../programs/programs.ts';
import type { Payout, PayoutCounts, PayoutList, PayoutListQuery, PayoutRunResponse } from '../../../shared/schemas/payout.ts';
import { TRANSITIONS, toPayout, type PayoutRow } from './payout-model.ts';

export { toPayout, type PayoutRow } from './payout-model.ts';

/** Where an affiliate's money goes, as the payout destinations engine reports it. */
export interface PayoutDestination {
  provider: string;
  account: string;
  status: string;
  country: string | null;
}

/** The payout destinations service, when wired (issue #6 enrollment half). */
export interface DestinationSource {
  current(trx: Knex | Knex.Transaction, programId: string, participantId: string): Promise<PayoutDestination | null>;
}

/** Job type of the monthly payout run of one program. */
export const PAYOUT_RUN_JOB = 'payouts.monthly-run';

/** First instant of the UTC month after `now`. */
export function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Payouts (rest-v2 §3.12 AF14/AF15) and the payout run (our extension). A run groups, per
 * affiliate and currency, the APPROVED commissions whose hold has passed plus the adjustments of
 * commissions already paid, and creates one UPCOMING payout per group whose program-currency total
 * reaches the program's `payoutThreshold`. Money moves through a payout provider (`providers`,
 * server/domain/affiliate/payout-providers.ts): the built-in manual one exports batch files for PayPal / Wise
 * and the owner then reports QUEUED, ISSUED or FAILED; a sending adapter reports them itself. ISSUED marks the commissions PAID and emits NEW_PAYOUT_ISSUED; FAILED and REVERSED
 * release them for the next run.
 */
export class Payouts {
  readonly #activity: Activity;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly programs: Programs,
    private readonly participants: Participants,
    private readonly commissions: Commissions,
    private readonly webhooks: Pick<Webhooks, 'emit' | 'listens'>,
    private readonly destinations: () => DestinationSource | null,
    private readonly emails: Pick<ProgramEmails, 'sendProgramEmail'>,
    jobs: Pick<Jobs, 'register'>,
    private readonly audit: AuditLog,
    /** The payout provider adapters; `manual` is built in. */
    readonly providers: PayoutProviders = new PayoutProviders(),
    /** Affiliates' coupon and promotion codes for the generic CSV (billing's reader; none: the column stays empty). */
    private readonly codesOf: ParticipantCodesReader | null = null,
  ) {
    this.#activity = new Activity(db, clock);
    jobs.register(PAYOUT_RUN_JOB, (payload: { programId: string }) => this.scheduledRun(payload.programId));
  }

  /** The monthly run queued by the program's commissions (transactions.ts); a deleted or retyped program is skipped. */
  async scheduledRun(programId: string): Promise<void> {
    const row = await this.db.knex('programs').where({ id: programId }).first();
    if (!row || row.status === 'DELETED' || row.type !== 'AFFILIATE') return;
    await this.run(toProgram(row), { scheduled: true });
  }

  /** AF14 (no participant) and AF15: newest first, cursor and status filter. */
  async list(program: Program, query: PayoutListQuery, idOrEmail?: string): Promise<PayoutList> {
    const participantId = idOrEmail === undefined ? null : (await this.participants.resolve(this.db.knex, program, idOrEmail)).id;
    return this.page(program, query, participantId);
  }

  /**
   * AF17: how many payouts AF14 lists in each status, and without a status (ALL). One grouped read
   * over the program's rows (`payouts_program_created` leads with program_id).
   */
  async counts(program: Program): Promise<PayoutCounts> {
    const rows: Array<{ state: string; n: number | string }> = await this.db.knex('payouts').where('program_id', program.id).groupBy('status').select({ state: 'status' }).count({ n: '*' });
    return countsByState(rows, { UPCOMING: 0, QUEUED: 0, ISSUED: 0, FAILED: 0, REVERSED: 0 }) satisfies PayoutCounts;
  }

  /** One page of the program's payouts, or of one affiliate's. */
  async page(program: Program, query: PayoutListQuery, participantId: string | null): Promise<PayoutList> {
    const knex = this.db.knex;
    const q = knex('payouts').where(participantId ? { participant_id: participantId, program_id: program.id } : { program_id: program.id });
    if (query.status) q.where('status', query.status);
    if (query.nextId) {
      const after = plausibleId(query.nextId) ? await knex('payouts').where({ id: query.nextId, program_id: program.id }).first('created_at', 'id') : undefined;
      if (!after) throw new ValidationError('nextId must be a payout id from the previous page.', [{ field: 'query.nextId', code: 'INVALID', message: 'Not a payout of this program.' }]);
      q.whereRaw('(created_at, id) < (?, ?)', [Number(after.created_at), after.id]);
    }
    const rows = await readRows<PayoutRow>(this.db, knex, q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit + 1));
    const page = rows.slice(0, query.limit);
    return { payouts: page.map(toPayout), limit: query.limit, nextId: rows.length > query.limit ? page[page.length - 1]!.id : null };
  }

  /** The affiliate's payout destination: the destinations service when wired, else the table read directly. */
  private async destination(trx: Knex.Transaction, programId: string, participantId: string): Promise<PayoutDestination | null> {
    const source = this.destinations();
    if (source) return source.current(trx, programId, participantId);
    if (!(await trx.schema.hasTable('payout_destinations'))) return null;
    const row = await trx('payout_destinations').where({ program_id: programId, participant_id: participantId }).first('provider', 'account', 'status', 'country');
    return row ? { provider: row.provider, account: row.account, status: row.status, country: row.country ?? null } : null;
  }

  /**
   * The payout run: one UPCOMING payout per affiliate and currency at or above the threshold.
   * `scheduled`: the monthly job's run, which records each payout it makes as a SYSTEM audit entry
   * (a REST or CLI run is recorded as its operation).
   */
  async run(program: Program, opts: { scheduled?: boolean } = {}): Promise<PayoutRunResponse> {
    const created = await this.db.knex.transaction(async (trx) => {
      await this.commissions.settle(trx, program.id);
      const now = this.clock.now();
      const options = completeDocument('options', program, program.documents.options) as { payoutThreshold?: number | null };
      const threshold = options.payoutThreshold ?? 0;
      const commissions: Array<{ id: string; referrer_id: string; currency_iso: string; amount: number | string; amount_in_campaign_currency: number | string }> = await trx('commissions')
        .where({ program_id: program.id, status: 'APPROVED' })
        .whereNull('payout_id')
        .whereRaw(`created_at + hold_duration * ${DAY_MS} <= ?`, [now])
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .forUpdate()
        .select('id', 'referrer_id', 'currency_iso', 'amount', 'amount_in_campaign_currency');
      const adjustments: Array<{ id: string; referrer_id: string; currency_iso: string; amount: number | string; amount_in_campaign_currency: number | string }> = await trx('commission_adjustments')
        .where({ program_id: program.id })
        .whereNull('payout_id')
        .forUpdate()
        .select('id', 'referrer_id', 'currency_iso', 'amount', 'amount_in_campaign_currency');
      const groups = new Map<string, { referrerId: string; currency: string; amount: number; inCampaign: number; commissionIds: string[]; adjustmentIds: string[] }>();
      const group = (referrerId: string, currency: string) => {
        const key = `${referrerId}|${currency}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { referrerId, currency, amount: 0, inCampaign: 0, commissionIds: [], adjustmentIds: [] }));
        return g;
      };
      for (const c of commissions) {
        const g = group(c.referrer_id, c.currency_iso);
        g.amount += Number(c.amount);
        g.inCampaign += Number(c.amount_in_campaign_currency);
        g.commissionIds.push(c.id);
      }
      for (const a of adjustments) {
        const g = group(a.referrer_id, a.currency_iso);
        g.amount += Number(a.amount);
        g.inCampaign += Number(a.amount_in_campaign_currency);
        g.adjustmentIds.push(a.id);
      }
      const out: PayoutRow[] = [];
      for (const g of groups.values()) {
        if (g.amount <= 0 || g.inCampaign <= 0 || g.inCampaign < threshold) continue;
        const dest = await this.destination(trx, program.id, g.referrerId);
        const row: PayoutRow = {
          id: newId(),
          program_id: program.id,
          participant_id: g.referrerId,
          status: 'UPCOMING',
          currency_iso: g.currency,
          amount: g.amount,
          campaign_currency_iso: program.currencyISO,
          amount_in_campaign_currency: g.inCampaign,
          provider: dest?.provider ?? null,
          account: dest?.account ?? null,
          country: dest?.country ?? null,
          commission_ids: JSON.stringify(g.commissionIds),
          created_at: now,
          queued_at: null,
          issued_at: null,
          failed_at: null,
          reversed_at: null,
        };
        await trx('payouts').insert({ ...row, updated_at: now });
        for (let i = 0; i < g.commissionIds.length; i += 500) {
          await trx('commissions')
            .whereIn('id', g.commissionIds.slice(i, i + 500))
            .update({ payout_id: row.id, paid_amount: trx.ref('amount') as never, provider: row.provider, updated_at: now });
        }
        for (let i = 0; i < g.adjustmentIds.length; i += 500) await trx('commission_adjustments').whereIn('id', g.adjustmentIds.slice(i, i + 500)).update({ payout_id: row.id });
        const affiliate = (await trx('participants').where({ id: g.referrerId }).first()) as ParticipantRow;
        await this.emails.sendProgramEmail(trx, program, affiliate, 'payoutPending', { payoutAmount: money(g.amount, g.currency) });
        if (opts.scheduled) {
          await this.audit.system(trx, {
            teamId: program.teamId,
            source: SYSTEM.payoutRun,
            action: 'system.payout.monthly_run',
            resourceType: 'payouts',
            resourceId: row.id,
            changes: {
              ids: { id: program.id, participantId: g.referrerId },
              fields: { status: { after: 'UPCOMING' }, amount: { after: g.amount }, currencyISO: { after: g.currency }, commissions: { after: g.commissionIds.length }, adjustments: { after: g.adjustmentIds.length }, provider: { after: row.provider } },
            },
          });
        }
        out.push(row);
      }
      return out;
    });
    return { success: true, payoutsCreated: created.length, payouts: created.map(toPayout) };
  }

  /**
   * The owner (or a sending provider's answer) reports what happened to a payout's money; see
   * TRANSITIONS. Same status again changes nothing. A `reason` is kept in the affiliate's activity log.
   */
  async setStatus(program: Program, payoutId: string, status: Exclude<Payout['status'], 'UPCOMING'>, reason?: string): Promise<Payout> {
    if (!this.providers.handlerOf().capabilities.ownerMarks) throw new InvalidStateError(`Payout ${payoutId.slice(0, 64)} is handled by a provider that reports its own statuses.`);
    return this.applyStatus(program, payoutId, status, reason);
  }

  private applyStatus(program: Program, payoutId: string, status: Exclude<Payout['status'], 'UPCOMING'>, reason?: string): Promise<Payout> {
    return this.db.knex.transaction(async (trx) => {
      const row: PayoutRow | undefined = plausibleId(payoutId) ? await trx('payouts').where({ id: payoutId, program_id: program.id }).forUpdate().first() : undefined;
      if (!row) throw new NotFoundError(`No payout ${payoutId.slice(0, 64)} in program ${program.id}.`);
      if (row.status === status) return toPayout(row);
      if (!TRANSITIONS[row.status].includes(status)) throw new InvalidStateError(`Payout ${row.id} is ${row.status}; it cannot become ${status}.`);
      const now = this.clock.now();
      if (reason) {
        await this.#activity.record(trx, { programId: program.id, participantId: row.participant_id, type: 'COMMON', action: 'payout.status', text: `Payout ${row.id} ${status}: ${reason}`, data: { payoutId: row.id, status, reason } });
      }
      const patch: Partial<PayoutRow> = { status };
      if (status === 'QUEUED') {
        patch.queued_at = now;
        await trx('commissions').where({ payout_id: row.id }).update({ payout_queued_at: now, updated_at: now });
      } else if (status === 'ISSUED') {
        patch.issued_at = now;
        if (row.queued_at == null) patch.queued_at = now;
        await trx('commissions').where({ payout_id: row.id }).update({ status: 'PAID', paid_at: now, payout_queued_at: trx.raw('COALESCE(payout_queued_at, ?)', [now]) as never, updated_at: now });
        await trx('participants').where({ id: row.participant_id }).increment('unread_payouts_count', 1);
      } else {
        patch[status === 'FAILED' ? 'failed_at' : 'reversed_at'] = now;
        const released: Array<{ id: string }> = await trx('commissions').where({ payout_id: row.id }).select('id');
        const ids = released.map((r) => r.id);
        // Adjustments made while these commissions sat in the payout are already in their amounts.
        for (let i = 0; i < ids.length; i += 500) await trx('commission_adjustments').whereIn('commission_id', ids.slice(i, i + 500)).where((w) => w.whereNull('payout_id').orWhere('payout_id', row.id)).del();
        await trx('commission_adjustments').where({ payout_id: row.id }).update({ payout_id: null });
        await trx('commissions')
          .where({ payout_id: row.id })
          .update({ status: 'APPROVED', payout_id: null, paid_amount: null, paid_at: null, payout_queued_at: null, provider: null, updated_at: now });
      }
      await trx('payouts').where({ id: row.id }).update({ ...patch, updated_at: now });
      const next = { ...row, ...patch } as PayoutRow;
      if (status === 'ISSUED') {
        const p = (await trx('participants').where({ id: row.participant_id }).first()) as ParticipantRow;
        await this.emails.sendProgramEmail(trx, program, p, 'payoutSentSuccess', { payoutAmount: money(Number(row.amount), row.currency_iso) });
      }
      if (status === 'ISSUED' && (await this.webhooks.listens(trx, program.id, 'NEW_PAYOUT_ISSUED'))) {
        const p = (await trx('participants').where({ id: row.participant_id }).first()) as ParticipantRow;
        const [participant] = await this.participants.forEvents(trx, program, [p]);
        await this.webhooks.emit(trx, program.id, 'NEW_PAYOUT_ISSUED', { campaign: await this.programs.toCampaign(program, trx), participant, payout: toPayout(next) });
      }
      return toPayout(next);
    });
  }

  /** The manual provider's generic CSV (REST PO3): one row per payout (default UPCOMING and QUEUED), oldest first. */
  async exportCsv(program: Program, status?: Payout['status']): Promise<string> {
    return (await this.exportBatch(program, { status })).body;
  }

  /** A provider's batch file of the program's payouts (default UPCOMING and QUEUED; the manual provider's generic CSV). */
  async exportBatch(program: Program, q: { status?: Payout['status']; format?: ExportFormat; currency?: string; provider?: string }): Promise<BatchFile> {
    const format = q.format ?? 'generic';
    const provider = this.providers.exporter(q.provider ?? 'manual', format);
    const lines = await payoutLines(this.db.knex, program, q.status);
    if (this.codesOf && format === 'generic' && lines.length) {
      const codes = await this.codesOf(this.db.knex, program.id, lines.map((l) => l.payout.participant_id));
      for (const l of lines) l.codes = codes.get(l.payout.participant_id) ?? [];
    }
    return provider.exportBatch(lines, { format, currency: q.currency });
  }

  /**
   * Pays one UPCOMING or QUEUED payout through a provider that can send, then applies what the
   * provider answered (UNKNOWN changes nothing). Providers that cannot send (manual) → 406.
   */
  async send(program: Program, payoutId: string, providerName: string): Promise<{ outcome: SendOutcome; payout: Payout }> {
    const provider = this.providers.get(providerName);
    if (!provider.send) throw new InvalidStateError(`The ${provider.name} payout provider cannot send money: export a batch file, pay it, then mark each payout.`);
    const [line] = plausibleId(payoutId) ? await payoutLines(this.db.knex, program, undefined, payoutId) : [];
    if (!line) {
      const exists = plausibleId(payoutId) && (await this.db.knex('payouts').where({ id: payoutId, program_id: program.id }).first('status'));
      if (!exists) throw new NotFoundError(`No payout ${payoutId.slice(0, 64)} in program ${program.id}.`);
      throw new InvalidStateError(`Payout ${payoutId} is ${exists.status}; only UPCOMING and QUEUED payouts can be sent.`);
    }
    const outcome = await provider.send(line);
    const reason = `${provider.name}: ${'reference' in outcome ? `reference ${outcome.reference}` : outcome.reason}`.slice(0, 500);
    if (outcome.outcome === 'UNKNOWN') return { outcome, payout: toPayout(line.payout) };
    if (outcome.outcome === 'QUEUED' && line.payout.status === 'QUEUED') return { outcome, payout: toPayout(line.payout) };
    return { outcome, payout: await this.applyStatus(program, payoutId, outcome.outcome, reason) };
  }

  /** The affiliate summary (participant API): referral revenue, total paid out, upcoming payout, in program-currency minor units. */
  async summary(program: Program, participantId: string): Promise<{ currencyISO: string; referralRevenue: number; totalPaidOut: number; upcomingPayout: number; unreadCommissionsCount: number; unreadPayoutsCount: number }> {
    const knex = this.db.knex;
    await this.commissions.settle(knex, program.id);
    const [me, money] = await Promise.all([
      knex('participants').where({ id: participantId, program_id: program.id }).first('revenue_total', 'unread_commissions_count', 'unread_payouts_count'),
      payoutMoney(this.db, participantId, this.clock.now()),
    ]);
    return {
      currencyISO: program.currencyISO,
      referralRevenue: Number(me?.revenue_total ?? 0),
      ...money,
      unreadCommissionsCount: Number(me?.unread_commissions_count ?? 0),
      unreadPayoutsCount: Number(me?.unread_payouts_count ?? 0),
    };
  }
}
