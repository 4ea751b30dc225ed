import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { TEN_PERCENT, addParticipant, moneyProgram, refund, type MoneyProgram } from '../../helpers/money.ts';

// Affiliate money in analytics (AN1 totals, series, previous period, statusCounts; P12 money
// fields), from real sales, refunds and payouts over HTTP (issue #6).

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 15, 12); // a Thursday; its ISO week starts Monday Jan 12
let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
});
afterAll(async () => {
  await app.close();
});
beforeEach(() => {
  app.clock.current = NOW;
});

const get = async (p: MoneyProgram, path: string) => {
  const res = await app.request('GET', `/v2/campaign/${p.pid}${path}`, { key: p.key });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

/** Records a sale at `at` (epoch ms) for `customer`. */
async function saleAt(p: MoneyProgram, at: number, customer: string, grossAmount: number, orderId: string) {
  app.clock.current = at;
  const res = await app.request('POST', `/v2/campaign/${p.pid}/participant/${customer}/transaction`, { key: p.key, body: { currency: 'USD', grossAmount, orderId } });
  expect(res.status, res.text).toBe(200);
}

/**
 * One affiliate, two referred customers. In the 7-day window ending NOW: A 10,000 (day −3, later
 * refunded 2,000 after being paid), B 20,000 (day −1, refunded 5,000 before the payout), C 5,000
 * (day −1, second customer), D 3,000 (now, unpaid), E 4,000 (now, fully refunded: REVERSED).
 * Before the window: F 8,000 (day −10). The payout (A, B, C, F) is ISSUED.
 */
async function history() {
  const p = await moneyProgram(app, TEN_PERCENT);
  const second = await addParticipant(app, p.key, p.pid, { email: `second-${p.pid}@example.com`, referredBy: p.affiliate.id });
  const c1 = p.customer.id;
  await saleAt(p, NOW - 10 * DAY, second.id, 8000, 'F');
  await saleAt(p, NOW - 3 * DAY, c1, 10_000, 'A');
  await saleAt(p, NOW - DAY, c1, 20_000, 'B');
  await saleAt(p, NOW - DAY + 1000, second.id, 5000, 'C');
  app.clock.current = NOW - 1000;
  expect((await refund(app, p, { orderId: 'B', amountRefunded: 5000 })).status).toBe(200);
  const run = await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
  expect(run.body.payouts).toEqual([expect.objectContaining({ amount: 800 + 1000 + 1500 + 500 })]);
  const payoutId = run.body.payouts[0].id;
  expect((await app.request('POST', `/v2/campaign/${p.pid}/payouts/${payoutId}/status`, { key: p.key, body: { status: 'ISSUED' } })).status).toBe(200);
  expect((await refund(app, p, { orderId: 'A', amountRefunded: 2000 })).body).toMatchObject({ adjusted: 1 });
  await saleAt(p, NOW, second.id, 3000, 'D');
  await saleAt(p, NOW + 1000, c1, 4000, 'E');
  expect((await refund(app, p, { orderId: 'E' })).body).toMatchObject({ reversed: 1 });
  app.clock.current = NOW + 2000;
  return { p, second };
}

describe('campaign analytics of an affiliate program', () => {
  it('totals revenue less refunds, earned commissions and distinct customers over the window', async () => {
    const { p } = await history();
    const body = await get(p, '/analytics?days=7&include=previousPeriod');
    expect(body.analytics).toMatchObject({
      totalRevenue: 8000 + 15_000 + 5000 + 3000, // E refunded in full
      totalCommissions: 800 + 1500 + 500 + 300, // PAID and APPROVED, at their amounts after refunds; E REVERSED
      totalCommissionCount: 4,
      uniqueCommissionReferrals: 2,
    });
    expect(body.previousPeriod.analytics).toMatchObject({ totalRevenue: 8000, totalCommissions: 800, totalCommissionCount: 1, uniqueCommissionReferrals: 1 });
  });

  it('splits the totals per day and counts each customer once per bucket', async () => {
    const { p } = await history();
    const days = (await get(p, '/analytics?days=7&interval=day')).series as Array<Record<string, number>>;
    const on = (offset: number) => days.find((d) => d.periodStart === Date.UTC(2026, 0, 15 + offset))!;
    expect(on(-3)).toMatchObject({ totalRevenue: 8000, totalCommissions: 800, totalCommissionCount: 1, uniqueCommissionReferrals: 1 });
    expect(on(-1)).toMatchObject({ totalRevenue: 20_000, totalCommissions: 2000, totalCommissionCount: 2, uniqueCommissionReferrals: 2 });
    expect(on(0)).toMatchObject({ totalRevenue: 3000, totalCommissions: 300, totalCommissionCount: 1, uniqueCommissionReferrals: 1 });
    expect(days.reduce((n, d) => n + d.totalRevenue!, 0)).toBe(31_000);
    // The week of Jan 12 holds all three days: two customers, not 1 + 2 + 1.
    const weeks = (await get(p, '/analytics?days=7&interval=week')).series as Array<Record<string, number>>;
    expect(weeks.find((w) => w.periodStart === Date.UTC(2026, 0, 12))).toMatchObject({ totalRevenue: 31_000, totalCommissionCount: 4, uniqueCommissionReferrals: 2 });
    // Local days: in Tokyo (UTC+9) the 12:00 UTC sales fall on the evening of the same date.
    const tokyo = (await get(p, '/analytics?days=7&interval=day&timezone=Asia/Tokyo')).series as Array<Record<string, number>>;
    expect(tokyo.find((d) => d.periodStart === Date.UTC(2026, 0, 14) - 9 * 3_600_000)).toMatchObject({ totalRevenue: 20_000, uniqueCommissionReferrals: 2 });
  });

  it('counts commissions and payouts created in the window by current status', async () => {
    const { p } = await history();
    const { statusCounts } = await get(p, '/analytics?days=7&include=statusCounts');
    expect(statusCounts.commissionStatus).toEqual({
      pending: { count: 0, totalAmount: 0, totalRevenue: 0 },
      approved: { count: 1, totalAmount: 300, totalRevenue: 3000 },
      paid: { count: 3, totalAmount: 800 + 1500 + 500, totalRevenue: 10_000 + 20_000 + 5000 },
      reversed: { count: 1, totalAmount: 0, totalRevenue: 4000 },
    });
    expect(statusCounts.payoutStatus).toEqual({
      upcoming: { count: 0, totalAmount: 0 },
      queued: { count: 0, totalAmount: 0 },
      issued: { count: 1, totalAmount: 3800 },
      failed: { count: 0, totalAmount: 0 },
      reversed: { count: 0, totalAmount: 0 },
    });
    // A window that ends before the payout run holds no payouts.
    const before = await get(p, `/analytics?startDate=${NOW - 20 * DAY}&endDate=${NOW - 5 * DAY}&include=statusCounts`);
    expect(before.statusCounts.payoutStatus.issued).toEqual({ count: 0, totalAmount: 0 });
    expect(before.statusCounts.commissionStatus.paid).toEqual({ count: 1, totalAmount: 800, totalRevenue: 8000 });
  });

  it('reads a commission whose hold has passed as approved', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 2 });
    await saleAt(p, NOW, p.customer.id, 10_000, 'held');
    const pending = (await get(p, '/analytics?days=30&include=statusCounts')).statusCounts.commissionStatus;
    expect(pending).toMatchObject({ pending: { count: 1, totalAmount: 1000, totalRevenue: 10_000 }, approved: { count: 0 } });
    app.clock.current = NOW + 3 * DAY;
    const later = (await get(p, '/analytics?days=30&include=statusCounts')).statusCounts.commissionStatus;
    expect(later).toMatchObject({ pending: { count: 0 }, approved: { count: 1, totalAmount: 1000 } });
    expect((await get(p, `/participant/${p.affiliate.id}/analytics`)).analytics).toMatchObject({ upcomingPayout: 1000, totalPaidOut: 0 });
  });
});

describe('participant analytics of an affiliate', () => {
  it('reports all-time revenue, commissions, paid-out and upcoming money', async () => {
    const { p } = await history();
    const body = await get(p, `/participant/${p.affiliate.id}/analytics?include=series&interval=week&days=7`);
    expect(body.analytics).toMatchObject({
      referralRevenue: 8000 + 31_000,
      totalCommissions: 800 + 800 + 1500 + 500 + 300,
      totalPaidOut: 3800,
      upcomingPayout: 300 - 200, // D, less the 200 already paid on A's refunded part
      currencyISO: 'USD',
    });
    expect(body.series.find((w: { periodStart: number }) => w.periodStart === Date.UTC(2026, 0, 12))).toMatchObject({ totalRevenue: 31_000, totalCommissions: 3100, uniqueCommissionReferrals: 2 });
    // The participant API summary agrees.
    const summary = await app.deps.payouts.summary((await import('../../../server/domain/programs/programs.ts')).toProgram(await app.deps.db.knex('programs').where({ id: p.pid }).first()), p.affiliate.id);
    expect(summary).toMatchObject({ totalPaidOut: 3800, upcomingPayout: 100, referralRevenue: 39_000 });
    // A referred customer earned nothing themselves.
    expect((await get(p, `/participant/${p.customer.id}/analytics`)).analytics).toMatchObject({ totalPaidOut: 0, upcomingPayout: 0, totalCommissions: 0 });
  });
});
