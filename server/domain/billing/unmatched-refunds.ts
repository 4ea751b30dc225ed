// Refunds whose sale never arrived (issue #35): a refund that waited (DEFERRED) 30 days for its sale
// is reported in the connection's log as UNMATCHED, with the reason, instead of being pruned
// silently. It stays in the log 30 days from that report, and a sale that arrives meanwhile still
// takes it (inbound-common.ts `applyDeferredRefunds`).
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Jobs } from '../platform/jobs.ts';
import { formatMoney } from '../platform/exchange-rates.ts';
import { SYSTEM, type AuditLog } from '../platform/audit.ts';

const HOUR = 3_600_000;
/** How long a refund waits for its sale before it is reported UNMATCHED (the log's own 30 days). */
export const UNMATCHED_AFTER_MS = 30 * 24 * HOUR;

/** What the log shows of a waiting refund: its id (when it has one), amount, currency and the sale it names. */
export interface PendingRefund {
  refundId: string | null;
  amount: number;
  currency: string;
  saleRef: string | null;
}

const s = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * Reads a DEFERRED row's stored facts (either billing system's shape: Stripe's refund or charge,
 * Paddle's adjustment); null when they are not a refund's (or unreadable).
 */
export function pendingRefund(pending: unknown): PendingRefund | null {
  let p: Record<string, unknown>;
  try {
    p = typeof pending === 'string' ? JSON.parse(pending) : (pending as Record<string, unknown>);
  } catch {
    return null;
  }
  if (!p || typeof p !== 'object' || typeof p.currency !== 'string') return null;
  const ids = (p.ids && typeof p.ids === 'object' ? p.ids : {}) as Record<string, unknown>;
  const currency = p.currency.toUpperCase();
  // Paddle: one adjustment of one transaction.
  if (s(p.adjustmentId)) return { refundId: s(p.adjustmentId), amount: Number(p.amount), currency, saleRef: s(p.transactionId) };
  const saleRef = s(ids.chargeId) ?? s(ids.paymentIntentId) ?? s(ids.invoiceId);
  // Stripe refund.created: one refund.
  if (s(p.refundId)) return { refundId: s(p.refundId), amount: Number(p.amount), currency, saleRef };
  // Stripe charge.refunded: the charge's refunded total, one refund id when it lists exactly one.
  const refunds = Array.isArray(p.refunds) ? (p.refunds as Array<Record<string, unknown>>) : [];
  if (p.amountRefunded == null) return null;
  return { refundId: refunds.length === 1 ? s(refunds[0]!.refundId) : null, amount: Number(p.amountRefunded), currency, saleRef };
}

/** The log's sentence for a refund that never met its sale. */
export function unmatchedReason(r: PendingRefund | null, receivedAt: number): string {
  const what = r ? `${r.refundId ? `Refund ${r.refundId}` : `The refund of ${r.saleRef ?? 'an unknown charge'}`} of ${safeMoney(r.amount, r.currency)}` : 'This refund';
  const on = new Date(receivedAt).toISOString().slice(0, 10);
  return `${what} (received ${on}) never matched a sale within 30 days: no commission was reversed. If it refunds a sale an affiliate referred, adjust that commission by hand; if its sale still arrives, the refund is applied then.`;
}

function safeMoney(amount: number, currency: string): string {
  try {
    return formatMoney(amount, currency);
  } catch {
    return `${amount} ${currency} (minor units)`;
  }
}

/**
 * The hourly report of refunds that waited too long: each DEFERRED row older than 30 days becomes
 * UNMATCHED with its reason, and its time in the log starts again, so the owner sees it at the top
 * of the log and on the program's home (the maintenance prune never deletes a DEFERRED row).
 */
export class UnmatchedRefunds {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    jobs: Jobs,
    private readonly audit: AuditLog,
  ) {
    this.schedule = jobs.registerPeriodic('billing.unmatched-refunds', HOUR, 'unmatched-refunds', () => this.report());
  }

  /** Makes sure the run for the hour containing `at` is queued. */
  readonly schedule: (at?: number) => Promise<void>;

  /** Reports every refund that waited past its 30 days, each with its SYSTEM audit entry in the same transaction; answers how many. */
  async report(): Promise<number> {
    const now = this.clock.now();
    const k = this.db.knex;
    const rows: Array<{ id: string; pending: string | null; received_at: number | string; provider_event_id: string; type: string; provider: string; program_id: string; team_id: string }> = await k('billing_events as e')
      .join('billing_connections as c', 'c.id', 'e.connection_id')
      .join('programs as p', 'p.id', 'c.program_id')
      .where('e.outcome', 'DEFERRED')
      .where('e.received_at', '<', now - UNMATCHED_AFTER_MS)
      .select('e.id', 'e.pending', 'e.received_at', 'e.provider_event_id', 'e.type', 'c.provider', 'c.program_id', 'p.team_id');
    let n = 0;
    for (const r of rows) {
      const refund = pendingRefund(r.pending);
      const reason = unmatchedReason(refund, Number(r.received_at)).slice(0, 500);
      await k.transaction(async (trx) => {
        // Only a row still DEFERRED: a sale that took it meanwhile wins.
        const moved = await trx('billing_events').where({ id: r.id, outcome: 'DEFERRED' }).update({ outcome: 'UNMATCHED', reason, received_at: now, updated_at: now });
        if (!moved) return;
        n += moved;
        await this.audit.system(trx, {
          teamId: r.team_id,
          source: SYSTEM.unmatchedRefunds,
          action: 'system.billing.unmatched_refund',
          resourceType: 'billingEvents',
          resourceId: r.provider_event_id,
          changes: {
            ids: { id: r.program_id, provider: String(r.provider).toLowerCase(), eventType: r.type },
            fields: {
              outcome: { before: 'DEFERRED', after: 'UNMATCHED' },
              receivedAt: { before: Number(r.received_at), after: now },
              ...(refund ? { refundId: { after: refund.refundId }, amount: { after: refund.amount }, currency: { after: refund.currency }, saleRef: { after: refund.saleRef } } : {}),
            },
          },
        });
      });
    }
    return n;
  }
}
