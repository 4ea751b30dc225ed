import type Stripe from 'stripe';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import { findParticipant, findReferrer } from '../participants/referrals.ts';
import type { ReferralTriggers } from '../referral/referral-triggers.ts';
import type { Transactions } from '../affiliate/transactions.ts';
import { teamBilling } from '../affiliate/affiliate-invites.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { BillingConnections, EventResult } from './billing-connections.ts';
import { participantCreate } from '../../../shared/schemas/participant.ts';
import { codeOwner, stripeDiscountRefs, type CodeRefs } from './codes.ts';
import { applyClaimed, customerAddEntry, recordSale, recordSubscriptionEnd, type InboundAudit, type SaleCustomer } from './inbound-common.ts';
import type { AuditLog } from '../platform/audit.ts';
import { factsOf, type SaleFacts, type SubscriptionEndFacts } from './stripe-facts.ts';
import { StripeRefunds, type Conn } from './stripe-refunds.ts';
import { stripeSdk } from './sdks.ts';

/** Stripe's own default: a signature more than five minutes old is refused (replays). */
export const STRIPE_TOLERANCE_SECONDS = 300;

/**
 * The inbound Stripe webhook of one connection. The signature and its timestamp are checked with
 * the official package against the connection's sealed secret; then each event id is applied at
 * most once (a re-delivery is counted and answered, never applied again). Sales go through the
 * affiliate engine's AF8 (affiliate programs) or the referral trigger (referral programs), refunds
 * through AF9: the same domain paths as the REST operations, so commissions, durations, currencies
 * and duplicates follow the same rules. The customer is the participant named by the sale's
 * referral (client_reference_id or metadata.refloop_referral: the referrer's code, for a new
 * customer), else the participant an earlier sale of the same Stripe customer went to, else the
 * participant with the customer's email; otherwise the sale is UNATTRIBUTED, never guessed.
 * Refunds and the invoice payments that link a basil-version invoice to its charge are applied by
 * `StripeRefunds` (stripe-refunds.ts).
 */
export class StripeInbound {
  /** Refunds and invoice payments, with the restricted-key look-ups (`apiUrl` is only theirs). */
  private readonly refunds: StripeRefunds;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly connections: BillingConnections,
    private readonly participants: Participants,
    private readonly transactions: Transactions,
    private readonly triggers: ReferralTriggers,
    private readonly audit: AuditLog,
    apiUrl: string | null = null,
  ) {
    this.refunds = new StripeRefunds(db, clock, connections, transactions, apiUrl);
  }

  /** Verifies and applies one delivery; answers what its log row says. `from`: the sender, for the audit entries of what it changes. */
  async receive(connectionId: string, raw: Buffer, signature: string | undefined, from: InboundAudit['from'] = { ip: null, userAgent: null }): Promise<{ received: true; outcome: string }> {
    const conn = await this.connections.forInbound(connectionId);
    if (!conn) throw new NotFoundError('No connected Stripe integration at this address.');
    const sdk = await stripeSdk();
    let event: Stripe.Event;
    try {
      event = sdk.webhooks.constructEvent(raw, signature ?? '', conn.secret, STRIPE_TOLERANCE_SECONDS, undefined, this.clock.now());
    } catch (err) {
      // The error carries the payload: only its kind is kept.
      const expired = err instanceof Error && /tolerance/i.test(err.message);
      const message = expired ? 'The Stripe-Signature timestamp is more than 5 minutes old.' : 'The Stripe-Signature header does not match this body and the connection’s signing secret.';
      throw new ValidationError(message, [{ field: 'Stripe-Signature', code: expired ? 'SIGNATURE_EXPIRED' : 'INVALID_SIGNATURE', message }]);
    }
    const claim = await this.connections.claim(conn.row.id, {
      id: String(event.id).slice(0, 255),
      type: String(event.type),
      livemode: event.livemode === true,
      created: typeof event.created === 'number' ? event.created * 1000 : null,
    });
    if (!claim.fresh) return { received: true, outcome: claim.outcome };
    const audit: InboundAudit = { log: this.audit, provider: 'stripe', event: { id: String(event.id).slice(0, 255), type: String(event.type) }, from };
    return applyClaimed(this.connections, claim.id, () => this.apply({ id: conn.row.id, apiKey: conn.apiKey }, conn.row.program_id, event, audit));
  }

  private async apply(conn: Conn, programId: string, event: Stripe.Event, audit: InboundAudit): Promise<EventResult> {
    const row = await this.db.knex('programs').where({ id: programId }).first();
    if (!row || row.status === 'DELETED') return { outcome: 'IGNORED', reason: 'The program was deleted.' };
    const program = toProgram(row);
    const facts = factsOf(event as unknown as { type: string; data?: { object?: unknown } });
    switch (facts.kind) {
      case 'skip':
        return { outcome: 'IGNORED', reason: facts.reason };
      case 'sale':
        return this.sale(conn, program, facts, audit, stripeDiscountRefs(event.data.object));
      case 'refund':
        return this.refunds.refund(conn, program, facts, audit);
      case 'refund-one':
        return this.refunds.refundOne(conn, program, facts, audit);
      case 'refund-undone':
        return this.refunds.refundUndone(conn, program, facts, audit);
      case 'invoice-payment':
        return this.refunds.invoicePayment(conn, program, facts, audit);
      case 'subscription-end':
        return this.subscriptionEnd(conn.id, program, facts, audit);
    }
  }

  private sale(conn: Conn, program: Program, sale: SaleFacts, audit: InboundAudit, codes: CodeRefs = {}): Promise<EventResult> {
    return recordSale(
      { db: this.db, clock: this.clock, transactions: this.transactions, triggers: this.triggers, audit },
      conn.id,
      program,
      { ...sale, ids: sale.ids as Record<string, string> },
      () => this.customerOf(conn.id, program, sale, codes, audit),
      (sub) => `Subscription ${sub} ended before this invoice; its recurring attribution is over.`,
      (ids) => this.refunds.applyDeferred(conn, program, ids, audit),
    );
  }

  /**
   * The customer a sale is attributed to, or why there is none. Order (docs/integrations.md
   * "Codes"): the referral (client_reference_id, metadata), then a mapped coupon or promotion code
   * the sale used (its owner is the referrer), then the Stripe customer of an earlier sale, then
   * the email. A referrer found by either of the first two names a new customer only: a participant
   * already known by email, or the Stripe customer of an earlier sale, keeps who they are.
   */
  private async customerOf(connectionId: string, program: Program, sale: SaleFacts, codes: CodeRefs, audit: InboundAudit): Promise<SaleCustomer | { unattributed: string }> {
    const knex = this.db.knex;
    const byEmail = sale.email ? await findParticipant(knex, program.id, sale.email) : null;
    const byReferral = sale.referral ? await findReferrer(knex, program.id, sale.referral) : null;
    const byCode = byReferral ? null : await codeOwner(knex, program.id, codes);
    if (byReferral || byCode) {
      const referrer = byReferral ?? byCode!.participant;
      const via = byCode ? `Attributed by the ${byCode.via} (code ${byCode.code} of participant ${referrer.id})` : undefined;
      // A participant already known by this email (or, for a code, as this Stripe customer) keeps the referrer they have; the referral only names a new customer's.
      if (byEmail) return { customer: byEmail, via: byCode ? `The sale used the ${byCode.via}; the customer is participant ${byEmail.id} already and keeps their referrer` : undefined };
      if (byCode && sale.customerRef) {
        const known = await knex('billing_customers').where({ connection_id: connectionId, customer_ref: sale.customerRef }).first('participant_id');
        const customer = known ? await findParticipant(knex, program.id, known.participant_id) : null;
        if (customer) return { customer };
      }
      if (!sale.email) return { unattributed: `The ${byCode ? byCode.via : `referral ${sale.referral}`} names participant ${referrer.id}, but the payment carries no customer email to add the customer with.` };
      const input = participantCreate.safeParse({
        email: sale.email,
        referredBy: referrer.id,
        ...(sale.firstName ? { firstName: sale.firstName } : {}),
        ...(sale.lastName ? { lastName: sale.lastName } : {}),
      });
      if (!input.success) return { unattributed: `The customer’s email or name is not one a participant can have (${input.error.issues[0]?.message ?? 'invalid'}).` };
      const added = await this.participants.create(program, await teamBilling(knex, program.teamId), input.data, { audit: customerAddEntry(audit, program, referrer.id) });
      const customer = await findParticipant(knex, program.id, added.id);
      if (customer) return { customer, via, ...(byCode ? { code: { id: byCode.id, code: byCode.code } } : {}) };
    }
    if (sale.customerRef) {
      const known = await knex('billing_customers').where({ connection_id: connectionId, customer_ref: sale.customerRef }).first('participant_id');
      const customer = known ? await findParticipant(knex, program.id, known.participant_id) : null;
      if (customer) return { customer };
    }
    if (byEmail) return { customer: byEmail };
    const tried = [sale.referral ? `the referral ${JSON.stringify(sale.referral)} names no participant` : 'no referral (client_reference_id or metadata.refloop_referral)', 'no mapped coupon or promotion code', sale.customerRef ? `no earlier sale of customer ${sale.customerRef}` : null, sale.email ? 'no participant with the customer’s email' : 'no customer email'];
    return { unattributed: `Not attributed: ${tried.filter(Boolean).join('; ')}.` };
  }


  private subscriptionEnd(connectionId: string, program: Program, end: SubscriptionEndFacts, audit: InboundAudit): Promise<EventResult> {
    return recordSubscriptionEnd(this.db, this.clock, connectionId, end, `Subscription ${end.subscriptionRef} ended: invoices issued after it are not credited.`, { a: audit, program });
  }
}
