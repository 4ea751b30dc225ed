// What the Stripe and Paddle inbound handlers do alike: apply a claimed event and settle its claim,
// record a sale, apply the refunds that waited for their sale, and record a subscription's end.
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { AppError, ConflictError, ValidationError } from '../../errors.ts';
import type { Program } from '../programs/programs.ts';
import type { ParticipantRow } from '../participants/model.ts';
import type { ReferralTriggers } from '../referral/referral-triggers.ts';
import type { Transactions } from '../affiliate/transactions.ts';
import { matchingTransactions } from '../affiliate/transaction-refunds.ts';
import type { BillingConnections, EventResult } from './billing-connections.ts';
import { creditChange } from '../referral/referral-triggers.ts';
import { SYSTEM, type AuditLog, type AuditWrite, type BillingChange, type SystemAction } from '../platform/audit.ts';
import type { Knex } from 'knex';
import type { TransactionRecorded } from '../../../shared/schemas/transaction.ts';
import type { RefundApplied } from '../affiliate/transaction-refunds.ts';
import type { Participant } from '../../../shared/schemas/participant.ts';
import type { TriggerReferralResponse } from '../../../shared/schemas/reward.ts';

/**
 * Who an inbound event's changes are recorded as in the audit trail (issue #35): the provider's
 * webhook as a SYSTEM actor, the event that caused them, and its sender's address. Made once a
 * delivery is verified and claimed, so a refused signature or a re-delivery records nothing.
 */
export interface InboundAudit {
  log: AuditLog;
  provider: 'stripe' | 'paddle';
  event: { id: string; type: string };
  from: { ip: string | null; userAgent: string | null };
}

/** What one change of an inbound event did, for its entry; null: it changed nothing (no entry). */
type Described = { resourceType: string; resourceId: string | null; ids?: Record<string, string>; fields: Record<string, { before?: unknown; after: unknown }> } | null;

/**
 * The audit write of one change an inbound event makes (`billing.<provider>.<what>`), handed to the
 * domain write so the entry is the last statement of the change's own transaction.
 */
export function inboundEntry<R>(a: InboundAudit, program: Program, what: BillingChange, describe: (trx: Knex.Transaction, result: R) => Promise<Described> | Described): AuditWrite {
  return async (trx, result) => {
    // Never outside the change's transaction: an entry alone would record a change that may not exist.
    if (!trx) return;
    const d = await describe(trx, result as R);
    if (!d) return;
    await a.log.system(trx, {
      teamId: program.teamId,
      source: a.provider === 'stripe' ? SYSTEM.stripe : SYSTEM.paddle,
      action: `billing.${a.provider}.${what}` as SystemAction,
      resourceType: d.resourceType,
      resourceId: d.resourceId,
      changes: { ids: { id: program.id, ...d.ids }, fields: d.fields, event: a.event },
      ip: a.from.ip,
      userAgent: a.from.userAgent,
    });
  };
}

/** The entry of a new participant an inbound sale added (its referral or code named a new customer); an existing email changes nothing. */
export function customerAddEntry(a: InboundAudit, program: Program, referrerId: string): AuditWrite {
  return inboundEntry<Participant>(a, program, 'customer_add', (_trx, added) =>
    added.isNew
      ? { resourceType: 'participants', resourceId: added.id, fields: { email: { after: added.email }, referredBy: { after: referrerId }, firstName: { after: added.firstName ?? null }, lastName: { after: added.lastName ?? null } } }
      : null,
  );
}

/** The entry of a refund, a cancelled refund or a chargeback applied through AF9 (`what`: refund, refund_undone, chargeback …). */
export function refundEntry(a: InboundAudit, program: Program, what: BillingChange, customerId: string, body: Record<string, unknown>): AuditWrite {
  return inboundEntry<RefundApplied>(a, program, what, (_trx, r) => {
    const fields: Record<string, { before?: unknown; after: unknown }> = { amountRefunded: { before: r.refundedBefore, after: r.refundedAfter }, amendmentType: { after: r.amendmentType } };
    for (const k of ['refundId', 'refundAmount', 'refundStatus', 'currency'] as const) if (body[k] != null) fields[k] = { after: body[k] };
    if (r.commissions.length) fields.commissions = { before: r.commissions.map((c) => c.before), after: r.commissions.map((c) => c.after) };
    return { resourceType: 'transactions', resourceId: r.transactionId, ids: { participantId: customerId }, fields };
  });
}

/**
 * Applies a freshly claimed event and settles its claim with the result. A ConflictError means another
 * event of the same new customer added them first (the billing systems send several at once): once
 * more, `apply` finds them. A refusal of ours (an AppError below 500) settles it REJECTED with its
 * message; anything else releases the claim, so the billing system's retry applies the event again,
 * and is thrown.
 */
export async function applyClaimed(connections: BillingConnections, claimId: string, apply: () => Promise<EventResult>): Promise<{ received: true; outcome: string }> {
  let result: EventResult;
  try {
    try {
      result = await apply();
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      result = await apply();
    }
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) {
      await connections.release(claimId);
      throw err;
    }
    result = { outcome: 'REJECTED', reason: err.message };
  }
  await connections.settle(claimId, result);
  return { received: true, outcome: result.outcome };
}

/** A paid sale as either billing system describes it, in the terms AF8 records. */
export interface InboundSale {
  /** Minor units, tax included. */
  amount: number;
  tax: number;
  currency: string;
  paidAt: number | null;
  /** The billing system's customer (cus_…, ctm_…): later sales of it follow this one. */
  customerRef: string | null;
  subscriptionRef: string | null;
  /** When the billing system issued it (for the subscription-end rule). */
  issuedAt: number | null;
  /** The AF8 identifiers the sale is recorded under (externalId, invoiceId, paymentIntentId, chargeId). */
  ids: Record<string, string>;
}

/** The participant a sale goes to; `via` says how (for the log), `code` the code that attributed it. */
export interface SaleCustomer {
  customer: ParticipantRow;
  via?: string;
  code?: { id: string; code: string };
}

/** What `recordSale` needs of the engines. */
export interface SaleRecorder {
  db: Db;
  clock: Clock;
  transactions: Transactions;
  triggers: ReferralTriggers;
  /** The event being applied, for the audit entries of the changes it makes. */
  audit: InboundAudit;
}

/**
 * Records one paid sale of a connection, the one path both billing systems take: a sale of a
 * subscription that ended before it was issued is IGNORED (`endedReason`); otherwise the customer
 * (`customerOf`: the provider's own attribution order) is remembered as the billing customer's
 * participant, a payment of zero records nothing more, a referral program's trigger runs, and an
 * affiliate program's sale goes through AF8 (DUPLICATE when one of its identifiers was seen), after
 * which the refunds that waited for it are applied (`applyDeferred`).
 */
export async function recordSale(
  r: SaleRecorder,
  connectionId: string,
  program: Program,
  sale: InboundSale,
  customerOf: () => Promise<SaleCustomer | { unattributed: string }>,
  endedReason: (subscriptionRef: string) => string,
  applyDeferred: (ids: Record<string, string>) => Promise<void>,
): Promise<EventResult> {
  const knex = r.db.knex;
  if (sale.subscriptionRef && sale.issuedAt != null) {
    const ended = await knex('billing_subscriptions').where({ connection_id: connectionId, subscription_ref: sale.subscriptionRef }).first('ended_at');
    if (ended && Number(ended.ended_at) < sale.issuedAt) return { outcome: 'IGNORED', reason: endedReason(sale.subscriptionRef) };
  }
  const found = await customerOf();
  if ('unattributed' in found) return { outcome: 'UNATTRIBUTED', reason: found.unattributed };
  const customer = found.customer;
  const by = (message: string) => (found.via ? `${found.via}. ${message}` : message);
  if (sale.customerRef) {
    await knex('billing_customers')
      .insert({ connection_id: connectionId, customer_ref: sale.customerRef, participant_id: customer.id, created_at: r.clock.now() })
      .onConflict(['connection_id', 'customer_ref'])
      .ignore();
  }
  if (sale.amount <= 0) return { outcome: 'IGNORED', reason: 'Nothing was paid (a free trial or a 100 % discount); the customer is remembered for the renewals.', participantId: customer.id };

  if (program.type === 'REFERRAL') {
    try {
      const before = customer.referral_status;
      const entry = inboundEntry<TriggerReferralResponse>(r.audit, program, 'sale', (_trx, res) => {
        const after = creditChange(res);
        if (!after) return null;
        return { resourceType: 'participants', resourceId: customer.id, fields: { referralStatus: { before, after }, referredBy: { after: customer.referred_by }, amount: { after: sale.amount }, currency: { after: sale.currency }, ...saleIdFields(sale.ids) } };
      });
      const res = await r.triggers.trigger(program, customer.id, undefined, undefined, entry);
      return { outcome: res.success ? 'ACCEPTED' : 'IGNORED', reason: by(res.message ?? 'Referral credit awarded to the referrer.'), participantId: customer.id };
    } catch (err) {
      if (err instanceof ValidationError && (err.errors ?? []).some((e) => e.code === 'NOT_REFERRED')) {
        return { outcome: 'UNATTRIBUTED', reason: `Participant ${customer.id} was not referred, so no referral is credited.`, participantId: customer.id };
      }
      throw err;
    }
  }

  const idList = Object.entries(sale.ids).map(([kind, value]) => ({ kind, value }));
  const taxAmount = Math.min(sale.tax, sale.amount) || null;
  const entry = inboundEntry<TransactionRecorded>(r.audit, program, 'sale', async (trx, out) => {
    if (out.duplicate) return null;
    const txId = [...(await matchingTransactions(trx, program.id, idList)).keys()][0] ?? null;
    const commissions: Array<{ id: string; referrer_id: string; amount: number | string; currency_iso: string; status: string }> = txId
      ? await trx('commissions').where({ transaction_id: txId }).orderBy('created_at').select('id', 'referrer_id', 'amount', 'currency_iso', 'status')
      : [];
    return {
      resourceType: 'transactions',
      resourceId: txId,
      ids: { participantId: customer.id },
      fields: {
        grossAmount: { after: sale.amount },
        taxAmount: { after: taxAmount },
        currency: { after: sale.currency },
        paidAt: { after: sale.paidAt },
        ...saleIdFields(sale.ids),
        commissions: { after: commissions.map((c) => ({ id: c.id, referrerId: c.referrer_id, amount: Number(c.amount), currency: c.currency_iso, status: c.status })) },
      },
    };
  });
  const recorded = await r.transactions.record(program, customer.id, { currency: sale.currency, grossAmount: sale.amount, taxAmount, paidAt: sale.paidAt, ...sale.ids }, { audit: entry });
  const tx = [...(await matchingTransactions(knex, program.id, idList)).keys()][0] ?? null;
  if (recorded.duplicate) return { outcome: 'DUPLICATE', reason: recorded.message, participantId: customer.id, transactionId: tx };
  if (tx && found.code) {
    // The commissions export says which code attributed the sale (docs/integrations.md "Codes").
    await knex('billing_sale_codes')
      .insert({ transaction_id: tx, program_id: program.id, code_id: found.code.id, code: found.code.code, created_at: r.clock.now() })
      .onConflict('transaction_id')
      .ignore();
  }
  if (tx) await applyDeferred(sale.ids);
  return { outcome: 'ACCEPTED', reason: by(recorded.message), participantId: customer.id, transactionId: tx };
}

/** A sale's identifiers (externalId, invoiceId …) as entry fields. */
function saleIdFields(ids: Record<string, string>): Record<string, { after: string }> {
  return Object.fromEntries(Object.entries(ids).map(([k, v]) => [k, { after: v }]));
}

/**
 * Refunds that arrived before their sale, applied now, oldest first, each settling its own log row
 * (one already reported UNMATCHED too, saying so).
 * `parse` reads a stored refund (null: not this sale's, or unreadable); a refusal of ours is REJECTED,
 * anything else is thrown so the sale's delivery fails and the provider retries.
 */
export async function applyDeferredRefunds<T>(
  db: Db,
  connections: BillingConnections,
  connectionId: string,
  parse: (pending: Record<string, unknown>) => T | null,
  apply: (refund: T, eventRowId: string) => Promise<EventResult>,
): Promise<void> {
  // UNMATCHED ones too: a sale that arrives after its refund was reported still takes it (docs/decisions.md).
  const rows = await db.knex('billing_events').where({ connection_id: connectionId }).whereIn('outcome', ['DEFERRED', 'UNMATCHED']).orderBy('event_created_at').select('id', 'pending', 'outcome');
  for (const r of rows) {
    let refund: T | null;
    try {
      refund = parse(JSON.parse(r.pending));
    } catch {
      continue;
    }
    if (refund === null) continue;
    let result: EventResult;
    try {
      result = await apply(refund, r.id);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      result = { outcome: 'REJECTED', reason: err.message };
    }
    if (r.outcome === 'UNMATCHED' && result.outcome !== 'DEFERRED') {
      result = { ...result, reason: `Its sale arrived after this refund was reported as never matching one; applied now: ${result.reason ?? ''}` };
    }
    await connections.settle(r.id, result);
  }
}

/** Records that a subscription ended (once), with the participant its customer belongs to when known. */
export async function recordSubscriptionEnd(
  db: Db,
  clock: Clock,
  connectionId: string,
  end: { subscriptionRef: string; customerRef?: string | null; endedAt?: number | null },
  reason: string,
  audit: { a: InboundAudit; program: Program },
): Promise<EventResult> {
  const now = clock.now();
  const endedAt = end.endedAt ?? now;
  const entry = inboundEntry<null>(audit.a, audit.program, 'subscription_end', () => ({ resourceType: 'subscriptions', resourceId: end.subscriptionRef, fields: { endedAt: { after: endedAt }, customerRef: { after: end.customerRef ?? null } } }));
  await db.knex.transaction(async (trx) => {
    // Once: a second end of the same subscription changes nothing and records nothing.
    const added = await trx('billing_subscriptions')
      .insert({ connection_id: connectionId, subscription_ref: end.subscriptionRef, ended_at: endedAt, created_at: now })
      .onConflict(['connection_id', 'subscription_ref'])
      .ignore()
      .returning('subscription_ref');
    if (added.length) await entry(trx, null);
  });
  const known = end.customerRef ? await db.knex('billing_customers').where({ connection_id: connectionId, customer_ref: end.customerRef }).first('participant_id') : null;
  return { outcome: 'ACCEPTED', reason, participantId: known?.participant_id ?? null };
}
