import crypto from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_BODY_LIMITS, jsonShapeProblem, parseJsonBody } from '../../../server/http/json-body.ts';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { addParticipant, mobileProgram, session, shareKey, type MobileProgramFixture } from '../../helpers/mobile.ts';

// Issue #20, defect 2: a deeply nested body (5,000 levels, 10 KB) answered 500 (RangeError in the
// request fingerprint's JSON.stringify) and a 1 MiB one cost most of a second of CPU. Every JSON
// entry point now checks the raw text's shape (server/http/json-body.ts) before parsing it.

const nested = (levels: number, inner = '') => '['.repeat(levels) + inner + ']'.repeat(levels);
const wideObject = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(',')}}`;
const longArray = (items: number) => `[${Array.from({ length: items }, () => '0').join(',')}]`;

/** Depth and widest container of a parsed JSON value, measured the obvious way. */
function measure(v: unknown, depth = 0): { depth: number; members: number } {
  if (v === null || typeof v !== 'object') return { depth, members: 0 };
  const children = Array.isArray(v) ? v : Object.values(v);
  let out = { depth: depth + 1, members: children.length };
  for (const c of children) {
    const m = measure(c, depth + 1);
    out = { depth: Math.max(out.depth, m.depth), members: Math.max(out.members, m.members) };
  }
  return out;
}

describe('issue #20: jsonShapeProblem (the one-pass pre-scan)', () => {
  it('agrees with the parsed value’s depth and widest container for any JSON text', () => {
    const limits = fc.record({ depth: fc.integer({ min: 1, max: 6 }), members: fc.integer({ min: 1, max: 6 }) });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), limits, fc.boolean(), (value, lim, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const m = measure(JSON.parse(text));
        const expected = m.depth > lim.depth ? 'TOO_DEEP' : m.members > lim.members ? 'TOO_MANY_MEMBERS' : null;
        const got = jsonShapeProblem(text, lim);
        // A text can break both limits; the scan reports whichever it meets first.
        if (expected === null) expect(got).toBeNull();
        else expect(got === null ? null : m.depth > lim.depth || m.members > lim.members).toBe(true);
      }),
      { seed: 20, numRuns: 2000 },
    );
  });

  it('skips brackets, commas and escaped quotes inside strings', () => {
    const s = JSON.stringify({ a: `${'['.repeat(100)}\\"${','.repeat(5000)}\\\\`, b: '"{{{{' });
    expect(jsonShapeProblem(s)).toBeNull();
    expect(parseJsonBody(s, { strict: true })).toEqual(JSON.parse(s));
  });

  it('answers in time linear in the text for the worst shapes (a 1 MiB body in milliseconds)', () => {
    for (const text of [nested(500_000), wideObject(70_000), longArray(500_000), `["${'\\\\'.repeat(500_000)}"]`]) {
      const t0 = performance.now();
      expect(() => parseJsonBody(text, { strict: true })).not.toThrow(RangeError);
      expect(performance.now() - t0).toBeLessThan(500);
    }
  });
});

let app: TestApp;
let key: string;
let pid: string;
let mp: MobileProgramFixture;
let code: string;

beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
  key = (await verifiedAccount(app)).key;
  pid = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } })).body.id;
  mp = await mobileProgram(app);
  code = shareKey(await addParticipant(app, mp, { email: 'hostile-referrer@example.com' }));
});
afterAll(async () => {
  await app.close();
});

function expectShapeError(res: { status: number; body: any; text: string }, code: 'TOO_DEEP' | 'TOO_MANY_MEMBERS') {
  expect(res.status, res.text).toBe(400);
  expect(res.body).toMatchObject({ name: 'BadRequestError', code: 'BAD_REQUEST_ERROR', status: 400, errors: [{ field: 'body', code }] });
  expect(res.text.length).toBeLessThan(2000);
}

describe('issue #20: POST /campaign/:id/participant with hostile JSON', () => {
  const post = (raw: string) => app.request('POST', `/v2/campaign/${pid}/participant`, { key, raw, headers: { 'content-type': 'application/json' } });

  it('answers 400 TOO_DEEP, not 500, for 5,000 levels of nesting (10 KB)', async () => {
    expectShapeError(await post(`{"email":"a@example.com","metadata":${nested(5000)}}`), 'TOO_DEEP');
  });

  it('answers 400 TOO_DEEP for a 1 MiB nested body', async () => {
    expectShapeError(await post(`{"metadata":${nested(500_000)}}`), 'TOO_DEEP');
  });

  it('answers 400 TOO_MANY_MEMBERS with a small error object for an object of 60,000 keys', async () => {
    expectShapeError(await post(wideObject(60_000)), 'TOO_MANY_MEMBERS');
  });

  it('answers 400 TOO_MANY_MEMBERS for an array of 100,000 elements', async () => {
    expectShapeError(await post(`{"email":"b@example.com","metadata":${longArray(100_000)}}`), 'TOO_MANY_MEMBERS');
  });

  it('still answers INVALID_JSON_ERROR for malformed JSON and a bare string', async () => {
    for (const raw of ['{"email":', '"a@example.com"', `${nested(10)}]`]) {
      const res = await post(raw);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_JSON_ERROR');
    }
  });

  it('still refuses a __proto__ key as invalid JSON', async () => {
    const res = await post('{"email":"c@example.com","__proto__":{"x":1}}');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_JSON_ERROR');
  });

  it('creates a participant from a body at the limits (nesting 32 deep is not refused by the parser)', async () => {
    const ok = await post(JSON.stringify({ email: `limit-${crypto.randomUUID()}@example.com`, metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) }));
    expect(ok.status, ok.text).toBe(200);
    const deep = await post(`{"email":"d@example.com","metadata":{"a":${nested(JSON_BODY_LIMITS.depth - 2)}}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].code).not.toBe('TOO_DEEP');
  });
});

describe('issue #20: the program configuration documents fit the limits', () => {
  it('reads every document and writes it back unchanged (the deepest legitimate bodies)', async () => {
    for (const doc of ['design', 'emails', 'options', 'installation']) {
      const got = await app.request('GET', `/v2/campaign/${pid}/${doc}`, { key });
      expect(got.status, got.text).toBe(200);
      const m = measure(got.body);
      expect(m.depth).toBeLessThanOrEqual(JSON_BODY_LIMITS.depth / 2);
      expect(m.members).toBeLessThanOrEqual(JSON_BODY_LIMITS.members / 2);
      expect(jsonShapeProblem(JSON.stringify(got.body))).toBeNull();
    }
  });
});

describe('issue #20: participant API with hostile JSON', () => {
  it('POST /mobile/v2/sessions answers 400 TOO_DEEP for nesting deeper than the limit', async () => {
    const res = await app.request('POST', '/mobile/v2/sessions', { raw: `{"instanceId":${nested(8000)}}`, headers: { 'content-type': 'application/json', 'x-program-id': mp.pid, 'x-public-key': mp.publicKey! } });
    expectShapeError(res, 'TOO_DEEP');
  });

  it('POST /mobile/v2/visits (fast path and router) answers 400 TOO_DEEP and still records a plain visit', async () => {
    const s = await session(app, mp);
    const headers = { 'content-type': 'application/json', 'x-session-token': s.token };
    const body = `{"visitId":"${crypto.randomUUID()}","attribution":${nested(8000)}}`;
    expectShapeError(await app.request('POST', '/mobile/v2/visits', { raw: body, headers }), 'TOO_DEEP');
    expectShapeError(await app.request('POST', '/mobile/v2/visits?via=koa', { raw: body, headers }), 'TOO_DEEP');
    const wide = `{"visitId":"${crypto.randomUUID()}","attribution":{"referralCode":"${code}","utm":${wideObject(1500)}}}`;
    expectShapeError(await app.request('POST', '/mobile/v2/visits', { raw: wide, headers }), 'TOO_MANY_MEMBERS');
    const ok = await app.request('POST', '/mobile/v2/visits', { body: { visitId: crypto.randomUUID(), attribution: { referralCode: code } }, headers: { 'x-session-token': s.token } });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('issue #20: MCP with hostile JSON', () => {
  const mcp = (path: string, raw: string) =>
    fetch(`${app.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: raw });

  it('POST /mcp answers 400 with JSON-RPC invalid request and the error object for nesting over the limit', async () => {
    const res = await mcp('/mcp', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"growsurf_list_campaigns","arguments":{"x":${nested(400_000)}}}}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { code: 'BAD_REQUEST_ERROR', errors: [{ field: 'body', code: 'TOO_DEEP' }] } } });
  });

  it('POST /mcp still answers -32700 for malformed JSON', async () => {
    const res = await mcp('/mcp', '{"jsonrpc":');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  it('POST /oauth/register answers 400 invalid_client_metadata, not 500, for a deeply nested jwks', async () => {
    const res = await mcp('/oauth/register', `{"redirect_uris":["https://host.example/cb"],"jwks":${nested(40_000)}}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/levels deep/) });
    const ok = await mcp('/oauth/register', JSON.stringify({ redirect_uris: ['https://host.example/cb'], token_endpoint_auth_method: 'none' }));
    expect(ok.status).toBe(201);
  });
});
