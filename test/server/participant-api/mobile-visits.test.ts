import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobile, mobileProgram, session, shareKey, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { toProgram } from '../../../server/domain/programs/programs.ts';
import { mobileOperations } from '../../../server/http/mobile/routes.ts';

// Issue #5: sessions, CORS, visit recording (group commit, idempotency, receipts, impressions) and
// the participant API's limits.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const visit = (s: { token: string }, body: unknown, a: TestApp = app) => mobile(a, 'POST', '/visits', s, { body });
const referred = (code: string, extra: Record<string, unknown> = {}) => ({ referralCode: code, utm: {}, ...extra });
const vid = () => crypto.randomUUID();

async function programRow(pid: string) {
  return toProgram(await app.deps.db.knex('programs').where({ id: pid }).first());
}

/** The referrer id a receipt names (its third dotted part). */
const receiptReferrer = (r: string) => r.split('.')[2];

describe('POST /mobile/v2/sessions', () => {
  it('issues a one-hour session to a native app that sends the program’s public key', async () => {
    const p = await mobileProgram(app);
    const instanceId = crypto.randomUUID().toUpperCase();
    const res = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey! }, body: { instanceId } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ sessionToken: expect.stringMatching(/^a1\./), expiresIn: 3600, expiresAt: app.clock.now() + HOUR, programId: p.pid });
    expect(res.body.sessionToken).toContain(instanceId.toLowerCase());
    expect(res.headers.get('ratelimit-policy')).toBe('"ip";q=600;w=60, "program";q=60000;w=60');
  });

  it('takes the program from the campaignId query parameter too', async () => {
    const p = await mobileProgram(app);
    const res = await app.request('POST', `/mobile/v2/sessions?campaignId=${p.pid}`, { headers: { 'x-public-key': p.publicKey! }, body: { instanceId: crypto.randomUUID() } });
    expect(res.status, res.text).toBe(200);
  });

  it('answers 400 for an instance id that is not a UUID and without a program id', async () => {
    const p = await mobileProgram(app);
    const bad = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey! }, body: { instanceId: 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('instanceId');
    const none = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-public-key': p.publicKey! }, body: { instanceId: crypto.randomUUID() } });
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatchObject({ field: 'X-Program-Id', code: 'REQUIRED' });
  });

  it('answers 403 to a native app with a wrong or missing public key, or when the mobile SDK is off', async () => {
    const p = await mobileProgram(app);
    const body = { instanceId: crypto.randomUUID() };
    const wrong = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, 'x-public-key': 'pk_wrong' }, body });
    expect(wrong.status).toBe(403);
    expect(wrong.body.errors[0]).toMatchObject({ field: 'X-Public-Key', code: 'INVALID' });
    const missing = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid }, body });
    expect(missing.body.errors[0]).toMatchObject({ field: 'X-Public-Key', code: 'MISSING' });
    const off = await mobileProgram(app, { mobile: false });
    expect((await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': off.pid, 'x-public-key': p.publicKey! }, body })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const res = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': 'nosuchprogram', origin: 'https://shop.example.com' }, body: { instanceId: crypto.randomUUID() } });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS on /mobile/v2', () => {
  it('accepts a page on an allowed host (exact or *. wildcard) without a public key and answers with its origin', async () => {
    const p = await mobileProgram(app, { mobile: false, installation: { allowedDomains: ['shop.example.com', '*.example.org'] } });
    for (const origin of ['https://shop.example.com', 'https://blog.example.org:8443']) {
      const res = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, origin }, body: { instanceId: crypto.randomUUID() } });
      expect(res.status, `${origin}: ${res.text}`).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('vary')).toMatch(/Origin/);
      expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('refuses a foreign origin with 403 and no CORS headers, also with a valid session', async () => {
    const p = await mobileProgram(app, { installation: { allowedDomains: ['shop.example.com'] } });
    const res = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, origin: 'https://evil.example.net' }, body: { instanceId: crypto.randomUUID() } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const s = await session(app, p);
    const v = await visit(s, { visitId: vid(), attribution: null }, app);
    expect(v.status).toBe(200);
    const foreign = await mobile(app, 'POST', '/visits', s, { body: { visitId: vid(), attribution: null }, headers: { origin: 'https://example.com.evil.net' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(await app.deps.db.knex('visits').where({ program_id: p.pid }).count({ n: '*' }).first()).toEqual({ n: 1 });
  });

  it('allows any origin when the program lists no sites', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p, { origin: 'https://anything.test' });
    const res = await mobile(app, 'POST', '/visits', s, { body: { visitId: vid(), attribution: null }, headers: { origin: 'https://anything.test' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://anything.test');
  });

  it('answers a preflight with 204, the methods and headers, and no credentials', async () => {
    const p = await mobileProgram(app, { installation: { allowedDomains: ['shop.example.com'] } });
    const headers = { origin: 'https://shop.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-session-token' };
    for (const path of [`/mobile/v2/visits?campaignId=${p.pid}`, '/mobile/v2/visits']) {
      const res = await app.request('OPTIONS', path, { headers });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
      expect(res.headers.get('access-control-allow-headers')).toContain('X-Session-Token');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-max-age')).toBe('7200');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    const foreign = await app.request('OPTIONS', `/mobile/v2/visits?campaignId=${p.pid}`, { headers: { ...headers, origin: 'https://evil.example.net' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('POST /mobile/v2/visits', () => {
  it('records a referred visit with signed receipts and stores only origin and path of its URLs', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const id = vid();
    const res = await visit(s, {
      visitId: id,
      provider: 'branch',
      attribution: referred(shareKey(ann), { clickId: 'c-1', utm: { utm_source: 'news' }, destination: 'https://shop.test/landing?grsf=x#top', referrer: 'https://news.test/a?b=c' }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'RECORDED', visitId: id, receipts: { firstVisit: expect.stringMatching(/^r1\./), lastVisit: expect.stringMatching(/^r1\./) } });
    expect(res.body.receipts.firstVisit).toBe(res.body.receipts.lastVisit);
    expect(receiptReferrer(res.body.receipts.lastVisit)).toBe(ann.id);
    const row = await app.deps.db.knex('visits').where({ program_id: p.pid, visit_id: id }).first();
    expect(row).toMatchObject({ referrer_id: ann.id, click_id: 'c-1', provider: 'branch', destination: 'https://shop.test/landing', referrer_url: 'https://news.test/a', utm: '{"utm_source":"news"}' });
    expect(row.visitor_key).not.toContain(s.instanceId);
    expect(res.headers.get('ratelimit-policy')).toBe('"client";q=600;w=60, "program-visits";q=240000;w=60');
  });

  it('answers a repeat of the same visit id with the same answer and stores it once', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const body = { visitId: vid(), attribution: referred(ann.id) };
    const first = await visit(s, body);
    app.clock.advance(60_000);
    const again = await visit(s, body);
    // Concurrent retries land in one group commit.
    const burst = await Promise.all([visit(s, body), visit(s, body), visit(s, body)]);
    for (const r of [again, ...burst]) expect(r.body).toEqual(first.body);
    expect(await app.deps.db.knex('visits').where({ program_id: p.pid }).count({ n: '*' }).first()).toEqual({ n: 1 });
  });

  it('answers a batch that mixes a repeat with new visits: the repeat from its stored row, the new ones as written now', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const repeat = { visitId: vid(), attribution: referred(ann.id) };
    const first = await visit(s, repeat);
    app.clock.advance(60_000);
    const fresh = [vid(), vid()];
    // Sent together, so they share a group commit whose INSERT changes fewer rows than it carries.
    const [again, ...news] = await Promise.all([visit(s, repeat), ...fresh.map((id) => visit(s, { visitId: id, attribution: referred(ann.id) }))]);
    expect(again!.body).toEqual(first.body);
    for (const [i, r] of news.entries()) {
      expect(r.body).toMatchObject({ status: 'RECORDED', visitId: fresh[i] });
      expect(receiptReferrer(r.body.receipts.lastVisit)).toBe(ann.id);
      // Written a minute after the repeat's first answer: its own receipt, not the repeat's.
      expect(r.body.receipts.lastVisit).not.toBe(first.body.receipts.lastVisit);
    }
    const stored = await app.deps.db.knex('visits').where({ program_id: p.pid }).orderBy('created_at').select('visit_id', 'created_at');
    expect(stored.map((v) => v.visit_id)).toEqual([repeat.visitId, ...stored.slice(1).map((v) => v.visit_id)]);
    expect(new Set(stored.slice(1).map((v) => v.visit_id))).toEqual(new Set(fresh));
    expect(Number(stored[1]!.created_at) - Number(stored[0]!.created_at)).toBe(60_000);
  });

  it('writes many concurrent visits, each once, through group commits', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const results = await Promise.all(Array.from({ length: 150 }, () => visit(s, { visitId: vid(), attribution: referred(shareKey(ann)) })));
    expect(results.every((r) => r.status === 200 && r.body.status === 'RECORDED' && r.body.receipts)).toBe(true);
    expect(await app.deps.db.knex('visits').where({ program_id: p.pid }).count({ n: '*' }).first()).toEqual({ n: 150 });
  });

  it('records a visit whose code names nobody, or another program’s hosted link, with no receipts', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    const stranger = await addParticipant(app, other, { email: 'x@example.com' });
    const s = await session(app, p);
    for (const attribution of [referred('nobody123'), referred(stranger.id), referred(stranger.id, { campaignId: other.pid }), { utm: { utm_source: 'ad' } }, null]) {
      const res = await visit(s, { visitId: vid(), attribution });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: 'RECORDED', receipts: null });
    }
  });

  it('answers 400 for a bad visit id, an unknown UTM key, an unknown field and a body over 16 KiB', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const cases: Array<[unknown, string]> = [
      [{ visitId: 'x', attribution: null }, 'visitId'],
      [{ visitId: vid(), attribution: { utm: { utm_foo: 'x' } } }, 'attribution.utm.utm_foo'],
      [{ visitId: vid(), attribution: null, extra: 1 }, 'extra'],
      [{ attribution: null }, 'visitId'],
    ];
    for (const [body, field] of cases) {
      const res = await visit(s, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const big = await mobile(app, 'POST', '/visits', s, { body: { visitId: vid(), attribution: { clickId: 'x'.repeat(20_000) } } });
    expect(big.status).toBe(400);
    expect(big.body.code).toBe('REQUEST_BODY_TOO_LARGE_ERROR');
    const json = await app.request('POST', '/mobile/v2/visits', { headers: { 'x-session-token': s.token, 'content-type': 'application/json' }, raw: '{nope' });
    expect(json.body.code).toBe('INVALID_JSON_ERROR');
  });

  it('reads a body that arrives after its headers, in pieces, as it reads one sent with them', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const { port } = new URL(app.url);
    /** Sends the headers, then the body in two writes 30 ms apart; the parsed response. */
    const slow = (head: string, parts: string[]) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', async () => {
          socket.write(head);
          for (const part of parts) {
            await new Promise((r) => setTimeout(r, 30));
            socket.write(part);
          }
        });
        let text = '';
        socket.on('data', (d) => {
          text += d.toString('utf8');
          const [headers, body] = text.split('\r\n\r\n');
          const length = Number(/content-length: (\d+)/i.exec(headers!)?.[1]);
          if (body !== undefined && Buffer.byteLength(body) >= length) {
            socket.destroy();
            resolve({ status: Number(headers!.split(' ')[1]), body: JSON.parse(body) });
          }
        });
        socket.on('error', reject);
      });
    const id = vid();
    const body = JSON.stringify({ visitId: id, attribution: null });
    // Content-Length: the visit fast path; chunked: the router.
    const sized = await slow(`POST /mobile/v2/visits HTTP/1.1\r\nHost: x\r\nX-Session-Token: ${s.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, [body.slice(0, 10), body.slice(10)]);
    expect(sized).toEqual({ status: 200, body: { status: 'RECORDED', visitId: id, receipts: null } });
    const chunk = (t: string) => `${t.length.toString(16)}\r\n${t}\r\n`;
    const id2 = vid();
    const body2 = JSON.stringify({ visitId: id2, attribution: null });
    const chunked = await slow(`POST /mobile/v2/visits HTTP/1.1\r\nHost: x\r\nX-Session-Token: ${s.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, [chunk(body2.slice(0, 10)), chunk(body2.slice(10)) + '0\r\n\r\n']);
    expect(chunked).toEqual({ status: 200, body: { status: 'RECORDED', visitId: id2, receipts: null } });
    // Over the cap while streaming: 400 with the body-size code, whichever part crosses it.
    const big = 'x'.repeat(9000);
    const over = await slow(`POST /mobile/v2/visits HTTP/1.1\r\nHost: x\r\nX-Session-Token: ${s.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, [chunk(big), chunk(big) + '0\r\n\r\n']);
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('REQUEST_BODY_TOO_LARGE_ERROR');
    const broken = await slow(`POST /mobile/v2/visits HTTP/1.1\r\nHost: x\r\nX-Session-Token: ${s.token}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n`, ['{no', 'pe']);
    expect(broken.body.code).toBe('INVALID_JSON_ERROR');
  });

  it('answers 403 without a session or with a forged one, and 404 for an unknown operation', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    expect((await app.request('POST', '/mobile/v2/visits', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey! }, body: { visitId: vid(), attribution: null } })).status).toBe(403);
    const forged = s.token.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAA');
    const res = await mobile(app, 'POST', '/visits', { token: forged }, { body: { visitId: vid(), attribution: null } });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ field: 'X-Session-Token', code: 'INVALID' });
    expect((await mobile(app, 'GET', '/nothing-here', s)).status).toBe(404);
  });

  it('counts impressions and unique impressions on the referrer after the counter flush', async () => {
    // Its own server whose timer folds nothing during the test: the counts move only when flushed.
    const app = await startApp({ ...RAISED_LIMITS, MOBILE_COUNTER_FLUSH_MS: '60000' });
    try {
      const p = await mobileProgram(app);
      const ann = await addParticipant(app, p, { email: 'ann@example.com' });
      const bob = await addParticipant(app, p, { email: 'bob@example.com' });
      const one = await session(app, p);
      const two = await session(app, p);
      await visit(one, { visitId: vid(), attribution: referred(shareKey(ann), { utm: { utm_source: 'news' } }) }, app);
      await visit(one, { visitId: vid(), attribution: referred(shareKey(ann)) }, app);
      await visit(two, { visitId: vid(), attribution: referred(ann.id, { referrer: 'https://Blog.Example.org/post?x=1' }) }, app);
      await visit(two, { visitId: vid(), attribution: referred(bob.id) }, app);
      const before = await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key });
      expect(before.body).toMatchObject({ impressionCount: 0, uniqueImpressionCount: 0 });
      await app.deps.visits.flush();
      const annAfter = await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key });
      expect(annAfter.body).toMatchObject({ impressionCount: 3, uniqueImpressionCount: 2 });
      const bobAfter = await app.request('GET', `/v2/campaign/${p.pid}/participant/${bob.id}`, { key: p.key });
      expect(bobAfter.body).toMatchObject({ impressionCount: 1, uniqueImpressionCount: 1 });
      expect((await app.request('GET', `/v2/campaign/${p.pid}`, { key: p.key })).body.impressionCount).toBe(4);
      const board = await app.request('GET', `/v2/campaign/${p.pid}/leaderboard?leaderboardType=TOTAL_IMPRESSION_COUNT`, { key: p.key });
      expect(board.body.participants.map((x: { id: string }) => x.id).slice(0, 2)).toEqual([ann.id, bob.id]);
      const rows = await app.deps.db.knex('activity_logs').where({ program_id: p.pid, type: 'VISIT' }).select('participant_id', 'action', 'data');
      expect(rows.filter((r) => r.participant_id === ann.id).map((r) => r.action).sort()).toEqual(['visit.repeat', 'visit.unique', 'visit.unique']);
      expect(rows.map((r) => r.data && JSON.parse(r.data).source).filter(Boolean).sort()).toEqual(['blog.example.org', 'news']);
      // A later visit by a known visitor is not unique again.
      await visit(one, { visitId: vid(), attribution: referred(ann.id) }, app);
      await app.deps.visits.flush();
      expect((await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key })).body).toMatchObject({ impressionCount: 4, uniqueImpressionCount: 2 });
    } finally {
      await app.close();
    }
  });

  it('answers PROCESSING while the write is held up, then the stored answer to the retry', async () => {
    const slow = await startApp({ ...RAISED_LIMITS, MOBILE_VISIT_WAIT_MS: '50' });
    try {
      const p = await mobileProgram(slow);
      const ann = await addParticipant(slow, p, { email: 'ann@example.com' });
      const s = await session(slow, p);
      expect((await visit(s, { visitId: vid(), attribution: referred(ann.id) }, slow)).body.status).toBe('RECORDED');
      const id = vid();
      const trx = await slow.deps.db.knex.transaction();
      await trx('visits').insert({ program_id: p.pid, visit_id: id, visitor_key: 'held', created_at: 1 });
      const held = await visit(s, { visitId: id, attribution: referred(ann.id) }, slow);
      expect(held.status).toBe(200);
      expect(held.body).toEqual({ status: 'PROCESSING', visitId: id });
      await trx.rollback();
      let retry = held;
      for (let i = 0; i < 50 && retry.body.status !== 'RECORDED'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        retry = await visit(s, { visitId: id, attribution: referred(ann.id) }, slow);
      }
      expect(retry.body).toMatchObject({ status: 'RECORDED', visitId: id, receipts: { lastVisit: expect.any(String) } });
      expect(await slow.deps.db.knex('visits').where({ program_id: p.pid, visit_id: id }).first('referrer_id')).toEqual({ referrer_id: ann.id });
    } finally {
      await slow.close();
    }
  });

  it('answers 503 when the visit cannot be written, so the client keeps it queued', async () => {
    const broken = await startApp(RAISED_LIMITS);
    try {
      const p = await mobileProgram(broken);
      const s = await session(broken, p);
      await broken.deps.db.knex.schema.renameTable('visits', 'visits_away');
      const res = await visit(s, { visitId: vid(), attribution: null }, broken);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE_ERROR');
      await broken.deps.db.knex.schema.renameTable('visits_away', 'visits');
    } finally {
      await broken.close();
    }
  });

  it('writes waiting impression counts when the server shuts down', async () => {
    const db = await freshDatabase();
    try {
      const first = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
      const p = await mobileProgram(first);
      const ann = await addParticipant(first, p, { email: 'ann@example.com' });
      const s = await session(first, p);
      await visit(s, { visitId: vid(), attribution: referred(ann.id) }, first);
      await first.close();
      const second = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
      const row = await second.deps.db.knex('participants').where({ id: ann.id }).first('impression_count', 'unique_impression_count');
      expect(row).toEqual({ impression_count: 1, unique_impression_count: 1 });
      await second.close();
    } finally {
      await db.cleanup();
    }
  });
});

describe('visit receipts at participant creation', () => {
  async function twoReferrerVisits(p: MobileProgramFixture) {
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const bob = await addParticipant(app, p, { email: 'bob@example.com' });
    const s = await session(app, p);
    const first = await visit(s, { visitId: vid(), attribution: referred(shareKey(ann)) });
    app.clock.advance(HOUR / 2);
    const res = await visit(s, { visitId: vid(), attribution: referred(shareKey(bob)), firstVisit: first.body.receipts.firstVisit });
    return { ann, bob, receipts: res.body.receipts as { firstVisit: string; lastVisit: string } };
  }

  it('keeps the first-visit receipt the client holds as firstVisit and returns this visit as lastVisit', async () => {
    const p = await mobileProgram(app);
    const { ann, bob, receipts } = await twoReferrerVisits(p);
    expect(receiptReferrer(receipts.firstVisit)).toBe(ann.id);
    expect(receiptReferrer(receipts.lastVisit)).toBe(bob.id);
  });

  it('ignores a forged or other-program first-visit receipt sent with a visit', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const bob = await addParticipant(app, p, { email: 'bob@example.com' });
    const s = await session(app, p);
    const real = (await visit(s, { visitId: vid(), attribution: referred(ann.id) })).body.receipts.firstVisit as string;
    const forged = real.replace(ann.id, bob.id);
    const foreign = app.deps.receipts.sign(other.pid, ann.id, app.clock.now(), DAY);
    for (const firstVisit of [forged, foreign, 'junk']) {
      const res = await visit(s, { visitId: vid(), attribution: referred(bob.id), firstVisit });
      expect(res.status).toBe(200);
      expect(res.body.receipts.firstVisit).toBe(res.body.receipts.lastVisit);
    }
  });

  it('chooses the earliest referrer under FIRST_CLICK and the latest under LAST_CLICK', async () => {
    const p = await mobileProgram(app, { options: { attributionModel: 'FIRST_CLICK' } });
    const { ann, bob, receipts } = await twoReferrerVisits(p);
    const list = [receipts.lastVisit, receipts.firstVisit];
    expect(app.deps.receipts.apply(await programRow(p.pid), list)).toBe(ann.id);
    await app.request('PATCH', `/v2/campaign/${p.pid}/options`, { key: p.key, body: { attributionModel: 'LAST_CLICK' } });
    expect(app.deps.receipts.apply(await programRow(p.pid), list)).toBe(bob.id);
  });

  it('ignores forged, other-program and expired receipts', async () => {
    const p = await mobileProgram(app, { options: { referralCookieWindowDays: 1 } });
    const other = await mobileProgram(app);
    const { ann, bob, receipts } = await twoReferrerVisits(p);
    const program = await programRow(p.pid);
    const parts = receipts.lastVisit.split('.');
    const forged = [parts[0], parts[1], ann.id, ...parts.slice(3)].join('.');
    expect(app.deps.receipts.apply(program, [forged])).toBeNull();
    expect(app.deps.receipts.apply(program, [forged, receipts.firstVisit])).toBe(ann.id);
    expect(app.deps.receipts.apply(program, ['r1.x.y.1.2.zzz', 42, null, 'garbage'])).toBeNull();
    const foreign = app.deps.receipts.sign(other.pid, bob.id, app.clock.now(), DAY);
    expect(app.deps.receipts.apply(program, [foreign])).toBeNull();
    expect(app.deps.receipts.apply(program, [receipts.lastVisit])).toBe(bob.id);
    app.clock.advance(DAY);
    expect(app.deps.receipts.apply(program, [receipts.lastVisit, receipts.firstVisit])).toBeNull();
  });

  it('starts a new first visit once the earlier one left the cookie window', async () => {
    const p = await mobileProgram(app, { options: { referralCookieWindowDays: 1 } });
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const bob = await addParticipant(app, p, { email: 'bob@example.com' });
    const s = await session(app, p);
    const held = (await visit(s, { visitId: vid(), attribution: referred(ann.id) })).body.receipts.firstVisit;
    app.clock.advance(DAY + 1);
    const s2 = await session(app, p, { instanceId: s.instanceId });
    const res = await visit(s2, { visitId: vid(), attribution: referred(bob.id), firstVisit: held });
    expect(receiptReferrer(res.body.receipts.firstVisit)).toBe(bob.id);
  });
});

describe('participant API limits', () => {
  it('answers 429 with the REST headers and error object per IP and client instance, and another instance behind the same address goes on', async () => {
    const limited = await startApp({ ...RAISED_LIMITS, MOBILE_RATE_LIMIT_PER_MINUTE: '2', MOBILE_SESSIONS_PER_IP_PER_MINUTE: '3' });
    try {
      const p = await mobileProgram(limited);
      const s = await session(limited, p);
      for (let i = 0; i < 2; i++) expect((await visit(s, { visitId: vid(), attribution: null }, limited)).status).toBe(200);
      const over = await visit(s, { visitId: vid(), attribution: null }, limited);
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ code: 'RATE_LIMIT', status: 429, policyName: 'CLIENT' });
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(over.headers.get('ratelimit')).toMatch(/^"client";r=0;t=\d+$/);
      expect(over.headers.get('ratelimit-policy')).toBe('"client";q=2;w=60');
      const neighbour = await session(limited, p);
      expect((await visit(neighbour, { visitId: vid(), attribution: null }, limited)).status).toBe(200);
      await session(limited, p);
      const sessions = await limited.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey! }, body: { instanceId: crypto.randomUUID() } });
      expect(sessions.status).toBe(429);
      expect(sessions.body.policyName).toBe('IP');
    } finally {
      await limited.close();
    }
  });
});

describe('GET /openapi/mobile-v2.json', () => {
  it('lists every participant-API operation with its credentials, and every reference resolves', async () => {
    const res = await app.request('GET', '/openapi/mobile-v2.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0].url).toMatch(/\/mobile\/v2$/);
    for (const op of mobileOperations) {
      const entry = doc.paths[op.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${op.path}`).toBeDefined();
      expect(entry.operationId).toBe(op.name);
      expect(entry.security.length).toBeGreaterThan(0);
    }
    expect(doc.paths['/visits'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/VisitCreate' });
    expect(doc.components.schemas.Attribution.properties.utm.additionalProperties).toBe(false);
    for (const [, id] of JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas[id!], id).toBeDefined();
  });
});
