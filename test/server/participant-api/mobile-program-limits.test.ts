import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { freshDatabase, startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { SharedBudget } from '../../../server/http/mobile/shared-budget.ts';

// Issue #5 "Limits and safety": per-program budgets on the participant API, beside the per-IP-and-instance ones.

const visit = (a: TestApp, s: { token: string }) => mobile(a, 'POST', '/visits', s, { body: { visitId: crypto.randomUUID(), attribution: null } });
const campaign = (a: TestApp, s: { token: string }) => mobile(a, 'GET', '/campaign', s);

async function withApp(env: Record<string, string>, fn: (a: TestApp) => Promise<void>) {
  const a = await startApp({ ...RAISED_LIMITS, ...env });
  try {
    await fn(a);
  } finally {
    await a.close();
  }
}

describe('per-program budget of the participant API', () => {
  it('answers 429 PROGRAM with the REST headers once a program spends its call budget, and another program goes on', async () => {
    await withApp({ MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE: '3' }, async (a) => {
      const busy = await mobileProgram(a);
      const quiet = await mobileProgram(a);
      const s = await session(a, busy); // 1
      const ok = await campaign(a, s); // 2
      expect(ok.status, ok.text).toBe(200);
      expect(ok.headers.get('ratelimit-policy')).toBe('"client";q=600;w=60, "program";q=3;w=60');
      expect(ok.headers.get('ratelimit')).toMatch(/^"client";r=599;t=\d+, "program";r=1;t=\d+$/);
      const s2 = await session(a, busy); // 3
      const over = await campaign(a, s2); // 4
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ code: 'RATE_LIMIT', status: 429, policyName: 'PROGRAM' });
      expect(over.headers.get('ratelimit-policy')).toBe('"client";q=600;w=60, "program";q=3;w=60');
      expect(over.headers.get('ratelimit')).toMatch(/^"client";r=\d+;t=\d+, "program";r=0;t=\d+$/);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Session creation is charged to the program too.
      const refusedSession = await a.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': busy.pid, 'x-public-key': busy.publicKey! }, body: { instanceId: crypto.randomUUID() } });
      expect(refusedSession.status).toBe(429);
      expect(refusedSession.body.policyName).toBe('PROGRAM');

      const other = await session(a, quiet);
      expect((await campaign(a, other)).status).toBe(200);
    });
  });

  it('gives visits their own budget: a program out of call budget still records visits, and its visit budget is separate from other programs', async () => {
    await withApp({ MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE: '1', MOBILE_PROGRAM_VISITS_PER_MINUTE: '2' }, async (a) => {
      const busy = await mobileProgram(a);
      const quiet = await mobileProgram(a);
      const s = await session(a, busy); // spends the whole call budget
      expect((await campaign(a, s)).status).toBe(429);
      for (let i = 0; i < 2; i++) {
        const res = await visit(a, s);
        expect(res.status, res.text).toBe(200);
        expect(res.headers.get('ratelimit-policy')).toBe('"client";q=600;w=60, "program-visits";q=2;w=60');
      }
      const over = await visit(a, s);
      expect(over.status).toBe(429);
      expect(over.body.policyName).toBe('PROGRAM_VISITS');
      expect(over.headers.get('ratelimit')).toMatch(/"program-visits";r=0;t=\d+$/);
      expect(await a.deps.db.knex('visits').where({ program_id: busy.pid }).count({ n: '*' }).first()).toEqual({ n: 2 });

      const other = await session(a, quiet);
      expect((await visit(a, other)).status).toBe(200);
    });
  });

  it('does not punish many client instances behind one address: the per-caller budget is keyed on IP and instance', async () => {
    await withApp({ MOBILE_RATE_LIMIT_PER_MINUTE: '2' }, async (a) => {
      const p = await mobileProgram(a);
      for (let i = 0; i < 8; i++) {
        const s = await session(a, p);
        for (let j = 0; j < 2; j++) expect((await visit(a, s)).status).toBe(200);
        const third = await visit(a, s);
        expect(third.status).toBe(429);
        expect(third.body.policyName).toBe('CLIENT');
      }
      // Refused callers spent nothing of their program's budget.
      expect(await a.deps.db.knex('visits').where({ program_id: p.pid }).count({ n: '*' }).first()).toEqual({ n: 16 });
    });
  });

  it('is shared by several processes on one database with RATE_LIMIT_STORE=database', async () => {
    const db = await freshDatabase();
    const env = { ...RAISED_LIMITS, RATE_LIMIT_STORE: 'database', MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE: '4' };
    const first = await startApp(env, { databaseUrl: db.url });
    const second = await startApp(env, { databaseUrl: db.url });
    try {
      const p: MobileProgramFixture = await mobileProgram(first);
      const s1 = await session(first, p); // 1
      expect((await campaign(first, s1)).status).toBe(200); // 2
      const s2 = await session(second, p); // 3
      expect((await campaign(second, s2)).status).toBe(200); // 4
      const overThere = await campaign(second, s2);
      expect(overThere.status).toBe(429);
      expect(overThere.body.policyName).toBe('PROGRAM');
      expect((await campaign(first, s1)).status).toBe(429);
      // Another program on the same processes is unaffected.
      const q = await mobileProgram(second);
      expect((await campaign(first, await session(first, q))).status).toBe(200);
    } finally {
      await first.close();
      await second.close();
      await db.cleanup();
    }
  });
});

describe('SharedBudget (batched charges to a shared store)', () => {
  it('keeps several processes within one batch of a large budget, and refuses everything after', async () => {
    const store = new RateLimiterMemory({ keyPrefix: 'shared', points: 1000, duration: 60 });
    const processes = [0, 1, 2].map(() => new SharedBudget(store, { points: 1000 }));
    let admitted = 0;
    for (let i = 0; i < 3000; i++) {
      const charge = await processes[i % 3]!.charge('program-a');
      if (!charge.over) admitted++;
      if (i % 7 === 0) await new Promise((r) => setImmediate(r)); // background syncs land now and then
    }
    await Promise.all(processes.map((p) => p.flush()));
    // Each process batches 1% (10 points) far from the edge; the last 10% is decided by the store.
    expect(admitted).toBeGreaterThanOrEqual(1000);
    expect(admitted).toBeLessThanOrEqual(1000 + 3 * 10);
    for (const p of processes) expect((await p.charge('program-a')).over).toBe(true);
    expect((await processes[0]!.charge('program-b')).over).toBe(false);
  });

  it('sends batches rather than a store write per charge far from the limit', async () => {
    const store = new RateLimiterMemory({ keyPrefix: 'writes', points: 100_000, duration: 60 });
    let writes = 0;
    const counting = Object.create(store, { consume: { value: (key: string, n: number) => (writes++, store.consume(key, n)) } });
    const budget = new SharedBudget(counting, { points: 100_000 });
    for (let i = 0; i < 5000; i++) expect((await budget.charge('p')).over).toBe(false);
    await budget.flush();
    expect(writes).toBeLessThanOrEqual(5000 / 1000 + 2);
    expect((await store.get('p'))!.consumedPoints).toBe(5000);
  });
});
