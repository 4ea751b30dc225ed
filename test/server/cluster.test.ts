import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, onPostgres } from '../helpers/app.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { freePort } from '../../scripts/free-port.ts';

// Issue #26 goal 2: `refloop serve` with WORKERS=N runs N processes behind one port on PostgreSQL
// (server/cluster.ts); on SQLite start-up refuses it.

const root = path.resolve(import.meta.dirname, '../..');

/** Inodes of the established TCP connections whose local port is `port` (the server's side). */
function serverSideSockets(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '01' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  return inodes;
}

/** The pids whose parent is `pid`. */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name));
    } catch {
      /* a process that went away */
    }
  }
  return out;
}

/** The worker pids (children of `primary`) that hold at least one of `inodes` open. */
function holders(primary: number, inodes: Set<string>): Set<number> {
  const pids = new Set<number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== primary) continue;
      for (const fd of fs.readdirSync(`/proc/${name}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${name}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) pids.add(Number(name));
      }
    } catch {
      /* a process that went away */
    }
  }
  return pids;
}

describe('refloop serve with WORKERS', () => {
  it.skipIf(!onPostgres)('serves from every worker on one port with zero errors, counts per-IP limits once across the workers, and replaces a worker that dies (PostgreSQL)', async () => {
    const db = await freshDatabase();
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(root, 'bin/refloop.js'), 'serve'], {
      env: {
        ...process.env,
        NODE_ENV: 'development',
        WORKERS: '2',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: db.url,
        PUBLIC_URL: 'http://refloop.test',
        LOG_FORMAT: 'json',
        JOBS: 'false',
        TRUST_PROXY: 'true',
        RATE_LIMIT_IP_PER_MINUTE: '20',
        RATE_LIMIT_SECOND: '100000',
        RATE_LIMIT_MINUTE: '100000',
        CONCURRENCY_PER_IP: '1000',
        WRITE_SLOWDOWN_AFTER: '100000',
        MOBILE_SESSIONS_PER_IP_PER_MINUTE: '5',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (c) => (logs += c));
    child.stderr.on('data', (c) => (logs += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Eight keep-alive connections: the primary hands them to the workers in turn.
    let agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const base = `http://127.0.0.1:${port}`;
    let address = 0;
    const send = (method: string, pathname: string, opts: { key?: string; body?: unknown; ip?: string; headers?: Record<string, string> } = {}) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
        const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? `10.0.${Math.floor(++address / 250)}.${address % 250}`, ...opts.headers };
        if (opts.key) headers.authorization = `Bearer ${opts.key}`;
        if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
        const req = http.request(`${base}${pathname}`, { method, agent, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text && res.headers['content-type']?.includes('json') ? JSON.parse(text) : text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const ok = async (method: string, pathname: string, opts: Parameters<typeof send>[2] = {}) => {
      const res = await send(method, pathname, opts);
      expect(res.status, `${method} ${pathname}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
      return res.body;
    };
    try {
      await expect.poll(() => logs.includes('"workers listening"'), { timeout: 60_000, interval: 100 }).toBe(true);
      const listeningAt = Date.now();
      const created = await ok('POST', '/v2/accounts', { body: { email: 'owner@acme-cluster.com', company: 'Cluster Co' } });
      const outbox = await ok('GET', '/_dev/mail', { headers: { accept: 'application/json' } });
      const verify = new URL(outbox.messages[0].links.find((l: string) => l.includes('/verify?')));
      expect((await send('GET', verify.pathname + verify.search)).status).toBe(200);
      const key = created.apiKey as string;
      const program = await ok('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] } });
      const installation = await ok('PATCH', `/v2/campaign/${program.id}/installation`, { key, body: { mobile: { isEnabled: true } } });
      const referrer = await ok('POST', `/v2/campaign/${program.id}/participant`, { key, body: { email: 'referrer@example.com' } });

      // The bench's operations, 24 of each at once over the eight connections: every answer a 200.
      const friends = await Promise.all(
        Array.from({ length: 24 }, (_, i) => ok('POST', `/v2/campaign/${program.id}/participant`, { key, body: { email: `friend-${i}@example.com`, referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' } })),
      );
      const triggered = await Promise.all(friends.map((f) => ok('POST', `/v2/campaign/${program.id}/participant/${f.id}/ref`, { key })));
      expect(triggered.map((t) => t.success)).toEqual(friends.map(() => true));
      const read = await Promise.all(friends.map((f) => ok('GET', `/v2/campaign/${program.id}/participant/${f.id}`, { key })));
      expect(read.map((p) => p.referralStatus)).toEqual(friends.map(() => 'CREDIT_AWARDED'));
      const again = await ok('GET', `/v2/campaign/${program.id}/participant/${referrer.id}`, { key });
      expect(again.referralCount).toBe(24);

      // Both workers hold some of the eight connections that carried those requests.
      const pids = holders(child.pid!, serverSideSockets(port));
      expect(pids.size).toBe(2);

      // The REST per-IP budget (20 a minute, in the database) counts once across the workers: of 40
      // calls from one address, spread over both workers, 20 pass.
      const burst = await Promise.all(Array.from({ length: 40 }, () => send('GET', '/v2/team', { key, ip: '203.0.113.7' })));
      expect(burst.filter((r) => r.status === 200)).toHaveLength(20);
      expect(burst.filter((r) => r.status === 429)).toHaveLength(20);

      // The participant API's per-IP session budget (5 a minute, held by the cluster's primary) too.
      const sessions = await Promise.all(
        Array.from({ length: 12 }, () =>
          send('POST', '/mobile/v2/sessions', {
            ip: '198.51.100.9',
            body: { instanceId: crypto.randomUUID() },
            headers: { 'x-program-id': program.id, 'x-public-key': installation.mobile.publicKey },
          }),
        ),
      );
      expect(sessions.map((r) => r.status).sort()).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
      expect(logs).not.toContain('"level":"error"');

      // A worker that dies (SIGKILL) is replaced, and the server keeps answering. (A worker dying
      // within 5 s of its start would stop the server instead, so this waits past that.)
      await new Promise((r) => setTimeout(r, Math.max(0, listeningAt + 6000 - Date.now())));
      const [victim] = [...pids];
      process.kill(victim!, 'SIGKILL');
      await expect.poll(() => { const now = childPids(child.pid!); return now.length === 2 && !now.includes(victim!); }, { timeout: 60_000, interval: 100 }).toBe(true);
      const replacement = childPids(child.pid!).find((pid) => !pids.has(pid))!;
      // Fresh connections until the replacement holds some of them: it serves, and every answer is a 200.
      await expect
        .poll(
          async () => {
            agent.destroy();
            agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
            const after = await Promise.all(friends.slice(0, 8).map((f) => send('GET', `/v2/campaign/${program.id}/participant/${f.id}`, { key })));
            expect(after.map((r) => r.status)).toEqual(Array(8).fill(200));
            return holders(child.pid!, serverSideSockets(port)).has(replacement);
          },
          { timeout: 60_000, interval: 200 },
        )
        .toBe(true);
    } finally {
      agent.destroy();
      child.kill('SIGTERM');
      await exited;
      await db.cleanup();
    }
    expect(await exited).toBe(0);
  }, 120_000);

  it('refuses WORKERS > 1 on SQLite, in the configuration and from `refloop serve`', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-workers-'));
    try {
      const file = path.join(dir, 'refloop.db');
      expect(() => loadConfig({ DATABASE_URL: file, WORKERS: '2' })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: file, WORKERS: '2' })).toThrow(/WORKERS=2 needs PostgreSQL/);
      expect(loadConfig({ DATABASE_URL: file, WORKERS: '1' }).workers).toBe(1);
      expect(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:5432/x', WORKERS: '4' }).workers).toBe(4);
      const env = { ...process.env, WORKERS: '2', DATABASE_URL: file, DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1' };
      const run = spawnSync(process.execPath, [path.join(root, 'bin/refloop.js'), 'serve'], { env, encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('WORKERS=2 needs PostgreSQL');
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
