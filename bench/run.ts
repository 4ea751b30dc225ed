import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CONFIG_VARIABLES } from '../server/config.ts';
import { freePort } from '../scripts/free-port.ts';

// `npm run bench`: throughput, latency and server CPU per request of the real server (a child
// process running `refloop serve`) against a bare Koa app, with the load generated here over
// keep-alive connections to 127.0.0.1. Node built-ins only.
//
//   BENCH_SECONDS       measured seconds per row (default 5)
//   BENCH_CONNECTIONS   concurrent keep-alive connections (default 50)
//   BENCH_PARTICIPANTS  participants seeded for the in-process leaderboard rows (default 1,000,000; 0 skips them)
//   BENCH_TRIGGERS      referred participants seeded for the trigger-referral row (default 30,000; 0 skips it)
//   BENCH_ONLY          one group of rows beside a bare-Koa row: `mobile` (b2, i–l: the participant API),
//                       `affiliate` (b, m: sale recording) or `trigger` (b, h: trigger referral)
//                       or `cli` (start-up CPU of each CLI command, compiled and through tsx)
//   BENCH_MOBILE_ONLY=1 / BENCH_AFFILIATE_ONLY=1  the same as BENCH_ONLY=mobile / affiliate
//   BENCH_CPU_PROF      a directory: each server process writes a V8 CPU profile (.cpuprofile) there when it stops
//   DATABASE_URL        postgres://… adds row (k), visit ingestion on PostgreSQL (a fresh schema); every other row uses SQLite

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'refloop.js');
const SECONDS = positive(process.env.BENCH_SECONDS, 5);
const CONNECTIONS = Math.floor(positive(process.env.BENCH_CONNECTIONS, 50));
const PARTICIPANTS = process.env.BENCH_PARTICIPANTS === '0' ? 0 : Math.floor(positive(process.env.BENCH_PARTICIPANTS, 1_000_000));
const IN_PROCESS_CALLS = 1000;
const TRIGGERS = process.env.BENCH_TRIGGERS === '0' ? 0 : Math.floor(positive(process.env.BENCH_TRIGGERS, 30_000));
const ONLY = process.env.BENCH_ONLY ?? (process.env.BENCH_MOBILE_ONLY === '1' ? 'mobile' : process.env.BENCH_AFFILIATE_ONLY === '1' ? 'affiliate' : '');
if (!['', 'mobile', 'affiliate', 'trigger', 'cli'].includes(ONLY)) throw new Error(`BENCH_ONLY must be mobile, affiliate, trigger or cli, not ${JSON.stringify(ONLY)}`);
const MOBILE_ONLY = ONLY === 'mobile';
const AFFILIATE_ONLY = ONLY === 'affiliate';
const TRIGGER_ONLY = ONLY === 'trigger';
/** Read before `baseEnv()` strips DATABASE_URL from the children's environment. */
const PG_URL = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null;
const WARMUP_MS = 1000;
const READY_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const execFileAsync = promisify(execFile);


/** Limits raised so row (a) measures the request path, not 429s. */
const RAISED_LIMITS = {
  RATE_LIMIT_SECOND: '1000000000',
  RATE_LIMIT_MINUTE: '1000000000',
  RATE_LIMIT_HOUR: '1000000000',
  RATE_LIMIT_IP_PER_MINUTE: '1000000000',
  CONCURRENCY_PER_IP: '1000000',
};

function positive(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`expected a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

// --- child processes: every one is killed on exit, whatever happens ------------------------------

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

function killAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
  for (const d of tempDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

function startChild(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // BENCH_CPU_PROF=<dir>: every server writes a V8 CPU profile there when it stops (for finding where the time goes).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const child = spawn(process.execPath, [...prof, ...args], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', (err) => console.error(`${name}: ${err.message}`));
  return child;
}

/** SIGTERM, then SIGKILL if it has not exited within 3 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200; fails if the child exits or 30 s pass. */
async function waitReady(child: ChildProcess, url: string, name: string): Promise<void> {
  const until = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited during start-up (code ${child.exitCode ?? child.signalCode})`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not answer ${url} within ${READY_TIMEOUT_MS / 1000} s`);
}

// --- the servers --------------------------------------------------------------------------------

interface Target {
  name: string;
  child: ChildProcess;
  base: string;
  env: NodeJS.ProcessEnv;
}

function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of CONFIG_VARIABLES) delete env[k];
  return env;
}

/** `node bin/refloop.js serve` in production mode over plain HTTP, on a fresh SQLite file (or `databaseUrl`). */
async function startRefloop(name: string, limits: Record<string, string>, databaseUrl?: string): Promise<Target> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-bench-'));
  tempDirs.push(dir);
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(),
    NODE_ENV: 'production',
    ALLOW_HTTP_PUBLIC_URL: 'true',
    PUBLIC_URL: base,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dir,
    DATABASE_URL: databaseUrl ?? path.join(dir, 'refloop.db'),
    LOG_LEVEL: 'silent',
    JOBS: 'false',
    SHUTDOWN_GRACE_MS: '1000',
    ...limits,
  };
  const child = startChild(name, [BIN, 'serve'], env);
  await waitReady(child, `${base}/healthz`, name);
  return { name, child, base, env };
}

/** `node --import tsx bench/bare-koa.ts PORT`. */
async function startBareKoa(): Promise<Target> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startChild('bare Koa', ['--import', 'tsx', path.join(ROOT, 'bench', 'bare-koa.ts'), String(port)], baseEnv());
  await waitReady(child, `${base}/ok`, 'bare Koa');
  return { name: 'bare Koa', child, base, env: baseEnv() };
}

/** Creates an account over REST and verifies its owner through the link in the outbox; returns the API key. */
async function verifiedKey(t: Target, email = 'bench-owner@acme-widgets.com'): Promise<string> {
  const res = await fetch(`${t.base}/v2/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, company: 'Bench Co' }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const created = (await res.json()) as { apiKey?: string };
  if (res.status !== 200 || !created.apiKey) throw new Error(`POST /v2/accounts answered ${res.status}: ${JSON.stringify(created)}`);
  const { stdout } = await execFileAsync(process.execPath, [BIN, 'mail', 'list', '--json', '--to', email], {
    cwd: ROOT,
    env: t.env,
    timeout: 30_000,
  });
  const messages = JSON.parse(stdout) as Array<{ links: string[] }>;
  const link = messages.flatMap((m) => m.links).find((l) => l.includes('/verify?'));
  if (!link) throw new Error('no verification link in `refloop mail list --json`');
  const u = new URL(link);
  const verify = await fetch(`${t.base}${u.pathname}${u.search}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  await verify.arrayBuffer();
  if (verify.status !== 200) throw new Error(`verification link answered ${verify.status}`);
  return created.apiKey;
}

// --- measuring ----------------------------------------------------------------------------------

const CLK_TCK = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in clock ticks, from /proc/<pid>/stat (fields 14 and 15). */
function cpuTicks(pid: number): number {
  const [user, system] = cpuSplit(pid);
  return user + system;
}

/** [user, system] clock ticks of a process: system time is the kernel's share (sockets, file writes). */
function cpuSplit(pid: number): [number, number] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]), Number(fields[12])];
}

/** "user U µs + system S µs" per request between two `cpuSplit` readings. */
function splitNote(before: [number, number], after: [number, number], requests: number): string {
  const us = (ticks: number) => (requests ? ((ticks / CLK_TCK) * 1e6) / requests : NaN).toFixed(0);
  return `user ${us(after[0] - before[0])} µs + system ${us(after[1] - before[1])} µs`;
}

interface LoadResult {
  completed: number;
  errors: number;
  statuses: Map<number, number>;
  seconds: number;
  latencies: number[];
}

/** One request of a load: `content-length` is added for a body. */
interface BenchRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/**
 * CONNECTIONS workers, each with one request in flight at a time over a shared keep-alive agent,
 * until the deadline or until `next` has nothing more to send (null). A failed request is counted
 * and its worker pauses 10 ms (a refused connection fails at once; don't spin on it).
 */
async function drive(ms: number, next: (worker: number) => BenchRequest | null): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  const once = (r: BenchRequest) =>
    new Promise<number>((resolve, reject) => {
      const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
      const req = http.request(r.url, { method: r.method, agent, headers }, (res) => {
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.resume();
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end(r.body);
    });
  const start = performance.now();
  const deadline = start + ms;
  const worker = async (i: number) => {
    while (performance.now() < deadline) {
      const r = next(i);
      if (!r) return;
      const t0 = performance.now();
      try {
        const status = await once(r);
        latencies.push(performance.now() - t0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      } catch {
        errors++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => worker(i)));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { completed: latencies.length, errors, statuses, seconds, latencies };
}

/** GET `url` until the deadline. */
function load(url: string, headers: Record<string, string>, ms: number): Promise<LoadResult> {
  return drive(ms, () => ({ url, method: 'GET', headers }));
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Row {
  label: string;
  /** Measured by calling domain code in this process (no HTTP); no bare-Koa ratio. */
  inProcess?: boolean;
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuUsPerReq: number;
  note: string;
  statuses: Map<number, number>;
  errors: number;
}

/** A table row from one measured load: throughput, latency percentiles and server CPU per request (`ticks` of the server process). */
function rowOf(label: string, r: LoadResult, ticks: number): Row {
  const sorted = r.latencies.sort((a, b) => a - b);
  return {
    label,
    reqPerSec: r.completed / r.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUsPerReq: r.completed ? ((ticks / CLK_TCK) * 1e6) / r.completed : NaN,
    note: '',
    statuses: r.statuses,
    errors: r.errors,
  };
}

/** Warms up (with `warmupHeaders`, by default the same), then measures for BENCH_SECONDS. */
async function measure(label: string, t: Target, pathname: string, headers: Record<string, string>, warmupHeaders = headers): Promise<Row> {
  await load(t.base + pathname, warmupHeaders, WARMUP_MS);
  const pid = t.child.pid!;
  const before = cpuSplit(pid);
  const client = process.cpuUsage();
  const r = await load(t.base + pathname, headers, SECONDS * 1000);
  const after = cpuSplit(pid);
  const clientCpu = process.cpuUsage(client);
  const row = rowOf(label, r, after[0] + after[1] - before[0] - before[1]);
  const codes = [...r.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${n} × ${s}`).join(', ');
  console.log(
    `  ${label}: ${r.completed} responses in ${r.seconds.toFixed(2)} s (${codes || 'none'}${r.errors ? `, ${r.errors} errors` : ''}) → ` +
      `${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req (${splitNote(before, after, r.completed)}) ` +
      `(load generator ${r.completed ? ((clientCpu.user + clientCpu.system) / r.completed).toFixed(0) : 'n/a'} µs/req)`,
  );
  return row;
}

// --- in process: leaderboards at scale ----------------------------------------------------------

/** Calls `fn` 100 times to warm up, then IN_PROCESS_CALLS times one after another, timing each call. */
async function measureCalls(label: string, fn: (i: number) => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < 100; i++) await fn(i);
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < IN_PROCESS_CALLS; i++) {
    const t0 = performance.now();
    await fn(i);
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const sorted = latencies.sort((a, b) => a - b);
  const row: Row = {
    label,
    inProcess: true,
    reqPerSec: IN_PROCESS_CALLS / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUsPerReq: (used.user + used.system) / IN_PROCESS_CALLS,
    note: '',
    statuses: new Map(),
    errors: 0,
  };
  console.log(`  ${label}: ${IN_PROCESS_CALLS} calls in ${seconds.toFixed(2)} s → p50 ${row.p50.toFixed(3)} ms, p99 ${row.p99.toFixed(3)} ms, CPU ${row.cpuUsPerReq.toFixed(0)} µs/call`);
  return row;
}

/**
 * Rows (e)–(g): one program with PARTICIPANTS participants on a temp SQLite file, seeded through
 * scripts/seed.ts (the bulk path: rows, histograms and counters as the API keeps them), then the
 * domain calls timed in this process with nothing else running.
 */
async function leaderboardRows(): Promise<Row[]> {
  const { loadConfig } = await import('../server/config.ts');
  const { createDeps } = await import('../server/deps.ts');
  const { seedParticipants } = await import('../scripts/seed.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-bench-lb-'));
  tempDirs.push(dir);
  // Only these settings: nothing inherited from the environment.
  const deps = await createDeps(loadConfig({ DATABASE_URL: path.join(dir, 'refloop.db'), DATA_DIR: dir, LOG_LEVEL: 'silent', JOBS: 'false' }));
  try {
    await deps.accounts.create({ email: 'bench-leaderboard@acme-widgets.com', company: 'Bench Co' }, '127.0.0.1');
    const { team_id: teamId } = await deps.db.knex('memberships').first('team_id');
    const billing = { plan: 'UNLIMITED', hasPaymentMethod: true, trialEndsAt: null };
    const created = await deps.programs.create(teamId, billing, { type: 'REFERRAL' });
    const program = await deps.programs.forRequest(teamId, created.id, billing);
    let shown = 0;
    const seeded = await seedParticipants(deps.db, {
      programId: program.id,
      count: PARTICIPANTS,
      now: Date.now(),
      seed: 1,
      onProgress: (done) => {
        if (done - shown >= 250_000 || done === PARTICIPANTS) console.log(`  seeded ${done.toLocaleString('en')}`);
        shown = done;
      },
    });
    const seedNote = `${PARTICIPANTS.toLocaleString('en')} participants (${seeded.credited.toLocaleString('en')} credited referrals) seeded in ${(seeded.ms / 1000).toFixed(1)} s`;
    console.log(`  ${seedNote}`);
    const sample: string[] = (await deps.db.knex.raw('SELECT id FROM participants ORDER BY random() LIMIT ?', [IN_PROCESS_CALLS])).map((r: { id: string }) => r.id);
    const lb = deps.participants.leaderboard;
    const top = await measureCalls('(e) leaderboard top 50', () => lb.ranked(deps.db.knex, program.id, 'ALL_TIME', Date.now(), 50));
    top.note = `ALL_TIME ids, scores and ranks, in process, SQLite; ${seedNote}`;
    const rank = await measureCalls('(f) rank of one participant', (i) => lb.rankOfParticipant(program.id, sample[i % sample.length]!, 'ALL_TIME', Date.now()));
    rank.note = 'a random participant each call (most score 0: the longest histogram sum), in process';
    const page = await measureCalls('(g) leaderboard page, 50 full participants', () => deps.participants.leaderboardPage(program, { leaderboardType: 'ALL_TIME', limit: 50, nextId: undefined }));
    page.note = 'the P2 response body before JSON: each participant with referrer, 100-id referral lists and three ranks';
    return [top, rank, page];
  } finally {
    await deps.close();
  }
}

// --- trigger referral: rewards issued and webhooks queued -----------------------------------------

/** A JSON call that must answer 200; returns the parsed body. */
async function call(t: Target, method: string, pathname: string, key: string, body: unknown): Promise<any> {
  const res = await fetch(`${t.base}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${pathname} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** POST `{}` to each path once, in order, until the paths or the time run out. */
function loadOnce(base: string, paths: string[], headers: Record<string, string>, ms: number): Promise<LoadResult> {
  const json = { ...headers, 'content-type': 'application/json' };
  let n = 0;
  return drive(ms, () => (n < paths.length ? { url: base + paths[n++]!, method: 'POST', headers: json, body: '{}' } : null));
}

/**
 * Row (h): `POST /v2/campaign/{id}/participant/{p}/ref` on `refloop serve` (SQLite, limits raised),
 * each request crediting a different referred participant of one program with a DOUBLE_SIDED reward
 * and one webhook subscribed to PARTICIPANT_REACHED_A_GOAL: every trigger moves the referral, the
 * referrer's counts and ranks, issues two rewards and queues two webhook deliveries. The program is
 * set up over the API; its participants are seeded through scripts/seed.ts into the server's file
 * (every referral CREDIT_PENDING, referrers by preferential attachment); the stored rows are counted
 * afterwards to show the work was done.
 */
async function triggerRow(): Promise<Row> {
  console.log(`\n(h) POST …/participant/{p}/ref on \`refloop serve\`, SQLite, limits raised: trigger-referral throughput`);
  const t = await startRefloop('refloop (trigger referral)', { ...RAISED_LIMITS, WRITE_SLOWDOWN_AFTER: '1000000000', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const key = await verifiedKey(t, 'bench-trigger@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
  // https because the server runs in production mode; JOBS=false, so deliveries stay queued.
  await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] });
  const { openDb } = await import('../server/db/connect.ts');
  const { seedParticipants } = await import('../scripts/seed.ts');
  const seedDb = openDb({ client: 'better-sqlite3', filename: String(t.env.DATABASE_URL) });
  let friends: string[];
  try {
    const seeded = await seedParticipants(seedDb, { programId: program.id, count: Math.ceil(TRIGGERS / 0.9) + 10, now: Date.now(), referredShare: 0.95, pendingShare: 1, seed: 2 });
    const pending: string[] = await seedDb.knex('participants').where({ program_id: program.id, referral_status: 'CREDIT_PENDING' }).orderByRaw('random()').limit(TRIGGERS).pluck('id');
    friends = pending;
    console.log(`  seeded ${seeded.participants.toLocaleString('en')} participants (${seeded.referrals.toLocaleString('en')} pending referrals) in ${(seeded.ms / 1000).toFixed(1)} s; triggering ${friends.length.toLocaleString('en')} of them in random order`);
  } finally {
    await seedDb.close();
  }
  const paths = friends.map((id) => `/v2/campaign/${program.id}/participant/${id}/ref`);
  const headers = { authorization: `Bearer ${key}` };
  const warm = await loadOnce(t.base, paths.slice(0, Math.floor(paths.length / 10)), headers, WARMUP_MS);
  const rest = paths.slice(warm.completed + warm.errors);
  const pid = t.child.pid!;
  const before = cpuTicks(pid);
  const r = await loadOnce(t.base, rest, headers, SECONDS * 1000);
  const after = cpuTicks(pid);
  await stopChild(t.child);
  const row = rowOf('(h) trigger referral, DOUBLE_SIDED + 1 webhook', r, after - before);
  const { default: knexFactory } = await import('knex');
  const db = knexFactory({ client: 'better-sqlite3', connection: { filename: String(t.env.DATABASE_URL) }, useNullAsDefault: true });
  try {
    const count = async (table: string, where: Record<string, unknown>) => Number((await db(table).where(where).count({ n: '*' }).first())?.n ?? 0);
    const credited = await count('participants', { program_id: program.id, referral_status: 'CREDIT_AWARDED' });
    const rewards = await count('participant_rewards', { program_id: program.id });
    const deliveries = await count('webhook_deliveries', { program_id: program.id });
    const ok = r.statuses.get(200) ?? 0;
    const other = [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
    const ranOut = r.completed + r.errors >= rest.length ? '; ran out of prepared participants before the time was up' : '';
    row.note =
      `SQLite, limits raised; ${ok} × 200${other ? `, ${other} other` : ''}${r.errors ? `, ${r.errors} errors` : ''} in ${r.seconds.toFixed(2)} s${ranOut}; ` +
      `afterwards (warm-up included) ${credited.toLocaleString('en')} referrals credited, ${rewards.toLocaleString('en')} rewards issued, ${deliveries.toLocaleString('en')} webhook deliveries queued`;
  } finally {
    await db.destroy();
  }
  console.log(`  ${row.label}: ${r.completed} responses → ${row.reqPerSec.toFixed(0)} triggers/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req`);
  console.log(`  ${row.note}`);
  return row;
}

// --- visit ingestion: the participant API's hottest path -----------------------------------------

/** A UUIDv7 made of a random UUIDv4: the current millisecond in the first 48 bits, version 7 (the variant bits stay). */
function v7From(v4: string): string {
  const ms = Date.now().toString(16).padStart(12, '0');
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${v4.slice(15)}`;
}

/** POST visits with fresh ids until the deadline, each connection with its own client session. */
function loadVisits(base: string, sessions: string[], code: string, ms: number, ids: () => string): Promise<LoadResult> {
  const url = `${base}/mobile/v2/visits`;
  const headers = sessions.map((token) => ({ 'x-session-token': token, 'content-type': 'application/json' }));
  return drive(ms, (i) => ({
    url,
    method: 'POST',
    headers: headers[i % headers.length]!,
    body: JSON.stringify({
      visitId: ids(),
      attribution: { referralCode: code, utm: { utm_source: 'bench', utm_medium: 'share' }, destination: 'https://shop.example.com/landing' },
    }),
  }));
}

/**
 * Rows (i) and (j): `POST /mobile/v2/visits` on `refloop serve` (SQLite, limits raised), every
 * request a new visit id carrying a participant's share key and UTM values, one client session per
 * connection: each visit is durable (group commit) before its 200, with signed receipts;
 * impressions and VISIT activity rows are flushed in the background. (i) sends time-ordered ids
 * (UUIDv7, what our clients generate), (j) random UUIDv4 ids (a client that ignores the advice).
 * The stored visits and impression counts are read back afterwards.
 */
async function visitRow(ids: 'v7' | 'v4', database: 'sqlite' | 'pg' = 'sqlite'): Promise<Row> {
  // v7 ids as the widget makes them (shared/attribution.ts newVisitId), but from Node's pooled
  // randomUUID: a CSPRNG call per id made the load generator, not the server, the bottleneck.
  const makeId = ids === 'v7' ? () => v7From(crypto.randomUUID()) : () => crypto.randomUUID();
  const schema = database === 'pg' ? await pgSchema() : null;
  const t = await startRefloop(`refloop (visit ingestion, ${ids}, ${database})`, MOBILE_LIMITS, schema?.url);
  const key = await verifiedKey(t, 'bench-visits@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL' });
  const installation = await call(t, 'PATCH', `/v2/campaign/${program.id}/installation`, key, { mobile: { isEnabled: true } });
  const referrer = await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: 'bench-referrer@example.com' });
  const code = new URL(referrer.shareUrl).searchParams.get('grsf')!;
  const sessions: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const res = await fetch(`${t.base}/mobile/v2/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-program-id': program.id, 'x-public-key': installation.mobile.publicKey },
      body: JSON.stringify({ instanceId: crypto.randomUUID() }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = (await res.json()) as { sessionToken?: string };
    if (res.status !== 200 || !body.sessionToken) throw new Error(`POST /mobile/v2/sessions answered ${res.status}: ${JSON.stringify(body)}`);
    sessions.push(body.sessionToken);
  }
  await loadVisits(t.base, sessions, code, WARMUP_MS, makeId);
  const pid = t.child.pid!;
  const before = cpuSplit(pid);
  const r = await loadVisits(t.base, sessions, code, SECONDS * 1000, makeId);
  const after = cpuSplit(pid);
  // The counters are flushed at most a second later; SIGTERM writes whatever is left.
  await stopChild(t.child);
  const row = rowOf(database === 'pg' ? '(k) visit ingestion on PostgreSQL' : ids === 'v7' ? '(i) visit ingestion, POST /mobile/v2/visits' : '(j) visit ingestion, random v4 visit ids', r, after[0] + after[1] - before[0] - before[1]);
  const { default: knexFactory } = await import('knex');
  const db = schema
    ? knexFactory({ client: 'pg', connection: schema.url })
    : knexFactory({ client: 'better-sqlite3', connection: { filename: String(t.env.DATABASE_URL) }, useNullAsDefault: true });
  try {
    const visits = Number((await db('visits').where({ program_id: program.id }).count({ n: '*' }).first())?.n ?? 0);
    const counted = await db('participants').where({ id: referrer.id }).first('impression_count', 'unique_impression_count');
    const ok = r.statuses.get(200) ?? 0;
    const other = [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
    row.note =
      `${schema ? 'PostgreSQL' : 'SQLite'}, limits raised, ${CONNECTIONS} client sessions, server CPU ${splitNote(before, after, r.completed)} per visit, ${ids === 'v7' ? 'time-ordered (v7)' : 'random (v4)'} visit ids; ${ok} × 200${other ? `, ${other} other` : ''}${r.errors ? `, ${r.errors} errors` : ''}; ` +
      `afterwards (warm-up included) ${visits.toLocaleString('en')} visits stored, referrer impressions ${Number(counted?.impression_count ?? 0).toLocaleString('en')} (unique ${Number(counted?.unique_impression_count ?? 0)})`;
  } finally {
    await db.destroy();
    await schema?.drop();
  }
  console.log(
    `  ${row.label}: ${r.completed} responses → ${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req`,
  );
  console.log(`  ${row.note}`);
  return row;
}

/** Participant-API budgets raised (per client, per program), so the mobile rows measure the path, not 429s. */
const MOBILE_LIMITS = {
  ...RAISED_LIMITS,
  MOBILE_RATE_LIMIT_PER_MINUTE: '1000000000',
  MOBILE_SESSIONS_PER_IP_PER_MINUTE: '1000000000',
  MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE: '1000000000',
  MOBILE_PROGRAM_VISITS_PER_MINUTE: '1000000000',
};

/** A fresh schema on the PostgreSQL of DATABASE_URL for one row; `drop` removes it afterwards. */
async function pgSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const { default: knexFactory } = await import('knex');
  const tag = `refloop_bench_${crypto.randomUUID().slice(0, 8)}`;
  const admin = () => knexFactory({ client: 'pg', connection: PG_URL! });
  const a = admin();
  await a.raw(`CREATE SCHEMA "${tag}"`);
  await a.destroy();
  return {
    url: `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${tag}`)}`,
    async drop() {
      const d = admin();
      await d.raw(`DROP SCHEMA "${tag}" CASCADE`);
      await d.destroy();
    },
  };
}

/**
 * Row (l): `GET /mobile/v2/window` signed in (session token + a participant token minted by REST
 * P10) on `refloop serve` (SQLite, limits raised): the whole window payload (participant, share
 * URLs, rewards, leaderboard, traffic report) for one participant, every connection the same caller.
 */
async function windowRow(): Promise<Row> {
  const t = await startRefloop('refloop (window payload)', MOBILE_LIMITS);
  const key = await verifiedKey(t, 'bench-window@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL' });
  const installation = await call(t, 'PATCH', `/v2/campaign/${program.id}/installation`, key, { mobile: { isEnabled: true } });
  const minted = await call(t, 'POST', `/v2/campaign/${program.id}/mobile-participant-token`, key, { email: 'bench-window@example.com', firstName: 'Ann' });
  for (let i = 0; i < 20; i++) await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `friend-${i}@example.com`, referredBy: minted.participant.id });
  const res = await fetch(`${t.base}/mobile/v2/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-program-id': program.id, 'x-public-key': installation.mobile.publicKey },
    body: JSON.stringify({ instanceId: crypto.randomUUID() }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const session = (await res.json()) as { sessionToken?: string };
  if (res.status !== 200 || !session.sessionToken) throw new Error(`POST /mobile/v2/sessions answered ${res.status}: ${JSON.stringify(session)}`);
  const row = await measure('(l) window payload, GET /mobile/v2/window (signed in)', t, '/mobile/v2/window', {
    'x-session-token': session.sessionToken,
    authorization: `Bearer ${minted.participantToken}`,
  });
  const non200 = [...row.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  row.note = `SQLite, limits raised; a signed-in participant with 20 referrals in a program of 21; participant token verified and the participant read on every call${non200 || row.errors ? `; ${non200} non-200, ${row.errors} errors` : '; all 200'}`;
  await stopChild(t.child);
  return row;
}

/** A bare Koa app answering {ok:true}: the baseline every group of rows is judged against. */
async function bareRow(label = '(b) bare Koa GET /ok', note = 'new Koa() answering {ok:true}; the baseline'): Promise<Row> {
  console.log(`\n${label}: bare Koa, one JSON route`);
  const bare = await startBareKoa();
  const row = await measure(label, bare, '/ok', {});
  row.note = note;
  await stopChild(bare.child);
  return row;
}

/** The participant-API rows: bare Koa again (b2), visits (i, j, and k on PostgreSQL when DATABASE_URL is one), the window payload (l). */
async function mobileRows(): Promise<{ rows: Row[]; bare: Row }> {
  console.log('\n(i)–(l) participant API on `refloop serve`, limits raised: visit ingestion and the window payload, with bare Koa measured again right before');
  // The machine's load drifts over a run; the visit targets are judged against a bare Koa row taken next to them.
  const rowB2 = await bareRow('(b2) bare Koa GET /ok, beside (i)', 'the baseline again, measured just before the participant-API rows');
  const rowI = await visitRow('v7');
  const rows = [rowB2, rowI, await visitRow('v4')];
  if (PG_URL) rows.push(await visitRow('v7', 'pg'));
  rows.push(await windowRow());
  console.log(
    `  targets: ≤ 60 µs server CPU per visit (${rowI.cpuUsPerReq.toFixed(0)}; bare Koa ${rowB2.cpuUsPerReq.toFixed(0)}), ≥ 0.6 × bare Koa req/s (${(rowI.reqPerSec / rowB2.reqPerSec).toFixed(2)} × row b2)`,
  );
  return { rows, bare: rowB2 };
}

/** The summary table; ratios against `bare` req/s. */
function printTable(rows: Row[], bare: number): void {
  const f = (n: number, d: number) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
  console.log('\n| Row | req/s | p50 ms | p99 ms | server CPU µs/req | ratio vs bare Koa | Note |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const digits = r.inProcess ? 3 : 2;
    console.log(`| ${r.label} | ${f(r.reqPerSec, 0)} | ${f(r.p50, digits)} | ${f(r.p99, digits)} | ${f(r.cpuUsPerReq, 0)} | ${r.inProcess ? 'n/a' : f(r.reqPerSec / bare, 2)} | ${r.note} |`);
  }
}

// --- affiliate money: recording sales -----------------------------------------------------------

/** POST `make(i)` (a fresh path and JSON body per request) until the deadline. */
function loadPosts(base: string, make: (i: number) => { pathname: string; body: string }, headers: Record<string, string>, ms: number): Promise<LoadResult> {
  const json = { ...headers, 'content-type': 'application/json' };
  let n = 0;
  return drive(ms, () => {
    const { pathname, body } = make(n++);
    return { url: base + pathname, method: 'POST', headers: json, body };
  });
}

/**
 * Row (m): `POST /v2/campaign/{id}/participant/{p}/transaction` on `refloop serve` (SQLite, limits
 * raised): every request records a new sale (fresh orderId) of one of 100 customers referred by 10
 * affiliates, under a 10 % commission structure with one webhook subscribed to NEW_COMMISSION_ADDED:
 * the sale, its identifier, one commission, the affiliate's totals and board scores, and one queued
 * webhook delivery, in one transaction. Stored rows are counted afterwards to show the work was done.
 */
async function transactionRow(): Promise<Row> {
  console.log('\n(m) POST …/participant/{p}/transaction on `refloop serve`, SQLite, limits raised: sale recording throughput');
  const t = await startRefloop('refloop (record transaction)', { ...RAISED_LIMITS, WRITE_SLOWDOWN_AFTER: '1000000000', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const key = await verifiedKey(t, 'bench-affiliate@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'AFFILIATE' });
  await call(t, 'PATCH', `/v2/campaign/${program.id}/reward-configs/${program.rewards[0].id}`, key, { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 } });
  await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['NEW_COMMISSION_ADDED'] });
  const customers: string[] = [];
  for (let a = 0; a < 10; a++) {
    const affiliate = await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `affiliate-${a}@example.com` });
    for (let c = 0; c < 10; c++) customers.push((await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `customer-${a}-${c}@example.com`, referredBy: affiliate.id })).id);
  }
  const headers = { authorization: `Bearer ${key}` };
  const make = (prefix: string) => (i: number) => ({
    pathname: `/v2/campaign/${program.id}/participant/${customers[i % customers.length]}/transaction`,
    body: JSON.stringify({ currency: 'USD', grossAmount: 1000 + (i % 9000), orderId: `${prefix}-${i}` }),
  });
  await loadPosts(t.base, make('warm'), headers, WARMUP_MS);
  const pid = t.child.pid!;
  const before = cpuTicks(pid);
  const r = await loadPosts(t.base, make('run'), headers, SECONDS * 1000);
  const after = cpuTicks(pid);
  await stopChild(t.child);
  const row = rowOf('(m) record affiliate transaction, 10 % commission + 1 webhook', r, after - before);
  const { default: knexFactory } = await import('knex');
  const db = knexFactory({ client: 'better-sqlite3', connection: { filename: String(t.env.DATABASE_URL) }, useNullAsDefault: true });
  try {
    const count = async (table: string) => Number((await db(table).where({ program_id: program.id }).count({ n: '*' }).first())?.n ?? 0);
    const ok = r.statuses.get(200) ?? 0;
    const other = [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
    row.note =
      `SQLite, limits raised; ${ok} × 200${other ? `, ${other} other` : ''}${r.errors ? `, ${r.errors} errors` : ''}; afterwards (warm-up included) ` +
      `${(await count('affiliate_transactions')).toLocaleString('en')} sales, ${(await count('commissions')).toLocaleString('en')} commissions, ${(await count('webhook_deliveries')).toLocaleString('en')} webhook deliveries queued`;
  } finally {
    await db.destroy();
  }
  console.log(`  ${row.label}: ${r.completed} responses → ${row.reqPerSec.toFixed(0)} sales/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req`);
  console.log(`  ${row.note}`);
  return row;
}

// --- CLI start-up (issue #21) --------------------------------------------------------------------

/** CLI calls measured by `cliRows`, each as a person types it. */
const CLI_COMMANDS = [[], ['--help'], ['keys', 'create', '--help'], ['migrate'], ['team', 'list'], ['mail', 'list']];
const CLI_RUNS = 5;

/** User + system CPU (ms) and wall time of one call: dash's `times` reports its waited-for children. */
function cliCall(argv: string[], env: NodeJS.ProcessEnv): { cpuMs: number; wallMs: number } {
  const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const started = performance.now();
  const out = execFileSync('/bin/sh', ['-c', `${quoted} >/dev/null 2>&1; times`], { cwd: ROOT, env, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  const children = out.trim().split('\n').at(-1)!.match(/(\d+)m([\d.]+)s/g)!;
  const cpuMs = children.map((t) => { const [, m, sec] = /(\d+)m([\d.]+)s/.exec(t)!; return (Number(m) * 60 + Number(sec)) * 1000; }).reduce((a, b) => a + b, 0);
  return { cpuMs, wallMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Start-up CPU per CLI command: the compiled bundle bin/refloop.js runs, and the sources through tsx. */
function cliRows(): void {
  console.log(`\n(n) CLI start-up: median of ${CLI_RUNS} calls per command on a fresh SQLite file, CPU = user + system of the process`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-bench-cli-'));
  tempDirs.push(dir);
  const env = { ...baseEnv(), DATA_DIR: dir };
  // The sources through tsx, as bin/refloop.js runs them when no build can be made.
  const tsx = `import('tsx/esm/api').then(({ register }) => { register(); return import('./server/cli.ts'); }).then(async (m) => { process.exitCode = await m.main(process.argv.slice(1)); })`;
  cliCall([process.execPath, BIN, 'migrate'], env); // builds the bundle if stale and creates the database
  console.log('\n| Command | compiled: CPU ms | compiled: wall ms | sources through tsx: CPU ms |');
  console.log('|---|---:|---:|---:|');
  for (const argv of CLI_COMMANDS) {
    const compiled = Array.from({ length: CLI_RUNS }, () => cliCall([process.execPath, BIN, ...argv], env));
    const viaTsx = Array.from({ length: CLI_RUNS }, () => cliCall([process.execPath, '-e', tsx, '--', ...argv], env));
    const name = `\`refloop${argv.length ? ' ' + argv.join(' ') : ''}\``;
    console.log(`| ${name} | ${median(compiled.map((r) => r.cpuMs)).toFixed(0)} | ${median(compiled.map((r) => r.wallMs)).toFixed(0)} | ${median(viaTsx.map((r) => r.cpuMs)).toFixed(0)} |`);
  }
}

// --- main ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(`refloop bench: ${SECONDS} s per row after a ${WARMUP_MS / 1000} s warm-up, ${CONNECTIONS} keep-alive connections, load generated from this process`);
  console.log(`machine: ${os.cpus().length} CPU(s), ${os.cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, CLK_TCK ${CLK_TCK}; the load generator shares these CPUs with the server`);
  console.log(
    'NOTE: row (a) runs with the rate limits raised through configuration ' +
      '(RATE_LIMIT_SECOND/MINUTE/HOUR=1e9, RATE_LIMIT_IP_PER_MINUTE=1e9, CONCURRENCY_PER_IP=1e6), ' +
      'so it measures the full request path (limiter still charged in the database) instead of 429s. Row (c) keeps the default team limits.',
  );
  const rows: Row[] = [];
  if (ONLY === 'cli') {
    cliRows();
    return;
  }
  if (AFFILIATE_ONLY || TRIGGER_ONLY) {
    const rowBare = await bareRow();
    printTable([rowBare, AFFILIATE_ONLY ? await transactionRow() : await triggerRow()], rowBare.reqPerSec);
    return;
  }
  if (MOBILE_ONLY) {
    const mobile = await mobileRows();
    printTable(mobile.rows, mobile.bare.reqPerSec);
    return;
  }

  console.log('\n(a) GET /v2/team on `refloop serve`, SQLite, limits raised');
  const a = await startRefloop('refloop (limits raised)', { ...RAISED_LIMITS });
  const keyA = await verifiedKey(a);
  const rowA = await measure('(a) GET /v2/team, limits raised', a, '/v2/team', { authorization: `Bearer ${keyA}` });
  const non200 = [...rowA.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  rowA.note = `SQLite, in-memory limiter store (the SQLite default)${non200 || rowA.errors ? `; ${non200} non-200, ${rowA.errors} errors` : '; all 200'}`;
  rows.push(rowA);
  await stopChild(a.child);

  const rowB = await bareRow();
  rows.push(rowB);

  console.log('\n(c) GET /v2/team on `refloop serve`, SQLite, default team limits');
  const c = await startRefloop('refloop (default limits)', {
    RATE_LIMIT_IP_PER_MINUTE: RAISED_LIMITS.RATE_LIMIT_IP_PER_MINUTE,
    CONCURRENCY_PER_IP: RAISED_LIMITS.CONCURRENCY_PER_IP,
  });
  // The warm-up uses a second team, so the measured team starts with its whole budget.
  const keyC = await verifiedKey(c);
  const warmC = await verifiedKey(c, 'bench-warmup@acme-widgets.com');
  const rowC = await measure('(c) GET /v2/team, default limits', c, '/v2/team', { authorization: `Bearer ${keyC}` }, { authorization: `Bearer ${warmC}` });
  const ok = rowC.statuses.get(200) ?? 0;
  const limited = rowC.statuses.get(429) ?? 0;
  const other = [...rowC.statuses].filter(([s]) => s !== 200 && s !== 429).reduce((n, [, cnt]) => n + cnt, 0);
  rowC.note = `default team limits, default store: ${ok} × 200, ${limited} × 429${other ? `, ${other} other` : ''}${rowC.errors ? `, ${rowC.errors} errors` : ''}; req/s counts all responses`;
  rows.push(rowC);
  await stopChild(c.child);

  console.log('\n(d) GET /v2/team on `refloop serve`, SQLite, limits raised, database limiter store');
  const d = await startRefloop('refloop (database limiter store)', { RATE_LIMIT_STORE: 'database', ...RAISED_LIMITS });
  const keyD = await verifiedKey(d);
  const rowD = await measure('(d) GET /v2/team, database limiter', d, '/v2/team', { authorization: `Bearer ${keyD}` });
  rowD.note = 'RATE_LIMIT_STORE=database on SQLite (what several processes sharing one file need): four counter writes per request';
  rows.push(rowD);
  await stopChild(d.child);

  if (PARTICIPANTS > 0) {
    console.log(`\n(e)–(g) leaderboards with ${PARTICIPANTS.toLocaleString('en')} participants in one program, in process, SQLite`);
    rows.push(...(await leaderboardRows()));
  }

  if (TRIGGERS > 0) {
    rows.push(await triggerRow());
  }

  rows.push(await transactionRow());

  const mobile = await mobileRows();
  rows.push(...mobile.rows);
  console.log(`  visits vs row b: ${(mobile.rows[1]!.reqPerSec / rowB.reqPerSec).toFixed(2)} × bare Koa req/s`);

  printTable(rows, rowB.reqPerSec);
  cliRows();
}

main().then(
  () => {
    killAll();
    process.exit(0);
  },
  (err: unknown) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAll();
    process.exit(1);
  },
);
