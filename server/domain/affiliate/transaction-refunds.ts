import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import { newId } from '../../crypto.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { insertRow } from '../../db/rows.ts';
import { convertMinor } from '../platform/exchange-rates.ts';
import { counts, proportion, type CommissionRow } from './commissions.ts';
import { TRANSACTION_ID_FIELDS, type TransactionIdField, type TransactionRefund, type TransactionRefunded } from '../../../shared/schemas/transaction.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { AuditWrite } from '../platform/audit.ts';

/** A commission as an amendment's audit entry shows it, before or after. */
interface CommissionState {
  id: string;
  status: string;
  amount: number;
}

/** What an applied amendment changed, given to its audit write (an inbound webhook's SYSTEM entry). */
export interface RefundApplied {
  transactionId: string;
  amendmentType: 'REFUND' | 'CHARGEBACK';
  refundedBefore: number;
  refundedAfter: number;
  commissions: Array<{ before: CommissionState; after: CommissionState }>;
}

/** The identifiers a request names, as (kind, value) pairs. */
export function identifiersOf(body: Partial<Record<TransactionIdField, string | null | undefined>>): Array<{ kind: TransactionIdField; value: string }> {
  return TRANSACTION_ID_FIELDS.filter((k) => body[k] != null).map((k) => ({ kind: k, value: body[k]! }));
}

/** Transaction rows matching any of the identifiers, with the kinds that matched. */
export async function matchingTransactions(q: Knex | Knex.Transaction, programId: string, ids: Array<{ kind: string; value: string }>): Promise<Map<string, string[]>> {
  const rows: Array<{ kind: string; transaction_id: string }> = await q('transaction_keys')
    .where('program_id', programId)
    .where((w) => {
      for (const { kind, value } of ids) w.orWhere((o) => o.where({ kind, value }));
    })
    .select('kind', 'transaction_id');
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.transaction_id, [...(out.get(r.transaction_id) ?? []), r.kind]);
  return out;
}


type Announce = (trx: Knex.Transaction, program: Program, affiliateId: string, rows: CommissionRow[]) => Promise<void>;

interface RefundRow {
  refund_id: string;
  amount: number | string;
  status: 'ACTIVE' | 'CANCELED';
}

/** 409 for refund history that is missing or contradicts what was recorded (rest-v2 §3.12 AF9, PY+). */
function history(message: string): ConflictError {
  return new ConflictError(`${message} Nothing was changed.`, ERROR_CODES.REFUND_HISTORY_CONFLICT);
}

/**
 * Refunds, partial refunds, refund cancellations and chargebacks (AF9). The sale's cumulative
 * refunded amount R is reconciled from the request and the recorded refunds (by `refundId`); each of
 * the sale's commissions is then entitled to `original × (gross − R) / gross`, rounded half-up.
 * Unpaid commissions take that amount directly (PENDING at zero → DELETED, APPROVED at zero →
 * REVERSED, restored when a cancellation lifts them again). Commissions already in a payout keep
 * what was paid; the difference becomes an adjustment that the next payout carries.
 */
export class Refunds {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly participants: Participants,
    private readonly announce: Announce,
  ) {}

  /** Applies one amendment; `body` is already validated. `audit` writes its entry in the amendment's transaction, given a `RefundApplied`. */
  async apply(program: Program, idOrEmail: string, body: TransactionRefund, audit?: AuditWrite): Promise<TransactionRefunded> {
    const type = body.amendmentType ?? 'REFUND';
    return this.db.knex.transaction(async (trx) => {
      const customer = await this.participants.resolve(trx, program, idOrEmail, { lock: true });
      const matches = await matchingTransactions(trx, program.id, identifiersOf(body));
      const txIds = [...matches.keys()];
      const candidates = txIds.length ? await trx('affiliate_transactions').whereIn('id', txIds).where({ customer_id: customer.id }).forUpdate() : [];
      if (candidates.length === 0) {
        return { success: false, notFound: true, amendmentType: type, matched: 0, reversed: 0, adjusted: 0, deleted: 0, matchingCommissionIds: [], message: 'No recorded transaction of this participant matches these identifiers.' };
      }
      if (candidates.length > 1) throw history('These identifiers name different recorded transactions; send the identifiers of one sale.');
      const tx = candidates[0];
      if (body.currency && body.currency !== tx.currency_iso) {
        throw new ValidationError(`The sale was recorded in ${tx.currency_iso}.`, [{ field: 'currency', code: 'INVALID', message: `The sale was recorded in ${tx.currency_iso}.` }]);
      }
      const gross = Number(tx.gross_amount);
      const before = Number(tx.amount_refunded);
      const refunds: RefundRow[] = await trx('transaction_refunds').where({ transaction_id: tx.id }).forUpdate();
      const now = this.clock.now();
      const refunded = await this.reconcile(trx, tx.id, gross, before, refunds, body, type, now);
      if (refunded > gross) {
        throw new ValidationError(`The refunded total (${refunded}) cannot exceed the sale's gross amount (${gross}).`, [{ field: 'amountRefunded', code: 'TOO_BIG', message: `At most ${gross}.` }]);
      }
      await trx('affiliate_transactions').where({ id: tx.id }).update({ amount_refunded: refunded, amendment_type: type, updated_at: now });
      const { changes, ...out } = await this.rescale(trx, program, tx, gross, refunded, before, now);
      await audit?.(trx, { transactionId: tx.id, amendmentType: type, refundedBefore: before, refundedAfter: refunded, commissions: changes } satisfies RefundApplied);
      const what = refunded === before ? 'No change to the refunded total' : `Refunded total is now ${refunded} of ${gross}`;
      return {
        success: true,
        amendmentType: type,
        ...out,
        message: `${what}; ${out.reversed} reversed, ${out.adjusted} adjusted, ${out.deleted} deleted.`,
      };
    });
  }

  /**
   * The new cumulative refunded amount. Refunds recorded with a `refundId` are the history a
   * cancellation needs; cumulative totals reported without ids are "untracked" and make the history
   * incomplete until a `refundHistoryComplete` confirmation whose total equals the recorded refunds.
   */
  private async reconcile(trx: Knex.Transaction, txId: string, gross: number, before: number, refunds: RefundRow[], body: TransactionRefund, type: 'REFUND' | 'CHARGEBACK', now: number): Promise<number> {
    const active = (rows: RefundRow[]) => rows.filter((r) => r.status === 'ACTIVE').reduce((n, r) => n + Number(r.amount), 0);
    const cancels = body.refundStatus === 'canceled' || body.refundStatus === 'failed';
    const existing = body.refundId != null ? refunds.find((r) => r.refund_id === body.refundId) : undefined;
    let next: number;
    if (type === 'CHARGEBACK') {
      next = gross;
    } else if (cancels) {
      if (!existing) throw history(`No refund ${JSON.stringify(body.refundId)} was recorded for this sale, so it cannot be cancelled; record refunds with refundId and refundAmount.`);
      if (existing.status === 'CANCELED') {
        next = before;
      } else {
        if (body.refundAmount != null && body.refundAmount !== Number(existing.amount)) throw history(`Refund ${existing.refund_id} was recorded as ${existing.amount}, not ${body.refundAmount}.`);
        if (before > active(refunds) && body.refundHistoryComplete !== true) {
          throw history('The refund history of this sale is incomplete (refunded totals were reported without refundId); record every refund with its refundId and amount, then confirm with refundHistoryComplete.');
        }
        existing.status = 'CANCELED';
        await trx('transaction_refunds').where({ transaction_id: txId, refund_id: existing.refund_id }).update({ status: 'CANCELED', updated_at: now });
        next = body.refundHistoryComplete === true ? active(refunds) : before - Number(existing.amount);
      }
      if (body.amountRefunded != null && body.amountRefunded !== next) throw history(`After this cancellation the refunded total is ${next}, not ${body.amountRefunded}.`);
    } else if (body.refundId != null) {
      if (existing) {
        if (existing.status === 'CANCELED') throw history(`Refund ${existing.refund_id} was cancelled; a new refund needs a new refundId.`);
        if (body.refundAmount != null && body.refundAmount !== Number(existing.amount)) throw history(`Refund ${existing.refund_id} was recorded as ${existing.amount}, not ${body.refundAmount}.`);
        next = Math.max(before, body.amountRefunded ?? before);
      } else {
        const amount = body.refundAmount ?? (body.amountRefunded != null ? body.amountRefunded - before : gross - before);
        if (amount <= 0) throw history(`Refund ${body.refundId} adds nothing to the refunded total (${before}); send refundAmount.`);
        refunds.push({ refund_id: body.refundId, amount, status: 'ACTIVE' });
        await insertRow(this.db, trx, 'transaction_refunds', { transaction_id: txId, refund_id: body.refundId, amount, status: 'ACTIVE', created_at: now, updated_at: now });
        // With amountRefunded unchanged this records a refund already counted in the total (filling in history).
        next = body.amountRefunded ?? before + amount;
        const floor = Math.max(before, active(refunds));
        if (next < floor) throw history(`amountRefunded (${next}) is lower than the refunds recorded so far (${floor}).`);
      }
    } else {
      next = body.amountRefunded ?? gross;
      if (next < before) throw history(`The refunded total was ${before}; lowering it needs the refund's refundId with refundStatus "canceled".`);
    }
    if (body.refundHistoryComplete === true && type !== 'CHARGEBACK') {
      const tracked = active(refunds);
      if (body.amountRefunded !== tracked) throw history(`refundHistoryComplete: the recorded refunds add up to ${tracked}, not ${body.amountRefunded}.`);
      if (!cancels && tracked < before) throw history(`refundHistoryComplete: the refunded total reported earlier (${before}) exceeds the recorded refunds (${tracked}).`);
      next = tracked;
    }
    return next;
  }

  /** Gives every commission of the sale its entitlement after refunds; returns the response counters. */
  private async rescale(trx: Knex.Transaction, program: Program, tx: Record<string, any>, gross: number, refunded: number, before: number, now: number) {
    const rows: CommissionRow[] = await trx('commissions').where({ transaction_id: tx.id }).orderBy('created_at').forUpdate();
    const out = { matched: rows.length, reversed: 0, adjusted: 0, deleted: 0, matchingCommissionIds: rows.map((r) => r.id) };
    const changed: CommissionRow[] = [];
    const changes: RefundApplied['commissions'] = [];
    let totalDelta = 0;
    for (const c of rows) {
      // An owner's deletion is final; a refund's deletion is remembered in pre_refund_status.
      if (c.status === 'DELETED' && c.pre_refund_status == null) continue;
      const entitled = proportion(Number(c.original_amount), gross - refunded, gross);
      const toCampaign = (n: number) => (c.currency_iso === c.campaign_currency_iso ? n : convertMinor(n, c.currency_iso, c.campaign_currency_iso, Number(c.exchange_rate)));
      const patch: Partial<CommissionRow> = {};
      if (c.status === 'PAID' || c.payout_id != null) {
        // In a payout: what was paid stands; the difference travels with the next payout.
        const adj = await trx('commission_adjustments').where({ commission_id: c.id }).sum({ total: 'amount' }).first();
        const delta = entitled - (Number(c.paid_amount ?? c.amount) + Number(adj?.total ?? 0));
        if (delta !== 0) {
          await insertRow(this.db, trx, 'commission_adjustments', {
            id: newId(),
            program_id: program.id,
            commission_id: c.id,
            referrer_id: c.referrer_id,
            currency_iso: c.currency_iso,
            amount: delta,
            amount_in_campaign_currency: toCampaign(delta),
            payout_id: null,
            created_at: now,
          });
          out.adjusted++;
        }
        if (entitled !== Number(c.amount)) Object.assign(patch, { amount: entitled, amount_in_campaign_currency: toCampaign(entitled) });
      } else if (entitled === 0) {
        if (c.status === 'PENDING') {
          Object.assign(patch, { status: 'DELETED', pre_refund_status: 'PENDING', amount: 0, amount_in_campaign_currency: 0 });
          out.deleted++;
        } else if (c.status === 'APPROVED') {
          Object.assign(patch, { status: 'REVERSED', pre_refund_status: 'APPROVED', reversed_at: now, amount: 0, amount_in_campaign_currency: 0 });
          out.reversed++;
        }
      } else if (c.pre_refund_status != null && (c.status === 'REVERSED' || c.status === 'DELETED')) {
        Object.assign(patch, { status: c.pre_refund_status, pre_refund_status: null, reversed_at: null, amount: entitled, amount_in_campaign_currency: toCampaign(entitled) });
        out.adjusted++;
      } else if (entitled !== Number(c.amount)) {
        Object.assign(patch, { amount: entitled, amount_in_campaign_currency: toCampaign(entitled) });
        out.adjusted++;
      }
      if (Object.keys(patch).length === 0) continue;
      // The team digest's COMMISSION_ADJUSTED window (updated_at also moves on approvals and payouts).
      if ('amount' in patch) Object.assign(patch, { adjusted_at: now });
      const next = { ...c, ...patch, updated_at: now } as CommissionRow;
      await trx('commissions').where({ id: c.id }).update({ ...patch, updated_at: now });
      totalDelta += (counts(next.status) ? Number(next.amount_in_campaign_currency) : 0) - (counts(c.status) ? Number(c.amount_in_campaign_currency) : 0);
      changed.push(next);
      changes.push({ before: { id: c.id, status: c.status, amount: Number(c.amount) }, after: { id: c.id, status: next.status, amount: Number(next.amount) } });
    }
    if (tx.referrer_id) {
      const revenueDelta = -proportion(Number(tx.gross_amount_in_campaign_currency), refunded - before, gross);
      if (totalDelta || revenueDelta) await this.participants.adjustCounters(trx, program.id, tx.referrer_id, { commission_total: totalDelta, revenue_total: revenueDelta });
      if (changed.length) await this.announce(trx, program, tx.referrer_id, changed);
    }
    return { ...out, changes };
  }
}
