// `node --import tsx bench/pg-statements.ts`: where a referred sign-up's and a referral trigger's
// time goes on PostgreSQL, statement by statement (issue #26 goal 1). For when pg_stat_statements is not loaded (it needs
// shared_preload_libraries and a restart): the statements are recorded as the pg client sends them,
// timed from send to answer (round trip included), and the costliest are run again under
// EXPLAIN (ANALYZE, BUFFERS) inside a rolled-back transaction.
//
//   BENCH_DATABASE_URL postgres://… (required; or DATABASE_URL); a fresh schema is made and dropped
//   BENCH_PARTICIPANTS participants seeded into the program first (default 100,000)
//   BENCH_SIGNUPS      referred sign-ups measured, after 100 unmeasured ones (default 1,000), then as
//                      many triggers (P8, credit now) on those referrals
//   BENCH_OPERATIONS   which to measure: `sign-up`, `trigger` or both (default `sign-up,trigger`)
//   BENCH_SEQUENCE=1   also lists each measured operation's statements (of its last run) in the order sent
//                      (`[named]`: a named prepared statement)
//
// Sign-ups run one after another through the domain service (Participants.create, what P3 calls),
// each referred by a random seeded participant; triggers through ReferralTriggers.trigger (P8). The database backends' CPU (utime + stime
// from /proc of this run's connections, found by application_name) is printed beside the time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import pg from 'pg';
import { CLK_TCK, cpuTicks } from './load.ts';
import { PG_STATEMENTS, PG_URL } from './settings.ts';

if (!PG_URL) throw new Error('BENCH_DATABASE_URL (or DATABASE_URL) must be postgres://…');
const base = PG_URL;
const PARTICIPANTS = PG_STATEMENTS.participants;
const SIGNUPS = PG_STATEMENTS.signups;
const WARMUP = 100;
/** BENCH_OPERATIONS: which operations, in order (default both); BENCH_SEQUENCE=1 lists the last one's statements in order. */
const OPERATIONS = (process.env.BENCH_OPERATIONS ?? 'sign-up,trigger').split(',');
const SEQUENCE = process.env.BENCH_SEQUENCE === '1';

interface Stat {
  calls: number;
  ms: number;
  values: unknown[];
}

async function main(): Promise<void> {
  const tag = `bench_${crypto.randomBytes(5).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: base });
  await admin.raw(`CREATE SCHEMA "${tag}"`);
  const url = `${base}${base.includes('?') ? '&' : '?'}application_name=${tag}&options=${encodeURIComponent(`-c search_path=${tag}`)}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-pgstmt-'));
  const { loadConfig } = await import('../server/config.ts');
  const { createDeps } = await import('../server/deps.ts');
  const { seedParticipants } = await import('../scripts/seed.ts');
  const deps = await createDeps(loadConfig({ DATABASE_URL: url, DATA_DIR: dir, LOG_LEVEL: 'silent', JOBS: 'false', WEBHOOK_ALLOW_PRIVATE: 'true' }));
  const stats = new Map<string, Stat>();
  let recording = false;
  let trace: string[] | null = null;
  const normalised = new Map<string, string>();
  let all: Array<[string, Stat]> = [];
  const query = pg.Client.prototype.query;
  const send = (conn: pg.Client, q: string | { text: string; values: unknown[] }) => (query as (q: unknown) => Promise<pg.QueryResult>).call(conn, q);
  try {
    await deps.accounts.create({ email: 'bench-pg-statements@acme-widgets.com', company: 'Bench Co' }, '127.0.0.1');
    const { team_id: teamId } = await deps.db.knex('memberships').first('team_id');
    const billing = { plan: 'UNLIMITED', hasPaymentMethod: true, trialEndsAt: null };
    const created = await deps.programs.create(teamId, billing, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] } as never);
    const program = await deps.programs.forRequest(teamId, created.id, billing);
    const { verification_status: teamStatus } = await deps.db.knex('teams').where({ id: teamId }).first('verification_status');
    const seeded = await seedParticipants(deps.db, { programId: program.id, count: PARTICIPANTS, now: Date.now(), seed: 26 });
    await deps.db.knex.raw('ANALYZE');
    console.log(`${PARTICIPANTS.toLocaleString('en')} participants seeded in ${(seeded.ms / 1000).toFixed(1)} s; ${SIGNUPS} referred sign-ups measured after ${WARMUP}`);
    const referrers: string[] = await deps.db.knex('participants').where({ program_id: program.id }).orderByRaw('random()').limit(SIGNUPS + WARMUP).pluck('id');

    // Both ways statements reach the pg client: knex passes a callback, Db.batch / Db.statements await a promise.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (!recording) return (query as (...a: unknown[]) => unknown).apply(this, args);
      const q = args[0] as string | { text?: string; values?: unknown[] };
      const raw = typeof q === 'string' ? q : (q?.text ?? '');
      // Normalised once per text: the recording's own CPU counts as app CPU, so it stays small.
      let text = normalised.get(raw);
      if (text === undefined) normalised.set(raw, (text = raw.replace(/\s+/g, ' ').trim()));
      trace?.push(`${typeof q === 'object' && q && 'name' in q && q.name ? '[named] ' : ''}${text}`);
      const values = typeof q === 'string' ? (Array.isArray(args[1]) ? args[1] : []) : (q?.values ?? []);
      const t0 = performance.now();
      const done = () => {
        const s = stats.get(text) ?? { calls: 0, ms: 0, values };
        s.calls++;
        s.ms += performance.now() - t0;
        stats.set(text, s);
      };
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const callback = args[last] as (...a: unknown[]) => void;
        args[last] = (...a: unknown[]) => {
          done();
          callback(...a);
        };
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      }
      const out = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (out instanceof Promise) out.then(done, done);
      return out;
    } as typeof query;

    const signUp = (i: number) => deps.participants.create(program, billing as never, { email: `friend-${i}-${tag}@example.com`, referredBy: referrers[i]! } as never);
    // P8 (credit now) on a referral signed up pending, as the bench's row (h) does with a webhook
    // subscribed to PARTICIPANT_REACHED_A_GOAL: the referral, the referrer's counts and ranks, two
    // rewards, the webhook's event, delivery and job.
    const pendingEmail = (i: number) => `pending-${i}-${tag}@example.com`;
    const pendingSignUp = (i: number) =>
      deps.participants.create(program, billing as never, { email: pendingEmail(i), referredBy: referrers[i]!, referralStatus: 'CREDIT_PENDING' } as never);
    const trigger = async (i: number) => {
      if (i === 0) {
        for (let j = 0; j < WARMUP + SIGNUPS; j++) await pendingSignUp(j);
        await deps.webhooks.create(program, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] } as never);
      }
      // The team's verification state as P8 passes it: read by the request's API-key lookup.
      const out = await deps.referralTriggers.trigger(program, pendingEmail(i), undefined, teamStatus);
      if (!out.success || out.message) throw new Error(`trigger ${i}: ${JSON.stringify(out)}`);
    };
    const backends = async () =>
      (await admin.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [tag])).rows.map((r: { pid: number }) => r.pid) as number[];
    let sequence: string[] = [];
    const operations: Array<{ label: string; run: (i: number) => Promise<unknown> }> = [
      { label: 'sign-up', run: signUp },
      { label: 'trigger', run: trigger },
    ];
    for (const op of operations) {
      if (!OPERATIONS.includes(op.label)) {
        // Not measured, but later operations need its rows (a trigger credits a signed-up referral).
        for (let i = 0; i < WARMUP + SIGNUPS; i++) await op.run(i);
        continue;
      }
      stats.clear();
      for (let i = 0; i < WARMUP; i++) await op.run(i);
      // Statistics that include the rows the operation writes (rewards, activity), as autovacuum would keep them.
      await deps.db.knex.raw('ANALYZE');
      const pids = await backends();
      const cpu = () => pids.reduce((n, pid) => n + (fs.existsSync(`/proc/${pid}`) ? cpuTicks(pid) : 0), 0);
      const dbBefore = cpu();
      const appBefore = process.cpuUsage();
      recording = true;
      const t0 = performance.now();
      // The run in sixths: app and database CPU per operation in each, to show whether the cost drifts
      // as the run goes on (goal 1's "flat across a 60 s run": size BENCH_SIGNUPS so the loop lasts ≥ 60 s).
      const parts: Array<{ app: number; db: number; n: number }> = [];
      const ends = [1, 2, 3, 4, 5, 6].map((k) => Math.round((k * SIGNUPS) / 6));
      let mark = { app: process.cpuUsage(), db: dbBefore, i: WARMUP };
      for (let i = WARMUP; i < WARMUP + SIGNUPS; i++) {
        if (i === WARMUP + SIGNUPS - 1) trace = sequence = [];
        await op.run(i);
        const done = i + 1 - WARMUP;
        if (done === ends[parts.length]) {
          const now = { app: process.cpuUsage(), db: cpu(), i: i + 1 };
          const app = (now.app.user + now.app.system - mark.app.user - mark.app.system) / 1000;
          parts.push({ app, db: ((now.db - mark.db) / CLK_TCK) * 1000, n: now.i - mark.i });
          mark = now;
        }
      }
      const wall = performance.now() - t0;
      recording = false;
      trace = null;
      const app = process.cpuUsage(appBefore);
      const dbTicks = cpu() - dbBefore;
      const per = (x: number) => (x / SIGNUPS).toFixed(2);
      all = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms);
      const totalMs = all.reduce((n, [, s]) => n + s.ms, 0);
      const calls = all.reduce((n, [, s]) => n + s.calls, 0);
      console.log(
        `\nper ${op.label}: ${per(wall)} ms wall, app CPU ${per((app.user + app.system) / 1000)} ms (this process: service + pg client), ` +
          `database CPU ${per((dbTicks / CLK_TCK) * 1000)} ms (${pids.length} backends), ${per(calls)} statements, ${per(totalMs)} ms in statements (send to answer)`,
      );
      const perOp = (x: number, n: number) => (x / n).toFixed(2);
      const apps = parts.map((p) => p.app / p.n);
      const dbs = parts.map((p) => p.db / p.n);
      const spread = (xs: number[]) => `${((100 * (Math.max(...xs) - Math.min(...xs))) / (xs.reduce((a, b) => a + b, 0) / xs.length)).toFixed(0)} %`;
      if (parts.length === 6) console.log(
        `  over the run (${(wall / 1000).toFixed(1)} s) in sixths, ms per ${op.label}: app ${parts.map((p) => perOp(p.app, p.n)).join(' / ')} (spread ${spread(apps)}); ` +
          `database ${parts.map((p) => perOp(p.db, p.n)).join(' / ')} (spread ${spread(dbs)}; /proc ticks are ${(1000 / CLK_TCK).toFixed(0)} ms)`,
      );
      console.log(`\n| # | calls/${op.label} | mean ms | share | statement |`);
      console.log('|---:|---:|---:|---:|---|');
      all.slice(0, 20).forEach(([text, s], i) =>
        console.log(`| ${i + 1} | ${(s.calls / SIGNUPS).toFixed(2)} | ${(s.ms / s.calls).toFixed(3)} | ${((100 * s.ms) / totalMs).toFixed(1)} % | \`${text.slice(0, 220)}\` |`),
      );
      if (SEQUENCE) console.log(`\nthe last ${op.label}'s statements in order:\n${sequence.map((t, i) => `${String(i + 1).padStart(3)}. ${t.slice(0, 200)}`).join('\n')}`);
    }

    // The costliest statements once more under EXPLAIN (ANALYZE, BUFFERS), rolled back.
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the last measured operation's five costliest data statements (in a rolled-back transaction):`);
    const conn = (await (deps.db.knex.client as { acquireConnection(): Promise<pg.Client> }).acquireConnection()) as pg.Client;
    try {
      for (const [text, s] of all.filter(([t]) => /^(select|insert|update|delete|with)\b/i.test(t)).slice(0, 5)) {
        await send(conn, 'BEGIN');
        try {
          const sql = /\$\d/.test(text) ? text : ((i) => text.replace(/\?/g, () => `$${++i}`))(0);
          const res = await send(conn, { text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sql}`, values: s.values });
          console.log(`\n-- ${text.slice(0, 160)}`);
          for (const r of res.rows) console.log(`   ${r['QUERY PLAN']}`);
        } catch (err) {
          console.log(`\n-- ${text.slice(0, 160)}\n   (not explained: ${(err as Error).message})`);
        } finally {
          await send(conn, 'ROLLBACK');
        }
      }
    } finally {
      await (deps.db.knex.client as { releaseConnection(c: pg.Client): Promise<void> }).releaseConnection(conn);
    }
  } finally {
    pg.Client.prototype.query = query;
    await deps.close();
    await admin.raw(`DROP SCHEMA "${tag}" CASCADE`);
    await admin.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
