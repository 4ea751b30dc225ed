import { describe, expect, it } from 'vitest';
import { freshDatabase, startApp, verifiedAccount, RAISED_LIMITS } from '../../helpers/app.ts';

describe('several server processes on one database', () => {
  it('share one team rate-limit budget', async () => {
    const db = await freshDatabase();
    const env = { RATE_LIMIT_SECOND: '4', RATE_LIMIT_STORE: 'database' };
    const a = await startApp(env, { databaseUrl: db.url });
    const b = await startApp(env, { databaseUrl: db.url });
    try {
      const acct = await verifiedAccount(a);
      expect((await a.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
      expect((await b.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
      expect((await a.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
      expect((await b.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
      const fifth = await a.request('GET', '/v2/team', { key: acct.key });
      expect(fifth.status).toBe(429);
      expect((await b.request('GET', '/v2/team', { key: acct.key })).status).toBe(429);
    } finally {
      await a.close();
      await b.close();
      await db.cleanup();
    }
  });

  it('share the MCP client-registration cap of 20 an hour per address', async () => {
    const db = await freshDatabase();
    const env = { ...RAISED_LIMITS, RATE_LIMIT_STORE: 'database' };
    const a = await startApp(env, { databaseUrl: db.url });
    const b = await startApp(env, { databaseUrl: db.url });
    try {
      const body = { redirect_uris: ['https://host.example/cb'], token_endpoint_auth_method: 'none' };
      for (let i = 0; i < 20; i++) expect((await (i % 2 ? a : b).request('POST', '/oauth/register', { body })).status).toBe(201);
      for (const app of [a, b]) {
        const over = await app.request('POST', '/oauth/register', { body });
        expect(over.status).toBe(429);
        expect(over.body).toEqual({ error: 'too_many_requests', error_description: 'You have exceeded the rate limit for client registration requests' });
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    } finally {
      await a.close();
      await b.close();
      await db.cleanup();
    }
  });

  it('run each job exactly once when both runners claim at the same time', async () => {
    const db = await freshDatabase();
    const a = await startApp({}, { databaseUrl: db.url });
    const b = await startApp({}, { databaseUrl: db.url });
    try {
      const runs: string[] = [];
      for (const app of [a, b]) {
        app.deps.jobs.register('test.count', async ({ n }: { n: number }) => {
          runs.push(String(n));
          await new Promise((r) => setTimeout(r, 2));
        });
      }
      for (let n = 0; n < 40; n++) await a.deps.jobs.enqueue(a.deps.db.knex, 'test.count', { n });
      const [ra, rb] = await Promise.all([a.deps.jobs.runDue(5), b.deps.jobs.runDue(5)]);
      expect(ra + rb).toBe(40);
      expect(runs.sort()).toEqual(Array.from({ length: 40 }, (_, n) => String(n)).sort());
    } finally {
      await a.close();
      await b.close();
      await db.cleanup();
    }
  });
});
