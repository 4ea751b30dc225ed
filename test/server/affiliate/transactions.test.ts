import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { TEN_PERCENT, addParticipant, commissionsOf, limitedKey, moneyProgram, referralProgram, sale } from '../../helpers/money.ts';

// AF8 record affiliate transaction (issue #6): commissions, idempotent replay, currencies, gates.

const DAY = 86_400_000;
const ratesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-rates-'));
const ratesFile = path.join(ratesDir, 'rates.json');
// 1 USD = 0.8 EUR = 150 JPY, as of a fixed instant.
const RATES_AT = Date.UTC(2026, 0, 14);
fs.writeFileSync(ratesFile, JSON.stringify({ base: 'USD', asOf: RATES_AT, rates: { EUR: 0.8, JPY: 150 } }));

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true', EXCHANGE_RATES_FILE: ratesFile });
});
afterAll(async () => {
  await app.close();
  fs.rmSync(ratesDir, { recursive: true, force: true });
});

describe('POST /campaign/:id/participant/:p/transaction', () => {
  it('records a sale and creates the referrer’s commission from the structure', async () => {
    const p = await moneyProgram(app);
    const res = await sale(app, p, { grossAmount: 10_000, orderId: 'o-1' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, duplicate: false, firstSale: true, message: expect.any(String) });
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({
      status: 'APPROVED',
      event: 'SALE',
      currencyISO: 'USD',
      referrerId: p.affiliate.id,
      referredId: p.customer.id,
      amount: 1000,
      saleAmount: 10_000,
      amountInCampaignCurrency: 1000,
      campaignCurrencyISO: 'USD',
      exchangeRate: null,
      holdDuration: 0,
      paidAt: null,
    });
    const second = await sale(app, p, { grossAmount: 5000, taxAmount: 1000, orderId: 'o-2' });
    expect(second.body.firstSale).toBe(false);
    const list = await commissionsOf(app, p);
    expect(list.map((x) => x.amount)).toEqual([400, 1000]); // 10 % of gross − tax, newest first
    const affiliate = (await app.request('GET', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}`, { key: p.key })).body;
    expect(affiliate).toMatchObject({ unreadCommissionsCount: 2, unreadPayoutsCount: 0 });
  });

  it('uses netAmount as the commissionable amount when sent', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 12_000, netAmount: 9_995, externalId: 'x' });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ amount: 1000, saleAmount: 9_995 }); // 999.5 rounds half-up
  });

  it('answers the duplicate branch for a repeated identifier and changes nothing', async () => {
    const p = await moneyProgram(app);
    const first = await sale(app, p, { grossAmount: 10_000, orderId: 'dup-1', chargeId: 'ch_1' });
    expect(first.body.success).toBe(true);
    const [c] = await commissionsOf(app, p);
    const again = await sale(app, p, { grossAmount: 99_999, chargeId: 'ch_1', invoiceId: 'new' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: false, duplicate: true, commissionsCreated: 1, duplicateFields: ['chargeId'], matchingCommissionIds: [c!.id], message: expect.any(String) });
    const replay = await sale(app, p, { grossAmount: 10_000, orderId: 'dup-1', chargeId: 'ch_1' });
    expect(replay.body).toMatchObject({ duplicate: true, duplicateFields: ['orderId', 'chargeId'] });
    expect(await commissionsOf(app, p)).toHaveLength(1);
    // The new identifier of the refused request was not stored either.
    expect((await sale(app, p, { grossAmount: 100, invoiceId: 'new' })).body.duplicate).toBe(false);
  });

  it('lets concurrent requests with the same new identifier create one sale', async () => {
    const p = await moneyProgram(app);
    const results = await Promise.all([1, 2, 3].map((i) => sale(app, p, { grossAmount: 1000 * i, transactionId: 'race' })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect(await commissionsOf(app, p)).toHaveLength(1);
  });

  it('records a sale of a customer without an affiliate referrer but pays no commission', async () => {
    const p = await moneyProgram(app);
    const res = await sale(app, p, { grossAmount: 10_000, orderId: 'self' }, p.affiliate.id);
    expect(res.body).toMatchObject({ success: true, duplicate: false, firstSale: true });
    expect(await commissionsOf(app, p)).toHaveLength(0);
  });

  it('pays nothing for a suspended affiliate’s customers', async () => {
    const p = await moneyProgram(app);
    const up = await app.request('POST', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}`, { key: p.key, body: { affiliateStatus: 'SUSPENDED' } });
    expect(up.status, up.text).toBe(200);
    await sale(app, p, { grossAmount: 10_000, orderId: 's' });
    expect(await commissionsOf(app, p)).toHaveLength(0);
  });

  it('holds commissions for holdDuration days, then approves them at read time', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 30 });
    await sale(app, p, { grossAmount: 10_000, orderId: 'h' });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'PENDING', approvedAt: null, holdDuration: 30 });
    app.clock.advance(30 * DAY);
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ status: 'APPROVED', approvedAt: c!.createdAt + 30 * DAY });
    expect(await commissionsOf(app, p, '?status=PENDING')).toHaveLength(0);
  });

  it('keeps commissions that need approval PENDING after the hold', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 1, approvalRequired: true });
    await sale(app, p, { grossAmount: 10_000, orderId: 'a' });
    app.clock.advance(5 * DAY);
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'PENDING' });
  });

  it('pays a LEAD structure once when the referred customer signs up, and nothing on their sales', async () => {
    const p = await moneyProgram(app, { type: 'FIXED', amount: 250, event: 'LEAD', holdDuration: 0 });
    const [lead] = await commissionsOf(app, p);
    expect(lead).toMatchObject({ event: 'LEAD', referrerId: p.affiliate.id, referredId: p.customer.id, amount: 250, saleAmount: null, status: 'APPROVED', currencyISO: 'USD' });
    await sale(app, p, { grossAmount: 10_000, orderId: 'after-lead' });
    expect(await commissionsOf(app, p)).toHaveLength(1);
    // A sign-up without an affiliate referrer earns nothing.
    await addParticipant(app, p.key, p.pid, { email: 'direct@example.com' });
    expect(await commissionsOf(app, p)).toHaveLength(1);
  });

  it('converts other currencies with the operator’s rate table and records the rate', async () => {
    const p = await moneyProgram(app);
    const res = await sale(app, p, { currency: 'eur', grossAmount: 8000, orderId: 'fx' });
    expect(res.status, res.text).toBe(200);
    expect((await commissionsOf(app, p))[0]).toMatchObject({
      currencyISO: 'EUR',
      amount: 800,
      saleAmount: 8000,
      campaignCurrencyISO: 'USD',
      amountInCampaignCurrency: 1000,
      saleAmountInCampaignCurrency: 10_000,
      exchangeRate: 1.25,
      exchangeRateAt: RATES_AT,
    });
    // JPY has no minor unit: ¥1,500 × 10 % = ¥150 = $1.00.
    await sale(app, p, { currency: 'JPY', grossAmount: 1500, orderId: 'fx-jpy' });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ currencyISO: 'JPY', amount: 150, amountInCampaignCurrency: 100 });
  });

  it('converts a FIXED amount given in the program currency into the sale currency', async () => {
    const p = await moneyProgram(app, { type: 'FIXED', amount: 500, event: 'SALE', holdDuration: 0 });
    await sale(app, p, { currency: 'EUR', grossAmount: 8000, orderId: 'fx-fixed' });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ currencyISO: 'EUR', amount: 400, amountInCampaignCurrency: 500 });
  });

  it('answers 400 for a currency the rate table does not cover, writing nothing', async () => {
    const p = await moneyProgram(app);
    const res = await sale(app, p, { currency: 'GBP', grossAmount: 1000, orderId: 'gbp' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'currency', code: 'EXCHANGE_RATE_UNAVAILABLE' })]);
    expect((await sale(app, p, { currency: 'USD', grossAmount: 1000, orderId: 'gbp' })).body.duplicate).toBe(false);
  });

  it('emits NEW_COMMISSION_ADDED with the campaign, the affiliate and the commission', async () => {
    const p = await moneyProgram(app);
    const hook = await app.request('POST', `/v2/campaign/${p.pid}/webhooks`, { key: p.key, body: { payloadUrl: 'http://127.0.0.1:9/hook', events: ['NEW_COMMISSION_ADDED'] } });
    expect(hook.status, hook.text).toBe(200);
    await sale(app, p, { grossAmount: 10_000, orderId: 'wh' });
    const events = await app.deps.db.knex('webhook_events').where({ program_id: p.pid, event: 'NEW_COMMISSION_ADDED' });
    expect(events).toHaveLength(1);
    const data = JSON.parse(events[0].payload).data;
    expect(data).toMatchObject({ campaign: { id: p.pid }, participant: { id: p.affiliate.id }, commission: { referredId: p.customer.id, amount: 1000 } });
  });

  it('rejects bodies without an identifier, with a half payment-provider pair, or with a bad currency', async () => {
    const p = await moneyProgram(app);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ grossAmount: 100 }, 'externalId'],
      [{ grossAmount: 100, orderId: 'x', paymentProvider: 'stripe', transactionId: 't' }, 'testMode'],
      [{ grossAmount: 100, orderId: 'x', paymentProvider: 'stripe', testMode: false }, 'transactionId'],
      [{ grossAmount: 100, orderId: 'x', testMode: true }, 'paymentProvider'],
      [{ grossAmount: 100, orderId: 'x', currency: 'XYZ' }, 'currency'],
      [{ grossAmount: 0, orderId: 'x' }, 'grossAmount'],
      [{ grossAmount: 10.5, orderId: 'x' }, 'grossAmount'],
      [{ grossAmount: 100, orderId: 'x', surprise: 1 }, 'surprise'],
    ];
    for (const [body, field] of cases) {
      const res = await sale(app, p, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).join(' ')).toContain(field);
    }
    const ok = await sale(app, p, { grossAmount: 100, transactionId: 'pi', paymentProvider: 'stripe', testMode: true });
    expect(ok.status, ok.text).toBe(200);
  });

  it('answers 400 for an unknown participant and 404 for an unknown program', async () => {
    const p = await moneyProgram(app);
    expect((await sale(app, p, { grossAmount: 100, orderId: 'x' }, 'nobody@example.com')).status).toBe(400);
    const res = await app.request('POST', `/v2/campaign/nope123/participant/x/transaction`, { key: p.key, body: { currency: 'USD', grossAmount: 1, orderId: 'x' } });
    expect(res.status).toBe(404);
  });

  it('needs reward:write (403 without it)', async () => {
    const p = await moneyProgram(app);
    const key = await limitedKey(app, p.teamId, ['reward:read', 'participant:write']);
    const res = await app.request('POST', `/v2/campaign/${p.pid}/participant/${p.customer.id}/transaction`, { key, body: { currency: 'USD', grossAmount: 100, orderId: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
  });

  it('answers 422 on a referral program', async () => {
    const r = await referralProgram(app);
    const res = await app.request('POST', `/v2/campaign/${r.pid}/participant/${r.participantId}/transaction`, { key: r.key, body: { currency: 'USD', grossAmount: 100, orderId: 'x' } });
    expect(res.status).toBe(422);
    const refund = await app.request('POST', `/v2/campaign/${r.pid}/participant/${r.participantId}/transaction/refund`, { key: r.key, body: { orderId: 'x' } });
    expect(refund.status).toBe(422);
  });

  it('exposes the same service to other callers (MCP tools) with the REST response objects', async () => {
    const p = await moneyProgram(app);
    const program = await app.deps.programs.forRequest(p.teamId, p.pid, { plan: 'UNLIMITED', hasPaymentMethod: true, trialEndsAt: null });
    const out = await app.deps.transactions.record(program, p.customer.email, { currency: 'USD', grossAmount: 2000, orderId: 'mcp' });
    expect(out).toEqual({ success: true, duplicate: false, firstSale: true, message: expect.any(String) });
    await expect(app.deps.transactions.record(program, p.customer.email, { currency: 'USD', grossAmount: 2000 })).rejects.toMatchObject({ status: 400 });
    const back = await app.deps.transactions.refund(program, p.customer.id, { orderId: 'mcp' });
    expect(back).toMatchObject({ success: true, amendmentType: 'REFUND', matched: 1, reversed: 1 });
  });
});

describe('402 without a payment method (BILLING=on)', () => {
  let billed: TestApp;
  beforeAll(async () => {
    billed = await startApp({ ...RAISED_LIMITS, BILLING: 'on' });
  });
  afterAll(async () => {
    await billed.close();
  });

  it('answers 402 PAYMENT_METHOD_REQUIRED on affiliate REST operations and 200 once a payment method is on file', async () => {
    const acct = await (await import('../../helpers/app.ts')).verifiedAccount(billed);
    await billed.deps.teams.setPlan(acct.teamId, 'BUSINESS', true);
    const created = await billed.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'AFFILIATE' } });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id;
    const customer = await addParticipant(billed, acct.key, pid, { email: 'c@example.com' });
    await billed.deps.teams.setPlan(acct.teamId, 'BUSINESS', false);
    const calls: Array<[string, string, unknown?]> = [
      ['POST', `/v2/campaign/${pid}/participant/${customer.id}/transaction`, { currency: 'USD', grossAmount: 100, orderId: 'x' }],
      ['POST', `/v2/campaign/${pid}/participant/${customer.id}/transaction/refund`, { orderId: 'x' }],
      ['GET', `/v2/campaign/${pid}/commissions`],
      ['GET', `/v2/campaign/${pid}/payouts`],
      ['POST', `/v2/campaign/${pid}/payouts/run`, {}],
      ['GET', `/v2/campaign/${pid}/payouts/export.csv`],
    ];
    for (const [method, url, body] of calls) {
      const res = await billed.request(method, url, { key: acct.key, body });
      expect(res.status, `${method} ${url}`).toBe(402);
      expect(res.body.code).toBe('PAYMENT_METHOD_REQUIRED_ERROR');
    }
    await billed.deps.teams.setPlan(acct.teamId, 'BUSINESS', true);
    expect((await billed.request('GET', `/v2/campaign/${pid}/commissions`, { key: acct.key })).status).toBe(200);
  });
});
