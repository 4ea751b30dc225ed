import crypto from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { commissionsOf, moneyProgram, type MoneyProgram } from '../../helpers/money.ts';
import { SIGNING_SECRET, connectStripe, deliver, eventLog, stripeEvent } from './stripe-helpers.ts';

// Issue #25, the last gaps of the Stripe integration: refunds of invoices paid under Stripe's basil
// API versions (the invoice no longer names its payment intent: invoice_payment.paid, or the
// invoice_payments API with the restricted key, links them), and refunds counted one by one by
// their Stripe ids so a failed one is taken back by exactly its amount. Stripe's API is a local
// stand-in answering as Stripe documents (STRIPE_API_URL); nothing here reaches the internet.

const RESTRICTED_KEY = 'rk_test_51PqKbqLkdIwHu7ixRefloopTestRestrictedKey';
const BASIL = '2025-06-30.basil';

/** Stripe's API, as far as refloop reads it: GET /v1/invoice_payments (by payment intent) and GET /v1/refunds (by charge). */
async function stripeApi() {
  const invoicePayments: Array<Record<string, any>> = [];
  const refunds: Array<Record<string, any>> = [];
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stripe.test');
    requests.push(`${req.method} ${url.pathname}?${decodeURIComponent(url.searchParams.toString())}`);
    res.setHeader('content-type', 'application/json');
    if (req.headers.authorization !== `Bearer ${RESTRICTED_KEY}`) {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: { message: 'Invalid API Key provided: rk_test_****', type: 'invalid_request_error' } }));
      return;
    }
    const list = (data: unknown[]) => res.end(JSON.stringify({ object: 'list', data, has_more: false, url: url.pathname }));
    if (req.method === 'GET' && url.pathname === '/v1/invoice_payments') {
      const pi = url.searchParams.get('payment[payment_intent]');
      return list(invoicePayments.filter((p) => p.payment.payment_intent === pi));
    }
    if (req.method === 'GET' && url.pathname === '/v1/refunds') {
      const charge = url.searchParams.get('charge');
      return list(refunds.filter((r) => r.charge === charge).sort((a, b) => b.created - a.created));
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ error: { message: `Unrecognized request URL (${req.method}: ${url.pathname}).`, type: 'invalid_request_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, invoicePayments, refunds, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let api: Awaited<ReturnType<typeof stripeApi>>;
let app: TestApp;
beforeAll(async () => {
  api = await stripeApi();
  app = await startApp({ ...RAISED_LIMITS, STRIPE_API_URL: api.url });
});
afterAll(async () => {
  await app.close();
  await api.close();
});

const uid = () => crypto.randomBytes(6).toString('hex');

/** An affiliate program connected to Stripe (with the restricted key when asked). */
async function connected(opts: { key?: boolean } = {}): Promise<MoneyProgram & { endpoint: string }> {
  const p = await moneyProgram(app);
  const body = { webhookSigningSecret: SIGNING_SECRET, ...(opts.key ? { restrictedApiKey: RESTRICTED_KEY } : {}) };
  const { path: endpoint } = await connectStripe(app, p.key, p.pid, body);
  return { ...p, endpoint };
}

/** The subscription's first Checkout Session (referred by the affiliate) and a basil-version renewal invoice of 2500, with fresh ids. */
function subscription(p: MoneyProgram) {
  const n = uid();
  const customer = `cus_${n}`;
  const session = stripeEvent('checkout.session.completed.subscription', (e, o) => {
    e.id = `evt_cs_${n}`;
    o.id = `cs_test_${n}`;
    o.invoice = `in_first_${n}`;
    o.customer = customer;
    o.customer_details.email = `sub-${n}@example.com`;
    o.client_reference_id = p.affiliate.id;
  });
  const invoice = stripeEvent('invoice.paid.basil', (e, o) => {
    e.id = `evt_in_${n}`;
    o.id = `in_${n}`;
    o.customer = customer;
    o.customer_email = `sub-${n}@example.com`;
  });
  return { n, session, invoice, invoiceId: `in_${n}`, pi: `pi_${n}`, charge: `ch_${n}` };
}

/** charge.refunded as a basil-version account sends it: the charge names its payment intent, no invoice. */
function chargeRefunded(s: { n: string; pi: string; charge: string }, amountRefunded: number, eventId = `evt_ch_${s.n}_${amountRefunded}`, refunds?: unknown[]) {
  return stripeEvent('charge.refunded', (e, o) => {
    e.id = eventId;
    e.api_version = BASIL;
    o.id = s.charge;
    o.amount = o.amount_captured = 2500;
    o.amount_refunded = amountRefunded;
    o.payment_intent = s.pi;
    o.customer = `cus_${s.n}`;
    delete o.invoice;
    if (refunds) o.refunds = { object: 'list', data: refunds, has_more: false, total_count: refunds.length, url: `/v1/charges/${s.charge}/refunds` };
  });
}

/** An invoice payment (inpay_…) as Stripe's API reference shows it. */
function invoicePayment(s: { n: string; invoiceId: string; pi: string; charge: string }) {
  return { id: `inpay_${s.n}`, object: 'invoice_payment', amount_paid: 2500, amount_requested: 2500, created: 1773576000, currency: 'usd', invoice: s.invoiceId, is_default: true, livemode: false, payment: { type: 'payment_intent', payment_intent: s.pi }, status: 'paid', status_transitions: { canceled_at: null, paid_at: 1773576000 } };
}

/** The invoice_payment.paid event Stripe sends when that payment pays the invoice. */
function invoicePaymentPaid(s: { n: string; invoiceId: string; pi: string; charge: string }) {
  return { id: `evt_inpay_${s.n}`, object: 'event', api_version: BASIL, created: 1773576001, data: { object: invoicePayment(s) }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type: 'invoice_payment.paid' };
}

/** A refund object (re_…) as Stripe's API reference shows it. */
function refundObject(id: string, charge: string, pi: string, amount: number, status: string, created: number) {
  return { id, object: 'refund', amount, balance_transaction: null, charge, created, currency: 'usd', destination_details: { card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' }, type: 'card' }, metadata: {}, payment_intent: pi, reason: 'requested_by_customer', receipt_number: null, source_transfer_reversal: null, status, transfer_reversal: null, ...(status === 'failed' ? { failure_reason: 'expired_or_canceled_card', failure_balance_transaction: `txn_${id}` } : {}) };
}

function refundEvent(id: string, type: string, refund: Record<string, unknown>) {
  return { id, object: 'event', api_version: BASIL, created: Number(refund.created) + 60, data: { object: refund }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type };
}

describe('POST /integrations/stripe/:connectionId/webhook: refunds of basil-version invoices', () => {
  it('holds a refund of a renewal until invoice_payment.paid links its payment intent to the invoice, then applies it', async () => {
    const p = await connected();
    const s = subscription(p);
    expect((await deliver(app, p.endpoint, s.session)).body.outcome).toBe('ACCEPTED');
    expect((await deliver(app, p.endpoint, s.invoice)).body.outcome).toBe('ACCEPTED');
    // The charge names pi_… only; the invoice named no payment: nothing matches yet.
    expect((await deliver(app, p.endpoint, chargeRefunded(s, 1000))).body.outcome).toBe('DEFERRED');
    expect((await commissionsOf(app, p)).map((c) => c.amount)).toEqual([250, 250]);
    app.clock.advance(1000);
    const linked = await deliver(app, p.endpoint, invoicePaymentPaid(s));
    expect(linked.body.outcome).toBe('ACCEPTED');
    const log = await eventLog(app, p.key, p.pid);
    const sale = log.find((e) => e.eventId === `evt_in_${s.n}`)!;
    expect(log.find((e) => e.type === 'invoice_payment.paid')).toMatchObject({ outcome: 'ACCEPTED', transactionId: sale.transactionId, reason: expect.stringContaining(`Invoice ${s.invoiceId} was paid by ${s.pi}`) });
    expect(log.find((e) => e.type === 'charge.refunded')).toMatchObject({ outcome: 'ACCEPTED', transactionId: sale.transactionId, reason: expect.stringContaining('applied when its sale arrived') });
    // 1000 of 2500 refunded: the renewal's 250 becomes 150; the first payment's stays.
    expect((await commissionsOf(app, p)).map((c) => c.amount).sort()).toEqual([150, 250]);
    // The link delivered again, and a later refund of the same charge: each applied once.
    expect((await deliver(app, p.endpoint, invoicePaymentPaid(s))).body.outcome).toBe('ACCEPTED');
    expect((await deliver(app, p.endpoint, chargeRefunded(s, 2500))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p, '?status=REVERSED')).map((c) => c.amount)).toEqual([0]);
    expect((await eventLog(app, p.key, p.pid)).find((e) => e.type === 'invoice_payment.paid')!.deliveries).toBe(2);
  });

  it('links first and records the sale last: the refund that waited is applied when the invoice’s sale arrives', async () => {
    const p = await connected();
    const s = subscription(p);
    expect((await deliver(app, p.endpoint, s.session)).body.outcome).toBe('ACCEPTED');
    expect((await deliver(app, p.endpoint, chargeRefunded(s, 2500))).body.outcome).toBe('DEFERRED');
    const linked = await deliver(app, p.endpoint, invoicePaymentPaid(s));
    expect(linked.body.outcome).toBe('ACCEPTED');
    expect((await eventLog(app, p.key, p.pid))[0]!.reason).toContain('no sale of it is recorded (yet)');
    // The refund still waits: the link names an invoice no sale has yet.
    expect((await eventLog(app, p.key, p.pid)).find((e) => e.type === 'charge.refunded')!.outcome).toBe('DEFERRED');
    expect((await deliver(app, p.endpoint, s.invoice)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p, '?status=REVERSED')).map((c) => [c.amount, c.saleAmount])).toEqual([[0, 2500]]);
    expect((await eventLog(app, p.key, p.pid)).find((e) => e.type === 'charge.refunded')).toMatchObject({ outcome: 'ACCEPTED', reason: expect.stringContaining('applied when its sale arrived') });
  });

  it('with the restricted key, looks the invoice up in Stripe’s invoice_payments API and applies the refund at once', async () => {
    const p = await connected({ key: true });
    const s = subscription(p);
    api.invoicePayments.push(invoicePayment(s));
    await deliver(app, p.endpoint, s.session);
    await deliver(app, p.endpoint, s.invoice);
    const res = await deliver(app, p.endpoint, chargeRefunded(s, 1000));
    expect(res.body.outcome).toBe('ACCEPTED');
    expect(api.requests).toContain(`GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=${s.pi}&limit=10`);
    expect((await commissionsOf(app, p)).map((c) => c.amount).sort()).toEqual([150, 250]);
    // The answer is kept: the next refund of that charge needs no look-up.
    const before = api.requests.length;
    expect((await deliver(app, p.endpoint, chargeRefunded(s, 2500))).body.outcome).toBe('ACCEPTED');
    expect(api.requests.length).toBe(before);
  });

  it('defers the refund when Stripe’s API knows no invoice payment of that payment intent', async () => {
    const p = await connected({ key: true });
    const s = subscription(p);
    await deliver(app, p.endpoint, s.session);
    await deliver(app, p.endpoint, s.invoice);
    expect((await deliver(app, p.endpoint, chargeRefunded(s, 1000))).body.outcome).toBe('DEFERRED');
    expect(api.requests.some((r) => r.includes(s.pi))).toBe(true);
    expect((await commissionsOf(app, p)).map((c) => c.amount)).toEqual([250, 250]);
  });
});

describe('POST /integrations/stripe/:connectionId/webhook: refunds counted by their ids', () => {
  /** A one-off payment of 10000 referred by the affiliate (commission 1000) and its charge's refunds. */
  async function paid(p: MoneyProgram & { endpoint: string }) {
    const n = uid();
    const event = stripeEvent('checkout.session.completed.payment', (e, o) => {
      e.id = `evt_cs_${n}`;
      o.id = `cs_test_${n}`;
      o.payment_intent = `pi_${n}`;
      o.customer = `cus_${n}`;
      o.customer_details.email = `buyer-${n}@example.com`;
      o.client_reference_id = p.affiliate.id;
    });
    expect((await deliver(app, p.endpoint, event)).body.outcome).toBe('ACCEPTED');
    const charge = `ch_${n}`;
    const pi = `pi_${n}`;
    const total = (amountRefunded: number, refunds?: unknown[]) =>
      stripeEvent('charge.refunded', (e, o) => {
        e.id = `evt_total_${n}_${amountRefunded}${refunds ? '_listed' : ''}`;
        o.id = charge;
        o.payment_intent = pi;
        o.amount_refunded = amountRefunded;
        if (refunds) o.refunds = { object: 'list', data: refunds, has_more: false, total_count: refunds.length, url: `/v1/charges/${charge}/refunds` };
      });
    const r1 = refundObject(`re_a_${n}`, charge, pi, 4000, 'succeeded', 1768564800);
    const r2 = refundObject(`re_b_${n}`, charge, pi, 2000, 'succeeded', 1768568400);
    const r2failed = { ...refundObject(`re_b_${n}`, charge, pi, 2000, 'failed', 1768568400) };
    return { n, charge, pi, total, r1, r2, r2failed };
  }

  it('takes back exactly a failed refund’s amount when refund.created counted each refund by its id, in any order', async () => {
    const p = await connected();
    const c = await paid(p);
    // The totals arrive before, between and after the refunds' own events.
    expect((await deliver(app, p.endpoint, c.total(4000))).body.outcome).toBe('ACCEPTED');
    expect((await deliver(app, p.endpoint, refundEvent(`evt_rc_a_${c.n}`, 'refund.created', c.r1))).body.outcome).toBe('ACCEPTED');
    expect((await deliver(app, p.endpoint, refundEvent(`evt_rc_b_${c.n}`, 'refund.created', c.r2))).body.outcome).toBe('ACCEPTED');
    expect((await deliver(app, p.endpoint, c.total(6000))).body.outcome).toBe('DUPLICATE');
    // 6000 of 10000 refunded: 400 of the 1000 commission.
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 400 });
    const failed = await deliver(app, p.endpoint, refundEvent(`evt_rf_b_${c.n}`, 'refund.failed', c.r2failed));
    expect(failed.body.outcome).toBe('ACCEPTED');
    // 4000 refunded again: 600.
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600, status: 'APPROVED' });
    // The same failure again (refund.updated), and the refund's creation delivered anew: nothing changes.
    expect((await deliver(app, p.endpoint, refundEvent(`evt_ru_b_${c.n}`, 'refund.updated', c.r2failed))).body.outcome).toBe('DUPLICATE');
    expect((await deliver(app, p.endpoint, refundEvent(`evt_rc_b2_${c.n}`, 'refund.created', c.r2))).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600 });
  });

  it('counts the refunds a charge lists by their ids, so a later failure of one is taken back', async () => {
    const p = await connected();
    const c = await paid(p);
    expect((await deliver(app, p.endpoint, c.total(4000, [c.r1]))).body.outcome).toBe('ACCEPTED');
    expect((await deliver(app, p.endpoint, c.total(6000, [c.r2, c.r1]))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 400 });
    expect((await deliver(app, p.endpoint, refundEvent(`evt_rf_b_${c.n}`, 'refund.failed', c.r2failed))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600 });
  });

  it('with only totals counted, reads the charge’s refunds from Stripe with the restricted key to take back the failed one', async () => {
    const p = await connected({ key: true });
    const c = await paid(p);
    await deliver(app, p.endpoint, c.total(4000));
    await deliver(app, p.endpoint, c.total(6000));
    api.refunds.push(c.r1, c.r2failed);
    const failed = await deliver(app, p.endpoint, refundEvent(`evt_rf_b_${c.n}`, 'refund.failed', c.r2failed));
    expect(failed.body.outcome).toBe('ACCEPTED');
    expect(api.requests).toContain(`GET /v1/refunds?charge=${c.charge}&limit=100`);
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600 });
    expect((await deliver(app, p.endpoint, refundEvent(`evt_ru_b_${c.n}`, 'refund.updated', c.r2failed))).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 600 });
  });

  it('without ids, the key or the list, still refuses to guess which part of a total failed (REJECTED with AF9’s reason)', async () => {
    const p = await connected();
    const c = await paid(p);
    await deliver(app, p.endpoint, c.total(4000));
    await deliver(app, p.endpoint, c.total(6000));
    const failed = await deliver(app, p.endpoint, refundEvent(`evt_rf_b_${c.n}`, 'refund.failed', c.r2failed));
    expect(failed.body.outcome).toBe('REJECTED');
    expect((await eventLog(app, p.key, p.pid))[0]!.reason).toContain('refund history of this sale is incomplete');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 400 });
  });

  it('holds a refund.created that arrives before its sale and counts it when the sale arrives', async () => {
    const p = await connected();
    const n = uid();
    const r = refundObject(`re_early_${n}`, `ch_${n}`, `pi_${n}`, 2500, 'succeeded', 1768564800);
    expect((await deliver(app, p.endpoint, refundEvent(`evt_rc_${n}`, 'refund.created', r))).body.outcome).toBe('DEFERRED');
    const event = stripeEvent('checkout.session.completed.payment', (e, o) => {
      e.id = `evt_cs_${n}`;
      o.payment_intent = `pi_${n}`;
      o.customer_details.email = `early-${n}@example.com`;
      o.client_reference_id = p.affiliate.id;
    });
    expect((await deliver(app, p.endpoint, event)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 750 });
    expect((await eventLog(app, p.key, p.pid)).find((e) => e.type === 'refund.created')).toMatchObject({ outcome: 'ACCEPTED', reason: expect.stringContaining('applied when its sale arrived') });
  });
});
