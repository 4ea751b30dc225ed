// Issue #34 (part 2): the REST and participant-API limits in Redis when REDIS_URL is set. Each
// test starts its own redis-server on a free port (never the machine's own on 6379) and two app
// instances on one database, as two processes behind a load balancer would be.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { freePort } from '../../../scripts/free-port.ts';
import { createLogger } from '../../../server/log.ts';
import { freshDatabase, serverFetch, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';

const hasRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasRedis) {
  if (process.env.CI) throw new Error('redis-server is not installed: CI must install Debian’s redis-server package (.ci/run)');
  console.warn('test/server/http/redis-limits.test.ts skipped: no redis-server binary on PATH (apt-get install redis-server to run it)');
}

/** A redis-server child on its own port, stoppable and restartable on that port. */
class RedisServer {
  #child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${this.port}:\n${out}`)), 10_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}) on ${this.port}:\n${out}`));
      });
    });
  }

  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let prefixSeq = 0;
/** A REDIS_PREFIX no other test uses. */
const uniquePrefix = () => `t${process.pid}_${Date.now().toString(36)}_${++prefixSeq}:`;

/** Two app instances on one fresh database and one Redis (the `REDIS_URL`, `REDIS_PREFIX` of `env`). */
async function twoApps(env: Record<string, string>, opts: { log?: ReturnType<typeof createLogger> } = {}): Promise<[TestApp, TestApp]> {
  const db = await freshDatabase();
  const a = await startApp(env, { databaseUrl: db.url, log: opts.log });
  const b = await startApp(env, { databaseUrl: db.url });
  cleanups.push(async () => {
    await b.close();
    await a.close();
    await db.cleanup();
  });
  return [a, b];
}

/** The Redis connection a test inspects with; closed after the test. */
function inspector(url: string): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  cleanups.push(async () => void r.disconnect());
  return r;
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const healthz = async (app: TestApp) => (await app.request('GET', '/healthz')).body as { status: string; redis: string };

describe.skipIf(!hasRedis)('limits in Redis (REDIS_URL)', () => {
  it('two instances sharing one Redis charge one team budget exactly, and the 11th request on either is refused with the spec’s headers', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const prefix = uniquePrefix();
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: prefix, RATE_LIMIT_MINUTE: '10', RATE_LIMIT_SECOND: '1000', RATE_LIMIT_IP_PER_MINUTE: '1000' });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    expect(a.deps.config.limits.store).toBe('redis');
    const acct = await verifiedAccount(a);
    for (let i = 1; i <= 10; i++) {
      const res = await (i % 2 ? a : b).request('GET', '/v2/team', { key: acct.key });
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get('service-ratelimit-minute-remaining'), `request ${i}`).toBe(String(10 - i));
    }
    for (const app of [a, b]) {
      const res = await app.request('GET', '/v2/team', { key: acct.key });
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ name: 'RateLimit', code: 'RATE_LIMIT', status: 429, policyName: 'MINUTE' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(res.headers.get('ratelimit-policy')).toBe('"second";q=1000;w=5, "minute";q=10;w=60, "hour";q=20000;w=3600');
      expect(res.headers.get('ratelimit')).toMatch(/^"second";r=\d+;t=\d+, "minute";r=0;t=\d+, "hour";r=\d+;t=\d+$/);
      for (const p of ['service', 'growsurf']) {
        expect(res.headers.get(`${p}-ratelimit-minute-limit`)).toBe('10');
        expect(res.headers.get(`${p}-ratelimit-minute-remaining`)).toBe('0');
        const ms = Number(res.headers.get(`${p}-retry-after-minute-milliseconds`));
        expect(ms).toBeGreaterThan(0);
        expect(ms).toBeLessThanOrEqual(60_000);
      }
    }
    // The counts are Redis's, under the deployment's prefix.
    const keys = await inspector(redis.url).keys(`${prefix}*`);
    expect(keys).toContain(`${prefix}rl:t1m:${acct.teamId}`);
  });

  it('two instances share one per-IP public budget', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: uniquePrefix(), RATE_LIMIT_IP_PER_MINUTE: '10' });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    for (let i = 1; i <= 10; i++) {
      const res = await (i % 2 ? a : b).request('GET', '/v2/team');
      expect(res.status, `request ${i}`).toBe(403);
      expect(res.headers.get('ratelimit'), `request ${i}`).toMatch(new RegExp(`^"ip";r=${10 - i};t=\\d+$`));
    }
    for (const app of [a, b]) {
      const res = await app.request('GET', '/v2/team');
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'IP' });
      expect(res.headers.get('ratelimit-policy')).toBe('"ip";q=10;w=60');
      expect(res.headers.get('ratelimit')).toMatch(/^"ip";r=0;t=\d+$/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('counts an address’s concurrent requests across instances: requests held on one make the other answer 429 CONCURRENCY', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const prefix = uniquePrefix();
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: prefix, CONCURRENCY_PER_IP: '2', WRITE_SLOWDOWN_AFTER: '0', RATE_LIMIT_IP_PER_MINUTE: '1000' });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    const acct = await verifiedAccount(a);
    a.clock.hold = true;
    // Every write sleeps on the app's clock (the write slowdown from the first write): held there, each keeps its slot.
    const held = Promise.all([1, 2].map((i) => a.request('PATCH', '/v2/team', { key: acct.key, body: { name: `Held ${i}` } })));
    let refused;
    try {
      await until('two writes are held on the first instance', () => a.clock.waiting === 2);
      refused = await b.request('GET', '/v2/team', { key: acct.key });
      // The held slots expire on their own should their process die: within 15 s.
      const r = inspector(redis.url);
      const [slots] = await r.keys(`${prefix}conc:*`);
      expect(await r.zcard(slots!)).toBe(2);
      const ttl = await r.pttl(slots!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(15_000);
    } finally {
      a.clock.release();
    }
    for (const r of await held) expect(r.status).toBe(200);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'CONCURRENCY' });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit-policy')).toBe('"ip";q=1000;w=60');
    // The slots are given back (the release is sent after the answer).
    await until('the slots are released', async () => (await b.request('GET', '/v2/team', { key: acct.key })).status === 200);
  });

  it('charges the participant API’s per-program visit budget exactly across instances', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: uniquePrefix(), MOBILE_PROGRAM_VISITS_PER_MINUTE: '6' });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    // Six callers (their own budgets are per caller), one program.
    for (let i = 1; i <= 6; i++) {
      const h = await (i % 2 ? a : b).deps.mobileLimits.call(`203.0.113.${i}`, 'inst', 'prog_1', 'visits');
      expect(h.RateLimit, `visit ${i}`).toMatch(new RegExp(`"program-visits";r=${6 - i};t=\\d+$`));
    }
    await expect(a.deps.mobileLimits.call('203.0.113.7', 'inst', 'prog_1', 'visits')).rejects.toMatchObject({ status: 429, policyName: 'PROGRAM_VISITS' });
    await expect(b.deps.mobileLimits.call('203.0.113.8', 'inst', 'prog_1', 'visits')).rejects.toMatchObject({ status: 429, policyName: 'PROGRAM_VISITS' });
    // Another program has its own budget.
    await expect(b.deps.mobileLimits.call('203.0.113.8', 'inst', 'prog_2', 'visits')).resolves.toBeTruthy();
  });

  it('keeps serving under process-local limits while Redis is down, says so in /healthz and logs it once, then shares counts again when Redis returns', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const lines: string[] = [];
    const log = createLogger('info', (line) => void lines.push(line));
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: uniquePrefix(), RATE_LIMIT_MINUTE: '10', RATE_LIMIT_SECOND: '1000', RATE_LIMIT_IP_PER_MINUTE: '1000' }, { log });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    expect(await healthz(a)).toEqual({ status: 'ok', redis: 'ok' });
    const acct = await verifiedAccount(a);
    for (const app of [a, b]) expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);

    await redis.stop();
    await until('the first instance sees Redis gone', () => !a.deps.redis!.ready && !b.deps.redis!.ready);
    expect(await healthz(a)).toEqual({ status: 'ok', redis: 'unavailable' });
    // Each instance counts alone meanwhile (its memory limiter starts from nothing): never a 5xx.
    for (let i = 1; i <= 4; i++) {
      for (const app of [a, b]) {
        const res = await app.request('GET', '/v2/team', { key: acct.key });
        expect(res.status, `request ${i} during the outage: ${res.text}`).toBe(200);
        expect(res.headers.get('service-ratelimit-minute-remaining')).toBe(String(10 - i));
      }
    }
    // Public requests (per-IP budget, concurrency slot) and in-flight claims keep working too.
    expect((await a.request('GET', '/v2/team')).status).toBe(403);
    expect(await a.deps.limits.claimRequest('outage-fp')).toBe(true);
    expect(await a.deps.limits.claimRequest('outage-fp')).toBe(false);
    await a.deps.limits.releaseRequest('outage-fp');
    // Reconnect attempts go on meanwhile; one warning says it all.
    await new Promise((r) => setTimeout(r, 1500));
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn' && /redis unavailable/.test(l.msg));
    expect(warnings).toHaveLength(1);

    await redis.start();
    await until('both instances reach Redis again', async () => (await healthz(a)).redis === 'ok' && (await healthz(b)).redis === 'ok', 5000);
    expect(lines.some((l) => /redis reachable again/.test(JSON.parse(l).msg))).toBe(true);
    // The restarted Redis starts empty (no persistence): one shared budget of 10 again.
    for (let i = 1; i <= 10; i++) {
      const res = await (i % 2 ? b : a).request('GET', '/v2/team', { key: acct.key });
      expect(res.status, `request ${i} after the outage`).toBe(200);
      expect(res.headers.get('service-ratelimit-minute-remaining'), `request ${i} after the outage`).toBe(String(10 - i));
    }
    for (const app of [a, b]) expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(429);
  });
});

describe.skipIf(!hasRedis)('Limits.claimRequest / releaseRequest', () => {
  it('lets one instance hold a request fingerprint at a time, across instances, until it releases it', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const prefix = uniquePrefix();
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: prefix });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    const [la, lb] = [a.deps.limits, b.deps.limits];
    expect(await la.claimRequest('fp-1')).toBe(true);
    expect(await lb.claimRequest('fp-1')).toBe(false);
    expect(await la.claimRequest('fp-1')).toBe(false);
    // A claim expires on its own should its process die holding it: 15 s after its last refresh (issue #34).
    const ttl = await inspector(redis.url).pttl(`${prefix}inflight:fp-1`);
    expect(ttl).toBeGreaterThan(10_000);
    expect(ttl).toBeLessThanOrEqual(15_000);
    // A fingerprint of its own is free.
    expect(await lb.claimRequest('fp-2')).toBe(true);
    await la.releaseRequest('fp-1');
    expect(await lb.claimRequest('fp-1')).toBe(true);
    expect(await la.claimRequest('fp-1')).toBe(false);
    await lb.releaseRequest('fp-1');
    await lb.releaseRequest('fp-2');
    expect(await la.claimRequest('fp-1')).toBe(true);
    expect(await la.claimRequest('fp-2')).toBe(true);
  });

  it('deletes only its own claim: after its claim expired and another instance took the fingerprint, a late release leaves that claim alone', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const prefix = uniquePrefix();
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: prefix });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    const r = inspector(redis.url);
    expect(await a.deps.limits.claimRequest('fp-late')).toBe(true);
    await r.del(`${prefix}inflight:fp-late`); // as if its 15 s had passed without a refresh
    expect(await b.deps.limits.claimRequest('fp-late')).toBe(true);
    await a.deps.limits.releaseRequest('fp-late');
    expect(await r.exists(`${prefix}inflight:fp-late`)).toBe(1);
    expect(await a.deps.limits.claimRequest('fp-late')).toBe(false);
    await b.deps.limits.releaseRequest('fp-late');
    expect(await r.exists(`${prefix}inflight:fp-late`)).toBe(0);
  });

  it('keeps a claim alive while its request runs: every 5 s the holder pushes its expiry back to 15 s (issue #34)', async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const prefix = uniquePrefix();
    const [a, b] = await twoApps({ REDIS_URL: redis.url, REDIS_PREFIX: prefix });
    await until('both instances reach Redis', () => a.deps.redis!.ready && b.deps.redis!.ready);
    const r = inspector(redis.url);
    expect(await a.deps.limits.claimRequest('fp-long')).toBe(true);
    await r.pexpire(`${prefix}inflight:fp-long`, 6000);
    await new Promise((done) => setTimeout(done, 5500));
    expect(await r.pttl(`${prefix}inflight:fp-long`)).toBeGreaterThan(10_000);
    expect(await b.deps.limits.claimRequest('fp-long')).toBe(false);
    await a.deps.limits.releaseRequest('fp-long');
    expect(await b.deps.limits.claimRequest('fp-long')).toBe(true);
    await b.deps.limits.releaseRequest('fp-long');
  }, 20_000);

  it('claims in this process alone, sharing enterRequest’s set, when Redis does not answer', async () => {
    // Nothing listens on this port: the instance serves with Redis unavailable from the start.
    const app = await startApp({ REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_PREFIX: uniquePrefix() });
    cleanups.push(() => app.close());
    const limits = app.deps.limits;
    expect(app.deps.redis!.ready).toBe(false);
    expect(await limits.claimRequest('fp-local')).toBe(true);
    expect(await limits.claimRequest('fp-local')).toBe(false);
    expect(limits.enterRequest('fp-local')).toBe(false);
    await limits.releaseRequest('fp-local');
    expect(limits.enterRequest('fp-local')).toBe(true);
    expect(await limits.claimRequest('fp-local')).toBe(false);
    limits.leaveRequest('fp-local');
    expect(await limits.claimRequest('fp-local')).toBe(true);
    // And the REST API answers under process-local limits.
    expect((await serverFetch(`${app.url}/healthz`)).status).toBe(200);
    expect((await app.request('GET', '/v2/team')).status).toBe(403);
  });
});
