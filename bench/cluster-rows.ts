// BENCH_ONLY=cluster (issue #26 goal 2): `refloop serve` with WORKERS=N (N = 1, 2, 4 by default) on
// one PostgreSQL database behind one port, and for each N the operations users make: a visit, a
// referred sign-up, a referral trigger and an authenticated read, each with its throughput, app CPU
// (the cluster's primary and all its workers) and database CPU (the PostgreSQL backends serving
// this server) per operation, its errors, and how the work spread over the workers. Then, for each
// N, two limits hit from one address across the workers (WORKERS=1 is the plain server, no cluster): the REST account-creation limit (in the
// database) and the participant API's per-IP session limit (held by the cluster's primary).
import fs from 'node:fs';
import { CLUSTER_REDIS, CLUSTER_WORKERS, CONNECTIONS, PG_URL, SECONDS, WARMUP_MS } from './settings.ts';
import { startRedis } from './cache-rows.ts';
import { call, openSession, pendingReferrals, pgSchema, startRefloop, stopChild, verifiedKey, type Target } from './processes.ts';
import { CLK_TCK, cpuTicks, drive, type BenchRequest, type LoadResult } from './load.ts';
import { bareRow, rowOf, type Row } from './table.ts';
import { MOBILE_LIMITS, loadVisits, v7From } from './mobile-rows.ts';

/** Referrers the sign-ups rotate over (one referrer would make every sign-up wait on its row lock). */
const REFERRERS = 50;
/** The account-creation limit per address per hour the cluster runs with (the default). */
const ACCOUNTS_PER_HOUR = 5;

/** Child processes of `pid` (the cluster's workers), from /proc. */
function childPids(pid: number): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) pids.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** Clock ticks of each pid (a pid that is gone reads 0). */
function ticksOf(pids: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const pid of pids) {
    try {
      m.set(pid, cpuTicks(pid));
    } catch {
      m.set(pid, 0);
    }
  }
  return m;
}

/** What one measured operation cost the cluster and the database. */
interface Cost {
  appTicks: number;
  dbTicks: number;
  /** Each process's share of the app CPU: the primary first, then the workers. */
  shares: number[];
  backends: number;
}

/**
 * Runs `work` and charges it the CPU of the primary, its workers and the PostgreSQL backends whose
 * application_name is `tag` (backends that appear during the run count from zero; one that ends
 * during it loses its ticks, so the database figure is a floor). PostgreSQL's own background
 * processes (WAL writer, checkpointer, autovacuum) are not counted.
 */
async function costOf<T>(t: Target, backends: () => Promise<number[]>, work: () => Promise<T>): Promise<{ result: T; cost: Cost }> {
  const primary = t.child.pid!;
  const workers = childPids(primary);
  const dbBefore = ticksOf(await backends());
  const appBefore = ticksOf([primary, ...workers]);
  const result = await work();
  const appAfter = ticksOf([primary, ...workers]);
  const dbPids = [...new Set([...dbBefore.keys(), ...(await backends())])];
  const dbAfter = ticksOf(dbPids);
  const delta = (after: Map<number, number>, before: Map<number, number>, pid: number) => Math.max(0, (after.get(pid) ?? 0) - (before.get(pid) ?? 0));
  const app = [primary, ...workers].map((pid) => delta(appAfter, appBefore, pid));
  const appTicks = app.reduce((a, b) => a + b, 0);
  const dbTicks = dbPids.reduce((a, pid) => a + delta(dbAfter, dbBefore, pid), 0);
  return { result, cost: { appTicks, dbTicks, shares: app.map((x) => (appTicks ? x / appTicks : 0)), backends: dbPids.length } };
}

const us = (ticks: number, n: number) => (n ? ((ticks / CLK_TCK) * 1e6) / n : NaN);
const pct = (x: number) => `${Math.round(x * 100)} %`;

/** A row from one measured operation: app CPU in the server column, database CPU beside it. */
function clusterRow(label: string, r: LoadResult, cost: Cost, workers: number, extra = ''): Row {
  const row = rowOf(label, r, cost.appTicks);
  row.dbCpuUsPerReq = us(cost.dbTicks, r.completed);
  const ok = [...r.statuses].filter(([s]) => s >= 200 && s < 300).reduce((n, [, c]) => n + c, 0);
  const other = [...r.statuses].filter(([s]) => s < 200 || s >= 300);
  row.note =
    `PostgreSQL, WORKERS=${workers}, limits raised; ${ok} × 2xx${other.length ? `, ${other.map(([s, c]) => `${c} × ${s}`).join(', ')}` : ''}, ${r.errors} errors; ` +
    `${workers > 1 ? `app CPU = primary + workers (primary ${pct(cost.shares[0] ?? 0)}, workers ${cost.shares.slice(1).map(pct).join(' / ')})` : 'app CPU of the one server process (WORKERS=1 runs no cluster)'}; database CPU of ${cost.backends} backends${extra}`;
  console.log(
    `  ${label}: ${r.completed} responses → ${row.reqPerSec.toFixed(0)}/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, app CPU ${row.cpuUsPerReq.toFixed(0)} µs/op, database CPU ${row.dbCpuUsPerReq.toFixed(0)} µs/op; ${row.note}`,
  );
  return row;
}

/** Statuses of `count` calls made over 10 connections (so they spread over the workers). */
async function burst(count: number, make: (i: number) => BenchRequest): Promise<Map<number, number>> {
  let n = 0;
  const r = await drive(60_000, () => (n < count ? make(n++) : null), 10);
  if (r.errors) throw new Error(`limit probe: ${r.errors} requests failed`);
  return r.statuses;
}

/** Rows (c1)–(c4) for one worker count, and the line proving the limits are shared. */
async function clusterRun(workers: number, redisUrl: string | null): Promise<{ rows: Row[]; limits: string }> {
  console.log(`\n(c) WORKERS=${workers}: \`refloop serve\` on PostgreSQL behind one port${redisUrl ? ', with Redis' : ''}`);
  const schema = await pgSchema();
  const { default: knexFactory } = await import('knex');
  const admin = knexFactory({ client: 'pg', connection: PG_URL!, pool: { min: 0, max: 1 } });
  const backends = async () => ((await admin.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [schema.tag])).rows as Array<{ pid: number }>).map((r) => r.pid);
  // The per-IP session budget must let the bench's own sessions through (one per connection) and is what the probe hits.
  const sessionLimit = CONNECTIONS + 10;
  const t = await startRefloop(`refloop (WORKERS=${workers})`, {
    ...MOBILE_LIMITS,
    MOBILE_SESSIONS_PER_IP_PER_MINUTE: String(sessionLimit),
    ACCOUNT_CREATION_PER_HOUR: String(ACCOUNTS_PER_HOUR),
    WRITE_SLOWDOWN_AFTER: '1000000000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    TRUST_PROXY: 'true',
    WORKERS: String(workers),
    // BENCH_CLUSTER_REDIS=1: limits, in-flight claims and the key and program caches in a redis-server of the bench's own.
    ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_PREFIX: `${schema.tag}:` } : {}),
  }, schema.url, 30_000 * workers);
  try {
    // /healthz answers once one worker listens; the others were forked at the same moment.
    for (let i = 0; i < 100 && childPids(t.child.pid!).length < workers; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    const key = await verifiedKey(t, 'bench-cluster@acme-widgets.com');
    const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
    await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] });
    const installation = await call(t, 'PATCH', `/v2/campaign/${program.id}/installation`, key, { mobile: { isEnabled: true } });
    const referrers: string[] = [];
    for (let i = 0; i < REFERRERS; i++) referrers.push((await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `referrer-${i}@example.com` })).id);
    const code = new URL((await call(t, 'GET', `/v2/campaign/${program.id}/participant/${referrers[0]}`, key, undefined)).shareUrl).searchParams.get('grsf')!;
    const sessions: string[] = [];
    for (let i = 0; i < CONNECTIONS; i++) sessions.push(await openSession(t, program.id, installation.mobile.publicKey));
    const auth = { authorization: `Bearer ${key}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const rows: Row[] = [];
    const measured = async (label: string, warm: () => Promise<unknown>, run: () => Promise<LoadResult>, extra?: () => Promise<string>) => {
      await warm();
      const { result, cost } = await costOf(t, backends, run);
      rows.push(clusterRow(label, result, cost, workers, extra ? await extra() : ''));
    };

    // Visits: as row (k), time-ordered ids, one client session per connection.
    const makeId = () => v7From(crypto.randomUUID());
    await measured(`(c1) visit, WORKERS=${workers}`, () => loadVisits(t.base, sessions, code, WARMUP_MS, makeId), () => loadVisits(t.base, sessions, code, SECONDS * 1000, makeId));

    // Referred sign-ups (P3), held CREDIT_PENDING so the next row can trigger them.
    let n = 0;
    const signUp = (): BenchRequest => {
      const i = n++;
      return {
        url: `${t.base}/v2/campaign/${program.id}/participant`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ email: `friend-${i}@example.com`, referredBy: referrers[i % REFERRERS], referralStatus: 'CREDIT_PENDING' }),
      };
    };
    await measured(`(c2) referred sign-up, WORKERS=${workers}`, () => drive(WARMUP_MS, signUp), () => drive(SECONDS * 1000, signUp));

    // Triggers (P8) of those sign-ups, in random order, each once.
    const friends = await pendingReferrals(schema.url, program.id);
    const warmCount = Math.min(Math.floor(friends.length / 5), 500);
    let f = 0;
    const trigger = (limit: number) => (): BenchRequest | null => (f < limit ? { url: `${t.base}/v2/campaign/${program.id}/participant/${friends[f++]}/ref`, method: 'POST', headers: json, body: '{}' } : null);
    await measured(
      `(c3) trigger referral, WORKERS=${workers}`,
      () => drive(WARMUP_MS, trigger(warmCount)),
      () => drive(SECONDS * 1000, trigger(friends.length)),
      async () => (f >= friends.length ? `; ran out of pending referrals (${friends.length.toLocaleString('en')}, from row c2) before the time was up` : ''),
    );

    // The authenticated read (P4 by id), over the friends in turn.
    let g = 0;
    const read = (): BenchRequest => ({ url: `${t.base}/v2/campaign/${program.id}/participant/${friends[g++ % friends.length]}`, method: 'GET', headers: auth });
    await measured(`(c4) GET …/participant/{id}, WORKERS=${workers}`, () => drive(WARMUP_MS, read), () => drive(SECONDS * 1000, read));

    // Limits from one address (X-Forwarded-For, TRUST_PROXY on) over 10 connections spread over the workers.
    const accounts = await burst(ACCOUNTS_PER_HOUR * 4, (i) => ({
      url: `${t.base}/v2/accounts`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${workers}` },
      body: JSON.stringify({ email: `probe-${workers}-${i}@acme-widgets.com`, company: 'Probe Co' }),
    }));
    const sessionProbe = await burst(sessionLimit + 20, () => ({
      url: `${t.base}/mobile/v2/sessions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${workers}`, 'x-program-id': program.id, 'x-public-key': installation.mobile.publicKey },
      body: JSON.stringify({ instanceId: crypto.randomUUID() }),
    }));
    const passed = (m: Map<number, number>) => m.get(200) ?? 0;
    const limited = (m: Map<number, number>) => m.get(429) ?? 0;
    const held = passed(accounts) === ACCOUNTS_PER_HOUR && passed(sessionProbe) === sessionLimit;
    const limits =
      `WORKERS=${workers}: account creation from one address ${passed(accounts)} of ${ACCOUNTS_PER_HOUR * 4} passed (limit ${ACCOUNTS_PER_HOUR}, ${redisUrl ? 'Redis' : 'database'} store), ${limited(accounts)} × 429; ` +
      `participant-API sessions from one address ${passed(sessionProbe)} of ${sessionLimit + 20} passed (limit ${sessionLimit}, ${workers > 1 ? 'held by the cluster primary' : 'process memory'}), ${limited(sessionProbe)} × 429 → ${held ? (workers > 1 ? 'each limit counted once across the workers' : 'each limit exact') : `NOT EXACT: expected ${ACCOUNTS_PER_HOUR} and ${sessionLimit} to pass`}`;
    console.log(`  ${limits}`);
    return { rows, limits };
  } finally {
    await stopChild(t.child);
    await admin.destroy();
    await schema.drop();
  }
}

/** The cluster rows for every worker count, beside a bare-Koa row; the limit lines are printed after the table. */
export async function clusterRows(): Promise<{ rows: Row[]; bare: Row; limits: string[] }> {
  if (!PG_URL) throw new Error('BENCH_ONLY=cluster needs PostgreSQL: set BENCH_DATABASE_URL=postgres://…');
  const bare = await bareRow();
  const rows: Row[] = [bare];
  const limits: string[] = [];
  const redis = CLUSTER_REDIS ? await startRedis() : null;
  try {
    for (const n of CLUSTER_WORKERS) {
      const run = await clusterRun(n, redis?.url ?? null);
      rows.push(...run.rows);
      limits.push(run.limits);
    }
  } finally {
    redis?.stop();
  }
  return { rows, bare, limits };
}
