// The servers the bench measures: child processes (`refloop serve`, bare Koa) started, awaited and
// always killed on exit, temp dirs removed, and the REST calls that set a server up (owner key, JSON calls).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { CONFIG_VARIABLES } from '../server/config.ts';
import { freePort } from '../scripts/free-port.ts';
import net from 'node:net';
import { BIN, CPU_PROF_DIR, JSON_OUTPUT, PG_URL, PORT_BASE, RAISED_LIMITS, READY_TIMEOUT_MS, REQUEST_TIMEOUT_MS, ROOT } from './settings.ts';

const execFileAsync = promisify(execFile);

// --- child processes: every one is killed on exit, whatever happens ------------------------------

const children = new Set<ChildProcess>();
export const tempDirs: string[] = [];

export function killAll(): void {
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

export function startChild(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // BENCH_CPU_PROF=<dir>: every server writes a V8 CPU profile there when it stops (for finding where the time goes).
  const prof = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : [];
  // With --json, stdout carries the table alone: a child's output goes to stderr.
  const child = spawn(process.execPath, [...prof, ...args], { cwd: ROOT, env, stdio: ['ignore', JSON_OUTPUT ? 2 : 'inherit', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', (err) => console.error(`${name}: ${err.message}`));
  return child;
}

/** SIGTERM, then SIGKILL if it has not exited within 3 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200; fails if the child exits or `timeoutMs` (30 s) pass. */
export async function waitReady(child: ChildProcess, url: string, name: string, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const until = Date.now() + timeoutMs;
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
  throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s`);
}

// --- ports and databases ------------------------------------------------------------------------

let nextPort = PORT_BASE ?? 0;

/** Whether nothing listens on `port` of 127.0.0.1 right now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A port for the next server: from BENCH_PORT_BASE upwards (skipping ports in use), else any free port. */
export async function benchPort(): Promise<number> {
  if (PORT_BASE === null) return freePort();
  for (let tries = 0; tries < 1000; tries++) {
    const port = nextPort++;
    if (port > 65_535) break;
    if (await portFree(port)) return port;
  }
  throw new Error(`no free port from BENCH_PORT_BASE=${PORT_BASE} within 1,000 ports`);
}

/**
 * A fresh schema on the bench's PostgreSQL (BENCH_DATABASE_URL) for one row; its connections carry
 * `application_name` = the schema's name, so the database backends serving the row can be found;
 * `drop` removes it afterwards.
 */
export async function pgSchema(): Promise<{ url: string; tag: string; drop: () => Promise<void> }> {
  if (!PG_URL) throw new Error('no PostgreSQL: set BENCH_DATABASE_URL=postgres://…');
  const { default: knexFactory } = await import('knex');
  const tag = `refloop_bench_${crypto.randomUUID().slice(0, 8)}`;
  const admin = () => knexFactory({ client: 'pg', connection: PG_URL! });
  const a = admin();
  await a.raw(`CREATE SCHEMA "${tag}"`);
  await a.destroy();
  return {
    tag,
    url: `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}application_name=${tag}&options=${encodeURIComponent(`-c search_path=${tag}`)}`,
    async drop() {
      const d = admin();
      await d.raw(`DROP SCHEMA "${tag}" CASCADE`);
      await d.destroy();
    },
  };
}

// --- the servers --------------------------------------------------------------------------------

export interface Target {
  name: string;
  child: ChildProcess;
  base: string;
  env: NodeJS.ProcessEnv;
}

export function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of CONFIG_VARIABLES) delete env[k];
  return env;
}

/** `node bin/refloop.js serve` in production mode over plain HTTP, on a fresh SQLite file (or `databaseUrl`); `readyTimeoutMs` for slow starts (several workers). */
export async function startRefloop(name: string, limits: Record<string, string>, databaseUrl?: string, readyTimeoutMs = READY_TIMEOUT_MS): Promise<Target> {
  const port = await benchPort();
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
  await waitReady(child, `${base}/healthz`, name, readyTimeoutMs);
  return { name, child, base, env };
}

/** `node --import tsx bench/bare-koa.ts PORT`. */
export async function startBareKoa(): Promise<Target> {
  const port = await benchPort();
  const base = `http://127.0.0.1:${port}`;
  const child = startChild('bare Koa', ['--import', 'tsx', path.join(ROOT, 'bench', 'bare-koa.ts'), String(port)], baseEnv());
  await waitReady(child, `${base}/ok`, 'bare Koa');
  return { name: 'bare Koa', child, base, env: baseEnv() };
}

/** Creates an account over REST and verifies its owner through the link in the outbox; returns the API key. */
export async function verifiedKey(t: Target, email = 'bench-owner@acme-widgets.com'): Promise<string> {
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

/** A participant-API session of `programId` (its Mobile SDK key `publicKey`): the token for `X-Session-Token`. */
export async function openSession(t: Target, programId: string, publicKey: string): Promise<string> {
  const res = await fetch(`${t.base}/mobile/v2/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-program-id': programId, 'x-public-key': publicKey },
    body: JSON.stringify({ instanceId: crypto.randomUUID() }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = (await res.json()) as { sessionToken?: string };
  if (res.status !== 200 || !body.sessionToken) throw new Error(`POST /mobile/v2/sessions answered ${res.status}: ${JSON.stringify(body)}`);
  return body.sessionToken;
}

/** A JSON call that must answer 200; returns the parsed body. */
export async function call(t: Target, method: string, pathname: string, key: string, body: unknown): Promise<any> {
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

/** The settings of the write rows (h), (h-floor) and (m): limits raised, no write slow-down, webhooks to 127.0.0.1 allowed. */
export const WRITE_ROW_LIMITS: Record<string, string> = { ...RAISED_LIMITS, WRITE_SLOWDOWN_AFTER: '1000000000', WEBHOOK_ALLOW_PRIVATE: 'true' };

/**
 * Row (h)'s program on `t`, set up over the API: a REFERRAL program with a DOUBLE_SIDED reward and one
 * webhook subscribed to PARTICIPANT_REACHED_A_GOAL, its participants seeded through scripts/seed.ts
 * into the server's file (every referral CREDIT_PENDING, referrers by preferential attachment).
 * Returns the key, the program's id, what the seed made, and the trigger paths of `count` pending
 * referrals in random order.
 */
export async function triggerProgram(t: Target, count: number): Promise<{ key: string; programId: string; seeded: { participants: number; referrals: number; ms: number }; paths: string[] }> {
  const key = await verifiedKey(t, 'bench-trigger@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
  // https because the server runs in production mode; JOBS=false, so deliveries stay queued.
  await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] });
  const { openDb } = await import('../server/db/connect.ts');
  const { seedParticipants } = await import('../scripts/seed.ts');
  const seedDb = openDb({ client: 'better-sqlite3', filename: String(t.env.DATABASE_URL) });
  try {
    const seeded = await seedParticipants(seedDb, { programId: program.id, count: Math.ceil(count / 0.9) + 10, now: Date.now(), referredShare: 0.95, pendingShare: 1, seed: 2 });
    const ids: string[] = await seedDb.knex('participants').where({ program_id: program.id, referral_status: 'CREDIT_PENDING' }).orderByRaw('random()').limit(count).pluck('id');
    return { key, programId: program.id, seeded, paths: ids.map((id) => `/v2/campaign/${program.id}/participant/${id}/ref`) };
  } finally {
    await seedDb.close();
  }
}

/** Opens a stopped server's SQLite file with knex for `use` (the rows counted after a run), and closes it after. */
export async function withServerDb<T>(t: Target, use: (db: Knex) => Promise<T>): Promise<T> {
  const { default: knexFactory } = await import('knex');
  const db = knexFactory({ client: 'better-sqlite3', connection: { filename: String(t.env.DATABASE_URL) }, useNullAsDefault: true });
  try {
    return await use(db);
  } finally {
    await db.destroy();
  }
}

/** The participants of a program on PostgreSQL whose referral awaits its trigger, in random order (the trigger rows' work list). */
export async function pendingReferrals(schemaUrl: string, programId: string): Promise<string[]> {
  const { default: knexFactory } = await import('knex');
  const db = knexFactory({ client: 'pg', connection: schemaUrl, pool: { min: 0, max: 1 } });
  try {
    return await db('participants').where({ program_id: programId, referral_status: 'CREDIT_PENDING' }).orderByRaw('random()').pluck('id');
  } finally {
    await db.destroy();
  }
}
