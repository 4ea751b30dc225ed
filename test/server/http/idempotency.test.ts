import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { freshDatabase, onPostgres } from '../../helpers/app.ts';
import { call, ownerKey, serve, UNLIMITED, type Answer, type Served } from '../../helpers/serve.ts';

// Issue #34 goal 5: an Idempotency-Key is claimed in the same transaction as the write it protects
// (server/http/idempotency.ts), so concurrent requests with one key, on one process or on two
// processes sharing PostgreSQL, and requests cut off by a SIGKILL, make exactly one resource, and
// every retry is answered with the first answer.

/** The programs of the team whose names start with `prefix`. */
async function programsNamed(base: string, key: string, prefix: string): Promise<Array<{ id: string; name: string }>> {
  const list = await call(base, 'GET', '/v2/campaigns', { key });
  expect(list.status).toBe(200);
  const all = (Array.isArray(list.body) ? list.body : list.body.campaigns) as Array<{ id: string; name: string }>;
  return all.filter((c) => c.name.startsWith(prefix));
}

const create = (base: string, key: string, idem: string, name: string) => call(base, 'POST', '/v2/campaigns', { key, headers: { 'idempotency-key': idem }, body: { type: 'REFERRAL', name } });

describe(`Idempotency-Key on ${onPostgres ? 'two processes sharing PostgreSQL' : 'one process on SQLite'}`, () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let hosts: Served[] = [];
  let key = '';

  beforeAll(async () => {
    db = await freshDatabase();
    const env = { ...UNLIMITED, DATABASE_URL: db.url, JOBS: 'false' };
    // Two hosts where two processes can share the database; SQLite has one writer process.
    hosts = onPostgres ? await Promise.all([serve(env), serve(env)]) : [await serve(env)];
    key = await ownerKey(hosts[0]!.base);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
    await db?.cleanup();
  });

  it('ten identical requests at once make one program; each answer is that program or 409 in progress, and every retry replays it', async () => {
    for (let round = 0; round < 5; round++) {
      const idem = `same-${round}-${crypto.randomUUID()}`;
      const name = `Same ${round}`;
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(hosts[i % hosts.length]!.base, key, idem, name)));
      const made = await programsNamed(hosts[0]!.base, key, name);
      expect(made).toHaveLength(1);
      for (const a of answers) {
        expect([200, 409]).toContain(a.status);
        if (a.status === 200) expect(a.body.id).toBe(made[0]!.id);
        else expect(a.body.code).toBe('DUPLICATE_REQUEST_ERROR');
      }
      expect(answers.some((a) => a.status === 200)).toBe(true);
      for (const h of hosts) {
        const retry = await create(h.base, key, idem, name);
        expect(retry.status).toBe(200);
        expect(retry.body.id).toBe(made[0]!.id);
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
      }
    }
  }, 120_000);

  it('ten different requests with one key at once make one program; the others are refused with IDEMPOTENCY_KEY_REUSED_ERROR', async () => {
    for (let round = 0; round < 5; round++) {
      const idem = `clash-${round}-${crypto.randomUUID()}`;
      const prefix = `Clash ${round} `;
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(hosts[i % hosts.length]!.base, key, idem, `${prefix}${i}`)));
      const made = await programsNamed(hosts[0]!.base, key, prefix);
      expect(made).toHaveLength(1);
      const winner = answers.findIndex((a) => a.status === 200);
      expect(winner).toBeGreaterThanOrEqual(0);
      expect(answers[winner]!.body.id).toBe(made[0]!.id);
      answers.forEach((a, i) => {
        if (i === winner) return;
        // 400 once the first is recorded; 409 while it still runs (then its retry is refused).
        expect([400, 409]).toContain(a.status);
        expect(a.body.code).toBe(a.status === 400 ? 'IDEMPOTENCY_KEY_REUSED_ERROR' : 'DUPLICATE_REQUEST_ERROR');
      });
      for (const [i] of answers.entries()) {
        const retry = await create(hosts[i % hosts.length]!.base, key, idem, `${prefix}${i}`);
        if (i === winner) expect(retry.body.id).toBe(made[0]!.id);
        else expect(retry.body.code).toBe('IDEMPOTENCY_KEY_REUSED_ERROR');
      }
    }
  }, 120_000);

  it('a refused write leaves no record: the same key then runs the corrected request', async () => {
    const idem = `refused-${crypto.randomUUID()}`;
    const bad = await call(hosts[0]!.base, 'POST', '/v2/campaigns', { key, headers: { 'idempotency-key': idem }, body: { type: 'REFERRAL', name: '' } });
    expect(bad.status).toBe(400);
    const again = await call(hosts[0]!.base, 'POST', '/v2/campaigns', { key, headers: { 'idempotency-key': idem }, body: { type: 'REFERRAL', name: '' } });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  }, 60_000);
});

describe(`Idempotency-Key through a SIGKILL (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('thirty keyed writes in flight when the process dies, three times: after the restart every retry answers, one program per key, and answers given before the kill are replayed unchanged', async () => {
    const db = await freshDatabase();
    const env = { ...UNLIMITED, DATABASE_URL: db.url, JOBS: 'false' };
    let host = await serve(env);
    try {
      const key = await ownerKey(host.base);
      // Three kills, each at another point of the run: early, midway and late.
      for (const killAfter of [2, 10, 20]) {
        const tag = crypto.randomBytes(3).toString('hex');
        const writes = Array.from({ length: 30 }, (_, i) => ({ idem: `crash-${tag}-${i}`, name: `Crash ${tag} ${i}` }));
        const first: Array<Answer | null> = writes.map(() => null);
        let answered = 0;
        const inFlight = Promise.all(
          writes.map(async (w, i) => {
            const a = await create(host.base, key, w.idem, w.name);
            first[i] = a;
            if (a.status === 200) answered++;
          }),
        );
        const deadline = Date.now() + 20_000;
        while (answered < killAfter && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
        await host.kill9();
        await inFlight;
        const before = first.filter((a) => a?.status === 200).length;
        expect(before).toBeGreaterThanOrEqual(killAfter);
        expect(before).toBeLessThan(30);
        host = await serve(env, host.port);
        const retries = await Promise.all(writes.map((w) => create(host.base, key, w.idem, w.name)));
        const made = await programsNamed(host.base, key, `Crash ${tag} `);
        writes.forEach((w, i) => {
          const mine = made.filter((p) => p.name === w.name);
          expect(mine, `${w.name} (killed after ${killAfter} answers)`).toHaveLength(1);
          expect(retries[i]!.status).toBe(200);
          expect(retries[i]!.body.id).toBe(mine[0]!.id);
          if (first[i]?.status === 200) {
            expect(retries[i]!.headers.get('idempotent-replayed')).toBe('true');
            expect(retries[i]!.body).toEqual(first[i]!.body);
          }
        });
      }
    } finally {
      await host.stop();
      await db.cleanup();
    }
  }, 180_000);
});
