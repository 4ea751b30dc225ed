import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifiedAccount } from '../../helpers/app.ts';
import { addParticipant, commissionsOf, moneyProgram, type MoneyProgram } from '../../helpers/money.ts';
import { PADDLE_API_KEY, PADDLE_SECRET, connectPaddle, deliverPaddle, paddleSuite, paddleEvent, paddleLog } from './paddle-helpers.ts';

// POST /integrations/paddle/{connectionId}/webhook (issue #25): Paddle Billing's own notification
// shapes, signed as Paddle signs them and verified by the official SDK, applied through AF8/AF9 and
// the referral trigger. Customers' emails come from Paddle's API (GET /customers/{id}), served here
// by a local stand-in speaking Paddle's documented answers (PADDLE_API_URL).

const ratesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-rates-'));
const ratesFile = path.join(ratesDir, 'rates.json');
// 1 USD = 0.8 EUR.
fs.writeFileSync(ratesFile, JSON.stringify({ base: 'USD', asOf: Date.UTC(2026, 0, 14), rates: { EUR: 0.8 } }));

const suite = paddleSuite({ EXCHANGE_RATES_FILE: ratesFile });
const { customers } = suite;
afterAll(() => fs.rmSync(ratesDir, { recursive: true, force: true }));

let seq = 0;
/** A program connected to Paddle (with the API key unless `apiKey: false`), and a fresh Paddle customer id. */
async function connected(opts: { apiKey?: boolean } = {}): Promise<MoneyProgram & { endpoint: string; ctm: string }> {
  const p = await moneyProgram(suite.app);
  const { path: endpoint } = await connectPaddle(suite.app, p.key, p.pid, { webhookSecretKey: PADDLE_SECRET, ...(opts.apiKey === false ? {} : { apiKey: PADDLE_API_KEY }) });
  seq += 1;
  return { ...p, endpoint, ctm: `ctm_01hv6y1jedq4p1n0yqn5b${String(seq).padStart(5, '0')}` };
}

/** The first sale (transaction.completed, origin web) of customer `ctm`, referred by `referral`. */
function firstSale(ctm: string, referral: string | null, change?: (e: any, d: any) => void) {
  return paddleEvent('transaction.completed', (e, d) => {
    d.customer_id = ctm;
    d.custom_data = referral == null ? null : { refloop_referral: referral };
    change?.(e, d);
  });
}


async function participantByEmail(p: MoneyProgram, email: string) {
  return suite.app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(email)}`, { key: p.key });
}

describe('POST /integrations/paddle/:connectionId/webhook: sales', () => {
  it('records a first sale for the new customer the referral names, with the email from Paddle’s API', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: `sam-${p.pid}@example.com`, name: 'Sam Miller' });
    const res = await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: 'ACCEPTED' });
    expect(suite.api.requests).toContain(`GET /customers/${p.ctm}`);
    const customer = await participantByEmail(p, `sam-${p.pid}@example.com`);
    expect(customer.status, customer.text).toBe(200);
    expect(customer.body).toMatchObject({ firstName: 'Sam', lastName: 'Miller', referrer: expect.objectContaining({ id: p.affiliate.id }) });
    const [c] = await commissionsOf(suite.app, p);
    // grand_total "9900" with tax "900": the sale is 9000 before tax, the commission 10 % of it.
    expect(c).toMatchObject({ event: 'SALE', saleAmount: 9000, amount: 900, currencyISO: 'USD', referredId: customer.body.id });
    const [logged] = await paddleLog(suite.app, p.key, p.pid);
    expect(logged).toMatchObject({ eventId: 'evt_01hv8x2acma2gz7he4n8gs7pvk', type: 'transaction.completed', outcome: 'ACCEPTED', participantId: customer.body.id, transactionId: expect.any(String), deliveries: 1, livemode: false, createdAt: Date.parse('2026-01-15T10:18:49.621022Z') });
  });

  it('records renewals (origin subscription_recurring, no custom data) for the Paddle customer of the first sale, and stops after subscription.canceled', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: `renew-${p.pid}@example.com`, name: null });
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id))).body.outcome).toBe('ACCEPTED');
    // The customer changed their email at Paddle since: the customer id still names the participant.
    customers.set(p.ctm, { email: 'someone-else@example.com', name: null });
    const renewal = paddleEvent('transaction.completed.renewal', (_e, d) => (d.customer_id = p.ctm));
    expect((await deliverPaddle(suite.app, p.endpoint, renewal)).body.outcome).toBe('ACCEPTED');
    const list = await commissionsOf(suite.app, p);
    expect(list.map((c) => c.amount)).toEqual([900, 900]);
    expect(new Set(list.map((c) => c.referredId)).size).toBe(1);
    // Canceled on 1 February: the next renewal, billed 15 March, earns nothing.
    const canceled = await deliverPaddle(suite.app, p.endpoint, paddleEvent('subscription.canceled', (_e, d) => (d.customer_id = p.ctm)));
    expect(canceled.body.outcome).toBe('ACCEPTED');
    const after = paddleEvent('transaction.completed.renewal', (e, d) => {
      e.event_id = 'evt_01hzrenewalaftercancel0000';
      d.id = 'txn_01hzrenewalaftercancel0000';
      d.customer_id = p.ctm;
      d.billed_at = '2026-03-15T10:18:48.294633Z';
    });
    expect((await deliverPaddle(suite.app, p.endpoint, after)).body.outcome).toBe('IGNORED');
    expect((await commissionsOf(suite.app, p)).length).toBe(2);
    const [last] = await paddleLog(suite.app, p.key, p.pid);
    expect(last!.reason).toContain('was canceled before this transaction');
  });

  it('attributes by the customer’s email to an existing participant when there is no referral', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: p.customer.email.toUpperCase(), name: null });
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ referredId: p.customer.id, amount: 900 });
  });

  it('logs an unknown customer as UNATTRIBUTED and adds nobody: no API key, a referral naming nobody, a customer Paddle does not know', async () => {
    const p = await connected({ apiKey: false });
    const noKey = await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id));
    expect(noKey.body.outcome).toBe('UNATTRIBUTED');
    expect((await paddleLog(suite.app, p.key, p.pid))[0]!.reason).toContain('connect an API key');
    const q = await connected();
    customers.set(q.ctm, { email: `stranger-${q.pid}@example.com`, name: null });
    const other = await deliverPaddle(suite.app, q.endpoint, firstSale(q.ctm, 'order-8812'));
    expect(other.body.outcome).toBe('UNATTRIBUTED');
    const unknown = await deliverPaddle(suite.app, q.endpoint, firstSale('ctm_01hvunknowncustomer00000000', null, (e, d) => {
      e.event_id = 'evt_01hvunknowncustomer0000000';
      d.id = 'txn_01hvunknowncustomer0000000';
    }));
    expect(unknown.body.outcome).toBe('UNATTRIBUTED');
    const log = await paddleLog(suite.app, q.key, q.pid);
    expect(log[1]!.reason).toContain('the referral "order-8812" names no participant');
    expect(log[0]!.reason).toContain('no customer email');
    expect(log.every((e) => e.participantId === null && e.transactionId === null)).toBe(true);
    expect((await participantByEmail(q, `stranger-${q.pid}@example.com`)).status).toBe(400);
    expect(await commissionsOf(suite.app, p)).toEqual([]);
    expect(await commissionsOf(suite.app, q)).toEqual([]);
  });

  it('attributes a new customer by a mapped Paddle discount alone (BC1), and names the code in the log', async () => {
    const p = await connected();
    const code = await suite.app.request('POST', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}/codes`, { key: p.key, body: { code: 'ADA-PADDLE', paddleDiscountId: 'dsc_01hv8x2a3badapaddle0000' } });
    expect(code.status, code.text).toBe(200);
    customers.set(p.ctm, { email: `coded-${p.pid}@example.com`, name: 'Cody Coded' });
    const res = await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null, (_e, d) => (d.discount_id = 'dsc_01hv8x2a3badapaddle0000')));
    expect(res.body.outcome).toBe('ACCEPTED');
    const customer = await participantByEmail(p, `coded-${p.pid}@example.com`);
    expect(customer.body).toMatchObject({ referrer: expect.objectContaining({ id: p.affiliate.id }) });
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ referredId: customer.body.id });
    expect((await paddleLog(suite.app, p.key, p.pid))[0]!.reason).toContain('Paddle discount dsc_01hv8x2a3badapaddle0000 (code ADA-PADDLE');
    // A discount nobody's code maps: not attributed.
    const q = await connected();
    customers.set(q.ctm, { email: `uncoded-${q.pid}@example.com`, name: null });
    expect((await deliverPaddle(suite.app, q.endpoint, firstSale(q.ctm, null, (_e, d) => (d.discount_id = 'dsc_01hvnobodys0000000000000')))).body.outcome).toBe('UNATTRIBUTED');
    expect((await paddleLog(suite.app, q.key, q.pid))[0]!.reason).toContain('discount dsc_01hvnobodys0000000000000 is no participant’s code');
  });

  it('records a sale in another currency with the operator’s exchange rate, and rejects one the table cannot convert', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: p.customer.email, name: null });
    const eur = firstSale(p.ctm, null, (_e, d) => {
      d.currency_code = d.details.totals.currency_code = 'EUR';
      d.details.totals.grand_total = d.details.totals.total = '8800';
      d.details.totals.tax = '800';
    });
    expect((await deliverPaddle(suite.app, p.endpoint, eur)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ currencyISO: 'EUR', saleAmount: 8000, amount: 800, amountInCampaignCurrency: 1000, campaignCurrencyISO: 'USD' });
    const gbp = firstSale(p.ctm, null, (e, d) => {
      e.event_id = 'evt_01hvgbpsale00000000000000';
      d.id = 'txn_01hvgbpsale00000000000000';
      d.currency_code = d.details.totals.currency_code = 'GBP';
    });
    const res = await deliverPaddle(suite.app, p.endpoint, gbp);
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('REJECTED');
    expect((await paddleLog(suite.app, p.key, p.pid))[0]).toMatchObject({ outcome: 'REJECTED', reason: expect.stringContaining('No exchange rate from GBP to USD') });
    expect((await commissionsOf(suite.app, p)).length).toBe(1);
  });

  it('credits the referral of a REFERRAL program’s new customer; refunds change nothing there', async () => {
    const acct = await verifiedAccount(suite.app);
    const pid = (await suite.app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body.id;
    const referrer = await addParticipant(suite.app, acct.key, pid, { email: `referrer-${pid}@example.com` });
    const { path: endpoint } = await connectPaddle(suite.app, acct.key, pid, { webhookSecretKey: PADDLE_SECRET, apiKey: PADDLE_API_KEY });
    const ctm = 'ctm_01hvreferralprogramfriend00';
    customers.set(ctm, { email: `friend-${pid}@example.com`, name: 'Fran Friend' });
    expect((await deliverPaddle(suite.app, endpoint, firstSale(ctm, referrer.id))).body.outcome).toBe('ACCEPTED');
    const friend = await suite.app.request('GET', `/v2/campaign/${pid}/participant/${encodeURIComponent(`friend-${pid}@example.com`)}`, { key: acct.key });
    expect(friend.body).toMatchObject({ referralStatus: 'CREDIT_AWARDED', referrer: expect.objectContaining({ id: referrer.id }) });
    expect((await deliverPaddle(suite.app, endpoint, paddleEvent('adjustment.updated'))).body.outcome).toBe('IGNORED');
  });
});

describe('POST /integrations/paddle/:connectionId/webhook: refunds, duplicates and order', () => {
  it('applies an approved refund adjustment once (created pending, then updated approved, then delivered again)', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: p.customer.email, name: null });
    await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null));
    const pending = await deliverPaddle(suite.app, p.endpoint, paddleEvent('adjustment.created'));
    expect(pending.body.outcome).toBe('IGNORED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 900 });
    const approved = paddleEvent('adjustment.updated');
    expect((await deliverPaddle(suite.app, p.endpoint, approved)).body.outcome).toBe('ACCEPTED');
    // 3300 of 9900 refunded: the commission goes down by a third.
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 600 });
    // Paddle re-sends the same notification: counted, not applied again.
    expect((await deliverPaddle(suite.app, p.endpoint, approved)).body.outcome).toBe('ACCEPTED');
    // Another notification about the same approved adjustment: already applied.
    const again = paddleEvent('adjustment.updated', (e) => (e.event_id = 'evt_01hvgfsameadjustmentagain00'));
    expect((await deliverPaddle(suite.app, p.endpoint, again)).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 600 });
    const log = await paddleLog(suite.app, p.key, p.pid);
    expect(log.map((e) => [e.type, e.outcome, e.deliveries])).toEqual([
      ['adjustment.updated', 'DUPLICATE', 1],
      ['adjustment.updated', 'ACCEPTED', 2],
      ['adjustment.created', 'IGNORED', 1],
      ['transaction.completed', 'ACCEPTED', 1],
    ]);
    // The rest of the sale refunded: the commission is reversed.
    const rest = paddleEvent('adjustment.updated', (e, d) => {
      e.event_id = 'evt_01hvgfrestrefund000000000';
      d.id = 'adj_01hvgfrestrefund000000000';
      d.totals.total = '6600';
    });
    expect((await deliverPaddle(suite.app, p.endpoint, rest)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p, '?status=REVERSED'))[0]).toMatchObject({ amount: 0, status: 'REVERSED' });
  });

  it('takes back a refund Paddle reversed, once, and ignores refunds waiting for approval or rejected', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: p.customer.email, name: null });
    await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null));
    expect((await deliverPaddle(suite.app, p.endpoint, paddleEvent('adjustment.updated'))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 600 });
    const reversed = (id: string) => paddleEvent('adjustment.updated', (e, d) => ((e.event_id = id), (d.status = 'reversed')));
    expect((await deliverPaddle(suite.app, p.endpoint, reversed('evt_01hvreversed00000000000001'))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 900 });
    expect((await deliverPaddle(suite.app, p.endpoint, reversed('evt_01hvreversed00000000000002'))).body.outcome).toBe('DUPLICATE');
    const rejected = paddleEvent('adjustment.updated', (e, d) => ((e.event_id = 'evt_01hvrejected0000000000000'), (d.id = 'adj_01hvrejected0000000000000'), (d.status = 'rejected')));
    expect((await deliverPaddle(suite.app, p.endpoint, rejected)).body.outcome).toBe('IGNORED');
    const credit = paddleEvent('adjustment.created', (e, d) => ((e.event_id = 'evt_01hvcredit000000000000000'), (d.action = 'credit'), (d.status = 'approved')));
    expect((await deliverPaddle(suite.app, p.endpoint, credit)).body.outcome).toBe('IGNORED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 900 });
  });

  it('holds a refund that arrives before its sale and applies it when the sale arrives', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: p.customer.email, name: null });
    const early = await deliverPaddle(suite.app, p.endpoint, paddleEvent('adjustment.updated'));
    expect(early.body.outcome).toBe('DEFERRED');
    expect((await paddleLog(suite.app, p.key, p.pid))[0]).toMatchObject({ outcome: 'DEFERRED', transactionId: null });
    suite.app.clock.advance(1000);
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 600 });
    const log = await paddleLog(suite.app, p.key, p.pid);
    const refund = log.find((e) => e.type === 'adjustment.updated')!;
    const sale = log.find((e) => e.type === 'transaction.completed')!;
    expect(refund).toMatchObject({ outcome: 'ACCEPTED', transactionId: sale.transactionId, reason: expect.stringContaining('applied when its sale arrived') });
  });

  it('records one sale when the same transaction arrives in two notifications', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: p.customer.email, name: null });
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null))).body.outcome).toBe('ACCEPTED');
    const replayed = firstSale(p.ctm, null, (e) => (e.event_id = 'evt_01hvreplayedtransaction000'));
    expect((await deliverPaddle(suite.app, p.endpoint, replayed)).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(suite.app, p)).length).toBe(1);
  });
});

describe('POST /integrations/paddle/:connectionId/webhook: signatures', () => {
  it('answers 400 to a wrong signature, a changed body or a missing header, and logs nothing', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: `sig-${p.pid}@example.com`, name: null });
    const wrong = await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id), { secret: 'pdl_ntfset_someoneElsesSecretKey000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ status: 400, errors: [expect.objectContaining({ field: 'Paddle-Signature', code: 'INVALID_SIGNATURE' })] });
    expect(wrong.text).not.toContain('txn_01hv8wptq8987qeep44cyrewp9');
    const changed = await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id), { tamper: (t) => t.replace('"grand_total":"9900"', '"grand_total":"99900"') });
    expect(changed.status).toBe(400);
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id), { signature: null })).status).toBe(400);
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id), { signature: 'garbage' })).status).toBe(400);
    expect(await paddleLog(suite.app, p.key, p.pid)).toEqual([]);
    expect(await commissionsOf(suite.app, p)).toEqual([]);
  });

  it('answers 400 to a signature older than the SDK’s tolerance', async () => {
    const p = await connected();
    const res = await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, p.affiliate.id), { ts: Math.floor(Date.now() / 1000) - 60 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'SIGNATURE_EXPIRED' });
    expect(await paddleLog(suite.app, p.key, p.pid)).toEqual([]);
  });

  it('answers 404 for an unknown or disconnected connection, and for a Paddle connection at Stripe’s address', async () => {
    const p = await connected();
    expect((await deliverPaddle(suite.app, '/integrations/paddle/nosuchconnection/webhook', firstSale(p.ctm, null))).status).toBe(404);
    const id = p.endpoint.split('/')[3];
    expect((await deliverPaddle(suite.app, `/integrations/stripe/${id}/webhook`, firstSale(p.ctm, null))).status).toBe(404);
    expect((await suite.app.request('DELETE', `/v2/campaign/${p.pid}/integrations/paddle`, { key: p.key })).status).toBe(200);
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null))).status).toBe(404);
  });
});

// Last in the file: it moves the suite's clock 31 days on.
describe('Paddle refunds whose sale never arrives (issue #35)', () => {
  it('reports a refund adjustment still waiting after 30 days as UNMATCHED, and applies it when its sale still arrives', async () => {
    const p = await connected();
    customers.set(p.ctm, { email: p.customer.email, name: null });
    expect((await deliverPaddle(suite.app, p.endpoint, paddleEvent('adjustment.updated'))).body.outcome).toBe('DEFERRED');
    suite.app.clock.advance(31 * 86_400_000);
    await suite.app.deps.maintenance.prune();
    await suite.app.deps.unmatchedRefunds.report();
    const [reported] = await paddleLog(suite.app, p.key, p.pid, '?outcome=UNMATCHED');
    expect(reported).toMatchObject({ type: 'adjustment.updated', outcome: 'UNMATCHED', refund: { refundId: 'adj_01hvgf2s84dr6reszzg29zbvcm', amount: 3300, currency: 'USD', saleRef: 'txn_01hv8wptq8987qeep44cyrewp9' } });
    expect(reported!.reason).toContain('Refund adj_01hvgf2s84dr6reszzg29zbvcm of $33.00 (received ');
    expect((await suite.app.request('GET', `/v2/campaign/${p.pid}/integrations/paddle`, { key: p.key })).body.unmatchedRefunds).toBe(1);
    expect((await deliverPaddle(suite.app, p.endpoint, firstSale(p.ctm, null))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 600 });
    expect((await paddleLog(suite.app, p.key, p.pid)).find((e) => e.type === 'adjustment.updated')).toMatchObject({ outcome: 'ACCEPTED', reason: expect.stringContaining('reported as never matching one; applied now') });
  });
});
