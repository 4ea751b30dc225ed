import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';

// PR5 `GET /campaign/{id}/rewards` (issue #23, a refloop extension): the program's rewards queue by
// state, newest first, with cursor pages, over HTTP with an API key.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

async function program(options: Record<string, unknown> = { requireManualRewardApproval: true }, type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL') {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: type === 'REFERRAL' ? { type, rewards: [{ type: 'SINGLE_SIDED', title: 'Thanks' }] } : { type } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  if (type === 'REFERRAL') {
    const patched = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: options });
    expect(patched.status, patched.text).toBe(200);
  }
  return { key: acct.key, teamId: acct.teamId, pid };
}

async function add(key: string, pid: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; email: string };
}

/** `n` referrers, each with one credited friend: `n` single-sided rewards, the newest last. */
async function earn(key: string, pid: string, n: number, tag = 'r') {
  const referrers = [];
  for (let i = 0; i < n; i++) {
    const referrer = await add(key, pid, { email: `${tag}${i}@example.com` });
    await add(key, pid, { email: `${tag}${i}-friend@example.com`, referredBy: referrer.id, referralStatus: 'CREDIT_AWARDED' });
    referrers.push(referrer);
    app.clock.advance(1000);
  }
  return referrers;
}

const queue = (key: string, pid: string, query = '') => app.request('GET', `/v2/campaign/${pid}/rewards${query}`, { key });

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

describe('GET /campaign/:id/rewards (PR5)', () => {
  it('lists rewards awaiting approval by default, newest first, with the recipient’s id and email', async () => {
    const { key, pid } = await program();
    const referrers = await earn(key, pid, 3);
    const res = await queue(key, pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body.limit).toBe(20);
    expect(res.body.nextId).toBeNull();
    expect(res.body.rewards.map((r: { participantEmail: string }) => r.participantEmail)).toEqual(['r2@example.com', 'r1@example.com', 'r0@example.com']);
    expect(res.body.rewards[0]).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      rewardId: expect.any(String),
      status: 'PENDING',
      approved: false,
      amount: null,
      currencyISO: null,
      approvedAt: null,
      fulfilledAt: null,
      isFulfilled: false,
      isAvailable: false,
      isReferrer: true,
      referrerId: referrers[2]!.id,
      referredId: expect.any(String),
      unread: true,
      commissionStructure: null,
      participantId: referrers[2]!.id,
      participantEmail: 'r2@example.com',
      createdAt: expect.any(Number),
    });
    // The same object PR1 returns for that participant, plus the three queue fields.
    const pr1 = await app.request('GET', `/v2/campaign/${pid}/participant/${referrers[2]!.id}/rewards`, { key });
    const { participantId, participantEmail, createdAt, ...wire } = res.body.rewards[0];
    expect(wire).toEqual(pr1.body.rewards[0]);
    expect([participantId, participantEmail, typeof createdAt]).toEqual([referrers[2]!.id, 'r2@example.com', 'number']);
  });

  it('moves a reward between the states as PR2, PR3 and PR4 act on it', async () => {
    const { key, pid } = await program();
    await earn(key, pid, 3);
    const ids = (await queue(key, pid)).body.rewards.map((r: { id: string }) => r.id) as string[];
    expect((await app.request('POST', `/v2/campaign/${pid}/reward/${ids[0]}/approve`, { key, body: {} })).status).toBe(200);
    expect((await app.request('POST', `/v2/campaign/${pid}/reward/${ids[1]}/approve`, { key, body: { fulfill: true } })).status).toBe(200);
    expect((await app.request('DELETE', `/v2/campaign/${pid}/reward/${ids[2]}`, { key })).status).toBe(200);
    const state = async (s: string) => (await queue(key, pid, `?state=${s}`)).body.rewards.map((r: { id: string }) => r.id);
    expect(await state('AWAITING_APPROVAL')).toEqual([]);
    expect(await state('APPROVED')).toEqual([ids[0]]);
    expect(await state('FULFILLED')).toEqual([ids[1]]);
    // Deleted (rejected) rewards are in no state.
    expect(await state('ALL')).toEqual([ids[0], ids[1]]);
  });

  it('pages with limit and nextId, and a reward approved between pages does not shift the next page', async () => {
    const { key, pid } = await program({ requireManualRewardApproval: false });
    await earn(key, pid, 5);
    const first = await queue(key, pid, '?state=APPROVED&limit=2');
    expect(first.body.rewards).toHaveLength(2);
    expect(first.body.nextId).toBe(first.body.rewards[1].id);
    // Fulfilling the cursor's reward takes it out of APPROVED; it still positions the next page.
    expect((await app.request('POST', `/v2/campaign/${pid}/reward/${first.body.nextId}/fulfill`, { key, body: {} })).status).toBe(200);
    const second = await queue(key, pid, `?state=APPROVED&limit=2&nextId=${first.body.nextId}`);
    const third = await queue(key, pid, `?state=APPROVED&limit=2&nextId=${second.body.nextId}`);
    expect(third.body.nextId).toBeNull();
    const emails = [...first.body.rewards, ...second.body.rewards, ...third.body.rewards].map((r: { participantEmail: string }) => r.participantEmail);
    expect(emails).toEqual(['r4@example.com', 'r3@example.com', 'r2@example.com', 'r1@example.com', 'r0@example.com']);
  });

  it('answers 400 with the field for an unknown state, a bad limit or a cursor from another program', async () => {
    const { key, pid } = await program();
    const other = await program();
    await earn(other.key, other.pid, 1);
    const foreign = (await queue(other.key, other.pid)).body.rewards[0].id;
    const bad = await queue(key, pid, '?state=PENDING');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('query.state');
    expect((await queue(key, pid, '?limit=101')).status).toBe(400);
    const cursor = await queue(key, pid, `?nextId=${foreign}`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.errors).toEqual([{ field: 'query.nextId', code: 'INVALID', message: 'Not a reward of this program.' }]);
  });

  it('answers 403 without reward:read or outside the key’s programs, and 422 on an affiliate program', async () => {
    const { key, teamId, pid } = await program();
    expect((await queue(await limitedKey(teamId, ['participant:read']), pid)).status).toBe(403);
    const other = await program();
    expect((await queue(await limitedKey(teamId, ['reward:read'], [pid]), other.pid)).status).toBe(403);
    expect((await queue(key, other.pid)).status).toBe(403);
    expect((await queue(await limitedKey(teamId, ['reward:read'], [pid]), pid)).status).toBe(200);
    const aff = await program({}, 'AFFILIATE');
    expect((await queue(aff.key, aff.pid)).status).toBe(422);
  });

  it('reads each state through the queue indexes on SQLite', async () => {
    if (app.deps.db.dialect !== 'sqlite') return;
    const { key, pid } = await program();
    await earn(key, pid, 1);
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (q: { sql: string; bindings: unknown[] }) => q.sql.includes('participant_rewards') && seen.push(q);
    app.deps.db.knex.on('query', listen);
    try {
      for (const s of ['AWAITING_APPROVAL', 'ALL']) expect((await queue(key, pid, `?state=${s}`)).status).toBe(200);
    } finally {
      app.deps.db.knex.off('query', listen);
    }
    const plans = [];
    for (const q of seen) plans.push(JSON.stringify(await app.deps.db.knex.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings as never)));
    expect(plans[0]).toContain('participant_rewards_queue');
    expect(plans[1]).toContain('participant_rewards_program_list');
    for (const p of plans) expect(p).not.toContain('TEMP B-TREE');
  });
});

// Issue #32 (counts per state): PR6 counts the very rows PR5 lists.
describe('GET /campaign/:id/rewards/counts (PR6)', () => {
  const counts = (key: string, pid: string, query = '') => app.request('GET', `/v2/campaign/${pid}/rewards/counts${query}`, { key });
  const listed = async (key: string, pid: string, state: string) => (await queue(key, pid, `?state=${state}&limit=100`)).body.rewards.length as number;

  it('counts the rewards in each state, and each count agrees with the rows PR5 lists', async () => {
    const { key, pid } = await program();
    await earn(key, pid, 4, 'c');
    const awaiting = (await queue(key, pid)).body.rewards as Array<{ id: string }>;
    expect((await app.request('POST', `/v2/campaign/${pid}/reward/${awaiting[0]!.id}/approve`, { key, body: {} })).status).toBe(200);
    expect((await app.request('POST', `/v2/campaign/${pid}/reward/${awaiting[1]!.id}/approve`, { key, body: { fulfill: true } })).status).toBe(200);
    expect((await app.request('DELETE', `/v2/campaign/${pid}/reward/${awaiting[2]!.id}`, { key, body: {} })).status).toBe(200);
    const res = await counts(key, pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ AWAITING_APPROVAL: 1, APPROVED: 1, FULFILLED: 1, ALL: 3 });
    for (const state of ['AWAITING_APPROVAL', 'APPROVED', 'FULFILLED', 'ALL']) expect(res.body[state]).toBe(await listed(key, pid, state));
  });

  it('answers zeros for a program with no rewards', async () => {
    const { key, pid } = await program();
    expect((await counts(key, pid)).body).toEqual({ AWAITING_APPROVAL: 0, APPROVED: 0, FULFILLED: 0, ALL: 0 });
  });

  it('refuses an unknown query parameter with a validation error', async () => {
    const { key, pid } = await program();
    const res = await counts(key, pid, '?state=APPROVED');
    expect(res.status, res.text).toBe(400);
    expect(res.text).toMatch(/state/);
  });

  it('refuses a key without reward:read', async () => {
    const { teamId, pid } = await program();
    const res = await counts(await limitedKey(teamId, ['participant:read']), pid);
    expect(res.status, res.text).toBe(403);
  });
});
