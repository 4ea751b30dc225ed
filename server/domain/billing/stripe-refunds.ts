import type Stripe from 'stripe';
import { stripeSdk } from './sdks.ts';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program } from '../programs/programs.ts';
import type { Transactions } from '../affiliate/transactions.ts';
import { matchingTransactions } from '../affiliate/transaction-refunds.ts';
import type { BillingConnections, EventResult } from './billing-connections.ts';
import { applyDeferredRefunds, refundEntry, type InboundAudit } from './inbound-common.ts';
import type { InvoicePaymentFacts, OneRefund, RefundFacts, RefundOneFacts, RefundUndoneFacts, SaleIds } from './stripe-facts.ts';

const idList = (ids: SaleIds) => Object.entries(ids).map(([kind, value]) => ({ kind, value: value as string }));

/** A connection as the handlers need it: its row id and the optional restricted API key for look-ups. */
export interface Conn {
  id: string;
  apiKey: string | null;
}

/** The sale a refund belongs to, and the identifiers that found it. */
interface SaleMatch {
  ids: SaleIds;
  matches: Map<string, string[]>;
}

/**
 * The refunds of the inbound Stripe webhook (stripe-inbound.ts hands them over once an event is
 * verified and claimed). Each goes through AF9, the same domain path as the REST operation.
 * Refunds are counted by Stripe refund id where Stripe names them (refund.created, a charge's
 * refunds list), so a failed one is taken back by exactly its amount; a refund that arrives before
 * its sale waits (DEFERRED) and is applied when the sale is recorded. A refund of a basil-version
 * invoice finds its sale through the invoice payment that links them (invoice_payment.paid, or the
 * invoice_payments API with the connection's restricted key).
 */
export class StripeRefunds {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly connections: BillingConnections,
    private readonly transactions: Transactions,
    private readonly apiUrl: string | null,
  ) {}

  /**
   * The recorded sale a refund's identifiers name. A charge of a basil-version invoice names neither
   * the invoice nor is named by it: when its own identifiers match nothing, the invoice comes from
   * the link invoice_payment.paid recorded, else (with a restricted key) from Stripe's
   * invoice_payments API, and the sale is looked up by it.
   */
  private async saleOf(conn: Conn, programId: string, ids: SaleIds): Promise<SaleMatch> {
    const knex = this.db.knex;
    const matches = await matchingTransactions(knex, programId, idList(ids));
    if (matches.size || ids.invoiceId || (!ids.paymentIntentId && !ids.chargeId)) return { ids, matches };
    const invoiceId = await this.invoiceOf(conn, ids);
    if (!invoiceId) return { ids, matches };
    const withInvoice = { ...ids, invoiceId };
    return { ids: withInvoice, matches: await matchingTransactions(knex, programId, idList(withInvoice)) };
  }

  /** The invoice a payment intent or charge paid: the recorded link, else Stripe's answer (then recorded). */
  private async invoiceOf(conn: Conn, ids: SaleIds): Promise<string | null> {
    const row = await this.db.knex('billing_invoice_payments')
      .where('connection_id', conn.id)
      .where((w) => {
        if (ids.paymentIntentId) w.orWhere('payment_intent_ref', ids.paymentIntentId);
        if (ids.chargeId) w.orWhere('charge_ref', ids.chargeId);
      })
      .first('invoice_ref');
    if (row) return row.invoice_ref as string;
    if (!conn.apiKey || !ids.paymentIntentId) return null;
    const found = await this.lookUpInvoicePayment(conn.apiKey, ids.paymentIntentId);
    if (!found) return null;
    await this.link(conn.id, found);
    return found.invoiceId;
  }

  /** A Stripe client for look-ups with the connection's restricted key (STRIPE_API_URL points it elsewhere, e.g. a proxy). */
  private client(Sdk: typeof Stripe, apiKey: string): Stripe {
    const url = this.apiUrl ? new URL(this.apiUrl) : null;
    const protocol = url?.protocol === 'http:' ? 'http' : 'https';
    return new Sdk(apiKey, {
      ...(url ? { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol } : {}),
      maxNetworkRetries: 1,
      timeout: 10_000,
    });
  }

  /**
   * GET /v1/invoice_payments by payment intent: the invoice it paid. Stripe's refusals (a key
   * without the permission, an unknown id) answer null; a network failure is thrown, so the event's
   * delivery fails and Stripe's retry looks again.
   */
  private async lookUpInvoicePayment(apiKey: string, paymentIntentId: string): Promise<InvoicePaymentFacts | null> {
    const Sdk = await stripeSdk();
    try {
      const list = await this.client(Sdk, apiKey).invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: paymentIntentId }, limit: 10 });
      const paid = list.data.find((p) => p.status === 'paid') ?? list.data[0];
      const invoiceId = paid ? (typeof paid.invoice === 'string' ? paid.invoice : paid.invoice?.id) : null;
      if (!paid || !invoiceId) return null;
      const charge = paid.payment?.charge;
      return { kind: 'invoice-payment', invoicePaymentRef: paid.id, invoiceId, paymentIntentId, chargeId: (typeof charge === 'string' ? charge : charge?.id) ?? null };
    } catch (err) {
      if (err instanceof Sdk.errors.StripeError && !(err instanceof Sdk.errors.StripeConnectionError)) return null;
      throw err;
    }
  }

  /** GET /v1/refunds?charge=…: the charge's refunds, oldest first, counted ones and `also` (a failed one that was counted); null when Stripe refuses or has more than one page. */
  private async lookUpRefunds(apiKey: string, chargeId: string, also: string): Promise<OneRefund[] | null> {
    const Sdk = await stripeSdk();
    try {
      const list = await this.client(Sdk, apiKey).refunds.list({ charge: chargeId, limit: 100 });
      if (list.has_more) return null;
      return list.data
        .filter((r) => r.id === also || r.status === 'succeeded' || r.status === 'pending' || r.status === 'requires_action')
        .sort((a, b) => a.created - b.created)
        .map((r) => ({ refundId: r.id, amount: r.amount }));
    } catch (err) {
      if (err instanceof Sdk.errors.StripeError && !(err instanceof Sdk.errors.StripeConnectionError)) return null;
      throw err;
    }
  }

  /** Records which payment paid which invoice (once per invoice payment). */
  private async link(connectionId: string, p: InvoicePaymentFacts): Promise<void> {
    await this.db.knex('billing_invoice_payments')
      .insert({ connection_id: connectionId, invoice_payment_ref: p.invoicePaymentRef, invoice_ref: p.invoiceId, payment_intent_ref: p.paymentIntentId, charge_ref: p.chargeId, created_at: this.clock.now() })
      .onConflict(['connection_id', 'invoice_payment_ref'])
      .ignore();
  }

  /**
   * invoice_payment.paid: the link from an invoice to the payment intent and charge that paid it is
   * kept, so a refund of that charge finds the invoice's sale; refunds that waited for it are applied.
   */
  async invoicePayment(conn: Conn, program: Program, p: InvoicePaymentFacts, audit: InboundAudit): Promise<EventResult> {
    await this.link(conn.id, p);
    const paidBy = [p.paymentIntentId, p.chargeId].filter(Boolean).join(' / ');
    if (program.type !== 'AFFILIATE') return { outcome: 'IGNORED', reason: 'Referral programs record no sales, so which payment paid an invoice changes nothing.' };
    const matches = await matchingTransactions(this.db.knex, program.id, [{ kind: 'invoiceId', value: p.invoiceId }]);
    const txId = [...matches.keys()][0];
    if (!txId) return { outcome: 'ACCEPTED', reason: `Invoice ${p.invoiceId} was paid by ${paidBy}; no sale of it is recorded (yet): when there is one, refunds of this payment find it.` };
    const tx = await this.db.knex('affiliate_transactions').where({ id: txId }).first('customer_id');
    await this.applyDeferred(conn, program, { invoiceId: p.invoiceId, ...(p.paymentIntentId ? { paymentIntentId: p.paymentIntentId } : {}), ...(p.chargeId ? { chargeId: p.chargeId } : {}) }, audit);
    return { outcome: 'ACCEPTED', reason: `Invoice ${p.invoiceId} was paid by ${paidBy}: refunds of this payment are applied to its sale.`, participantId: tx.customer_id, transactionId: txId };
  }

  /**
   * charge.refunded: the charge's refunded total through AF9. When the charge lists its refunds, each
   * is first recorded by its id (so a later failure takes back exactly its amount); a total above
   * the recorded refunds is counted as it stands.
   */
  async refund(conn: Conn, program: Program, refund: RefundFacts, audit: InboundAudit, deferredFrom?: string): Promise<EventResult> {
    if (program.type !== 'AFFILIATE') return { outcome: 'IGNORED', reason: 'Referral programs record no sales, so a refund changes nothing.' };
    const { ids, matches } = await this.saleOf(conn, program.id, refund.ids);
    if (matches.size === 0) {
      return {
        outcome: 'DEFERRED',
        reason: 'No recorded sale matches this charge yet; the refund is applied when the sale arrives (after 30 days without it, it is reported as unmatched).',
        pending: { amountRefunded: refund.amountRefunded, currency: refund.currency, ids, ...(refund.refunds ? { refunds: refund.refunds } : {}) },
      };
    }
    if (matches.size > 1) return { outcome: 'REJECTED', reason: 'The charge’s identifiers name more than one recorded sale.' };
    const txId = [...matches.keys()][0]!;
    const customerId = (await this.db.knex('affiliate_transactions').where({ id: txId }).first('customer_id')).customer_id as string;
    let counted: EventResult | null = null;
    for (const one of refund.refunds ?? []) {
      const res = await this.countRefund(program, txId, customerId, { ...one, kind: 'refund-one', currency: refund.currency, ids }, audit);
      if (res.outcome !== 'DUPLICATE') counted = res;
    }
    const after = await this.db.knex('affiliate_transactions').where({ id: txId }).first('amount_refunded');
    const applied = (message: string) => (deferredFrom ? `${message} (applied when its sale arrived)` : message);
    if (refund.amountRefunded <= Number(after.amount_refunded)) {
      if (counted) return { ...counted, reason: applied(counted.reason ?? '') };
      return { outcome: 'DUPLICATE', reason: `The sale’s refunded total is already ${Number(after.amount_refunded)} (this event says ${refund.amountRefunded}).`, participantId: customerId, transactionId: txId };
    }
    const body = { ...ids, amountRefunded: refund.amountRefunded, currency: refund.currency };
    const res = await this.transactions.refund(program, customerId, body, refundEntry(audit, program, 'refund', customerId, body));
    return { outcome: res.success ? 'ACCEPTED' : 'REJECTED', reason: applied(res.message), participantId: customerId, transactionId: txId };
  }

  /** refund.created (or an update that is not a failure): one refund, counted by its id. */
  async refundOne(conn: Conn, program: Program, one: RefundOneFacts, audit: InboundAudit, deferredFrom?: string): Promise<EventResult> {
    if (program.type !== 'AFFILIATE') return { outcome: 'IGNORED', reason: 'Referral programs record no sales, so a refund changes nothing.' };
    const { ids, matches } = await this.saleOf(conn, program.id, one.ids);
    if (matches.size === 0) {
      return {
        outcome: 'DEFERRED',
        reason: `No recorded sale matches refund ${one.refundId} yet; it is applied when the sale arrives (after 30 days without it, it is reported as unmatched).`,
        pending: { refundId: one.refundId, amount: one.amount, currency: one.currency, ids },
      };
    }
    if (matches.size > 1) return { outcome: 'REJECTED', reason: 'The refund’s identifiers name more than one recorded sale.' };
    const txId = [...matches.keys()][0]!;
    const customerId = (await this.db.knex('affiliate_transactions').where({ id: txId }).first('customer_id')).customer_id as string;
    const res = await this.countRefund(program, txId, customerId, { ...one, ids }, audit);
    return deferredFrom && res.outcome === 'ACCEPTED' ? { ...res, reason: `${res.reason} (applied when its sale arrived)` } : res;
  }

  /**
   * Records one refund by its id through AF9, once. A refund the sale's refunded total already
   * holds (a charge.refunded counted it before its own event arrived) fills in the history without
   * changing the total; otherwise the total grows by its amount.
   */
  private async countRefund(program: Program, txId: string, customerId: string, one: RefundOneFacts, audit: InboundAudit): Promise<EventResult> {
    const knex = this.db.knex;
    const at = { participantId: customerId, transactionId: txId };
    const known = await knex('transaction_refunds').where({ transaction_id: txId, refund_id: one.refundId }).first('status');
    if (known) return { outcome: 'DUPLICATE', reason: known.status === 'CANCELED' ? `Refund ${one.refundId} was counted and taken back already.` : `Refund ${one.refundId} was already counted.`, ...at };
    const tx = await knex('affiliate_transactions').where({ id: txId }).first('amount_refunded');
    const tracked = await knex('transaction_refunds').where({ transaction_id: txId, status: 'ACTIVE' }).sum({ n: 'amount' }).first();
    const total = Math.max(Number(tx.amount_refunded), Number(tracked?.n ?? 0) + one.amount);
    const body = { ...one.ids, refundId: one.refundId, refundAmount: one.amount, amountRefunded: total, currency: one.currency };
    const res = await this.transactions.refund(program, customerId, body, refundEntry(audit, program, 'refund', customerId, body));
    return { outcome: res.success ? 'ACCEPTED' : 'REJECTED', reason: `Refund ${one.refundId} (${one.amount}): ${res.message}`, ...at };
  }

  /**
   * A refund that failed or was cancelled after it was counted: AF9 cancels it by its id, so the
   * refunded total goes down by exactly its amount and the commissions are restored. A refund the
   * sale's total holds without its id (counted from a charge.refunded total) is recorded by id
   * first; when other refunds are in that total without theirs, the charge's refunds are read from
   * Stripe with the restricted key and recorded by id, so AF9 has the whole history. AF9's refusals
   * (a history it still cannot reconcile) are REJECTED.
   */
  async refundUndone(conn: Conn, program: Program, undone: RefundUndoneFacts, audit: InboundAudit): Promise<EventResult> {
    if (program.type !== 'AFFILIATE') return { outcome: 'IGNORED', reason: 'Referral programs record no sales, so a refund changes nothing.' };
    const knex = this.db.knex;
    const { ids, matches } = await this.saleOf(conn, program.id, undone.ids);
    if (matches.size !== 1) return { outcome: 'IGNORED', reason: matches.size ? 'The refund’s identifiers name more than one recorded sale.' : 'No recorded sale matches this refund.' };
    const txId = [...matches.keys()][0]!;
    const customerId = (await knex('affiliate_transactions').where({ id: txId }).first('customer_id')).customer_id as string;
    const at = { participantId: customerId, transactionId: txId };
    const state = async () => {
      const tx = await knex('affiliate_transactions').where({ id: txId }).first('amount_refunded');
      const tracked = await knex('transaction_refunds').where({ transaction_id: txId, status: 'ACTIVE' }).sum({ n: 'amount' }).first();
      const known = await knex('transaction_refunds').where({ transaction_id: txId, refund_id: undone.refundId }).first('status');
      return { before: Number(tx.amount_refunded), untracked: Number(tx.amount_refunded) - Number(tracked?.n ?? 0), known: known?.status as string | undefined };
    };
    let s = await state();
    if (s.known === 'CANCELED') return { outcome: 'DUPLICATE', reason: `Refund ${undone.refundId} was already taken back.`, ...at };
    if (!s.known && s.before < undone.amount) return { outcome: 'IGNORED', reason: `Refund ${undone.refundId} was never counted (the sale’s refunded total is ${s.before}).`, ...at };
    if (s.untracked > (s.known ? 0 : undone.amount) && conn.apiKey && ids.chargeId) {
      // Other refunds are in the total without their ids: Stripe's list of the charge's refunds names them.
      for (const one of (await this.lookUpRefunds(conn.apiKey, ids.chargeId, undone.refundId)) ?? []) {
        await this.countRefund(program, txId, customerId, { ...one, kind: 'refund-one', currency: undone.currency, ids }, audit);
      }
      s = await state();
    }
    if (!s.known) {
      // Recorded by its id first (the total already holds it): its own change, its own entry.
      const known = { ...ids, refundId: undone.refundId, refundAmount: undone.amount, amountRefunded: s.before, currency: undone.currency };
      await this.transactions.refund(program, customerId, known, refundEntry(audit, program, 'refund', customerId, known));
    }
    const body = { ...ids, refundId: undone.refundId, refundAmount: undone.amount, refundStatus: undone.status, currency: undone.currency };
    const res = await this.transactions.refund(program, customerId, body, refundEntry(audit, program, 'refund_undone', customerId, body));
    return { outcome: res.success ? 'ACCEPTED' : 'REJECTED', reason: `Refund ${undone.refundId} ${undone.status}: ${res.message}`, ...at };
  }

  /**
   * Refunds that arrived before their sale: applied now, oldest first, each settling its own log
   * row. A refund waits for the identifiers of its charge: the sale's own, and the payment intent
   * and charge that paid its invoice (billing_invoice_payments).
   */
  async applyDeferred(conn: Conn, program: Program, ids: Record<string, string>, audit: InboundAudit): Promise<void> {
    const wanted = new Set(Object.values(ids));
    if (ids.invoiceId) {
      const links = await this.db.knex('billing_invoice_payments').where({ connection_id: conn.id, invoice_ref: ids.invoiceId }).select('payment_intent_ref', 'charge_ref');
      for (const l of links) for (const v of [l.payment_intent_ref, l.charge_ref]) if (v) wanted.add(v);
    }
    await applyDeferredRefunds<RefundFacts | RefundOneFacts>(
      this.db,
      this.connections,
      conn.id,
      (p) => {
        const refIds = (p.ids ?? {}) as SaleIds;
        if (!Object.values(refIds).some((v) => wanted.has(v as string))) return null;
        if (typeof p.refundId === 'string') return { kind: 'refund-one', refundId: p.refundId, amount: Number(p.amount), currency: String(p.currency), ids: refIds };
        const refunds = Array.isArray(p.refunds) ? (p.refunds as OneRefund[]).map((r) => ({ refundId: String(r.refundId), amount: Number(r.amount) })) : null;
        return { kind: 'refund', amountRefunded: Number(p.amountRefunded), currency: String(p.currency), ids: refIds, refunds };
      },
      (refund, rowId) => (refund.kind === 'refund-one' ? this.refundOne(conn, program, refund, audit, rowId) : this.refund(conn, program, refund, audit, rowId)),
    );
  }
}
