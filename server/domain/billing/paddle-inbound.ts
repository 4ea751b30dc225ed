import type { Environment, Paddle } from '@paddle/paddle-node-sdk';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import { findParticipant, findReferrer } from '../participants/referrals.ts';
import type { ReferralTriggers } from '../referral/referral-triggers.ts';
import type { Transactions } from '../affiliate/transactions.ts';
import { matchingTransactions } from '../affiliate/transaction-refunds.ts';
import { teamBilling } from '../affiliate/affiliate-invites.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { BillingConnections, EventResult } from './billing-connections.ts';
import { applyClaimed, applyDeferredRefunds, customerAddEntry, recordSale, recordSubscriptionEnd, refundEntry, type InboundAudit, type SaleCustomer } from './inbound-common.ts';
import type { AuditLog } from '../platform/audit.ts';
import { participantCreate } from '../../../shared/schemas/participant.ts';
import { codeOwner } from './codes.ts';
import { paddleSdk } from './sdks.ts';
import { paddleFactsOf, type PaddleRefundFacts, type PaddleSaleFacts, type PaddleSubscriptionEndFacts } from './paddle-facts.ts';

/** The official SDK's tolerance: a Paddle-Signature whose `ts` is more than 5 seconds old is refused (replays). */
export const PADDLE_TOLERANCE_SECONDS = 5;

/** How a chargeback's adjustment id is recorded among the sale's refunds (AF9's refundId), so its reversal finds it. */
const CHARGEBACK_PREFIX = 'chargeback:';

let verifier: Promise<Paddle['webhooks']> | undefined;
/** The SDK's verifier, made on first use (it needs no API key; the runtime's crypto is set up by the Paddle constructor). */
function paddleVerifier(): Promise<Paddle['webhooks']> {
  return (verifier ??= paddleSdk().then((sdk) => new sdk.Paddle('signature-verification-only').webhooks));
}

/** A customer's email and name, as Paddle's API answers them. */
interface PaddleCustomer {
  email: string | null;
  name: string | null;
}

function splitName(name: string | null): { firstName?: string; lastName?: string } {
  if (!name) return {};
  const parts = name.trim().split(/\s+/);
  const firstName = parts[0]!.slice(0, 100);
  const lastName = parts.slice(1).join(' ').slice(0, 100);
  return { ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}) };
}

/**
 * The inbound Paddle Billing notifications of one connection (docs/integrations.md). The same model
 * as Stripe's (stripe-inbound.ts): the signature is checked with the official SDK against the
 * connection's sealed secret key; each `event_id` is applied at most once; a completed transaction
 * is a sale through AF8 (affiliate programs) or the referral trigger (referral programs); an
 * approved refund adjustment goes through AF9 by its own id; a canceled subscription ends recurring
 * crediting. The customer is the participant named by `custom_data.refloop_referral` (the
 * referrer's code, for a new customer), else the participant an earlier sale of the same Paddle
 * customer went to, else the participant with the customer's email (looked up with the
 * connection's API key; Paddle's notifications carry no email); otherwise UNATTRIBUTED.
 */
export class PaddleInbound {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly connections: BillingConnections,
    private readonly participants: Participants,
    private readonly transactions: Transactions,
    private readonly triggers: ReferralTriggers,
    private readonly audit: AuditLog,
    private readonly apiUrl: string | null = null,
  ) {}

  /** Verifies and applies one delivery; answers what its log row says. */
  async receive(connectionId: string, raw: Buffer, signature: string | undefined, from: InboundAudit['from'] = { ip: null, userAgent: null }): Promise<{ received: true; outcome: string }> {
    const conn = await this.connections.forInbound(connectionId, 'PADDLE');
    if (!conn) throw new NotFoundError('No connected Paddle integration at this address.');
    const text = raw.toString('utf8');
    let valid = false;
    try {
      valid = signature ? await (await paddleVerifier()).isSignatureValid(text, conn.secret, signature) : false;
    } catch {
      valid = false; // a header without ts and h1
    }
    if (!valid) {
      // The SDK compares `ts` with the wall clock, as Paddle's servers do.
      const ts = Number(/(?:^|;)ts=(\d{1,12})(?:;|$)/.exec(signature ?? '')?.[1] ?? NaN);
      const expired = Number.isFinite(ts) && Date.now() > (ts + PADDLE_TOLERANCE_SECONDS) * 1000;
      const message = expired ? `The Paddle-Signature timestamp is more than ${PADDLE_TOLERANCE_SECONDS} seconds old.` : 'The Paddle-Signature header does not match this body and the connection’s secret key.';
      throw new ValidationError(message, [{ field: 'Paddle-Signature', code: expired ? 'SIGNATURE_EXPIRED' : 'INVALID_SIGNATURE', message }]);
    }
    let event: { event_id?: unknown; event_type?: unknown; occurred_at?: unknown; data?: unknown };
    try {
      event = JSON.parse(text);
    } catch {
      throw new ValidationError('The notification is not JSON.', [{ field: 'body', code: 'INVALID_JSON', message: 'The notification is not JSON.' }]);
    }
    const eventId = typeof event.event_id === 'string' && event.event_id ? event.event_id.slice(0, 255) : null;
    if (!eventId) throw new ValidationError('The notification has no event_id.', [{ field: 'event_id', code: 'REQUIRED', message: 'The notification has no event_id.' }]);
    const occurred = typeof event.occurred_at === 'string' ? Date.parse(event.occurred_at) : NaN;
    const claim = await this.connections.claim(conn.row.id, {
      id: eventId,
      type: typeof event.event_type === 'string' ? event.event_type : 'unknown',
      // Paddle's notifications do not say sandbox or live; the connection's API key does.
      livemode: conn.apiKey?.startsWith('pdl_live_') === true,
      created: Number.isFinite(occurred) ? occurred : null,
    });
    if (!claim.fresh) return { received: true, outcome: claim.outcome };
    const audit: InboundAudit = { log: this.audit, provider: 'paddle', event: { id: eventId, type: typeof event.event_type === 'string' ? event.event_type.slice(0, 100) : 'unknown' }, from };
    return applyClaimed(this.connections, claim.id, () => this.apply(conn.row.id, conn.row.program_id, conn.apiKey, event, audit));
  }

  private async apply(connectionId: string, programId: string, apiKey: string | null, event: { event_type?: unknown; data?: unknown }, audit: InboundAudit): Promise<EventResult> {
    const row = await this.db.knex('programs').where({ id: programId }).first();
    if (!row || row.status === 'DELETED') return { outcome: 'IGNORED', reason: 'The program was deleted.' };
    const program = toProgram(row);
    const facts = paddleFactsOf(event);
    switch (facts.kind) {
      case 'skip':
        return { outcome: 'IGNORED', reason: facts.reason };
      case 'sale':
        return this.sale(connectionId, program, apiKey, facts, audit);
      case 'refund':
        return this.refund(program, facts, audit);
      case 'subscription-end':
        return this.subscriptionEnd(connectionId, program, facts, audit);
    }
  }

  private sale(connectionId: string, program: Program, apiKey: string | null, sale: PaddleSaleFacts, audit: InboundAudit): Promise<EventResult> {
    return recordSale(
      { db: this.db, clock: this.clock, transactions: this.transactions, triggers: this.triggers, audit },
      connectionId,
      program,
      { ...sale, ids: { externalId: sale.transactionId } },
      () => this.customerOf(connectionId, program, apiKey, sale, audit),
      (sub) => `Subscription ${sub} was canceled before this transaction; its recurring crediting is over.`,
      () => this.applyDeferred(connectionId, program, sale.transactionId, audit),
    );
  }

  /** The customer's email and name from Paddle's API, when the connection has an API key. */
  private async lookUp(apiKey: string | null, customerRef: string | null): Promise<PaddleCustomer | null> {
    if (!apiKey || !customerRef) return null;
    const sdk = await paddleSdk();
    const environment = this.apiUrl ?? (apiKey.startsWith('pdl_sdbx_') ? sdk.Environment.sandbox : sdk.Environment.production);
    try {
      const c = await new sdk.Paddle(apiKey, { environment: environment as Environment }).customers.get(customerRef);
      return { email: c.email ? c.email.slice(0, 254) : null, name: c.name ? c.name.slice(0, 200) : null };
    } catch (err) {
      // Paddle answered (an unknown customer, a key without the permission): no email. A network failure is retried.
      if (err instanceof sdk.ApiError) return null;
      throw err;
    }
  }

  /**
   * The customer a sale is attributed to, or why there is none. A Paddle customer of an earlier
   * sale keeps the participant it went to (renewals carry no referral); a new customer is named by
   * the referral, else by a mapped discount (BC1's paddleDiscountId), and added with the email
   * Paddle's API gives; else the participant with that email.
   */
  private async customerOf(connectionId: string, program: Program, apiKey: string | null, sale: PaddleSaleFacts, audit: InboundAudit): Promise<SaleCustomer | { unattributed: string }> {
    const knex = this.db.knex;
    if (sale.customerRef) {
      const known = await knex('billing_customers').where({ connection_id: connectionId, customer_ref: sale.customerRef }).first('participant_id');
      const customer = known ? await findParticipant(knex, program.id, known.participant_id) : null;
      if (customer) return { customer };
    }
    const looked = await this.lookUp(apiKey, sale.customerRef);
    const byEmail = looked?.email ? await findParticipant(knex, program.id, looked.email) : null;
    const byReferral = sale.referral ? await findReferrer(knex, program.id, sale.referral) : null;
    const byCode = byReferral || !sale.discountId ? null : await codeOwner(knex, program.id, { paddleDiscountIds: [sale.discountId] });
    if (byReferral || byCode) {
      const referrer = byReferral ?? byCode!.participant;
      const named = byCode ? `${byCode.via} (code ${byCode.code} of participant ${referrer.id})` : `referral ${sale.referral}`;
      // A participant already known by this email keeps the referrer they have; the referral or code only names a new customer's.
      if (byEmail) return { customer: byEmail, via: byCode ? `The sale used the ${byCode.via}; the customer is participant ${byEmail.id} already and keeps their referrer` : undefined };
      if (!looked?.email) {
        return { unattributed: `The ${named} names participant ${referrer.id}, but the customer’s email is unknown (${apiKey ? `Paddle’s API has no email for customer ${sale.customerRef ?? '(none)'}` : 'connect an API key so refloop can look it up'}).` };
      }
      const input = participantCreate.safeParse({ email: looked.email, referredBy: referrer.id, ...splitName(looked.name) });
      if (!input.success) return { unattributed: `The customer’s email or name is not one a participant can have (${input.error.issues[0]?.message ?? 'invalid'}).` };
      const added = await this.participants.create(program, await teamBilling(knex, program.teamId), input.data, { audit: customerAddEntry(audit, program, referrer.id) });
      const customer = await findParticipant(knex, program.id, added.id);
      if (customer) return { customer, ...(byCode ? { via: `Attributed by the ${named}`, code: { id: byCode.id, code: byCode.code } } : {}) };
    }
    if (byEmail) return { customer: byEmail };
    const tried = [
      sale.referral ? `the referral ${JSON.stringify(sale.referral)} names no participant` : 'no referral (custom_data.refloop_referral)',
      sale.discountId ? `discount ${sale.discountId} is no participant’s code` : null,
      sale.customerRef ? `no earlier sale of customer ${sale.customerRef}` : null,
      !apiKey ? 'no API key to look up the customer’s email' : looked?.email ? 'no participant with the customer’s email' : 'no customer email',
    ];
    return { unattributed: `Not attributed: ${tried.filter(Boolean).join('; ')}.` };
  }

  /**
   * An approved refund adjustment: AF9 records it by its adjustment id and amount (Paddle sends one
   * notification per adjustment, not a running total), so adjustment.created and adjustment.updated
   * of one refund count once. A reversed one is taken back. A chargeback (Paddle creates it approved
   * when a customer disputes a payment) is a refund of its amount, recorded as `chargeback:<adj id>`;
   * a chargeback_reverse (Paddle won the dispute) takes back the sale's latest counted chargeback of
   * its amount. One that arrives before its sale waits.
   */
  private async refund(program: Program, refund: PaddleRefundFacts, audit: InboundAudit, deferredFrom?: string): Promise<EventResult> {
    if (program.type !== 'AFFILIATE') return { outcome: 'IGNORED', reason: 'Referral programs record no sales, so a refund changes nothing.' };
    const what = refund.action === 'refund' ? 'refund' : refund.action === 'chargeback' ? 'chargeback' : 'chargeback reversal';
    const matches = await matchingTransactions(this.db.knex, program.id, [{ kind: 'externalId', value: refund.transactionId }]);
    if (matches.size === 0) {
      if (refund.status === 'reversed' || refund.action === 'chargeback_reverse') return { outcome: 'IGNORED', reason: `No recorded sale matches this ${refund.action === 'chargeback_reverse' ? 'chargeback reversal' : 'reversed refund'}.` };
      return {
        outcome: 'DEFERRED',
        reason: `No recorded sale matches transaction ${refund.transactionId} yet; the ${what} is applied when the sale arrives (after 30 days without it, it is reported as unmatched).`,
        pending: { ...refund },
      };
    }
    const txId = [...matches.keys()][0]!;
    const tx = await this.db.knex('affiliate_transactions').where({ id: txId }).first('customer_id');
    const at = { participantId: tx.customer_id as string, transactionId: txId };
    if (refund.action === 'chargeback_reverse') return this.chargebackReverse(program, txId, refund, at, audit);
    const refundId = refund.action === 'chargeback' ? `${CHARGEBACK_PREFIX}${refund.adjustmentId}` : refund.adjustmentId;
    const known = await this.db.knex('transaction_refunds').where({ transaction_id: txId, refund_id: refundId }).first('status');
    if (refund.status === 'approved' && known && known.status !== 'CANCELED') return { outcome: 'DUPLICATE', reason: `${refund.action === 'chargeback' ? 'Chargeback' : 'Refund'} ${refund.adjustmentId} was already applied.`, ...at };
    if (refund.status === 'reversed') {
      if (!known) return { outcome: 'IGNORED', reason: `Refund ${refund.adjustmentId} was never applied.`, ...at };
      if (known.status === 'CANCELED') return { outcome: 'DUPLICATE', reason: `Refund ${refund.adjustmentId} was already taken back.`, ...at };
    }
    const body = {
      externalId: refund.transactionId,
      refundId,
      refundAmount: refund.amount,
      currency: refund.currency,
      ...(refund.status === 'reversed' ? { refundStatus: 'canceled' } : {}),
    };
    const action = refund.action === 'chargeback' ? (refund.status === 'reversed' ? 'chargeback_reversed' : 'chargeback') : refund.status === 'reversed' ? 'refund_reversed' : 'refund';
    const res = await this.transactions.refund(program, tx.customer_id, body, refundEntry(audit, program, action, tx.customer_id, body));
    const message = refund.status === 'reversed' ? `Refund ${refund.adjustmentId} reversed: ${res.message}` : refund.action === 'chargeback' ? `Chargeback ${refund.adjustmentId}: ${res.message}` : res.message;
    return { outcome: res.success ? 'ACCEPTED' : 'REJECTED', reason: deferredFrom ? `${message} (applied when its sale arrived)` : message, ...at };
  }

  /** A chargeback_reverse: the sale's latest counted chargeback of the same amount (else its latest) is cancelled through AF9. */
  private async chargebackReverse(program: Program, txId: string, reverse: PaddleRefundFacts, at: { participantId: string; transactionId: string }, audit: InboundAudit): Promise<EventResult> {
    const chargebacks: Array<{ refund_id: string; amount: number | string; status: string }> = await this.db.knex('transaction_refunds')
      .where({ transaction_id: txId })
      .where('refund_id', 'like', `${CHARGEBACK_PREFIX}%`)
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'refund_id', order: 'desc' }])
      .select('refund_id', 'amount', 'status');
    const counted = chargebacks.filter((c) => c.status === 'ACTIVE');
    const target = counted.find((c) => Number(c.amount) === reverse.amount) ?? counted[0];
    if (!target) {
      return chargebacks.length
        ? { outcome: 'DUPLICATE', reason: `The sale’s chargebacks were already reversed (chargeback reversal ${reverse.adjustmentId}).`, ...at }
        : { outcome: 'IGNORED', reason: `No chargeback of this sale was applied, so chargeback reversal ${reverse.adjustmentId} changes nothing.`, ...at };
    }
    const body = { externalId: reverse.transactionId, refundId: target.refund_id, refundAmount: Number(target.amount), refundStatus: 'canceled', currency: reverse.currency };
    const res = await this.transactions.refund(program, at.participantId, body, refundEntry(audit, program, 'chargeback_reversed', at.participantId, body));
    return { outcome: res.success ? 'ACCEPTED' : 'REJECTED', reason: `Chargeback ${target.refund_id.slice(CHARGEBACK_PREFIX.length)} reversed by ${reverse.adjustmentId}: ${res.message}`, ...at };
  }

  /** Refunds that arrived before their sale: applied now, oldest first, each settling its own log row. */
  private async applyDeferred(connectionId: string, program: Program, transactionId: string, audit: InboundAudit): Promise<void> {
    await applyDeferredRefunds<PaddleRefundFacts>(
      this.db,
      this.connections,
      connectionId,
      (p) => {
        const action = p.action === 'chargeback' ? 'chargeback' : 'refund';
        const refund: PaddleRefundFacts = { kind: 'refund', adjustmentId: String(p.adjustmentId), transactionId: String(p.transactionId), amount: Number(p.amount), currency: String(p.currency), status: p.status === 'reversed' ? 'reversed' : 'approved', action };
        return refund.transactionId === transactionId && Number.isSafeInteger(refund.amount) ? refund : null;
      },
      (refund, rowId) => this.refund(program, refund, audit, rowId),
    );
  }

  private subscriptionEnd(connectionId: string, program: Program, end: PaddleSubscriptionEndFacts, audit: InboundAudit): Promise<EventResult> {
    return recordSubscriptionEnd(this.db, this.clock, connectionId, end, `Subscription ${end.subscriptionRef} was canceled: transactions billed after it are not credited.`, { a: audit, program });
  }
}
