import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freshDatabase, onPostgres, RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { addParticipant, mobileProgram } from '../../helpers/mobile.ts';
import { loadConfig } from '../../../server/config.ts';
import { openDb } from '../../../server/db/connect.ts';
import { Jobs, LEASE_MS } from '../../../server/domain/platform/jobs.ts';
import { createLogger } from '../../../server/log.ts';

// Issue #20: what a process acknowledged survives its SIGKILL. Visits answered RECORDED are counted
// exactly once after a restart (the counters are folded from the visits table behind a durable
// watermark), and jobs held by a dead process are claimed again within seconds (short leases
// renewed by a heartbeat), while a live worker's job is never taken over.

const root = path.resolve(import.meta.dirname, '../../..');

interface Child {
  url: string;
  proc: ChildProcess;
  exited: Promise<unknown>;
  logs: () => string;
}

/** Starts `refloop serve` on the database and waits until it listens. */
async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<Child> {
  const proc = spawn(process.execPath, [path.join(root, 'bin/refloop.js'), 'serve'], {
    env: { ...process.env, ...RAISED_LIMITS, NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, PUBLIC_URL: 'http://refloop.test', JOBS: 'false', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  proc.stdout!.on('data', (c) => (logs += c));
  proc.stderr!.on('data', (c) => (logs += c));
  const exited = new Promise((r) => proc.on('exit', r));
  for (let i = 0; i < 400 && !logs.includes('"listening"'); i++) {
    if (proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const line = logs.split('\n').find((l) => l.includes('"listening"'));
  if (!line) {
    proc.kill('SIGKILL');
    throw new Error(`server did not start:\n${logs.slice(-2000)}`);
  }
  return { url: JSON.parse(line).url, proc, exited, logs: () => logs };
}

async function kill9(c: Child): Promise<void> {
  c.proc.kill('SIGKILL');
  await c.exited;
}

async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

describe('issue #20: impression counts after a SIGKILL', () => {
  it('counts exactly the N visits answered RECORDED before the process was killed, once restarted', { timeout: 90_000 }, async () => {
    const db = await freshDatabase();
    const setup = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
    let child: Child | null = null;
    try {
      const p = await mobileProgram(setup);
      const ann = await addParticipant(setup, p, { email: 'ann@example.com' });
      await setup.close();

      child = await startServer(db.url);
      const base = child.url;
      const instances = 10;
      const perInstance = 40;
      const tokens: string[] = [];
      for (let i = 0; i < instances; i++) {
        const res = await fetch(`${base}/mobile/v2/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-program-id': p.pid, 'x-public-key': p.publicKey! }, body: JSON.stringify({ instanceId: crypto.randomUUID() }) });
        expect(res.status).toBe(200);
        tokens.push((await json(res)).sessionToken);
      }
      let recorded = 0;
      await Promise.all(
        tokens.map(async (token) => {
          for (let n = 0; n < perInstance; n++) {
            const res = await fetch(`${base}/mobile/v2/visits`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-session-token': token },
              body: JSON.stringify({ visitId: crypto.randomUUID(), attribution: { referralCode: ann.id, utm: { utm_source: 'newsletter' } } }),
            });
            const body = await json(res);
            if (res.status === 200 && body.status === 'RECORDED') recorded++;
          }
        }),
      );
      expect(recorded).toBe(instances * perInstance);
      // Killed right after the last answer: no shutdown, no counter flush.
      await kill9(child);
      child = await startServer(db.url);

      const read = async () => {
        const participant = await json(await fetch(`${child!.url}/v2/campaign/${p.pid}/participant/${ann.id}`, { headers: { authorization: `Bearer ${p.key}` } }));
        const campaign = await json(await fetch(`${child!.url}/v2/campaign/${p.pid}`, { headers: { authorization: `Bearer ${p.key}` } }));
        return { impressionCount: participant.impressionCount, uniqueImpressionCount: participant.uniqueImpressionCount, campaignImpressions: campaign.impressionCount };
      };
      const want = { impressionCount: recorded, uniqueImpressionCount: instances, campaignImpressions: recorded };
      let got = await read();
      for (let i = 0; i < 100 && got.impressionCount < recorded; i++) {
        await new Promise((r) => setTimeout(r, 100));
        got = await read();
      }
      expect(got).toEqual(want);
      // And it stays exactly N: nothing is folded twice by later passes.
      await new Promise((r) => setTimeout(r, 1500));
      expect(await read()).toEqual(want);
      await kill9(child);
      child = null;

      const check = openDb(loadConfig({ DATABASE_URL: db.url }).database, { checkpointer: false });
      try {
        const visits = await check.knex('activity_logs').where({ participant_id: ann.id, type: 'VISIT' }).select('data');
        expect(visits).toHaveLength(recorded);
        expect(visits.every((v) => JSON.parse(v.data).source === 'newsletter')).toBe(true);
        expect(await check.knex('visit_uniques').where({ referrer_id: ann.id }).count({ n: '*' })).toEqual([{ n: instances }]);
      } finally {
        await check.close();
      }
    } finally {
      if (child) await kill9(child);
      await db.cleanup();
    }
  });
});

// Several processes share one database on PostgreSQL. (Two SQLite connections in one test process
// cannot wait for each other's lock: better-sqlite3's busy wait blocks the thread the holder runs on.)
describe.runIf(onPostgres)('issue #20: impression fold shared by several processes', () => {
  it('counts each visit once when two processes on one database record and fold at the same time', { timeout: 60_000 }, async () => {
    const db = await freshDatabase();
    const a = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
    const b = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
    try {
      const p = await mobileProgram(a);
      const ann = await addParticipant(a, p, { email: 'ann@example.com' });
      const send = async (app: TestApp, n: number) => {
        const s = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey! }, body: { instanceId: crypto.randomUUID() } });
        let ok = 0;
        for (let i = 0; i < n; i++) {
          const res = await app.request('POST', '/mobile/v2/visits', { headers: { 'x-session-token': s.body.sessionToken }, body: { visitId: crypto.randomUUID(), attribution: { referralCode: ann.id } } });
          if (res.body?.status === 'RECORDED') ok++;
          // Folds race the visits on both sides.
          if (i % 10 === 0) void (i % 20 ? a : b).deps.visits.flush().catch(() => undefined);
        }
        return ok;
      };
      const recorded = (await Promise.all([send(a, 60), send(b, 60), send(a, 40), send(b, 40)])).reduce((x, y) => x + y, 0);
      expect(recorded).toBe(200);
      await Promise.all([a.deps.visits.flush(), b.deps.visits.flush()]);
      const row = await a.deps.db.knex('participants').where({ id: ann.id }).first('impression_count', 'unique_impression_count');
      expect({ impressions: Number(row.impression_count), uniques: Number(row.unique_impression_count) }).toEqual({ impressions: 200, uniques: 4 });
      expect(Number((await a.deps.db.knex('program_counters').where({ program_id: p.pid }).first('impression_count')).impression_count)).toBe(200);
      expect(await a.deps.db.knex('activity_logs').where({ participant_id: ann.id, type: 'VISIT' }).count({ n: '*' })).toEqual([{ n: 200 }]);
    } finally {
      await b.close();
      await a.close();
      await db.cleanup();
    }
  });
});

describe('issue #20: jobs held by a dead process', () => {
  it('delivers a webhook whose delivery a killed process held, within seconds of the restart', { timeout: 90_000 }, async () => {
    const db = await freshDatabase();
    let hits = 0;
    let secondAt = 0;
    const hanging: http.ServerResponse[] = [];
    const receiver = http.createServer((req, res) => {
      req.resume();
      hits++;
      // The first attempt never gets an answer: its process is killed while it waits.
      if (hits === 1) hanging.push(res);
      else {
        secondAt ||= Date.now();
        res.end('ok');
      }
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true', JOBS: 'true', JOB_POLL_MS: '100' };
    const setup = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' }, { databaseUrl: db.url });
    let child: Child | null = null;
    try {
      const acct = await verifiedAccount(setup);
      const program = (await setup.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', name: 'Spring' } })).body;
      const hook = await setup.request('POST', `/v2/campaign/${program.id}/webhooks`, { key: acct.key, body: { payloadUrl: hookUrl, events: ['NEW_PARTICIPANT_ADDED'] } });
      expect(hook.status, hook.text).toBe(200);
      await setup.close();

      child = await startServer(db.url, env);
      const added = await fetch(`${child.url}/v2/campaign/${program.id}/participant`, { method: 'POST', headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bo@example.com' }) });
      expect(added.status).toBe(200);
      for (let i = 0; i < 200 && hits === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(hits).toBe(1);
      await kill9(child);
      const killedAt = Date.now();
      child = await startServer(db.url, env);
      for (let i = 0; i < 600 && !secondAt; i++) await new Promise((r) => setTimeout(r, 50));
      expect(secondAt, 'the delivery was attempted again').toBeGreaterThan(0);
      expect(secondAt - killedAt).toBeLessThan(LEASE_MS + 5_000);
      // The delivery is recorded as delivered by the new process.
      let status = '';
      for (let i = 0; i < 100 && status !== 'SUCCEEDED'; i++) {
        const list = await json(await fetch(`${child.url}/v2/campaign/${program.id}/webhooks/${hook.body.id}/deliveries`, { headers: { authorization: `Bearer ${acct.key}` } }));
        status = list.deliveries[0]?.status;
        if (status !== 'SUCCEEDED') await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe('SUCCEEDED');
    } finally {
      if (child) await kill9(child);
      for (const res of hanging) res.destroy();
      await new Promise<void>((r) => receiver.close(() => r()));
      await db.cleanup();
    }
  });

  it('never hands a job a live worker holds to another worker, and resumes it once that worker stops renewing', async () => {
    const app: TestApp = await startApp();
    try {
      const { db, clock } = { db: app.deps.db, clock: app.clock };
      const log = createLogger('silent');
      const a = new Jobs(db, clock, log, 1000);
      const b = new Jobs(db, clock, log, 1000);
      const runs: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      a.register('test.long', async () => {
        runs.push('a');
        await held;
      });
      b.register('test.long', async () => void runs.push('b'));
      await a.enqueue(db.knex, 'test.long', {});
      const passA = a.runDue();
      for (let i = 0; i < 100 && runs.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(runs).toEqual(['a']);
      // Four lease lengths go by with A alive and renewing: B never gets the job.
      for (let i = 0; i < 8; i++) {
        clock.advance(LEASE_MS / 2);
        await a.renewLeases();
        expect(await b.runDue()).toBe(0);
      }
      release();
      expect(await passA).toBe(1);
      expect(runs).toEqual(['a']);
      const row = await db.knex('jobs').where({ type: 'test.long' }).first();
      expect(row.status).toBe('DONE');

      // A second job: A claims it and then stops renewing (its process is gone, so is its heartbeat).
      const gone = new Jobs(db, clock, log, 1000);
      let stuck!: () => void;
      gone.register('test.long', () => new Promise<void>((r) => (stuck = r)));
      await gone.enqueue(db.knex, 'test.long', { n: 2 });
      const passGone = gone.runDue();
      for (let i = 0; i < 100 && !stuck; i++) await new Promise((r) => setTimeout(r, 10));
      const claimed = await db.knex('jobs').where({ status: 'RUNNING' }).first();
      expect(claimed.locked_by).toBe(gone.workerId);
      clock.advance(LEASE_MS - 1);
      expect(await b.runDue()).toBe(0);
      clock.advance(2);
      expect(await b.runDue()).toBe(1);
      expect(runs).toEqual(['a', 'b']);
      // The old holder finishing late does not overwrite the new holder's outcome.
      await db.knex('jobs').where({ id: claimed.id }).update({ status: 'QUEUED', run_at: clock.now() + 3_600_000 });
      stuck();
      await passGone;
      expect((await db.knex('jobs').where({ id: claimed.id }).first()).status).toBe('QUEUED');
    } finally {
      await app.close();
    }
  });
});
