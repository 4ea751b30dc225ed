import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { addParticipant, commissionsOf, moneyProgram, type MoneyProgram } from '../../helpers/money.ts';
import { SIGNING_SECRET, connectStripe, deliver, eventLog, stripeEvent } from './stripe-helpers.ts';

// POST /integrations/stripe/{connectionId}/webhook (issue #25): Stripe's own payloads, signed with
// the official helper, applied through AF8/AF9 and the referral trigger.

const DAY = 86_400_000;
const ratesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-rates-'));
const ratesFile = path.join(ratesDir, 'rates.json');
// 1 USD = 0.8 EUR.
fs.writeFileSync(ratesFile, JSON.stringify({ base: 'USD', asOf: Date.UTC(2026, 0, 14), rates: { EUR: 0.8 } }));

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, EXCHANGE_RATES_FILE: ratesFile });
});
afterAll(async () => {
  await app.close();
  fs.rmSync(ratesDir, { recursive: true, force: true });
});

/** An affiliate program connected to Stripe. */
async function connected(): Promise<MoneyProgram & { endpoint: string }> {
  const p = await moneyProgram(app);
  const { path: endpoint } = await connectStripe(app, p.key, p.pid);
  return { ...p, endpoint };
}

/** A one-off Checkout payment by `email`, referred by `referral` (client_reference_id). */
function payment(referral: string | null, opts: { email?: string; amount?: number; currency?: string; eventId?: string; pi?: string } = {}) {
  return stripeEvent('checkout.session.completed.payment', (e, o) => {
    if (opts.eventId) e.id = opts.eventId;
    o.client_reference_id = referral;
    if (opts.email) o.customer_details.email = opts.email;
    if (opts.amount != null) o.amount_total = o.amount_subtotal = opts.amount;
    if (opts.currency) o.currency = opts.currency;
    if (opts.pi) o.payment_intent = opts.pi;
  });
}

async function participantByEmail(p: MoneyProgram, email: string) {
  return app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(email)}`, { key: p.key });
}

describe('POST /integrations/stripe/:connectionId/webhook: sales', () => {
  it('records a first sale for the customer the referral names, earning the affiliate’s commission', async () => {
    const p = await connected();
    const res = await deliver(app, p.endpoint, payment(p.affiliate.id));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: 'ACCEPTED' });
    const customer = await participantByEmail(p, 'jenny.rosen@example.com');
    expect(customer.status, customer.text).toBe(200);
    expect(customer.body).toMatchObject({ firstName: 'Jenny', lastName: 'Rosen', referrer: expect.objectContaining({ id: p.affiliate.id }) });
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ event: 'SALE', amount: 1000, saleAmount: 10_000, currencyISO: 'USD', referredId: customer.body.id });
    const [logged] = await eventLog(app, p.key, p.pid);
    expect(logged).toMatchObject({ eventId: 'evt_1PqKfYLkdIwHu7ixZmdVdD3k', type: 'checkout.session.completed', outcome: 'ACCEPTED', participantId: customer.body.id, transactionId: expect.any(String), deliveries: 1, livemode: false, createdAt: 1768478400000 });
  });

  it('takes the referral from metadata.refloop_referral, and keeps an existing participant’s own referrer', async () => {
    const p = await connected();
    const other = await addParticipant(app, p.key, p.pid, { email: `other-${p.pid}@example.com` });
    const event = payment(null, { email: p.customer.email });
    event.data.object.metadata = { refloop_referral: other.id };
    expect((await deliver(app, p.endpoint, event)).body.outcome).toBe('ACCEPTED');
    // The customer was already referred by the affiliate: the sale is theirs, not the metadata's participant's.
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ referredId: p.customer.id, referrerId: p.affiliate.id });
  });

  it('records the first payment of a subscription once, and its renewals from the Stripe customer', async () => {
    const p = await connected();
    const session = stripeEvent('checkout.session.completed.subscription', (_e, o) => (o.client_reference_id = p.affiliate.id));
    expect((await deliver(app, p.endpoint, session)).body.outcome).toBe('ACCEPTED');
    // Stripe also sends invoice.paid for the first invoice: the same sale, not a second one.
    const first = stripeEvent('invoice.paid', (e, o) => {
      e.id = 'evt_first_invoice_paid';
      o.id = session.data.object.invoice;
      o.billing_reason = 'subscription_create';
    });
    const dup = await deliver(app, p.endpoint, first);
    expect(dup.body.outcome).toBe('DUPLICATE');
    // A renewal carries no referral and another email: the Stripe customer of the first sale names the participant.
    const renewal = stripeEvent('invoice.paid', (_e, o) => (o.customer_email = 'sam.new-address@example.com'));
    expect((await deliver(app, p.endpoint, renewal)).body.outcome).toBe('ACCEPTED');
    // The newer API versions' shape (parent.subscription_details) too.
    expect((await deliver(app, p.endpoint, stripeEvent('invoice.paid.basil'))).body.outcome).toBe('ACCEPTED');
    const list = await commissionsOf(app, p);
    expect(list.map((c) => c.amount)).toEqual([250, 250, 250]);
    const customer = (await participantByEmail(p, 'sam.subscriber@example.com')).body;
    expect(new Set(list.map((c) => c.referredId))).toEqual(new Set([customer.id]));
    const log = await eventLog(app, p.key, p.pid);
    expect(log.map((e) => e.outcome)).toEqual(['ACCEPTED', 'ACCEPTED', 'DUPLICATE', 'ACCEPTED']);
    expect(log[2]).toMatchObject({ eventId: 'evt_first_invoice_paid', transactionId: log[3]!.transactionId, reason: expect.stringContaining('already recorded') });
  });

  it('records one sale when the session and its first invoice of a new customer arrive at once', async () => {
    const p = await connected();
    const session = stripeEvent('checkout.session.completed.subscription', (_e, o) => (o.client_reference_id = p.affiliate.id));
    const invoice = stripeEvent('invoice.paid', (e, o) => {
      e.id = 'evt_first_invoice_at_once';
      o.id = session.data.object.invoice;
      o.billing_reason = 'subscription_create';
      o.subscription_details.metadata = { refloop_referral: p.affiliate.id };
    });
    const outcomes = (await Promise.all([deliver(app, p.endpoint, session), deliver(app, p.endpoint, invoice)])).map((r) => r.body.outcome);
    expect(outcomes.sort()).toEqual(['ACCEPTED', 'DUPLICATE']);
    expect((await commissionsOf(app, p)).length).toBe(1);
  });

  it('ends recurring attribution when the subscription is deleted: later invoices earn nothing', async () => {
    const p = await connected();
    await deliver(app, p.endpoint, stripeEvent('checkout.session.completed.subscription', (_e, o) => (o.client_reference_id = p.affiliate.id)));
    const ended = await deliver(app, p.endpoint, stripeEvent('customer.subscription.deleted'));
    expect(ended.body.outcome).toBe('ACCEPTED');
    // An invoice issued before the end still counts (delivered late), one issued after it does not.
    expect((await deliver(app, p.endpoint, stripeEvent('invoice.paid'))).body.outcome).toBe('ACCEPTED');
    const after = stripeEvent('invoice.paid.basil', (e, o) => {
      e.id = 'evt_after_the_end';
      o.id = 'in_after_the_end';
      o.created = 1773576000 + 86_400;
    });
    const res = await deliver(app, p.endpoint, after);
    expect(res.body.outcome).toBe('IGNORED');
    expect((await commissionsOf(app, p)).length).toBe(2);
    const [last] = await eventLog(app, p.key, p.pid);
    expect(last!.reason).toContain('ended before this invoice');
  });

  it('records a sale in another currency with the operator’s exchange rate, and rejects one the table cannot convert', async () => {
    const p = await connected();
    expect((await deliver(app, p.endpoint, payment(p.affiliate.id, { currency: 'eur', amount: 8000 }))).body.outcome).toBe('ACCEPTED');
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ currencyISO: 'EUR', amount: 800, saleAmount: 8000, amountInCampaignCurrency: 1000, campaignCurrencyISO: 'USD', exchangeRate: expect.any(Number) });
    const gbp = await deliver(app, p.endpoint, payment(p.affiliate.id, { currency: 'gbp', eventId: 'evt_gbp', pi: 'pi_gbp' }));
    expect(gbp.status).toBe(200);
    expect(gbp.body.outcome).toBe('REJECTED');
    const [logged] = await eventLog(app, p.key, p.pid);
    expect(logged).toMatchObject({ eventId: 'evt_gbp', outcome: 'REJECTED', reason: expect.stringContaining('No exchange rate from GBP to USD') });
    expect((await commissionsOf(app, p)).length).toBe(1);
  });

  it('logs a sale it cannot attribute as UNATTRIBUTED and adds nobody', async () => {
    const p = await connected();
    const res = await deliver(app, p.endpoint, payment(null, { email: 'stranger@example.com' }));
    expect(res.body.outcome).toBe('UNATTRIBUTED');
    expect((await participantByEmail(p, 'stranger@example.com')).status).toBe(400);
    // A client_reference_id the merchant uses for something else names no participant: still not guessed.
    const other = await deliver(app, p.endpoint, payment('order-8812', { email: 'stranger@example.com', eventId: 'evt_other_ref', pi: 'pi_other' }));
    expect(other.body.outcome).toBe('UNATTRIBUTED');
    const log = await eventLog(app, p.key, p.pid);
    expect(log[0]!.reason).toContain('the referral "order-8812" names no participant');
    expect(log.every((e) => e.participantId === null && e.transactionId === null)).toBe(true);
    expect(await commissionsOf(app, p)).toEqual([]);
  });

  it('attributes by email to an existing participant when the payment carries no referral', async () => {
    const p = await connected();
    const res = await deliver(app, p.endpoint, payment(null, { email: p.customer.email.toUpperCase() }));
    expect(res.body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ referredId: p.customer.id, amount: 1000 });
  });

  it('credits the referral of a REFERRAL program’s new customer', async () => {
    const acct = await verifiedAccount(app);
    const pid = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body.id;
    const referrer = await addParticipant(app, acct.key, pid, { email: `referrer-${pid}@example.com` });
    const { path: endpoint } = await connectStripe(app, acct.key, pid);
    const res = await deliver(app, endpoint, payment(referrer.id, { email: `friend-${pid}@example.com` }));
    expect(res.body.outcome).toBe('ACCEPTED');
    const friend = await app.request('GET', `/v2/campaign/${pid}/participant/${encodeURIComponent(`friend-${pid}@example.com`)}`, { key: acct.key });
    expect(friend.body).toMatchObject({ referralStatus: 'CREDIT_AWARDED', referrer: expect.objectContaining({ id: referrer.id }) });
    // A refund changes nothing in a referral program.
    expect((await deliver(app, endpoint, stripeEvent('charge.refunded'))).body.outcome).toBe('IGNORED');
  });
});

describe('POST /integrations/stripe/:connectionId/webhook: refunds, duplicates and order', () => {
  it('applies a partial refund, then the full one, and ignores an older total delivered late', async () => {
    const p = await connected();
    await deliver(app, p.endpoint, payment(p.affiliate.id));
    const partial = stripeEvent('charge.refunded', (e, o) => {
      e.id = 'evt_partial_refund';
      o.amount_refunded = 4000;
    });
    expect((await deliver(app, p.endpoint, partial)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600, status: 'APPROVED' });
    expect((await deliver(app, p.endpoint, stripeEvent('charge.refunded'))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p, '?status=REVERSED'))[0]).toMatchObject({ amount: 0, status: 'REVERSED' });
    const late = stripeEvent('charge.refunded', (e, o) => {
      e.id = 'evt_partial_refund_again';
      o.amount_refunded = 4000;
    });
    expect((await deliver(app, p.endpoint, late)).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(app, p, '?status=REVERSED'))[0]).toMatchObject({ amount: 0 });
  });

  it('applies a re-delivered event once and counts the delivery', async () => {
    const p = await connected();
    const event = payment(p.affiliate.id);
    const first = await deliver(app, p.endpoint, event);
    app.clock.advance(60_000);
    const again = await deliver(app, p.endpoint, event);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ received: true, outcome: first.body.outcome });
    expect((await commissionsOf(app, p)).length).toBe(1);
    const log = await eventLog(app, p.key, p.pid);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ outcome: 'ACCEPTED', deliveries: 2 });
  });

  it('holds a refund that arrives before its sale and applies it when the sale arrives', async () => {
    const p = await connected();
    const early = await deliver(app, p.endpoint, stripeEvent('charge.refunded'));
    expect(early.body.outcome).toBe('DEFERRED');
    expect((await eventLog(app, p.key, p.pid))[0]).toMatchObject({ outcome: 'DEFERRED', transactionId: null });
    app.clock.advance(1000);
    expect((await deliver(app, p.endpoint, payment(p.affiliate.id))).body.outcome).toBe('ACCEPTED');
    const [c] = await commissionsOf(app, p, '?status=REVERSED');
    expect(c).toMatchObject({ amount: 0, status: 'REVERSED' });
    const log = await eventLog(app, p.key, p.pid);
    const refund = log.find((e) => e.type === 'charge.refunded')!;
    const sale = log.find((e) => e.type === 'checkout.session.completed')!;
    expect(refund).toMatchObject({ outcome: 'ACCEPTED', transactionId: sale.transactionId, reason: expect.stringContaining('applied when its sale arrived') });
  });

  it('takes back a refund that failed after it was counted, once', async () => {
    const p = await connected();
    await deliver(app, p.endpoint, payment(p.affiliate.id));
    const counted = stripeEvent('charge.refunded', (_e, o) => (o.amount_refunded = 4000));
    expect((await deliver(app, p.endpoint, counted)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600 });
    const refund = { id: 're_3PqKfXLkdIwHu7ix0f0Kq1Ud', object: 'refund', amount: 4000, balance_transaction: null, charge: 'ch_3PqKfXLkdIwHu7ix0QeT7Wb1', created: 1768564800, currency: 'usd', destination_details: { card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' }, type: 'card' }, failure_balance_transaction: 'txn_1PqKgbLkdIwHu7ixw9Uh0jXo', failure_reason: 'expired_or_canceled_card', metadata: {}, payment_intent: 'pi_3PqKfXLkdIwHu7ix0N6Vf1Tx', reason: 'requested_by_customer', receipt_number: null, source_transfer_reversal: null, status: 'failed', transfer_reversal: null };
    const envelope = (id: string, type: string) => ({ id, object: 'event', api_version: '2024-06-20', created: 1768565000, data: { object: refund, previous_attributes: { status: 'pending' } }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type });
    const failed = await deliver(app, p.endpoint, envelope('evt_refund_failed', 'refund.failed'));
    expect(failed.body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 1000, status: 'APPROVED' });
    // Stripe also sends refund.updated for the same failure: already taken back.
    expect((await deliver(app, p.endpoint, envelope('evt_refund_updated', 'refund.updated'))).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 1000 });
  });

  it('logs event types it does not use, and refunds in no counted status, as IGNORED with the reason', async () => {
    const p = await connected();
    const envelope = (id: string, type: string, object: Record<string, unknown>) => ({ id, object: 'event', api_version: '2024-06-20', created: 1768564800, data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type });
    const other = envelope('evt_pi_created', 'payment_intent.created', { id: 'pi_3PqKfXLkdIwHu7ix0N6Vf1Tx', object: 'payment_intent', amount: 10000, currency: 'usd', status: 'requires_payment_method' });
    expect((await deliver(app, p.endpoint, other)).body.outcome).toBe('IGNORED');
    expect((await eventLog(app, p.key, p.pid))[0]!.reason).toContain('does not use payment_intent.created');
    const odd = envelope('evt_refund_odd', 'refund.updated', { id: 're_odd', object: 'refund', amount: 100, charge: 'ch_3PqKfXLkdIwHu7ix0QeT7Wb1', currency: 'usd', status: 'unknown_status' });
    expect((await deliver(app, p.endpoint, odd)).body.outcome).toBe('IGNORED');
  });
});

describe('POST /integrations/stripe/:connectionId/webhook: signatures', () => {
  it('answers 400 to a wrong signature, a changed body or a missing header, and logs nothing', async () => {
    const p = await connected();
    const wrong = await deliver(app, p.endpoint, payment(p.affiliate.id), { secret: 'whsec_someoneElsesSecret000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ status: 400, errors: [expect.objectContaining({ field: 'Stripe-Signature', code: 'INVALID_SIGNATURE' })] });
    expect(wrong.text).not.toContain('jenny.rosen');
    const changed = await deliver(app, p.endpoint, payment(p.affiliate.id), { tamper: (t) => t.replace('"amount_total": 10000', '"amount_total": 99999') });
    expect(changed.status).toBe(400);
    expect((await deliver(app, p.endpoint, payment(p.affiliate.id), { signature: null })).status).toBe(400);
    expect(await eventLog(app, p.key, p.pid)).toEqual([]);
    expect(await commissionsOf(app, p)).toEqual([]);
  });

  it('answers 400 to a signature older than Stripe’s five-minute tolerance', async () => {
    const p = await connected();
    const res = await deliver(app, p.endpoint, payment(p.affiliate.id), { timestamp: Math.floor(app.clock.now() / 1000) - 301 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'SIGNATURE_EXPIRED' });
    expect(await eventLog(app, p.key, p.pid)).toEqual([]);
    const fresh = await deliver(app, p.endpoint, payment(p.affiliate.id), { timestamp: Math.floor(app.clock.now() / 1000) - 240 });
    expect(fresh.status).toBe(200);
  });

  it('answers 404 for an unknown or disconnected connection, and 400 past the size cap', async () => {
    const p = await connected();
    expect((await deliver(app, '/integrations/stripe/nosuchconnection/webhook', payment(null))).status).toBe(404);
    const big = await app.request('POST', p.endpoint, { raw: 'x'.repeat(600 * 1024), headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' } });
    expect(big.status).toBe(400);
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/integrations/stripe`, { key: p.key })).status).toBe(200);
    expect((await deliver(app, p.endpoint, payment(p.affiliate.id))).status).toBe(404);
  });
});

describe('billing event log retention', () => {
  it('prunes events 30 days after they arrived', async () => {
    const p = await connected();
    await deliver(app, p.endpoint, payment(p.affiliate.id));
    app.clock.advance(29 * DAY);
    await app.deps.maintenance.prune();
    expect(await eventLog(app, p.key, p.pid)).toHaveLength(1);
    app.clock.advance(2 * DAY);
    const pruned = await app.deps.maintenance.prune();
    expect(pruned.billing_events).toBeGreaterThanOrEqual(1);
    expect(await eventLog(app, p.key, p.pid)).toEqual([]);
  });
  // Issue #35: a refund whose sale never arrives is reported to the owner, not pruned silently.
  it('reports a refund that waited 30 days for its sale as UNMATCHED, keeps it, and applies it when the sale still arrives', async () => {
    const p = await connected();
    const refund = { id: 're_3PqKfXLkdIwHu7ix0f0Kq1Ud', object: 'refund', amount: 4000, charge: 'ch_3PqKfXLkdIwHu7ix0QeT7Wb1', created: 1768564800, currency: 'usd', metadata: {}, payment_intent: 'pi_3PqKfXLkdIwHu7ix0N6Vf1Tx', reason: 'requested_by_customer', status: 'succeeded' };
    const created = { id: 'evt_refund_created_unmatched', object: 'event', api_version: '2024-06-20', created: 1768565000, data: { object: refund }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type: 'refund.created' };
    expect((await deliver(app, p.endpoint, created)).body.outcome).toBe('DEFERRED');
    app.clock.advance(29 * DAY);
    await app.deps.unmatchedRefunds.report();
    expect((await eventLog(app, p.key, p.pid))[0]).toMatchObject({ outcome: 'DEFERRED', refund: { refundId: refund.id, amount: 4000, currency: 'USD', saleRef: refund.charge } });
    app.clock.advance(2 * DAY);
    // The prune leaves a waiting refund alone; the report turns it into the owner's entry.
    await app.deps.maintenance.prune();
    expect(await app.deps.unmatchedRefunds.report()).toBeGreaterThanOrEqual(1);
    const [reported] = await eventLog(app, p.key, p.pid, '?outcome=UNMATCHED');
    expect(reported).toMatchObject({ eventId: created.id, type: 'refund.created', outcome: 'UNMATCHED', receivedAt: app.clock.now(), transactionId: null, refund: { refundId: refund.id, amount: 4000 } });
    expect(reported!.reason).toContain(`Refund ${refund.id} of $40.00 (received `);
    expect(reported!.reason).toContain('never matched a sale within 30 days: no commission was reversed');
    const connection = await app.request('GET', `/v2/campaign/${p.pid}/integrations/stripe`, { key: p.key });
    expect(connection.body.unmatchedRefunds).toBe(1);
    // Kept in the log 30 days from the report; a sale that arrives meanwhile still takes the refund.
    app.clock.advance(29 * DAY);
    await app.deps.maintenance.prune();
    expect(await eventLog(app, p.key, p.pid, '?outcome=UNMATCHED')).toHaveLength(1);
    expect((await deliver(app, p.endpoint, payment(p.affiliate.id))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600 });
    const late = (await eventLog(app, p.key, p.pid)).find((e) => e.eventId === created.id);
    expect(late).toMatchObject({ outcome: 'ACCEPTED', refund: null, reason: expect.stringContaining('Its sale arrived after this refund was reported as never matching one; applied now') });
    expect((await app.request('GET', `/v2/campaign/${p.pid}/integrations/stripe`, { key: p.key })).body.unmatchedRefunds).toBe(0);
  });
});
