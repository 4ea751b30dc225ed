import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { TEN_PERCENT, commissionsOf, limitedKey, moneyProgram, referralProgram, refund, sale, type MoneyProgram } from '../../helpers/money.ts';

// Commissions (AF10–AF13) and refunds of recorded sales (AF9), issue #6.

const DAY = 86_400_000;
let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await app.close();
});

const approve = (p: MoneyProgram, id: string, key = p.key) => app.request('POST', `/v2/campaign/${p.pid}/commission/${id}/approve`, { key });
const remove = (p: MoneyProgram, id: string, key = p.key) => app.request('DELETE', `/v2/campaign/${p.pid}/commission/${id}`, { key });
const one = async (p: MoneyProgram) => (await commissionsOf(app, p))[0]!;

describe('GET /campaign/:id/commissions and …/participant/:p/commissions', () => {
  it('pages newest first with limit and nextId, and filters by status', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 10 });
    for (let i = 1; i <= 3; i++) await sale(app, p, { grossAmount: i * 1000, orderId: `o${i}` });
    const first = await app.request('GET', `/v2/campaign/${p.pid}/commissions?limit=2`, { key: p.key });
    expect(first.status, first.text).toBe(200);
    expect(first.body.commissions.map((c: { amount: number }) => c.amount)).toEqual([300, 200]);
    expect(first.body).toMatchObject({ limit: 2, nextId: first.body.commissions[1].id });
    const second = await app.request('GET', `/v2/campaign/${p.pid}/commissions?limit=2&nextId=${first.body.nextId}`, { key: p.key });
    expect(second.body.commissions.map((c: { amount: number }) => c.amount)).toEqual([100]);
    expect(second.body.nextId).toBeNull();
    await approve(p, first.body.commissions[0].id);
    expect((await commissionsOf(app, p, '?status=APPROVED')).map((c) => c.amount)).toEqual([300]);
    expect((await commissionsOf(app, p, '?status=PENDING')).map((c) => c.amount)).toEqual([200, 100]);
    expect(await commissionsOf(app, p, '?status=PAID')).toEqual([]);
  });

  it('answers 400 for a bad cursor, limit or status, and for an unknown participant', async () => {
    const p = await moneyProgram(app);
    for (const q of ['?nextId=nope', '?limit=0', '?limit=101', '?status=LOST']) {
      expect((await app.request('GET', `/v2/campaign/${p.pid}/commissions${q}`, { key: p.key })).status, q).toBe(400);
    }
    expect((await app.request('GET', `/v2/campaign/${p.pid}/participant/ghost@example.com/commissions`, { key: p.key })).status).toBe(400);
  });

  it('needs reward:read (403) and an affiliate program (422)', async () => {
    const p = await moneyProgram(app);
    const key = await limitedKey(app, p.teamId, ['participant:read']);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/commissions`, { key })).status).toBe(403);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}/commissions`, { key })).status).toBe(403);
    const r = await referralProgram(app);
    expect((await app.request('GET', `/v2/campaign/${r.pid}/commissions`, { key: r.key })).status).toBe(422);
    expect((await app.request('GET', `/v2/campaign/${r.pid}/participant/${r.participantId}/commissions`, { key: r.key })).status).toBe(422);
  });
});

describe('POST /campaign/:id/commission/:commissionId/approve and DELETE …/commission/:commissionId', () => {
  it('approves a pending commission once; approving again changes nothing', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, approvalRequired: true });
    await sale(app, p, { grossAmount: 1000, orderId: 'a' });
    const c = await one(p);
    expect(c.status).toBe('PENDING');
    const res = await approve(p, c.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    const after = await one(p);
    expect(after).toMatchObject({ status: 'APPROVED', approvedAt: app.clock.now() });
    app.clock.advance(DAY);
    expect((await approve(p, c.id)).status).toBe(200);
    expect((await one(p)).approvedAt).toBe(after.approvedAt);
  });

  it('answers 406 for approving a paid commission', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 1000, orderId: 'paid' });
    const run = await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    const issued = await app.request('POST', `/v2/campaign/${p.pid}/payouts/${run.body.payouts[0].id}/status`, { key: p.key, body: { status: 'ISSUED' } });
    expect(issued.status, issued.text).toBe(200);
    const c = await one(p);
    expect(c.status).toBe('PAID');
    const res = await approve(p, c.id);
    expect(res.status).toBe(406);
    expect(res.body.code).toBe('INVALID_STATE_ERROR');
  });

  it('deletes a pending commission (off the affiliate’s totals) and refuses other states with 406', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, approvalRequired: true });
    await sale(app, p, { grossAmount: 5000, orderId: 'd' });
    const c = await one(p);
    const totals = async () => (await app.deps.db.knex('participants').where({ id: p.affiliate.id }).first('commission_total')).commission_total;
    expect(Number(await totals())).toBe(500);
    const res = await remove(p, c.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(Number(await totals())).toBe(0);
    expect((await commissionsOf(app, p, '?status=DELETED')).map((x) => x.id)).toEqual([c.id]);
    expect((await remove(p, c.id)).status).toBe(406);
    expect((await approve(p, c.id)).status).toBe(406);
    await sale(app, p, { grossAmount: 5000, orderId: 'd2' });
    const approved = await one(p);
    await approve(p, approved.id);
    expect((await remove(p, approved.id)).status).toBe(406);
  });

  it('answers 404 for unknown commissions, 403 without the scope, 422 on referral programs', async () => {
    const p = await moneyProgram(app);
    expect((await approve(p, 'nope')).status).toBe(404);
    expect((await remove(p, 'nope')).status).toBe(404);
    await sale(app, p, { grossAmount: 1000, orderId: 'x' });
    const c = await one(p);
    const readOnly = await limitedKey(app, p.teamId, ['reward:read']);
    expect((await approve(p, c.id, readOnly)).status).toBe(403);
    const writer = await limitedKey(app, p.teamId, ['reward:write']);
    expect((await remove(p, c.id, writer)).status).toBe(403); // delete needs reward:delete
    const r = await referralProgram(app);
    expect((await app.request('POST', `/v2/campaign/${r.pid}/commission/x/approve`, { key: r.key })).status).toBe(422);
    expect((await app.request('DELETE', `/v2/campaign/${r.pid}/commission/x`, { key: r.key })).status).toBe(422);
  });
});

describe('commission rules over REST', () => {
  it('starts paying after minPaidReferrals paying customers', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, minPaidReferrals: 2 });
    await sale(app, p, { grossAmount: 1000, orderId: 'first-customer' });
    expect(await commissionsOf(app, p)).toHaveLength(0);
    await sale(app, p, { grossAmount: 1000, orderId: 'first-customer-again' });
    expect(await commissionsOf(app, p)).toHaveLength(0); // still one paying customer
    const second = await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email: 'second@example.com', referredBy: p.affiliate.id } });
    await sale(app, p, { grossAmount: 2000, orderId: 'second-customer' }, second.body.id);
    expect((await commissionsOf(app, p)).map((c) => c.amount)).toEqual([200]);
  });

  it('applies REPEATING months and the per-customer cap across sales', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, duration: 'REPEATING', durationInMonths: 2, hasMaxAmount: true, maxAmount: 2500 });
    await sale(app, p, { grossAmount: 10_000, orderId: 'm0', paidAt: Date.UTC(2026, 0, 15) });
    await sale(app, p, { grossAmount: 10_000, orderId: 'm1', paidAt: Date.UTC(2026, 1, 20) });
    await sale(app, p, { grossAmount: 10_000, orderId: 'm1b', paidAt: Date.UTC(2026, 2, 10) }); // still month 1: capped at 500
    await sale(app, p, { grossAmount: 10_000, orderId: 'm2', paidAt: Date.UTC(2026, 2, 15) }); // month 2: over
    expect((await commissionsOf(app, p)).map((c) => c.amount)).toEqual([500, 1000, 1000]);
  });

  it('never fails a sign-up over a LEAD amount the rate table cannot convert', async () => {
    const p = await moneyProgram(app, { type: 'FIXED', amount: 300, amountISO: 'EUR', event: 'LEAD' }); // this app has no rate table
    expect(p.customer.id).toEqual(expect.any(String));
    expect(await commissionsOf(app, p)).toEqual([]);
  });

  it('removes commissions and sales with a deleted participant', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 1000, orderId: 'gone' });
    await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    const del = await app.request('DELETE', `/v2/campaign/${p.pid}/participant/${p.customer.id}`, { key: p.key });
    expect(del.status, del.text).toBe(200);
    expect(await commissionsOf(app, p)).toEqual([]);
    expect((await sale(app, p, { grossAmount: 1000, orderId: 'gone' }, p.affiliate.id)).body.duplicate).toBe(false);
    const delAffiliate = await app.request('DELETE', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}`, { key: p.key });
    expect(delAffiliate.status, delAffiliate.text).toBe(200);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/payouts`, { key: p.key })).body.payouts).toEqual([]);
  });
});

describe('POST /campaign/:id/participant/:p/transaction/refund', () => {
  it('reverses an approved commission on a full refund and emits COMMISSION_ADJUSTED', async () => {
    const p = await moneyProgram(app);
    await app.request('POST', `/v2/campaign/${p.pid}/webhooks`, { key: p.key, body: { payloadUrl: 'http://127.0.0.1:9/hook', events: ['COMMISSION_ADJUSTED'] } });
    await sale(app, p, { grossAmount: 10_000, orderId: 'full' });
    const c = await one(p);
    const res = await refund(app, p, { orderId: 'full' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, amendmentType: 'REFUND', matched: 1, reversed: 1, adjusted: 0, deleted: 0, matchingCommissionIds: [c.id], message: expect.any(String) });
    expect(await one(p)).toMatchObject({ status: 'REVERSED', amount: 0, reversedAt: app.clock.now() });
    const events = await app.deps.db.knex('webhook_events').where({ program_id: p.pid, event: 'COMMISSION_ADJUSTED' });
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).data.commission).toMatchObject({ id: c.id, status: 'REVERSED' });
  });

  it('removes a pending commission on a chargeback', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 30 });
    await sale(app, p, { grossAmount: 10_000, paymentIntentId: 'pi_1' });
    const res = await refund(app, p, { paymentIntentId: 'pi_1', amendmentType: 'CHARGEBACK', amountRefunded: 10 });
    expect(res.body).toMatchObject({ success: true, amendmentType: 'CHARGEBACK', deleted: 1, reversed: 0 });
    expect(await one(p)).toMatchObject({ status: 'DELETED', amount: 0 });
  });

  it('reduces the commission by the cumulative refunded amount, idempotently', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'part' });
    expect((await refund(app, p, { orderId: 'part', amountRefunded: 2500 })).body).toMatchObject({ adjusted: 1 });
    expect(await one(p)).toMatchObject({ status: 'APPROVED', amount: 750 });
    await refund(app, p, { orderId: 'part', amountRefunded: 5000 });
    expect((await one(p)).amount).toBe(500);
    expect((await refund(app, p, { orderId: 'part', amountRefunded: 5000 })).body).toMatchObject({ success: true, adjusted: 0 });
    const lower = await refund(app, p, { orderId: 'part', amountRefunded: 4000 });
    expect(lower.status).toBe(409);
    expect(lower.body.code).toBe('REFUND_HISTORY_CONFLICT_ERROR');
    expect((await one(p)).amount).toBe(500);
    expect((await refund(app, p, { orderId: 'part', amountRefunded: 10_001 })).status).toBe(400);
    expect((await refund(app, p, { orderId: 'part', amountRefunded: 10_000 })).body).toMatchObject({ reversed: 1 });
  });

  it('cancels a refund by refundId and restores the commission', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'rid' });
    await refund(app, p, { orderId: 'rid', refundId: 're_1', refundAmount: 3000 });
    expect((await one(p)).amount).toBe(700);
    await refund(app, p, { orderId: 'rid', refundId: 're_2', refundAmount: 2000, amountRefunded: 5000 });
    expect((await one(p)).amount).toBe(500);
    // A repeat of the same refund changes nothing.
    expect((await refund(app, p, { orderId: 'rid', refundId: 're_2', refundAmount: 2000, amountRefunded: 5000 })).body.adjusted).toBe(0);
    expect((await refund(app, p, { orderId: 'rid', refundId: 're_2', refundAmount: 2500 })).status).toBe(409);
    expect((await refund(app, p, { orderId: 'rid', refundId: 're_9', refundStatus: 'canceled' })).status).toBe(409);
    expect((await refund(app, p, { orderId: 'rid', refundId: 're_1', refundStatus: 'canceled', amountRefunded: 4000 })).status).toBe(409);
    const ok = await refund(app, p, { orderId: 'rid', refundId: 're_1', refundStatus: 'canceled', amountRefunded: 2000 });
    expect(ok.status, ok.text).toBe(200);
    expect((await one(p)).amount).toBe(800);
    expect((await refund(app, p, { orderId: 'rid', refundId: 're_1', refundStatus: 'canceled' })).body.adjusted).toBe(0);
    // Cancelling every refund restores a reversed commission.
    await refund(app, p, { orderId: 'rid', refundId: 're_3', refundAmount: 8000 });
    expect(await one(p)).toMatchObject({ status: 'REVERSED', amount: 0 });
    await refund(app, p, { orderId: 'rid', refundId: 're_3', refundStatus: 'canceled' });
    expect(await one(p)).toMatchObject({ status: 'APPROVED', amount: 800, reversedAt: null });
  });

  it('refuses a cancellation while the refund history is incomplete, until it is filled in or confirmed', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'gap' });
    await refund(app, p, { orderId: 'gap', amountRefunded: 3000 }); // no refundId: untracked
    await refund(app, p, { orderId: 'gap', refundId: 'r1', refundAmount: 1000, amountRefunded: 4000 });
    expect((await one(p)).amount).toBe(600);
    const refused = await refund(app, p, { orderId: 'gap', refundId: 'r1', refundStatus: 'canceled' });
    expect(refused.status).toBe(409);
    expect((await one(p)).amount).toBe(600);
    // Filling in the untracked refund (same cumulative total) completes the history.
    expect((await refund(app, p, { orderId: 'gap', refundId: 'r0', refundAmount: 3000, amountRefunded: 4000 })).status).toBe(200);
    expect((await one(p)).amount).toBe(600);
    expect((await refund(app, p, { orderId: 'gap', refundId: 'r1', refundStatus: 'canceled', amountRefunded: 3000 })).status).toBe(200);
    expect((await one(p)).amount).toBe(700);
  });

  it('accepts refundHistoryComplete only when it matches the recorded refunds, and an old confirmation cannot close a later gap', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'conf' });
    await refund(app, p, { orderId: 'conf', amountRefunded: 5000 });
    await refund(app, p, { orderId: 'conf', refundId: 'r1', refundAmount: 2000, amountRefunded: 5000 });
    expect((await refund(app, p, { orderId: 'conf', refundHistoryComplete: true, amountRefunded: 5000 })).status).toBe(409);
    const confirm = { orderId: 'conf', refundId: 'r1', refundStatus: 'canceled', refundHistoryComplete: true, amountRefunded: 0 };
    expect((await refund(app, p, confirm)).status).toBe(200);
    expect(await one(p)).toMatchObject({ amount: 1000 });
    await refund(app, p, { orderId: 'conf', amountRefunded: 1000 }); // a later refund without id
    expect((await refund(app, p, confirm)).status).toBe(409);
    expect((await one(p)).amount).toBe(900);
  });

  it('answers notFound for unknown identifiers, 400 for bad bodies or a different currency', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'v' });
    expect((await refund(app, p, { orderId: 'other' })).body).toMatchObject({ success: false, notFound: true, matched: 0, matchingCommissionIds: [] });
    expect((await refund(app, p, { orderId: 'v' }, p.affiliate.id)).body).toMatchObject({ success: false, notFound: true });
    expect((await refund(app, p, {})).status).toBe(400);
    expect((await refund(app, p, { orderId: 'v', refundStatus: 'canceled' })).status).toBe(400);
    expect((await refund(app, p, { orderId: 'v', currency: 'EUR' })).status).toBe(400);
    expect((await refund(app, p, { orderId: 'v', refundStatus: 'maybe' })).status).toBe(400);
    const key = await limitedKey(app, p.teamId, ['reward:read']);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/participant/${p.customer.id}/transaction/refund`, { key, body: { orderId: 'v' } })).status).toBe(403);
  });
});

// Issue #32 (counts per state): AF16 counts the very rows AF10 lists.
describe('GET /campaign/:id/commissions/counts (AF16)', () => {
  const counts = (p: { pid: string; key: string }, query = '', key = p.key) => app.request('GET', `/v2/campaign/${p.pid}/commissions/counts${query}`, { key });
  /** Every commission AF10 lists for `status` (none: no filter), paged two at a time. */
  const listed = async (p: MoneyProgram, status?: string) => {
    const ids: string[] = [];
    let nextId: string | null = null;
    do {
      const q: string[] = ['limit=2', ...(status ? [`status=${status}`] : []), ...(nextId ? [`nextId=${nextId}`] : [])];
      const res = await app.request('GET', `/v2/campaign/${p.pid}/commissions?${q.join('&')}`, { key: p.key });
      expect(res.status, res.text).toBe(200);
      ids.push(...res.body.commissions.map((c: { id: string }) => c.id));
      nextId = res.body.nextId;
    } while (nextId);
    return ids.length;
  };
  const STATUSES = ['PENDING', 'APPROVED', 'PAID', 'REVERSED', 'DELETED'];

  it('counts the commissions in each status and ALL, each equal to the rows AF10 lists', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, approvalRequired: true });
    for (let i = 1; i <= 8; i++) await sale(app, p, { grossAmount: i * 1000, orderId: `n${i}` });
    const byAmount = new Map((await commissionsOf(app, p)).map((c) => [c.amount as number, c.id as string]));
    // 100 → PAID; 200, 300 → APPROVED; 400 → DELETED; 500 → REVERSED; 600, 700, 800 stay PENDING.
    expect((await approve(p, byAmount.get(100)!)).status).toBe(200);
    const run = await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    expect(run.body.payoutsCreated, run.text).toBe(1);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/payouts/${run.body.payouts[0].id}/status`, { key: p.key, body: { status: 'ISSUED' } })).status).toBe(200);
    for (const a of [200, 300, 500]) expect((await approve(p, byAmount.get(a)!)).status).toBe(200);
    expect((await remove(p, byAmount.get(400)!)).status).toBe(200);
    expect((await refund(app, p, { orderId: 'n5' })).body).toMatchObject({ reversed: 1 });
    // Another program's commissions are not counted.
    const other = await moneyProgram(app);
    await sale(app, other, { grossAmount: 1000, orderId: 'elsewhere' });

    const res = await counts(p);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ PENDING: 3, APPROVED: 2, PAID: 1, REVERSED: 1, DELETED: 1, ALL: 8 });
    for (const s of STATUSES) expect(res.body[s], s).toBe(await listed(p, s));
    expect(res.body.ALL).toBe(await listed(p));
  });

  it('approves commissions whose hold has ended before counting, as AF10 does', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 10 });
    await sale(app, p, { grossAmount: 1000, orderId: 'held' });
    expect((await counts(p)).body).toMatchObject({ PENDING: 1, APPROVED: 0, ALL: 1 });
    app.clock.advance(11 * DAY);
    const res = await counts(p); // before any list settles them
    expect(res.body).toEqual({ PENDING: 0, APPROVED: 1, PAID: 0, REVERSED: 0, DELETED: 0, ALL: 1 });
    for (const s of STATUSES) expect(res.body[s], s).toBe(await listed(p, s));
  });

  it('answers zeros without commissions, 400 for a query parameter, 403 without reward:read, and 422 on referral programs as AF10 does', async () => {
    const p = await moneyProgram(app);
    expect((await counts(p)).body).toEqual({ PENDING: 0, APPROVED: 0, PAID: 0, REVERSED: 0, DELETED: 0, ALL: 0 });
    expect((await counts(p, '?status=PENDING')).status).toBe(400);
    const denied = await counts(p, '', await limitedKey(app, p.teamId, ['participant:read']));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect((await counts(p, '', await limitedKey(app, p.teamId, ['reward:read']))).status).toBe(200);
    const r = await referralProgram(app);
    const list = await app.request('GET', `/v2/campaign/${r.pid}/commissions`, { key: r.key });
    const wrong = await counts(r);
    expect(wrong.status).toBe(422);
    expect({ ...wrong.body, timestamp: undefined }).toEqual({ ...list.body, timestamp: undefined });
  });
});
