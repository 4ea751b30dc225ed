import { afterEach, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';

let app: TestApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('team rate limits', () => {
  it('describes the team budgets after authentication under both the Service- and GrowSurf- prefixes', async () => {
    app = await startApp();
    const acct = await verifiedAccount(app);
    const res = await app.request('GET', '/v2/team', { key: acct.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"second";q=50;w=5, "minute";q=400;w=60, "hour";q=20000;w=3600');
    expect(res.headers.get('ratelimit')).toMatch(/^"second";r=\d+;t=\d+, "minute";r=\d+;t=\d+, "hour";r=\d+;t=\d+$/);
    for (const prefix of ['service', 'growsurf']) {
      expect(res.headers.get(`${prefix}-ratelimit-second-limit`)).toBe('50');
      expect(res.headers.get(`${prefix}-ratelimit-minute-limit`)).toBe('400');
      expect(res.headers.get(`${prefix}-ratelimit-hour-limit`)).toBe('20000');
      expect(Number(res.headers.get(`${prefix}-ratelimit-second-remaining`))).toBeLessThan(50);
      expect(res.headers.get(`${prefix}-retry-after-second-milliseconds`)).toBeNull();
    }
  });

  it('before authentication describes only the per-IP public budget and no service headers', async () => {
    app = await startApp();
    const res = await app.request('GET', '/v2/team');
    expect(res.status).toBe(403);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"ip";q=\d+;w=60$/);
    expect(res.headers.get('service-ratelimit-second-limit')).toBeNull();
    expect(res.headers.get('growsurf-ratelimit-second-limit')).toBeNull();
  });

  it('answers the 51st request inside 5 s with 429, the full header set and the RATE_LIMIT body', async () => {
    app = await startApp();
    const acct = await verifiedAccount(app);
    // verifiedAccount made no team-authenticated calls, so the budget is whole.
    for (let i = 1; i <= 50; i++) {
      const ok = await app.request('GET', '/v2/team', { key: acct.key });
      expect(ok.status, `request ${i}`).toBe(200);
    }
    const res = await app.request('GET', '/v2/team', { key: acct.key });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ name: 'RateLimit', code: 'RATE_LIMIT', status: 429, policyName: 'SECOND', level: 'error' });
    expect(res.headers.get('retry-after')).toMatch(/^[1-5]$/);
    expect(res.headers.get('ratelimit')).toMatch(/^"second";r=0;t=\d+/);
    for (const prefix of ['service', 'growsurf']) {
      expect(res.headers.get(`${prefix}-ratelimit-second-remaining`)).toBe('0');
      const ms = Number(res.headers.get(`${prefix}-retry-after-second-milliseconds`));
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(5000);
      expect(res.headers.get(`${prefix}-retry-after-minute-milliseconds`)).toBeNull();
    }
  });

  it('shares one budget across every key of a team', async () => {
    app = await startApp({ RATE_LIMIT_SECOND: '4' });
    const acct = await verifiedAccount(app);
    const other = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: ['team:read'], origin: 'CLI' })).secret;
    for (let i = 0; i < 2; i++) expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await app.request('GET', '/v2/team', { key: other })).status).toBe(200);
    expect((await app.request('GET', '/v2/team', { key: other })).status).toBe(429);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(429);
  });
});

describe('write slowdown', () => {
  it('delays each write past 60 in a minute by (n − 60) × 100 ms', async () => {
    app = await startApp({ RATE_LIMIT_SECOND: '1000' });
    const acct = await verifiedAccount(app);
    for (let i = 1; i <= 63; i++) {
      const res = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: `Team ${i}` } });
      expect(res.status).toBe(200);
    }
    expect(app.clock.sleeps).toEqual([100, 200, 300]);
    // Reads are never slowed.
    await app.request('GET', '/v2/team', { key: acct.key });
    expect(app.clock.sleeps).toHaveLength(3);
  });
});

describe('concurrency and duplicates', () => {
  it('answers the 4th concurrent request from one IP with 429', async () => {
    app = await startApp({ WRITE_SLOWDOWN_AFTER: '0' });
    const acct = await verifiedAccount(app);
    app.clock.hold = true;
    const pending = [1, 2, 3].map((i) => app!.request('PATCH', '/v2/team', { key: acct.key, body: { name: `Slow ${i}` } }));
    await until(() => app!.clock.waiting === 3);
    const fourth = await app.request('GET', '/v2/team', { key: acct.key });
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ code: 'RATE_LIMIT', name: 'RateLimit', policyName: 'CONCURRENCY' });
    expect(fourth.headers.get('retry-after')).toMatch(/^\d+$/);
    app.clock.release();
    for (const r of await Promise.all(pending)) expect(r.status).toBe(200);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
  });

  it('issue #19: a 429 CONCURRENCY answered before authentication carries the ip policy’s RateLimit-Policy and RateLimit headers, uncharged', async () => {
    app = await startApp({ WRITE_SLOWDOWN_AFTER: '0', CONCURRENCY_PER_IP: '3', RATE_LIMIT_IP_PER_MINUTE: '1000' });
    const acct = await verifiedAccount(app);
    app.clock.hold = true;
    const pending = [1, 2, 3].map((i) => app!.request('PATCH', '/v2/team', { key: acct.key, body: { name: `Held ${i}` } }));
    await until(() => app!.clock.waiting === 3);
    // Three more at once, over real connections: each is refused before authentication.
    const refused = await Promise.all([1, 2, 3].map(() => app!.request('GET', '/v2/team', { key: acct.key })));
    const states = refused.map((res) => {
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'RATE_LIMIT', name: 'RateLimit', policyName: 'CONCURRENCY' });
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('ratelimit-policy')).toBe('"ip";q=1000;w=60');
      const m = /^"ip";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
      expect(m, res.headers.get('ratelimit') ?? 'no RateLimit header').not.toBeNull();
      expect(Number(m![2])).toBeLessThanOrEqual(60);
      // Only the public budget is described before authentication.
      expect(res.headers.get('service-ratelimit-second-limit')).toBeNull();
      expect(res.headers.get('growsurf-ratelimit-second-limit')).toBeNull();
      return Number(m![1]);
    });
    app.clock.release();
    for (const r of await Promise.all(pending)) expect(r.status).toBe(200);
    // The refusals charged nothing: the next public charge is one below what they reported.
    const next = await app.request('GET', '/v2/team');
    expect(next.status).toBe(403);
    const after = Number(/^"ip";r=(\d+);t=\d+$/.exec(next.headers.get('ratelimit') ?? '')?.[1]);
    expect(new Set(states).size).toBe(1);
    expect(after).toBe(states[0]! - 1);
  });

  it('issue #19: a CONCURRENCY refusal reads the ip budget from the store when no request of that IP has been charged yet', async () => {
    app = await startApp({ CONCURRENCY_PER_IP: '1', RATE_LIMIT_IP_PER_MINUTE: '1000' });
    const limits = app.deps.limits;
    const ip = '203.0.113.77';
    await limits.chargeIp(ip);
    expect(limits.enterIp(ip)).toBe(true);
    try {
      const err = await limits.guardIp(ip, () => undefined, async () => 'ran').catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429, policyName: 'CONCURRENCY' });
      const headers = (err as { headers: Record<string, string> }).headers;
      expect(headers['RateLimit-Policy']).toBe('"ip";q=1000;w=60');
      expect(headers.RateLimit).toMatch(/^"ip";r=999;t=([1-5]?\d|60)$/);
      expect(headers['Retry-After']).toBe('1');
    } finally {
      limits.leaveIp(ip);
    }
    expect(await limits.guardIp(ip, () => undefined, async () => 'ran')).toBe('ran');
  });

  it('answers 409 to an identical request already in progress', async () => {
    app = await startApp({ WRITE_SLOWDOWN_AFTER: '0' });
    const acct = await verifiedAccount(app);
    app.clock.hold = true;
    const first = app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Same' } });
    await until(() => app!.clock.waiting === 1);
    const dup = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Same' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('DUPLICATE_REQUEST_ERROR');
    app.clock.release();
    expect((await first).status).toBe(200);
    // Once finished, the same request runs again.
    expect((await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Same' } })).status).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  it('replays a completed write and refuses the same key for a different request', async () => {
    app = await startApp();
    const acct = await verifiedAccount(app);
    const headers = { 'idempotency-key': 'stainless-python-retry-1' };
    const first = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Once' }, headers });
    expect(first.status).toBe(200);
    await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Changed since' } });
    const replay = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Once' }, headers });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await app.request('GET', '/v2/team', { key: acct.key })).body.name).toBe('Changed since');
    const other = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Other' }, headers });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED_ERROR');
  });
});

describe('POST /api-key/rotate', () => {
  it('returns the replacement once, kills the old key at once, and replays the same replacement for the same Idempotency-Key', async () => {
    app = await startApp();
    const acct = await verifiedAccount(app);
    const headers = { 'idempotency-key': 'growsurf-mcp-rotation-abc' };
    const rotated = await app.request('POST', '/v2/api-key/rotate', { key: acct.key, headers, raw: '', });
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body)).toEqual(['apiKey']);
    const fresh = rotated.body.apiKey as string;
    expect(fresh).not.toBe(acct.key);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(403);
    expect((await app.request('GET', '/v2/team', { key: fresh })).status).toBe(200);
    const replay = await app.request('POST', '/v2/api-key/rotate', { key: acct.key, headers, raw: '' });
    expect(replay.status).toBe(200);
    expect(replay.body.apiKey).toBe(fresh);
    const otherIdem = await app.request('POST', '/v2/api-key/rotate', { key: acct.key, headers: { 'idempotency-key': 'another' } });
    expect(otherIdem.status).toBe(403);
    // The secret is kept only sealed for the replay window.
    const rows = await app.deps.db.knex('idempotency_records');
    expect(JSON.stringify(rows)).not.toContain(fresh);
    const [mail] = await app.deps.mailer.list({ to: acct.email, limit: 1 });
    expect(mail!.kind).toBe('account.key_rotated');
    expect(mail!.text).not.toContain(fresh);
  });
});
