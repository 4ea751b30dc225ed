import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// `npm run bench`: throughput, latency and server CPU per request of the real server (a child
// process running `refloop serve`) against a bare Koa app, with the load generated here over
// keep-alive connections to 127.0.0.1. Node built-ins only.
//
//   BENCH_SECONDS       measured seconds per row (default 5)
//   BENCH_CONNECTIONS   concurrent keep-alive connections (default 50)

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'refloop.js');
const SECONDS = positive(process.env.BENCH_SECONDS, 5);
const CONNECTIONS = Math.floor(positive(process.env.BENCH_CONNECTIONS, 50));
const WARMUP_MS = 1000;
const READY_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const execFileAsync = promisify(execFile);

/** Every variable server/config.ts reads: removed from the inherited environment so each row's settings are exactly ours. */
const CONFIG_VARS = [
  'NODE_ENV', 'PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'PUBLIC_URL', 'ALLOW_HTTP_PUBLIC_URL', 'SMTP_URL', 'MAIL_FROM',
  'BILLING', 'TRUST_PROXY', 'TLS_CERT', 'TLS_KEY', 'WEBHOOK_ALLOW_PRIVATE', 'SECRET_KEY', 'SUPPORT_URL', 'TERMS_VERSION',
  'LOG_LEVEL', 'JOBS', 'JOB_POLL_MS', 'RATE_LIMIT_STORE', 'RATE_LIMIT_SECOND', 'RATE_LIMIT_SECOND_WINDOW', 'RATE_LIMIT_MINUTE',
  'RATE_LIMIT_HOUR', 'RATE_LIMIT_IP_PER_MINUTE', 'CONCURRENCY_PER_IP', 'WRITE_SLOWDOWN_AFTER', 'WRITE_SLOWDOWN_STEP_MS',
  'ACCOUNT_CREATION_PER_HOUR', 'VERIFICATION_EMAIL_PER_HOUR', 'SHUTDOWN_GRACE_MS',
];

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
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
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
  for (const k of CONFIG_VARS) delete env[k];
  return env;
}

/** `node bin/refloop.js serve` in production mode over plain HTTP, on a fresh SQLite file. */
async function startRefloop(name: string, limits: Record<string, string>): Promise<Target> {
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
    DATABASE_URL: path.join(dir, 'refloop.db'),
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
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

interface LoadResult {
  completed: number;
  errors: number;
  statuses: Map<number, number>;
  seconds: number;
  latencies: number[];
}

/** N workers, each with one request in flight at a time over a shared keep-alive agent, until the deadline. */
async function load(url: string, headers: Record<string, string>, ms: number): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'GET', agent, headers }, (res) => {
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.resume();
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end();
    });
  const start = performance.now();
  const deadline = start + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const status = await once();
        latencies.push(performance.now() - t0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      } catch {
        errors++;
        // A refused connection fails at once; don't spin on it.
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { completed: latencies.length, errors, statuses, seconds, latencies };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Row {
  label: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuUsPerReq: number;
  note: string;
  statuses: Map<number, number>;
  errors: number;
}

/** Warms up (with `warmupHeaders`, by default the same), then measures for BENCH_SECONDS. */
async function measure(label: string, t: Target, pathname: string, headers: Record<string, string>, warmupHeaders = headers): Promise<Row> {
  await load(t.base + pathname, warmupHeaders, WARMUP_MS);
  const pid = t.child.pid!;
  const before = cpuTicks(pid);
  const client = process.cpuUsage();
  const r = await load(t.base + pathname, headers, SECONDS * 1000);
  const after = cpuTicks(pid);
  const clientCpu = process.cpuUsage(client);
  const sorted = r.latencies.sort((a, b) => a - b);
  const row: Row = {
    label,
    reqPerSec: r.completed / r.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUsPerReq: r.completed ? (((after - before) / CLK_TCK) * 1e6) / r.completed : NaN,
    note: '',
    statuses: r.statuses,
    errors: r.errors,
  };
  const codes = [...r.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${n} × ${s}`).join(', ');
  console.log(
    `  ${label}: ${r.completed} responses in ${r.seconds.toFixed(2)} s (${codes || 'none'}${r.errors ? `, ${r.errors} errors` : ''}) → ` +
      `${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req ` +
      `(load generator ${r.completed ? ((clientCpu.user + clientCpu.system) / r.completed).toFixed(0) : 'n/a'} µs/req)`,
  );
  return row;
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

  console.log('\n(a) GET /v2/team on `refloop serve`, SQLite, limits raised');
  const a = await startRefloop('refloop (limits raised)', { ...RAISED_LIMITS });
  const keyA = await verifiedKey(a);
  const rowA = await measure('(a) GET /v2/team, limits raised', a, '/v2/team', { authorization: `Bearer ${keyA}` });
  const non200 = [...rowA.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  rowA.note = `SQLite, in-memory limiter store (the SQLite default)${non200 || rowA.errors ? `; ${non200} non-200, ${rowA.errors} errors` : '; all 200'}`;
  rows.push(rowA);
  await stopChild(a.child);

  console.log('\n(b) bare Koa, one JSON route');
  const b = await startBareKoa();
  const rowB = await measure('(b) bare Koa GET /ok', b, '/ok', {});
  rowB.note = 'new Koa() answering {ok:true}; the baseline';
  rows.push(rowB);
  await stopChild(b.child);

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

  const bare = rowB.reqPerSec;
  const f = (n: number, d: number) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
  console.log('\n| Row | req/s | p50 ms | p99 ms | server CPU µs/req | ratio vs bare Koa | Note |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    console.log(`| ${r.label} | ${f(r.reqPerSec, 0)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${f(r.cpuUsPerReq, 0)} | ${f(r.reqPerSec / bare, 2)} | ${r.note} |`);
  }
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
