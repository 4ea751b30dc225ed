import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { mobile, session } from '../../helpers/mobile.ts';
import { moneyProgram, refund, sale, type MoneyProgram } from '../../helpers/money.ts';

// The signed-in affiliate's money on the participant API (issue #6): commissions, payouts,
// mark-read, the affiliate summary, and the 422 / 402 gates.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

/** Turns the mobile SDK on and signs the affiliate in: a session and their participant token. */
async function signIn(t: TestApp, p: MoneyProgram, email = p.affiliate.email) {
  const inst = await t.request('PATCH', `/v2/campaign/${p.pid}/installation`, { key: p.key, body: { mobile: { isEnabled: true } } });
  expect(inst.status, inst.text).toBe(200);
  const s = await session(t, { key: p.key, teamId: p.teamId, pid: p.pid, publicKey: inst.body.mobile.publicKey });
  const token = await t.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email } });
  expect(token.status, token.text).toBe(200);
  return { s, participantToken: token.body.participantToken as string };
}

describe('participant API: affiliate money', () => {
  it('lists the affiliate’s commissions and payouts with limit and nextId', async () => {
    const p = await moneyProgram(app);
    for (let i = 1; i <= 3; i++) await sale(app, p, { grossAmount: i * 1000, orderId: `m${i}` });
    const { s, participantToken } = await signIn(app, p);
    const page1 = await mobile(app, 'GET', '/participant/commissions?limit=2', s, { participantToken });
    expect(page1.status, page1.text).toBe(200);
    expect(page1.body.commissions.map((c: { amount: number }) => c.amount)).toEqual([300, 200]);
    const page2 = await mobile(app, 'GET', `/participant/commissions?limit=2&nextId=${page1.body.nextId}`, s, { participantToken });
    expect(page2.body).toMatchObject({ limit: 2, nextId: null, commissions: [{ amount: 100, referrerId: p.affiliate.id }] });
    const run = await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    const payouts = await mobile(app, 'GET', '/participant/payouts', s, { participantToken });
    expect(payouts.body).toMatchObject({ nextId: null, payouts: [{ id: run.body.payouts[0].id, amount: 600, status: 'UPCOMING' }] });
    // The customer (not an affiliate) sees none of it.
    const customer = await signIn(app, p, p.customer.email);
    expect((await mobile(app, 'GET', '/participant/commissions', customer.s, { participantToken: customer.participantToken })).body.commissions).toEqual([]);
  });

  it('counts unread commissions and payouts on the participant and clears them on mark-read', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 1000, orderId: 'u1' });
    await sale(app, p, { grossAmount: 1000, orderId: 'u2' });
    const { s, participantToken } = await signIn(app, p);
    const me = async () => (await mobile(app, 'GET', '/participant', s, { participantToken })).body;
    expect(await me()).toMatchObject({ unreadCommissionsCount: 2, unreadPayoutsCount: 0 });
    const read = await mobile(app, 'POST', '/participant/commissions/read', s, { participantToken, body: {} });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ success: true });
    expect(await me()).toMatchObject({ unreadCommissionsCount: 0 });
    const run = await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    await app.request('POST', `/v2/campaign/${p.pid}/payouts/${run.body.payouts[0].id}/status`, { key: p.key, body: { status: 'ISSUED' } });
    expect(await me()).toMatchObject({ unreadPayoutsCount: 1 });
    expect((await mobile(app, 'POST', '/participant/payouts/read', s, { participantToken, body: {} })).status).toBe(200);
    expect(await me()).toMatchObject({ unreadPayoutsCount: 0 });
    expect((await mobile(app, 'POST', '/participant/payouts/read', s, { participantToken, body: { all: true } })).status).toBe(400);
  });

  it('summarises referral revenue, total paid out and the upcoming payout, also in the window', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 's1' });
    const run = await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    await app.request('POST', `/v2/campaign/${p.pid}/payouts/${run.body.payouts[0].id}/status`, { key: p.key, body: { status: 'ISSUED' } });
    await sale(app, p, { grossAmount: 20_000, orderId: 's2' });
    await sale(app, p, { grossAmount: 4000, orderId: 's3' });
    await refund(app, p, { orderId: 's3' });
    const { s, participantToken } = await signIn(app, p);
    const res = await mobile(app, 'GET', '/participant/affiliate-summary', s, { participantToken });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ currencyISO: 'USD', referralRevenue: 30_000, totalPaidOut: 1000, upcomingPayout: 2000, unreadCommissionsCount: 3, unreadPayoutsCount: 1 });
    const win = await mobile(app, 'GET', '/window', s, { participantToken });
    expect(win.status, win.text).toBe(200);
    expect(win.body.affiliate).toEqual(res.body);
    expect((await mobile(app, 'GET', '/window', s)).body.affiliate).toBeNull();
  });

  it('answers 403 without a participant token and 422 on referral programs', async () => {
    const p = await moneyProgram(app);
    const { s } = await signIn(app, p);
    expect((await mobile(app, 'GET', '/participant/commissions', s)).status).toBe(403);
    const acct = await (await import('../../helpers/app.ts')).verifiedAccount(app);
    const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
    const ref = { key: acct.key, teamId: acct.teamId, pid: created.body.id as string, configId: '', affiliate: { id: '', email: 'r@example.com' }, customer: { id: '', email: '' } };
    const signed = await signIn(app, ref, 'r@example.com');
    for (const [method, path] of [
      ['GET', '/participant/commissions'],
      ['POST', '/participant/commissions/read'],
      ['GET', '/participant/payouts'],
      ['POST', '/participant/payouts/read'],
      ['GET', '/participant/affiliate-summary'],
    ] as const) {
      const res = await mobile(app, method, path, signed.s, { participantToken: signed.participantToken, body: method === 'POST' ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(422);
    }
  });
});

describe('participant API: affiliate money with BILLING=on', () => {
  it('answers 402 while the team has no payment method on file', async () => {
    const billed = await startApp({ ...RAISED_LIMITS, BILLING: 'on' });
    try {
      const acct = await (await import('../../helpers/app.ts')).verifiedAccount(billed);
      await billed.deps.teams.setPlan(acct.teamId, 'BUSINESS', true);
      const p = await moneyProgramFor(billed, acct);
      const { s, participantToken } = await signIn(billed, p);
      expect((await mobile(billed, 'GET', '/participant/commissions', s, { participantToken })).status).toBe(200);
      await billed.deps.teams.setPlan(acct.teamId, 'BUSINESS', false);
      billed.deps.mobilePrograms.forget(p.pid);
      for (const path of ['/participant/commissions', '/participant/payouts', '/participant/affiliate-summary']) {
        const res = await mobile(billed, 'GET', path, s, { participantToken });
        expect(res.status, path).toBe(402);
        expect(res.body.code).toBe('PAYMENT_METHOD_REQUIRED_ERROR');
      }
      expect((await mobile(billed, 'GET', '/window', s, { participantToken })).body.affiliate).toBeNull();
    } finally {
      await billed.close();
    }
  });
});

/** An affiliate program on an existing account (the billed app needs the plan set first). */
async function moneyProgramFor(t: TestApp, acct: { key: string; teamId: string }): Promise<MoneyProgram> {
  const created = await t.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'AFFILIATE' } });
  expect(created.status, created.text).toBe(200);
  const pid = created.body.id as string;
  const affiliate = (await t.request('POST', `/v2/campaign/${pid}/participant`, { key: acct.key, body: { email: 'aff@example.com' } })).body;
  const customer = (await t.request('POST', `/v2/campaign/${pid}/participant`, { key: acct.key, body: { email: 'cust@example.com', referredBy: affiliate.id } })).body;
  return { key: acct.key, teamId: acct.teamId, pid, configId: created.body.rewards[0].id, affiliate, customer };
}
