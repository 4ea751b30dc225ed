import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onPostgres, startApp, verifiedAccount, type Res, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { errorResponse } from '../../../server/http/error-middleware.ts';
import { TEN_PERCENT, addParticipant, limitedKey, moneyProgram, type MoneyProgram, type Structure } from '../../helpers/money.ts';
import { SCOPES } from '../../../shared/scopes.ts';

// Issue #20, defect 1: writes that share a referrer or an affiliate, sent at the same moment. On
// PostgreSQL a foreign-key insert takes FOR KEY SHARE on the referrer's row and a later FOR UPDATE
// of the same row waited for the other transactions' share locks while they waited for it: sales of
// 8 customers of one affiliate, 5 rounds of 8 parallel calls, answered 29–31 × 500 "deadlock
// detected" out of 40. Every multi-row write path runs here the same way (ROUNDS × PARALLEL calls,
// one shared referrer or affiliate) and must answer no 5xx and leave exact counts. SQLite has one
// writer, so there it simply passes.

const ROUNDS = 5;
const PARALLEL = 8;
const CALLS = ROUNDS * PARALLEL;
/** Per test: a PostgreSQL deadlock costs a second (deadlock_timeout), so today's code runs long before it fails. */
const SLOW = 60_000;

let app: TestApp;
const warnings: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
const log = { debug() {}, info() {}, warn: (msg: string, fields?: Record<string, unknown>) => void warnings.push({ msg, fields }), error() {} };
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS }, { log });
});
afterAll(async () => {
  await app.close();
});
beforeEach(() => {
  warnings.length = 0;
});

/** Sends `call(i)` for i = 0 … CALLS − 1, PARALLEL at a time, and returns every response in order. */
async function inRounds(call: (i: number) => Promise<Res>): Promise<Res[]> {
  const out: Res[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    out.push(...(await Promise.all(Array.from({ length: PARALLEL }, (_, j) => call(round * PARALLEL + j)))));
  }
  return out;
}

/**
 * Every response was a 200 (the failures are shown when not), and no transaction of this test had
 * to run again: the lock order avoids the deadlocks, the retry (server/db/retry.ts) would only hide
 * a regression.
 */
function expectAllOk(responses: Res[]): void {
  const failed = responses.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
  expect(failed, `${failed.length} of ${responses.length} calls failed`).toEqual([]);
  expect(warnings.filter((w) => w.msg.startsWith('transaction')), 'transactions run again after a deadlock').toEqual([]);
}

const db = () => app.deps.db.knex;
const participantRow = (id: string) => db()('participants').where({ id }).first();
const programRow = (pid: string) => db()('program_counters').where({ program_id: pid }).first('participant_count', 'referral_count', 'winner_count');
const count = async (table: string, where: Record<string, unknown>) => Number((await db()(table).where(where).count({ n: '*' }).first())!.n);

/** A referral program with one reward config (DOUBLE_SIDED by default) and its key. */
async function referralProgram(rewards: Array<Record<string, unknown>> = [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }], options?: Record<string, unknown>) {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  if (options) {
    const row = await db()('programs').where({ id: pid }).first('options');
    await db()('programs').where({ id: pid }).update({ options: JSON.stringify({ ...JSON.parse(row.options), ...options }) });
  }
  const referrer = await addParticipant(app, acct.key, pid, { email: `referrer-${pid}@example.com` });
  return { key: acct.key, pid, referrer };
}

/** CALLS friends of one referrer, signed up in parallel rounds. */
async function friendsOf(key: string, pid: string, referrerId: string, body: Record<string, unknown> = {}): Promise<Res[]> {
  return inRounds((i) => app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: `friend${i}-${pid}@example.com`, referredBy: referrerId, ...body } }));
}

/** An affiliate program whose affiliate referred PARALLEL customers. */
async function affiliateWithCustomers(structure: Structure = TEN_PERCENT): Promise<MoneyProgram & { customers: string[] }> {
  const p = await moneyProgram(app, structure);
  const customers = [p.customer.id];
  for (let i = 1; i < PARALLEL; i++) customers.push((await addParticipant(app, p.key, p.pid, { email: `c${i}-${p.pid}@example.com`, referredBy: p.affiliate.id })).id);
  return { ...p, customers };
}

/** CALLS sales of 1000 (USD) each, one per customer per round, all credited to the one affiliate. */
function sales(p: MoneyProgram & { customers: string[] }): Promise<Res[]> {
  return inRounds((i) =>
    app.request('POST', `/v2/campaign/${p.pid}/participant/${p.customers[i % PARALLEL]}/transaction`, { key: p.key, body: { currency: 'USD', grossAmount: 1000, orderId: `order-${i}` } }),
  );
}

describe('issue #20: concurrent writes sharing a referrer or affiliate', () => {
  it('POST /campaign/{id}/participant: parallel sign-ups with one referrer all succeed and count exactly', async () => {
    const { key, pid, referrer } = await referralProgram();
    expectAllOk(await friendsOf(key, pid, referrer.id));
    expect(await participantRow(referrer.id)).toMatchObject({ referral_count: CALLS, monthly_referral_count: CALLS, lead_count: 0 });
    expect(await programRow(pid)).toMatchObject({ participant_count: CALLS + 1, referral_count: CALLS });
    // DOUBLE_SIDED: one reward for the referrer and one for the friend per credited referral.
    expect(await count('participant_rewards', { program_id: pid, participant_id: referrer.id })).toBe(CALLS);
    expect(await count('participant_rewards', { program_id: pid })).toBe(2 * CALLS);
  }, SLOW);

  it('POST /campaign/{id}/participant/{p}/ref: parallel triggers of one referrer’s friends credit each once', async () => {
    const { key, pid, referrer } = await referralProgram();
    const friends = await friendsOf(key, pid, referrer.id, { referralStatus: 'CREDIT_PENDING' });
    expectAllOk(friends);
    expect(await participantRow(referrer.id)).toMatchObject({ referral_count: 0, lead_count: CALLS });
    expectAllOk(await inRounds((i) => app.request('POST', `/v2/campaign/${pid}/participant/${friends[i]!.body.id}/ref`, { key, body: {} })));
    expect(await participantRow(referrer.id)).toMatchObject({ referral_count: CALLS, lead_count: 0 });
    expect(await programRow(pid)).toMatchObject({ participant_count: CALLS + 1, referral_count: CALLS });
    expect(await count('participant_rewards', { program_id: pid, participant_id: referrer.id })).toBe(CALLS);
    expect(await count('participant_rewards', { program_id: pid })).toBe(2 * CALLS);
  }, SLOW);

  it('POST /campaign/{id}/reward/{rewardId}/approve: parallel approvals of one referrer’s rewards make one winner', async () => {
    const { key, pid, referrer } = await referralProgram([{ type: 'SINGLE_SIDED', title: 'Thanks' }], { requireManualRewardApproval: true });
    expectAllOk(await friendsOf(key, pid, referrer.id));
    const rewards: Array<{ id: string }> = await db()('participant_rewards').where({ program_id: pid, participant_id: referrer.id }).select('id');
    expect(rewards).toHaveLength(CALLS);
    expectAllOk(await inRounds((i) => app.request('POST', `/v2/campaign/${pid}/reward/${rewards[i]!.id}/approve`, { key, body: { fulfill: i % 2 === 0 } })));
    expect(await count('participant_rewards', { program_id: pid, approved: true })).toBe(CALLS);
    expect(await count('participant_rewards', { program_id: pid, status: 'FULFILLED' })).toBe(CALLS / 2);
    expect(await programRow(pid)).toMatchObject({ winner_count: 1 });
    expect(await participantRow(referrer.id)).toMatchObject({ is_winner: app.deps.db.dialect === 'pg' ? true : 1 });
  }, SLOW);

  it('POST /campaign/{id}/participant/{p}/transaction: parallel sales of one affiliate’s customers each earn one commission', async () => {
    const p = await affiliateWithCustomers();
    expectAllOk(await sales(p));
    expect(await count('affiliate_transactions', { program_id: p.pid })).toBe(CALLS);
    expect(await count('commissions', { program_id: p.pid, referrer_id: p.affiliate.id, status: 'APPROVED' })).toBe(CALLS);
    expect(await participantRow(p.affiliate.id)).toMatchObject({ commission_total: CALLS * 100, revenue_total: CALLS * 1000, unread_commissions_count: CALLS });
  }, SLOW);

  it('POST /campaign/{id}/participant/{p}/transaction/refund: parallel refunds of one affiliate’s sales reverse each commission once', async () => {
    const p = await affiliateWithCustomers();
    expectAllOk(await sales(p));
    const refunds = await inRounds((i) => app.request('POST', `/v2/campaign/${p.pid}/participant/${p.customers[i % PARALLEL]}/transaction/refund`, { key: p.key, body: { orderId: `order-${i}` } }));
    expectAllOk(refunds);
    expect(refunds.map((r) => r.body.reversed)).toEqual(Array(CALLS).fill(1));
    expect(await count('commissions', { program_id: p.pid, status: 'REVERSED' })).toBe(CALLS);
    expect(await participantRow(p.affiliate.id)).toMatchObject({ commission_total: 0 });
  }, SLOW);

  it('POST /campaign/{id}/commission/{c}/approve and DELETE …/commission/{c}: parallel changes to one affiliate’s commissions each apply once', async () => {
    const p = await affiliateWithCustomers({ ...TEN_PERCENT, approvalRequired: true });
    expectAllOk(await sales(p));
    const ids: Array<{ id: string }> = await db()('commissions').where({ program_id: p.pid, status: 'PENDING' }).orderBy('id').select('id');
    expect(ids).toHaveLength(CALLS);
    const changes = await inRounds((i) =>
      i % 2 ? app.request('DELETE', `/v2/campaign/${p.pid}/commission/${ids[i]!.id}`, { key: p.key }) : app.request('POST', `/v2/campaign/${p.pid}/commission/${ids[i]!.id}/approve`, { key: p.key }),
    );
    expectAllOk(changes);
    expect(await count('commissions', { program_id: p.pid, status: 'APPROVED' })).toBe(CALLS / 2);
    expect(await count('commissions', { program_id: p.pid, status: 'DELETED' })).toBe(CALLS / 2);
    expect(await participantRow(p.affiliate.id)).toMatchObject({ commission_total: (CALLS / 2) * 100 });
  }, SLOW);

  it('POST /campaign/{id}/payouts/run and …/payouts/{id}/status: runs racing sales pay every commission exactly once', async () => {
    const p = await affiliateWithCustomers();
    // Identical writes in flight on one key answer 409 before they reach the database: one key per racer.
    const keys = [p.key, await limitedKey(app, p.teamId, [...SCOPES]), await limitedKey(app, p.teamId, [...SCOPES])];
    // Each round: PARALLEL sales and two payout runs at the same moment.
    const statuses: Res[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const calls = p.customers.map((c, j) => app.request('POST', `/v2/campaign/${p.pid}/participant/${c}/transaction`, { key: p.key, body: { currency: 'USD', grossAmount: 1000, orderId: `order-${round}-${j}` } }));
      calls.push(...keys.slice(1).map((key) => app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key, body: {} })));
      statuses.push(...(await Promise.all(calls)));
    }
    statuses.push(await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} }));
    expectAllOk(statuses);
    const payouts: Array<{ id: string; amount: number; commission_ids: string }> = await db()('payouts').where({ program_id: p.pid }).select('id', 'amount', 'commission_ids');
    const paid = payouts.flatMap((x) => JSON.parse(x.commission_ids) as string[]);
    expect(paid).toHaveLength(CALLS);
    expect(new Set(paid).size).toBe(CALLS);
    expect(payouts.reduce((n, x) => n + Number(x.amount), 0)).toBe(CALLS * 100);
    expect(await count('commissions', { program_id: p.pid, payout_id: null })).toBe(0);
    // Every payout issued, each by several parallel calls: the affiliate's unread count moves once per payout.
    const issued = await Promise.all(payouts.flatMap((x) => keys.map((key) => app.request('POST', `/v2/campaign/${p.pid}/payouts/${x.id}/status`, { key, body: { status: 'ISSUED' } }))));
    expectAllOk(issued);
    expect(await count('commissions', { program_id: p.pid, status: 'PAID' })).toBe(CALLS);
    expect(await participantRow(p.affiliate.id)).toMatchObject({ unread_payouts_count: payouts.length });
  }, SLOW);

  it('POST /campaign/{id}/participants/bulk-delete: parallel deletes of one referrer’s friends leave exact counts', async () => {
    const { key, pid, referrer } = await referralProgram();
    const friends = await friendsOf(key, pid, referrer.id);
    expectAllOk(friends);
    const per = CALLS / PARALLEL;
    const deletes = await Promise.all(
      Array.from({ length: PARALLEL }, (_, j) => app.request('POST', `/v2/campaign/${pid}/participants/bulk-delete`, { key, body: { participants: friends.slice(j * per, (j + 1) * per).map((f) => f.body.id) } })),
    );
    expectAllOk(deletes);
    expect(deletes.map((d) => d.body.summary)).toEqual(Array(PARALLEL).fill({ total: per, deletedCount: per, notFoundCount: 0, duplicateCount: 0, errorCount: 0 }));
    expect(await participantRow(referrer.id)).toMatchObject({ referral_count: 0, monthly_referral_count: 0 });
    expect(await programRow(pid)).toMatchObject({ participant_count: 1, referral_count: 0 });
    expect(await count('participants', { program_id: pid })).toBe(1);
  }, SLOW);

  it('PATCH /campaign/{id} and …/options racing sign-ups and triggers of one referrer: every call succeeds', async () => {
    const { key, pid, referrer } = await referralProgram();
    const pending = await friendsOf(key, pid, referrer.id, { referralStatus: 'CREDIT_PENDING' });
    expectAllOk(pending);
    // Each round: 3 sign-ups and 3 triggers (rows that share-lock the program row and the referrer), and two program edits.
    const responses: Res[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const calls: Array<Promise<Res>> = [];
      for (let j = 0; j < 3; j++) {
        calls.push(app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: `late${round}-${j}-${pid}@example.com`, referredBy: referrer.id } }));
        calls.push(app.request('POST', `/v2/campaign/${pid}/participant/${pending[round * 3 + j]!.body.id}/ref`, { key, body: {} }));
      }
      calls.push(app.request('PATCH', `/v2/campaign/${pid}`, { key, body: { companyName: `Acme ${round}` } }));
      calls.push(app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { fraud: { blockedEmails: [`blocked${round}@example.com`] } } }));
      responses.push(...(await Promise.all(calls)));
    }
    expectAllOk(responses);
    expect(await participantRow(referrer.id)).toMatchObject({ referral_count: 2 * 3 * ROUNDS, lead_count: CALLS - 3 * ROUNDS });
    expect(await programRow(pid)).toMatchObject({ participant_count: 1 + CALLS + 3 * ROUNDS, referral_count: 2 * 3 * ROUNDS });
    expect(await db()('programs').where({ id: pid }).first('company_name')).toEqual({ company_name: `Acme ${ROUNDS - 1}` });
  }, SLOW);

  it.skipIf(!onPostgres)('a deadlock victim runs its whole transaction again, and the retry is logged', async () => {
    const knex = app.deps.db.knex;
    await knex.schema.createTable('issue20_probe', (t) => {
      t.integer('id').primary();
      t.integer('n').notNullable();
    });
    await knex('issue20_probe').insert([{ id: 1, n: 0 }, { id: 2, n: 0 }]);
    let runs = 0;
    let arrived = 0;
    let release!: () => void;
    const bothHoldOne = new Promise<void>((r) => (release = r));
    // Two transactions lock the two rows in opposite orders: PostgreSQL aborts one (40P01).
    const cross = (first: number, second: number) =>
      knex.transaction(async (trx) => {
        runs++;
        await trx('issue20_probe').where({ id: first }).increment('n', 1);
        if (++arrived === 2) release();
        await bothHoldOne;
        await trx('issue20_probe').where({ id: second }).increment('n', 1);
      });
    await Promise.all([cross(1, 2), cross(2, 1)]);
    expect(runs).toBe(3);
    expect((await knex('issue20_probe').orderBy('id').select('n')).map((r) => r.n)).toEqual([2, 2]);
    expect(warnings).toContainEqual({ msg: 'transaction retried', fields: expect.objectContaining({ sqlState: '40P01', attempt: 1 }) });
  }, SLOW);

  it('answers a deadlock that outlasts the retries as a 503 to send again, not a 500', () => {
    const err = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const { body, headers } = errorResponse(err, log, null, { requestId: 'r', method: 'POST', path: '/v2/x' });
    expect(body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE_ERROR', name: 'ServiceUnavailableError' });
    expect(body.message).not.toMatch(/deadlock/);
    expect(headers).toEqual({ 'Retry-After': '1' });
  });
});
