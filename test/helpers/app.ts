import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import crypto from 'node:crypto';
import knexFactory from 'knex';
import type Koa from 'koa';
import { loadConfig } from '../../server/config.ts';
import { createDeps, type Deps } from '../../server/deps.ts';
import { createHandler } from '../../server/app.ts';
import type { Clock } from '../../server/clock.ts';
import type { Logger } from '../../server/log.ts';

/** A controllable clock: `now` moves only when told; sleeps are recorded and, when held, wait for release. */
export class TestClock implements Clock {
  current = Date.UTC(2026, 0, 15, 12, 0, 0);
  sleeps: number[] = [];
  hold = false;
  #pending: Array<() => void> = [];
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    if (!this.hold) return Promise.resolve();
    return new Promise((resolve) => this.#pending.push(resolve));
  }
  /** How many sleeps are waiting to be released. */
  get waiting(): number {
    return this.#pending.length;
  }
  release(): void {
    const p = this.#pending;
    this.#pending = [];
    this.hold = false;
    for (const r of p) r();
  }
}

/**
 * The fetch test helpers call the server with. Under happy-dom the global fetch is the page's: it
 * computes Origin (and CORS) from the page's location when a request is sent, so set-up calls made
 * from a page would need the page moved to the server's origin, and a widget request sent meanwhile
 * would leave without its Origin (a flake: the widget's session refused). There the helpers speak
 * HTTP through node:http instead, as a server-side caller does; elsewhere Node's own fetch.
 */
export async function serverFetch(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Headers; text(): Promise<string> }> {
  if (!(globalThis as { happyDOM?: unknown }).happyDOM) return fetch(url, init);
  const body = init.body === undefined ? undefined : Buffer.from(init.body);
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) for (const v of ([] as string[]).concat(value ?? [])) h.append(name, v);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: h, text: async () => text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The response of `TestApp.request`. */
export interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A running app on a fresh database. */
export interface TestApp {
  url: string;
  deps: Deps;
  clock: TestClock;
  request(method: string, path: string, opts?: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Res>;
  /** Rewrites a link from an email (built on PUBLIC_URL) onto this server. */
  local(link: string): string;
  close(): Promise<void>;
}

/** Budgets raised: these suites make many calls; the limits have their own tests. */
export const RAISED_LIMITS = {
  RATE_LIMIT_SECOND: '1000000',
  RATE_LIMIT_MINUTE: '1000000',
  RATE_LIMIT_HOUR: '1000000',
  RATE_LIMIT_IP_PER_MINUTE: '1000000',
  CONCURRENCY_PER_IP: '1000',
  WRITE_SLOWDOWN_AFTER: '1000000',
};

/** True when the suite runs against PostgreSQL. */
export const onPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');

/** A fresh empty database: a SQLite file in a temp dir, or a new schema on the PostgreSQL of DATABASE_URL. */
export async function freshDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  const tag = `t_${crypto.randomBytes(6).toString('hex')}`;
  if (onPostgres) {
    const base = process.env.DATABASE_URL!;
    const admin = knexFactory({ client: 'pg', connection: base });
    await admin.raw(`CREATE SCHEMA "${tag}"`);
    await admin.destroy();
    const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${tag}`)}`;
    return {
      url,
      async cleanup() {
        const a = knexFactory({ client: 'pg', connection: base });
        await a.raw(`DROP SCHEMA "${tag}" CASCADE`);
        await a.destroy();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-'));
  return { url: path.join(dir, 'refloop.db'), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Starts the real Koa app over HTTP on a fresh SQLite file or a fresh PostgreSQL schema. */
export async function startApp(env: Record<string, string> = {}, opts: { databaseUrl?: string; log?: Logger; routes?: (deps: Deps) => Koa.Middleware[]; port?: number } = {}): Promise<TestApp> {
  const clock = new TestClock();
  // A given database is shared with another app (multi-process tests) and is not removed on close.
  const { url: databaseUrl, cleanup } = opts.databaseUrl ? { url: opts.databaseUrl, cleanup: async () => {} } : await freshDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    PUBLIC_URL: 'http://refloop.test',
    JOBS: 'false',
    // Suites create many accounts from one address; the account-creation limit has its own test.
    ACCOUNT_CREATION_PER_HOUR: '10000',
    // TEST_REDIS_URL runs every app with Redis (limits, in-flight claims, caches), the keys of apps on one database under one prefix.
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_PREFIX: `t${crypto.createHash('sha256').update(databaseUrl).digest('hex').slice(0, 12)}:` } : {}),
    ...env,
  });
  const deps = await createDeps(config, { clock, log: opts.log });
  const server = http.createServer(createHandler(deps, opts.routes?.(deps) ?? []));
  // As in production (server/main.ts): Node's 5 s default closes an idle keep-alive connection while
  // the client's pool (whose expiry timer runs late on a loaded machine) may already be reusing it,
  // and the request fails with ECONNRESET (a flake under CI's side-by-side passes).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  deps.screenshots.localBase = url;
  return {
    url,
    deps,
    clock,
    async request(method, p, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      if (process.env.KEY_EVERY_WRITE && opts.key && method !== 'GET' && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) headers['idempotency-key'] = `every-${crypto.randomUUID()}`;
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await serverFetch(url + p, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    local: (link) => link.replace(config.publicUrl, url),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await deps.close();
      await cleanup();
    },
  };
}

/** Creates an account over REST and returns its key and the welcome email's links. */
export async function createAccount(app: TestApp, email = `owner-${crypto.randomBytes(4).toString('hex')}@acme-widgets.com`, extra: Record<string, string> = {}) {
  const res = await app.request('POST', '/v2/accounts', { body: { email, ...extra } });
  if (res.status !== 200) throw new Error(`account creation failed: ${res.text}`);
  const [mail] = await app.deps.mailer.list({ to: email, limit: 1 });
  const verifyLink = mail!.links.find((l) => l.includes('/verify?'))!;
  const passwordLink = mail!.links.find((l) => l.includes('/set-password?'))!;
  const team = await app.deps.db.knex('memberships as m').join('users as u', 'u.id', 'm.user_id').where('u.email', email).first('m.team_id');
  return { email, key: res.body.apiKey as string, verifyLink, passwordLink, teamId: team.team_id as string };
}

/** Creates an account and verifies its owner, so the key is unlocked. */
export async function verifiedAccount(app: TestApp, email?: string) {
  const acct = await createAccount(app, email);
  const res = await serverFetch(app.local(acct.verifyLink));
  if (res.status !== 200) throw new Error(`verification failed: ${res.status}`);
  return acct;
}

/** Runs `refloop …` in-process against `app`'s database and captures what it prints (standard output and error apart). */
export async function runCli(app: TestApp, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { main } = await import('../../server/cli.ts');
  let out = '';
  let err = '';
  const code = await main(argv, { log: (s) => (out += s + '\n'), error: (s) => (err += s + '\n') }, () => app.deps.config);
  return { code, out, err };
}
