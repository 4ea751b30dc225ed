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
      const res = await r.triggers.trigger(program, customer.id, undefined);
      return { outcome: res.success ? 'ACCEPTED' : 'IGNORED', reason: by(res.message ?? 'Referral credit awarded to the referrer.'), participantId: customer.id };
    } catch (err) {
      if (err instanceof ValidationError && (err.errors ?? []).some((e) => e.code === 'NOT_REFERRED')) {
        return { outcome: 'UNATTRIBUTED', reason: `Participant ${customer.id} was not referred, so no referral is credited.`, participantId: customer.id };
      }
      throw err;
    }
  }

  const recorded = await r.transactions.record(program, customer.id, {
    currency: sale.currency,
    grossAmount: sale.amount,
    taxAmount: Math.min(sale.tax, sale.amount) || null,
    paidAt: sale.paidAt,
    ...sale.ids,
  });
  const idList = Object.entries(sale.ids).map(([kind, value]) => ({ kind, value }));
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
): Promise<EventResult> {
  const now = clock.now();
  await db.knex('billing_subscriptions')
    .insert({ connection_id: connectionId, subscription_ref: end.subscriptionRef, ended_at: end.endedAt ?? now, created_at: now })
    .onConflict(['connection_id', 'subscription_ref'])
    .ignore();
  const known = end.customerRef ? await db.knex('billing_customers').where({ connection_id: connectionId, customer_ref: end.customerRef }).first('participant_id') : null;
  return { outcome: 'ACCEPTED', reason, participantId: known?.participant_id ?? null };
}
