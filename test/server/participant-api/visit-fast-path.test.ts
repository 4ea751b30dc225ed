import crypto from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitAnswerJson } from '../../../server/http/mobile/visit-fast-path.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobileProgram, session, shareKey, type MobileProgramFixture } from '../../helpers/mobile.ts';

// The visit fast path (server/http/mobile/visit-fast-path.ts) answers `POST /mobile/v2/visits`
// without Koa. These tests hold it to the router: the same answers, headers and error objects, and
// every request it must not take goes through Koa. A Koa middleware mounted in front counts the
// requests that reach Koa; `?via=koa` (a query string) always sends a visit through the router.

let app: TestApp;
let koaSeen = 0;
let p: MobileProgramFixture;
let code: string;
const ORIGIN = 'https://shop.example.com';

beforeAll(async () => {
  app = await startApp(
    { ...RAISED_LIMITS, MOBILE_RATE_LIMIT_PER_MINUTE: '3' },
    {
      routes: () => [
        async (_ctx, next) => {
          koaSeen++;
          await next();
        },
      ],
    },
  );
  p = await mobileProgram(app, { installation: { allowedDomains: ['shop.example.com'] } });
  code = shareKey(await addParticipant(app, p, { email: 'fast-referrer@example.com' }));
});
afterAll(async () => {
  await app.close();
});

/** Posts a visit; returns the answer and whether Koa saw it. */
async function post(token: string, body: string, opts: { via?: 'koa'; headers?: Record<string, string> } = {}) {
  const before = koaSeen;
  const res = await app.request('POST', `/mobile/v2/visits${opts.via ? '?via=koa' : ''}`, {
    raw: body,
    headers: { 'x-session-token': token, 'content-type': 'application/json', ...(opts.headers ?? {}) },
  });
  return { ...res, koa: koaSeen > before };
}

const visitBody = (extra: Record<string, unknown> = {}) => JSON.stringify({ visitId: crypto.randomUUID(), attribution: { referralCode: code, utm: { utm_source: 'news' } }, ...extra });

/** Response headers that must agree between the two paths (values that differ per request are masked). */
function headerShape(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (['date', 'connection', 'keep-alive', 'content-length'].includes(k)) return;
    out[k] = k === 'x-request-id' ? 'uuid' : k === 'ratelimit' ? v.replace(/r=\d+/g, 'r=#') : v;
  });
  return out;
}

describe('visit fast path', () => {
  it('records a plain visit without Koa, with the router’s answer and headers', async () => {
    const s1 = await session(app, p);
    const s2 = await session(app, p);
    // One router call warms the program cache the fast path reads.
    await post(s1.token, visitBody(), { via: 'koa' });
    const fast = await post(s1.token, visitBody());
    const slow = await post(s2.token, visitBody(), { via: 'koa' });
    expect(fast.koa).toBe(false);
    expect(slow.koa).toBe(true);
    expect(fast.status, fast.text).toBe(200);
    expect(fast.body).toEqual({ status: 'RECORDED', visitId: expect.any(String), receipts: { firstVisit: expect.stringMatching(/^r1\./), lastVisit: expect.stringMatching(/^r1\./) } });
    expect(Object.keys(slow.body).sort()).toEqual(Object.keys(fast.body).sort());
    expect(headerShape(fast.headers)).toEqual(headerShape(slow.headers));
    expect(fast.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(fast.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('answers a page on an allowed origin with the same CORS headers as the router', async () => {
    const s = await session(app, p, { origin: ORIGIN });
    const fast = await post(s.token, visitBody(), { headers: { origin: ORIGIN } });
    const slow = await post(s.token, visitBody(), { via: 'koa', headers: { origin: ORIGIN } });
    expect(fast.koa).toBe(false);
    expect(fast.status).toBe(200);
    expect(fast.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(headerShape(fast.headers)).toEqual(headerShape(slow.headers));
  });

  it('stores the visit and counts the impression like the router', async () => {
    const s = await session(app, p);
    const visitId = crypto.randomUUID();
    const res = await post(s.token, JSON.stringify({ visitId, attribution: { referralCode: code } }));
    expect(res.koa).toBe(false);
    const row = await app.deps.db.knex('visits').where({ program_id: p.pid, visit_id: visitId }).first();
    expect(row).toMatchObject({ referral_code: code, referrer_id: expect.any(String) });
    // The same id again is answered from the stored row: the same receipts.
    const again = await post(s.token, JSON.stringify({ visitId, attribution: { referralCode: code } }));
    expect(again.body).toEqual(res.body);
    // The router's answer to the same id is the same text, byte for byte.
    const viaKoa = await post(s.token, JSON.stringify({ visitId, attribution: { referralCode: code } }), { via: 'koa' });
    expect(viaKoa.koa).toBe(true);
    expect(viaKoa.text).toBe(res.text);
  });

  it('writes every answer as JSON.stringify would', () => {
    const receipt = fc.oneof(fc.string(), fc.stringMatching(/^[\w.-]{0,120}$/));
    const answer = fc.oneof(
      fc.record({ status: fc.constant('RECORDED' as const), visitId: fc.oneof(fc.string(), fc.uuid()), receipts: fc.option(fc.record({ firstVisit: receipt, lastVisit: receipt })) }),
      fc.record({ status: fc.constant('PROCESSING' as const), visitId: fc.string() }),
    );
    fc.assert(fc.property(answer, (a) => visitAnswerJson(a) === JSON.stringify(a)));
    expect(visitAnswerJson({ status: 'RECORDED', visitId: 'a"b', receipts: null })).toBe('{"status":"RECORDED","visitId":"a\\"b","receipts":null}');
  });

  it('words invalid JSON and invalid bodies exactly as the router does', async () => {
    for (const body of ['{"visitId":', JSON.stringify({ visitId: 'x', attribution: {} }), JSON.stringify({ visitId: crypto.randomUUID(), attribution: { referralCode: code }, extra: 1 })]) {
      // A session each: the client budget here is three calls a minute.
      const fast = await post((await session(app, p)).token, body);
      const slow = await post((await session(app, p)).token, body, { via: 'koa' });
      expect(fast.koa).toBe(false);
      expect(fast.status).toBe(400);
      expect({ ...fast.body, timestamp: 't' }).toEqual({ ...slow.body, timestamp: 't' });
      expect(headerShape(fast.headers)).toEqual(headerShape(slow.headers));
    }
  });

  it('answers 429 with the router’s headers once a client spends its budget', async () => {
    const s = await session(app, p);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await post(s.token, visitBody()));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.every((a) => !a.koa)).toBe(true);
    const limited = answers[3]!;
    expect(limited.body).toMatchObject({ status: 429, policyName: 'CLIENT' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const slow = await post(s.token, visitBody(), { via: 'koa' });
    expect(slow.status).toBe(429);
    expect(headerShape(limited.headers)).toEqual(headerShape(slow.headers));
  });

  it('leaves to the router every request it cannot decide from its headers', async () => {
    const forged = (await session(app, p)).token.slice(0, -2) + 'xx';
    const cases: Array<[string, Record<string, string>, number]> = [
      ['no session', { 'x-session-token': '' }, 403],
      ['forged session', { 'x-session-token': forged }, 403],
      ['another program named', { 'x-program-id': 'someotherprogram' }, 403],
      ['foreign origin', { origin: 'https://evil.example.net' }, 403],
      ['public key to check', { 'x-public-key': 'pk_wrong' }, 403],
      ['unsupported content type', { 'content-type': 'application/x-www-form-urlencoded' }, 400],
    ];
    for (const [name, headers, status] of cases) {
      const s = await session(app, p);
      const res = await post(s.token, visitBody(), { headers });
      expect(res.koa, name).toBe(true);
      expect(res.status, name).toBe(status);
    }
    const big = await post((await session(app, p)).token, visitBody({ firstVisit: 'x'.repeat(17 * 1024) }));
    expect(big.koa).toBe(true);
    expect(big.status).toBe(400);
  });
});
