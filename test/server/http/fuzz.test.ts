import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { operations } from '../../../server/http/routes.ts';
import { mobileOperations } from '../../../server/http/mobile/routes.ts';
import { startApp, verifiedAccount, RAISED_LIMITS, type Res, type TestApp } from '../../helpers/app.ts';
import { addParticipant, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';

// Issue #20: a property-based fuzz test over every REST and participant-API operation, built from
// the two routes tables. Each request has hostile parts (ids, types, sizes, nesting, unicode, content
// types, percent-encoding); whatever comes back must not be a 5xx and, unless it is a 200, must be the
// error object. A fixed seed and run count keep it to well under a minute; FUZZ_SEED=<n> tries
// another seed, and a failure prints the seed, the path to shrink to and the request.

const SEED = Number(process.env.FUZZ_SEED ?? 20);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10);

let app: TestApp;
/** The REST fixture: a verified account with a referral and an affiliate program and a participant in each. */
const rest = { key: '', spareKeys: [] as string[], referral: '', affiliate: '', referralParticipant: '', affiliateParticipant: '' };
/** The participant-API fixture: its own programs (REST fuzzing may end them or rotate their secrets). */
let mobileReferral: MobileProgramFixture;
let mobileAffiliate: MobileProgramFixture;
const tokens = { referralSession: '', affiliateSession: '', referralParticipant: '', affiliateParticipant: '' };

beforeAll(async () => {
  // No Chromium: C6 answers its documented 503 instead of starting a browser.
  app = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true', CHROMIUM_PATH: '/nonexistent/chromium' });
  const acct = await verifiedAccount(app);
  rest.key = acct.key;
  // T5 rotates (revokes) the key it is called with: it gets keys of its own.
  for (let i = 0; i < RUNS + 2; i++) rest.spareKeys.push((await verifiedAccount(app)).key);
  const program = async (type: string) => {
    const res = await app.request('POST', '/v2/campaigns', { key: rest.key, body: { type, name: `Fuzz ${type}` } });
    if (res.status !== 200) throw new Error(res.text);
    return res.body.id as string;
  };
  rest.referral = await program('REFERRAL');
  rest.affiliate = await program('AFFILIATE');
  const participant = async (pid: string, email: string) => {
    const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key: rest.key, body: { email } });
    if (res.status !== 200) throw new Error(res.text);
    return res.body.id as string;
  };
  rest.referralParticipant = await participant(rest.referral, 'fuzz-referrer@example.com');
  rest.affiliateParticipant = await participant(rest.affiliate, 'fuzz-affiliate@example.com');

  mobileReferral = await mobileProgram(app);
  mobileAffiliate = await mobileProgram(app, { type: 'AFFILIATE' });
  await addParticipant(app, mobileReferral, { email: 'fuzz-mobile-referrer@example.com' });
  const token = async (p: MobileProgramFixture, email: string) => {
    const res = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email } });
    if (res.status !== 200) throw new Error(res.text);
    return res.body.participantToken as string;
  };
  tokens.referralParticipant = await token(mobileReferral, 'fuzz-mobile-ann@example.com');
  tokens.affiliateParticipant = await token(mobileAffiliate, 'fuzz-mobile-aff@example.com');
  tokens.referralSession = (await session(app, mobileReferral)).token;
  tokens.affiliateSession = (await session(app, mobileAffiliate)).token;
}, 120_000);

afterAll(async () => {
  await app?.close();
});

/** The field names a body or query schema knows (through pipes, refinements, defaults and unions). */
function keysOf(schema: z.ZodType | undefined, depth = 0): string[] {
  if (!schema || depth > 6) return [];
  const s = schema as unknown as { shape?: Record<string, unknown>; _zod?: { def?: Record<string, unknown> } };
  if (s.shape && typeof s.shape === 'object') return Object.keys(s.shape);
  const def = s._zod?.def ?? {};
  for (const inner of [def.in, def.innerType, def.schema, def.out]) {
    const keys = keysOf(inner as z.ZodType | undefined, depth + 1);
    if (keys.length) return keys;
  }
  if (Array.isArray(def.options)) return [...new Set((def.options as z.ZodType[]).flatMap((o) => keysOf(o, depth + 1)))];
  if (def.left || def.right) return [...new Set([...keysOf(def.left as z.ZodType, depth + 1), ...keysOf(def.right as z.ZodType, depth + 1)])];
  return [];
}

/** Percent-encoding of any string (a lone surrogate cannot travel in a URL; it becomes U+FFFD as a browser would send it). */
const enc = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

/** Strings a client should never send: unicode of every plane, controls, lone surrogates, long runs. */
const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff\ud800', '‮', '../../etc/passwd', '%', '%ZZ', '%E0%A4%A', "' OR 1=1 --", '<script>', 'null', 'true', '1e309', '-0', 'x@example.com', 'X@EXAMPLE.COM', 'primary', '__proto__', 'constructor'),
  fc.integer({ min: 200, max: 70_000 }).map((n) => 'é'.repeat(n)),
);
const hostileNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, Number.MIN_VALUE, 1e21));
const leaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const hostileValue = fc.oneof(
  { depthSize: 'small' },
  leaf,
  fc.array(leaf, { maxLength: 5 }),
  fc.dictionary(hostileString, leaf, { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 4 }),
  fc.integer({ min: 1, max: 40 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown),
  fc.integer({ min: 0, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
);

/** A body for a schema with these keys: mostly its own fields with hostile values, sometimes anything at all. */
function bodyFor(keys: string[]): fc.Arbitrary<{ raw?: string; json?: unknown; type?: string }> {
  const fields = keys.length ? fc.subarray(keys, { minLength: 0 }).chain((picked) => fc.tuple(...picked.map((k) => fc.tuple(fc.constant(k), hostileValue)))) : fc.constant([] as Array<[string, unknown]>);
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fields, fc.option(fc.dictionary(hostileString, leaf, { maxKeys: 2 }), { freq: 3 })).map(([f, extra]) => ({ json: { ...(extra ?? {}), ...Object.fromEntries(f) } })) },
    { weight: 2, arbitrary: hostileValue.map((json) => ({ json })) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":1', '[1,]', 'nul', '\u0000', '{"a":"\\ud800"}', '{"__proto__":{"admin":true}}', '"str"', '1').map((raw) => ({ raw, type: 'application/json' })) },
    { weight: 2, arbitrary: fc.oneof(fc.integer({ min: 30, max: 100 }), fc.integer({ min: 5000, max: 20_000 })).map((n) => ({ raw: `{"${keys[0] ?? 'a'}":${'['.repeat(n)}${']'.repeat(n)}}`, type: 'application/json' })) },
    { weight: 1, arbitrary: fc.integer({ min: 1001, max: 3000 }).map((n) => ({ raw: `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`, type: 'application/json' })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...(keys.length ? keys : ['a'])), hostileString).map(([k, v]) => ({ raw: `${enc(k)}=${enc(v)}&${k}[a][b]=1&${k}[]=2`, type: 'application/x-www-form-urlencoded' })) },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/json; charset=utf-16').map((type) => ({ raw: '{"a":1}', type })) },
  );
}

/** A query string from the schema's keys and others, values hostile and sometimes repeated. */
function queryFor(keys: string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...(keys.length ? keys : ['limit'])), hostileString.map((k) => k.slice(0, 100)));
  // Kept short: a request line over Node's 16 KiB header limit never reaches the app.
  const value = fc.oneof(hostileString.map((v) => v.slice(0, 300)), hostileNumber.map(String), fc.constantFrom('1', '100', '101', '-1', 'abc', 'true'));
  return fc.array(fc.tuple(key, value, fc.boolean()), { maxLength: 4 }).map((pairs) =>
    pairs.map(([k, v, raw]) => (raw ? `${k.replace(/[&#=\s]/g, '')}=${v.replace(/[&#\s]/g, '')}` : `${enc(k)}=${enc(v)}`)).join('&'),
  );
}

/** A path parameter: a real id most of the time (so handlers run), else a hostile one, sometimes not encoded. */
function paramFor(real: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real).map(encodeURIComponent) },
    { weight: 3, arbitrary: hostileString.map((s) => enc(s.slice(0, 400))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%E0%A4%A', '%00', '%2F', '..', '%C0%AF', 'a%20b', '%F0%9F%98%80') },
  );
}

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

async function send(r: Req): Promise<Res> {
  return app.request(r.method, r.path, { headers: r.headers, raw: r.body });
}

/** The response must not be a 5xx; anything but a 200 must carry the error object. */
function check(r: Req, res: Res, allow503 = false): void {
  const where = `${r.method} ${r.path}\n${JSON.stringify(r.headers)}\n${(r.body ?? '').slice(0, 500)}\n→ ${res.status} ${res.text.slice(0, 500)}`;
  if (allow503 && res.status === 503 && res.body?.code === 'SERVICE_UNAVAILABLE_ERROR') return;
  expect(res.status, where).toBeLessThan(500);
  if (res.status === 200) return;
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  expect(res.body, where).toMatchObject({ name: expect.any(String), code: expect.any(String), message: expect.any(String), status: res.status, level: expect.stringMatching(/^(error|warn)$/), timestamp: expect.any(String) });
}

function requestArb(method: string, path: string, paramIds: (name: string) => string[], bodyKeys: string[] | null, queryKeys: string[], headers: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<Req> {
  const names = [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const params = fc.tuple(...names.map((n) => paramFor(paramIds(n))));
  // GET carries no body (fetch refuses one).
  const body = bodyKeys ? bodyFor(bodyKeys).map((b) => b as { raw?: string; json?: unknown; type?: string } | null) : fc.constant(null);
  return fc.record({ params, query: fc.option(queryFor(queryKeys), { freq: 2 }), body, headers }).map(({ params: values, query, body: b, headers: h }) => {
    let i = 0;
    const p = path.replace(/:([A-Za-z0-9_]+)/g, () => values[i++]!);
    const out: Req = { method, path: query ? `${p}?${query}` : p, headers: { ...h } };
    if (b) {
      out.body = b.raw ?? JSON.stringify(b.json);
      out.headers['content-type'] = b.type ?? 'application/json';
    }
    return out;
  });
}

describe('issue #20: fuzzing every REST operation', () => {
  const ids = (op: (typeof operations)[number]) => (name: string): string[] => {
    const program = op.programType === 'REFERRAL' ? [rest.referral] : op.programType === 'AFFILIATE' ? [rest.affiliate] : [rest.referral, rest.affiliate];
    if (name === op.programParam || name === 'id') return program;
    if (name === 'participantIdOrEmail') return [rest.referralParticipant, rest.affiliateParticipant, 'fuzz-referrer@example.com'];
    if (name === 'webhookId') return ['primary'];
    return ['nosuchid', rest.referralParticipant];
  };
  for (const op of operations) {
    it(`${op.id} ${op.method} ${op.path}`, async () => {
      let spare = 0;
      const auth = fc.oneof(
        { weight: 8, arbitrary: fc.constant('main') },
        { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer x', `Bearer ${'k'.repeat(5000)}`, 'Basic abc', 'Bearer \u00e9') },
      );
      const arb = requestArb(op.method, `/v2${op.path}`, ids(op), op.method === 'GET' ? null : keysOf(op.body), keysOf(op.query), auth.map((a) => {
        if (a !== 'main') return a ? { authorization: a } : ({} as Record<string, string>);
        return { authorization: `Bearer ${op.id === 'T5' ? rest.spareKeys[Math.min(spare++, rest.spareKeys.length - 1)] : rest.key}` };
      }));
      await fc.assert(
        fc.asyncProperty(arb, async (r) => check(r, await send(r), op.id === 'C6')),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }, 60_000);
  }
});

describe('issue #20: fuzzing every participant-API operation', () => {
  for (const op of mobileOperations) {
    it(`${op.id} ${op.method} ${op.path}`, async () => {
      const credentials = fc.constantFrom<'referral' | 'affiliate' | 'bad'>('referral', 'referral', 'affiliate', 'affiliate', 'bad').chain((which) => {
        const p = which === 'affiliate' ? mobileAffiliate : mobileReferral;
        const h: Record<string, string> = {};
        if (which === 'bad') return fc.record({ 'x-session-token': hostileString.map((s) => s.slice(0, 200).replace(/[^\x21-\x7e]/g, 'x') || 'x'), authorization: fc.constantFrom('Bearer x', 'Bearer', '') });
        if (op.auth === 'program') {
          h['x-program-id'] = p.pid;
          h['x-public-key'] = p.publicKey!;
        } else {
          h['x-session-token'] = which === 'affiliate' ? tokens.affiliateSession : tokens.referralSession;
        }
        h.authorization = `Bearer ${which === 'affiliate' ? tokens.affiliateParticipant : tokens.referralParticipant}`;
        return fc.constant(h);
      });
      const ids = () => ['nosuchid', mobileReferral.pid];
      const arb = requestArb(op.method, `/mobile/v2${op.path}`, ids, op.method === 'GET' ? null : keysOf(op.body), keysOf(op.query), credentials);
      await fc.assert(
        fc.asyncProperty(arb, async (r) => check(r, await send(r))),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }, 60_000);
  }
});
