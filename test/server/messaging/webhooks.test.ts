import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { checkTarget, isForbiddenAddress } from '../../../server/domain/platform/ssrf.ts';
import { AUTO_DISABLE_AFTER_FAILURES, AUTO_DISABLE_FAILING_FOR_MS, MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS, signatureHeader } from '../../../server/domain/messaging/webhook-delivery.ts';

// Receivers are real HTTP servers on 127.0.0.1, so every app except the guard's own allows private targets.
const PRIVATE = { WEBHOOK_ALLOW_PRIVATE: 'true' };

/** One receiving URL with what it got and the replies it should give (then 200 "ok"). */
interface Endpoint {
  url: string;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: string }>;
  replies: Array<{ status: number; body?: string }>;
}

/** A real node:http receiver; each test takes its own path so late retries of other tests cannot confuse it. */
class Receiver {
  url = '';
  readonly #endpoints = new Map<string, Endpoint>();
  readonly #server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const ep = this.#endpoints.get(req.url ?? '');
      if (!ep) {
        res.writeHead(404).end('unknown endpoint');
        return;
      }
      ep.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = ep.replies.shift() ?? { status: 200, body: 'ok' };
      res.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.body ?? '');
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.#server.address() as { port: number }).port}`;
  }

  endpoint(): Endpoint {
    const p = `/hook/${crypto.randomBytes(6).toString('hex')}`;
    const ep: Endpoint = { url: this.url + p, requests: [], replies: [] };
    this.#endpoints.set(p, ep);
    return ep;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }
}

type Verify = (rawBody: string, header: string | undefined, secret: string, nowSeconds?: number, toleranceSeconds?: number) => boolean;

/** Loads the verification function exactly as docs/webhooks.md prints it, so the docs cannot drift from the server. */
async function docsVerifier(): Promise<Verify> {
  const md = fs.readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(md.slice(md.indexOf('## Verifying the signature')))![1]!;
  const file = path.join(os.tmpdir(), `refloop-verify-${crypto.randomBytes(6).toString('hex')}.mjs`);
  fs.writeFileSync(file, code);
  try {
    return (await import(pathToFileURL(file).href)).verifySignature as Verify;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

let app: TestApp;
let receiver: Receiver;
let verifySignature: Verify;
beforeAll(async () => {
  app = await startApp(PRIVATE);
  receiver = new Receiver();
  await receiver.start();
  verifySignature = await docsVerifier();
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

async function newProgram(a: TestApp, key: string) {
  const res = await a.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Spring' } });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string };
}

/** A verified team with one program. */
async function setup(a: TestApp = app) {
  const acct = await verifiedAccount(a);
  const program = await newProgram(a, acct.key);
  return { ...acct, program, base: `/v2/campaign/${program.id}/webhooks` };
}

async function createHook(a: TestApp, key: string, base: string, body: Record<string, unknown>) {
  const res = await a.request('POST', base, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string };
}

async function listHooks(a: TestApp, key: string, base: string) {
  const res = await a.request('GET', base, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.webhooks as Array<Record<string, any>>;
}

async function deliveries(a: TestApp, key: string, base: string, hookId: string, query = '') {
  const res = await a.request('GET', `${base}/${hookId}/deliveries${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body as { deliveries: Array<Record<string, any>>; limit: number; nextId: string | null };
}

/** Launches then ends the program: the `ended` hook emits CAMPAIGN_ENDED. */
async function endProgram(a: TestApp, key: string, programId: string) {
  expect((await a.request('PATCH', `/v2/campaign/${programId}`, { key, body: { status: 'IN_PROGRESS' } })).status).toBe(200);
  const ended = await a.request('PATCH', `/v2/campaign/${programId}`, { key, body: { status: 'COMPLETE' } });
  expect(ended.status, ended.text).toBe(200);
  return ended.body;
}

/** A key of the same team with chosen scopes and program grants. */
async function keyWith(a: TestApp, teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await a.deps.keys.create(a.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

describe('GET /campaign/{id}/webhooks', () => {
  it('lists the program’s webhooks oldest first, primary leading, without secrets', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'], secret: 'whsec_one' });
    app.clock.advance(1);
    await createHook(app, s.key, s.base, { payloadUrl: `${ep.url}?second`, isEnabled: false });
    const hooks = await listHooks(app, s.key, s.base);
    expect(hooks).toEqual([
      { id: 'primary', payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'], isEnabled: true, autoDisabledDueToFailures: false, failureCount: 0, lastFailureAt: null },
      { id: expect.stringMatching(/^[a-z0-9]{20}$/), payloadUrl: `${ep.url}?second`, events: [], isEnabled: false, autoDisabledDueToFailures: false, failureCount: 0, lastFailureAt: null },
    ]);
    expect(JSON.stringify(hooks)).not.toContain('whsec_one');
  });

  it('answers an empty list for a program without webhooks', async () => {
    const s = await setup();
    expect(await listHooks(app, s.key, s.base)).toEqual([]);
  });

  it('answers 403 without program:read and for a key not granted the program', async () => {
    const s = await setup();
    const noScope = await keyWith(app, s.teamId, ['participant:read']);
    const denied = await app.request('GET', s.base, { key: noScope });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/program:read/);
    const other = await newProgram(app, s.key);
    const limited = await keyWith(app, s.teamId, ['program:read', 'program:write'], [other.id]);
    expect((await app.request('GET', s.base, { key: limited })).status).toBe(403);
    expect((await app.request('GET', `/v2/campaign/${other.id}/webhooks`, { key: limited })).status).toBe(200);
  });

  it('answers 404 for an unknown program', async () => {
    const s = await setup();
    const res = await app.request('GET', '/v2/campaign/nosuchprogram/webhooks', { key: s.key });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND_ERROR');
  });
});

describe('POST /campaign/{id}/webhooks', () => {
  it('creates the primary webhook enabled, deduplicates events and never returns the secret', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    const res = await app.request('POST', s.base, { key: s.key, body: { payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED', 'CAMPAIGN_ENDED', 'NEW_PARTICIPANT_ADDED'], secret: 'whsec_create' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'primary', payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED', 'CAMPAIGN_ENDED'], isEnabled: true, autoDisabledDueToFailures: false, failureCount: 0, lastFailureAt: null });
    expect(res.text).not.toContain('whsec_create');
  });

  it('stores the secret sealed, never in plain text', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url, secret: 'whsec_sealed_value' });
    const row = await app.deps.db.knex('webhooks').where({ program_id: s.program.id, id: 'primary' }).first();
    expect(row.secret_enc).toBeTruthy();
    expect(row.secret_enc).not.toContain('whsec_sealed_value');
    expect(app.deps.sealer.open(row.secret_enc)).toBe('whsec_sealed_value');
  });

  it('rejects a missing payloadUrl, a non-http URL, unknown events and read-only fields', async () => {
    const s = await setup();
    const missing = await app.request('POST', s.base, { key: s.key, body: { events: [] } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toContainEqual(expect.objectContaining({ field: 'payloadUrl', code: 'REQUIRED' }));
    const ftp = await app.request('POST', s.base, { key: s.key, body: { payloadUrl: 'ftp://example.com/hook' } });
    expect(ftp.status).toBe(400);
    expect(ftp.body.errors[0].field).toBe('payloadUrl');
    const badEvent = await app.request('POST', s.base, { key: s.key, body: { payloadUrl: receiver.endpoint().url, events: ['PARTICIPANT_DELETED'] } });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.errors[0].field).toBe('events.0');
    const readOnly = await app.request('POST', s.base, { key: s.key, body: { payloadUrl: receiver.endpoint().url, failureCount: 0 } });
    expect(readOnly.status).toBe(400);
    expect(readOnly.body.errors[0]).toMatchObject({ field: 'failureCount', code: 'UNKNOWN_FIELD' });
    const emptySecret = await app.request('POST', s.base, { key: s.key, body: { payloadUrl: receiver.endpoint().url, secret: '' } });
    expect(emptySecret.status).toBe(400);
    expect(await listHooks(app, s.key, s.base)).toEqual([]);
  });

  it('refuses an eleventh webhook for one program (400, like other per-program caps)', async () => {
    const s = await setup();
    for (let i = 0; i < 10; i++) await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const res = await app.request('POST', s.base, { key: s.key, body: { payloadUrl: receiver.endpoint().url } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/at most 10 webhooks/);
  });

  it('answers 403 without program:write and for a key not granted the program', async () => {
    const s = await setup();
    const readOnly = await keyWith(app, s.teamId, ['program:read']);
    const denied = await app.request('POST', s.base, { key: readOnly, body: { payloadUrl: receiver.endpoint().url } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/program:write/);
    const other = await newProgram(app, s.key);
    const limited = await keyWith(app, s.teamId, ['program:read', 'program:write'], [other.id]);
    expect((await app.request('POST', s.base, { key: limited, body: { payloadUrl: receiver.endpoint().url } })).status).toBe(403);
    const foreign = await verifiedAccount(app);
    expect((await app.request('POST', s.base, { key: foreign.key, body: { payloadUrl: receiver.endpoint().url } })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const s = await setup();
    expect((await app.request('POST', '/v2/campaign/nosuchprogram/webhooks', { key: s.key, body: { payloadUrl: receiver.endpoint().url } })).status).toBe(404);
  });
});

describe('PATCH /campaign/{id}/webhooks/{webhookId}', () => {
  it('changes only the sent fields and keeps the secret', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'], secret: 'whsec_keep' });
    const res = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { events: ['NEW_PAYOUT_ISSUED'], isEnabled: false } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'primary', payloadUrl: ep.url, events: ['NEW_PAYOUT_ISSUED'], isEnabled: false, autoDisabledDueToFailures: false, failureCount: 0, lastFailureAt: null });
    const row = await app.deps.db.knex('webhooks').where({ program_id: s.program.id, id: 'primary' }).first();
    expect(app.deps.sealer.open(row.secret_enc)).toBe('whsec_keep');
    const moved = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { payloadUrl: `${ep.url}?v=2`, secret: 'whsec_new' } });
    expect(moved.body).toMatchObject({ payloadUrl: `${ep.url}?v=2`, events: ['NEW_PAYOUT_ISSUED'], isEnabled: false });
    expect(moved.text).not.toContain('whsec_new');
  });

  it('rejects an empty body, unknown fields and read-only fields', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const empty = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: {} });
    expect(empty.status).toBe(400);
    const ro = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { autoDisabledDueToFailures: false } });
    expect(ro.status).toBe(400);
    expect(ro.body.errors[0]).toMatchObject({ field: 'autoDisabledDueToFailures', code: 'UNKNOWN_FIELD' });
    const badUrl = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { payloadUrl: 'not a url' } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.errors[0].field).toBe('payloadUrl');
  });

  it('answers 403 without program:write', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const readOnly = await keyWith(app, s.teamId, ['program:read']);
    expect((await app.request('PATCH', `${s.base}/primary`, { key: readOnly, body: { isEnabled: false } })).status).toBe(403);
  });

  it('answers 404 for an unknown webhook', async () => {
    const s = await setup();
    const res = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { isEnabled: false } });
    expect(res.status).toBe(404);
  });
});

describe('DELETE /campaign/{id}/webhooks/{webhookId}', () => {
  it('deletes the webhook and answers {id, success}; the next webhook created is primary again', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const res = await app.request('DELETE', `${s.base}/primary`, { key: s.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'primary', success: true });
    expect(await listHooks(app, s.key, s.base)).toEqual([]);
    expect((await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url })).id).toBe('primary');
  });

  it('has no input to validate: a body sent with it is ignored, as DELETE bodies are everywhere in the API', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const res = await app.request('DELETE', `${s.base}/primary`, { key: s.key, body: { force: true } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'primary', success: true });
  });

  it('answers 403 without program:write', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const readOnly = await keyWith(app, s.teamId, ['program:read']);
    expect((await app.request('DELETE', `${s.base}/primary`, { key: readOnly })).status).toBe(403);
  });

  it('answers 404 for an unknown webhook', async () => {
    const s = await setup();
    expect((await app.request('DELETE', `${s.base}/nosuchhook`, { key: s.key })).status).toBe(404);
  });
});

describe('POST /campaign/{id}/webhooks/{webhookId}/test', () => {
  it('sends a signed mock delivery, returns the receiver’s reply, and the docs snippet verifies the signature', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    ep.replies.push({ status: 200, body: 'thanks' });
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED'], secret: 'whsec_test_secret' });
    const res = await app.request('POST', `${s.base}/primary/test`, { key: s.key, body: { event: 'CAMPAIGN_ENDED' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      payload: { event: 'CAMPAIGN_ENDED', createdAt: app.clock.now(), data: { campaign: expect.objectContaining({ id: s.program.id, name: 'Spring' }) } },
      response: { msg: 'thanks', statusCode: 200 },
    });
    expect(ep.requests).toHaveLength(1);
    const [got] = ep.requests;
    expect(JSON.parse(got!.body)).toEqual(res.body.payload);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toBe('refloop-webhooks/1');
    expect(got!.headers['growsurf-event']).toBe('CAMPAIGN_ENDED');
    expect(got!.headers['growsurf-delivery-id']).toMatch(/^[a-z0-9]{20}$/);
    expect(got!.headers.host).toBe(new URL(ep.url).host);
    const header = got!.headers['growsurf-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const now = Math.floor(app.clock.now() / 1000);
    expect(verifySignature(got!.body, header, 'whsec_test_secret', now)).toBe(true);
    expect(verifySignature(got!.body, header, 'wrong secret', now)).toBe(false);
    expect(verifySignature(got!.body.replace('Spring', 'Sprinh'), header, 'whsec_test_secret', now)).toBe(false);
    expect(verifySignature(got!.body, header, 'whsec_test_secret', now + 301)).toBe(false);
    // Logged as a test delivery.
    const log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries).toEqual([
      expect.objectContaining({ id: got!.headers['growsurf-delivery-id'], event: 'CAMPAIGN_ENDED', status: 'SUCCEEDED', test: true, attemptCount: 1, lastAttempt: expect.objectContaining({ statusCode: 200, responseBody: 'thanks', error: null }) }),
    ]);
  });

  it('shapes the test payloads like real events: NEW_PARTICIPANT_ADDED at the top of data, a combined reward, no rewards lists', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED', 'PARTICIPANT_REACHED_A_GOAL'] });
    const added = await app.request('POST', `${s.base}/primary/test`, { key: s.key, body: { event: 'NEW_PARTICIPANT_ADDED' } });
    expect(added.body.payload.data).toMatchObject({ id: 'test_participant', email: 'test.participant@example.com', campaign: { id: s.program.id } });
    expect(added.body.payload.data).not.toHaveProperty('participant');
    const goal = await app.request('POST', `${s.base}/primary/test`, { key: s.key, body: { event: 'PARTICIPANT_REACHED_A_GOAL' } });
    expect(goal.body.payload.data).toMatchObject({ participant: { id: 'test_participant' }, reward: { id: 'test_reward', rewardId: 'test_reward_config', couponCode: 'TEST-COUPON', approved: false } });
    expect(goal.body.payload.data.participant).not.toHaveProperty('rewards');
  });

  it('defaults to the webhook’s first event, omits the signature without a secret, and answers 400 with no events', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['NEW_COMMISSION_ADDED', 'CAMPAIGN_ENDED'] });
    const res = await app.request('POST', `${s.base}/primary/test`, { key: s.key });
    expect(res.status).toBe(200);
    expect(res.body.payload.event).toBe('NEW_COMMISSION_ADDED');
    expect(res.body.payload.data).toEqual({
      campaign: expect.objectContaining({ id: s.program.id }),
      participant: expect.objectContaining({ id: 'test_participant' }),
      commission: expect.objectContaining({ id: 'test_commission', currencyISO: 'USD' }),
    });
    expect(ep.requests[0]!.headers['growsurf-signature']).toBeUndefined();
    const none = await createHook(app, s.key, s.base, { payloadUrl: ep.url });
    const bad = await app.request('POST', `${s.base}/${none.id}/test`, { key: s.key, body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ field: 'event', code: 'REQUIRED' });
  });

  it('rejects an unknown event', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url, events: ['CAMPAIGN_ENDED'] });
    const res = await app.request('POST', `${s.base}/primary/test`, { key: s.key, body: { event: 'SOMETHING_ELSE' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('event');
  });

  it('reports a failing receiver without counting it toward auto-disable', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    ep.replies.push({ status: 500, body: 'receiver broke' });
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'] });
    const res = await app.request('POST', `${s.base}/primary/test`, { key: s.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, response: { msg: 'receiver broke', statusCode: 500 } });
    expect((await listHooks(app, s.key, s.base))[0]).toMatchObject({ failureCount: 0, lastFailureAt: null, isEnabled: true });
  });

  it('answers 403 without program:write', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url, events: ['CAMPAIGN_ENDED'] });
    const readOnly = await keyWith(app, s.teamId, ['program:read']);
    expect((await app.request('POST', `${s.base}/primary/test`, { key: readOnly })).status).toBe(403);
  });

  it('answers 404 for an unknown webhook', async () => {
    const s = await setup();
    expect((await app.request('POST', `${s.base}/primary/test`, { key: s.key })).status).toBe(404);
  });
});

describe('webhook delivery', () => {
  it('delivers CAMPAIGN_ENDED with the ended program when the jobs run', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'], secret: 'whsec_ended' });
    const ended = await endProgram(app, s.key, s.program.id);
    expect(ep.requests).toHaveLength(0);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(1);
    const body = JSON.parse(ep.requests[0]!.body);
    expect(body).toEqual({ event: 'CAMPAIGN_ENDED', createdAt: app.clock.now(), data: { campaign: ended } });
    expect(body.data.campaign.status).toBe('COMPLETE');
    expect(verifySignature(ep.requests[0]!.body, ep.requests[0]!.headers['growsurf-signature'] as string, 'whsec_ended', Math.floor(app.clock.now() / 1000))).toBe(true);
    const log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries[0]).toMatchObject({ id: ep.requests[0]!.headers['growsurf-delivery-id'], status: 'SUCCEEDED', test: false, attemptCount: 1, nextAttemptAt: null });
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(1);
  });

  it('does not deliver to webhooks that are disabled or not subscribed', async () => {
    const s = await setup();
    const other = receiver.endpoint();
    const off = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: other.url, events: ['NEW_PARTICIPANT_ADDED'] });
    await createHook(app, s.key, s.base, { payloadUrl: off.url, events: ['CAMPAIGN_ENDED'], isEnabled: false });
    await endProgram(app, s.key, s.program.id);
    await app.deps.jobs.runDue();
    expect(other.requests).toHaveLength(0);
    expect(off.requests).toHaveLength(0);
  });

  it('skips a queued delivery whose webhook was disabled before its turn', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'] });
    await endProgram(app, s.key, s.program.id);
    await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { isEnabled: false } });
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(0);
    expect((await deliveries(app, s.key, s.base, 'primary')).deliveries[0]).toMatchObject({ status: 'SKIPPED', attemptCount: 0 });
  });

  it('retries a failing receiver after the backoff with the same delivery id, and a success resets failureCount', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    ep.replies.push({ status: 500, body: 'down' }, { status: 503, body: 'still down' });
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'], secret: 'whsec_retry' });
    await endProgram(app, s.key, s.program.id);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(1);
    const failedAt = app.clock.now();
    expect((await listHooks(app, s.key, s.base))[0]).toMatchObject({ failureCount: 1, lastFailureAt: failedAt, isEnabled: true });
    let log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries[0]).toMatchObject({ status: 'PENDING', attemptCount: 1, nextAttemptAt: failedAt + RETRY_DELAYS_MS[0]!, lastAttempt: { attempt: 1, at: failedAt, statusCode: 500, responseBody: 'down', error: 'HTTP 500', durationMs: expect.any(Number) } });
    // Not before the backoff has passed.
    app.clock.advance(RETRY_DELAYS_MS[0]! - 1);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(1);
    app.clock.advance(1);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(2);
    expect((await listHooks(app, s.key, s.base))[0]).toMatchObject({ failureCount: 2 });
    app.clock.advance(RETRY_DELAYS_MS[1]!);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(3);
    const ids = new Set(ep.requests.map((r) => r.headers['growsurf-delivery-id']));
    expect(ids.size).toBe(1);
    // Each attempt is signed afresh with its own timestamp.
    const last = ep.requests[2]!;
    expect(verifySignature(last.body, last.headers['growsurf-signature'] as string, 'whsec_retry', Math.floor(app.clock.now() / 1000))).toBe(true);
    expect((await listHooks(app, s.key, s.base))[0]).toMatchObject({ failureCount: 0, lastFailureAt: expect.any(Number), isEnabled: true });
    log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries[0]).toMatchObject({ status: 'SUCCEEDED', attemptCount: 3, completedAt: app.clock.now(), lastAttempt: { attempt: 3, statusCode: 200 } });
    const attempts = await app.deps.db.knex('webhook_delivery_attempts').where({ delivery_id: log.deliveries[0]!.id }).orderBy('attempt');
    expect(attempts.map((a: any) => [Number(a.attempt), a.status_code == null ? null : Number(a.status_code)])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ]);
  });

  it(`switches the webhook off when one delivery has failed all ${AUTO_DISABLE_AFTER_FAILURES} attempts over about a day, and re-enabling clears the counters`, async () => {
    expect(RETRY_DELAYS_MS).toHaveLength(MAX_DELIVERY_ATTEMPTS - 1);
    const span = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(span).toBeGreaterThan(23 * 3600_000);
    expect(span).toBeLessThan(25 * 3600_000);
    const s = await setup();
    const ep = receiver.endpoint();
    for (let i = 0; i < AUTO_DISABLE_AFTER_FAILURES; i++) ep.replies.push({ status: 500 });
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'] });
    await endProgram(app, s.key, s.program.id);
    for (let attempt = 1; attempt <= AUTO_DISABLE_AFTER_FAILURES; attempt++) {
      await app.deps.jobs.runDue();
      expect(ep.requests).toHaveLength(attempt);
      const [hook] = await listHooks(app, s.key, s.base);
      if (attempt < AUTO_DISABLE_AFTER_FAILURES) {
        expect(hook).toMatchObject({ isEnabled: true, autoDisabledDueToFailures: false, failureCount: attempt });
        app.clock.advance(RETRY_DELAYS_MS[attempt - 1]!);
      }
    }
    const [hook] = await listHooks(app, s.key, s.base);
    expect(hook).toEqual({ id: 'primary', payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'], isEnabled: false, autoDisabledDueToFailures: true, failureCount: 15, lastFailureAt: app.clock.now() });
    const log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries[0]).toMatchObject({ status: 'FAILED', attemptCount: 15, nextAttemptAt: null });
    app.clock.advance(24 * 3600_000);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(15);
    const enabled = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { isEnabled: true } });
    expect(enabled.body).toMatchObject({ isEnabled: true, autoDisabledDueToFailures: false, failureCount: 0, lastFailureAt: hook!.lastFailureAt });
  });

  it('issue #20: keeps a webhook on through a sub-second burst of 503s and delivers every event on the first retry', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED'] });
    const events = 3 * AUTO_DISABLE_AFTER_FAILURES;
    for (let i = 0; i < events; i++) ep.replies.push({ status: 503 });
    await app.deps.db.knex.transaction(async (trx) => {
      for (let i = 0; i < events; i++) await app.deps.webhooks.emit(trx, s.program.id, 'NEW_PARTICIPANT_ADDED', { id: `p${i}`, campaign: { id: s.program.id } });
    });
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(events);
    expect((await listHooks(app, s.key, s.base))[0]).toMatchObject({ isEnabled: true, autoDisabledDueToFailures: false, failureCount: events, lastFailureAt: app.clock.now() });
    app.clock.advance(RETRY_DELAYS_MS[0]!);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(2 * events);
    const log = await deliveries(app, s.key, s.base, 'primary', '?limit=100');
    expect(log.deliveries).toHaveLength(events);
    expect(log.deliveries.every((d: any) => d.status === 'SUCCEEDED' && d.attemptCount === 2)).toBe(true);
    expect((await listHooks(app, s.key, s.base))[0]).toMatchObject({ isEnabled: true, autoDisabledDueToFailures: false, failureCount: 0 });
  });

  it(`issue #20: switches a webhook off after ${AUTO_DISABLE_FAILING_FOR_MS / 3600_000} hours of failures, holds its backlog PENDING and sends it when it is switched back on`, async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED'] });
    for (let i = 0; i < 200; i++) ep.replies.push({ status: 500 });
    const emit = (id: string) => app.deps.db.knex.transaction((trx) => app.deps.webhooks.emit(trx, s.program.id, 'NEW_PARTICIPANT_ADDED', { id, campaign: { id: s.program.id } }));
    for (const id of ['p1', 'p2', 'p3']) await emit(id);
    const started = app.clock.now();
    await app.deps.jobs.runDue();
    let hook = (await listHooks(app, s.key, s.base))[0]!;
    // Round n of attempts comes after the first n − 1 retry gaps; all three deliveries fail together.
    for (let round = 2; hook.isEnabled; round++) {
      app.clock.advance(RETRY_DELAYS_MS[round - 2]!);
      await app.deps.jobs.runDue();
      hook = (await listHooks(app, s.key, s.base))[0]!;
      const failingFor = app.clock.now() - started;
      if (failingFor < AUTO_DISABLE_FAILING_FOR_MS) expect(hook.isEnabled, `round ${round}`).toBe(true);
    }
    expect(app.clock.now() - started).toBeGreaterThanOrEqual(AUTO_DISABLE_FAILING_FOR_MS);
    expect(hook).toEqual({ id: 'primary', payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED'], isEnabled: false, autoDisabledDueToFailures: true, failureCount: expect.any(Number), lastFailureAt: app.clock.now() });
    expect(hook.failureCount).toBeGreaterThanOrEqual(AUTO_DISABLE_AFTER_FAILURES);
    const sentBeforeOff = ep.requests.length;

    // Off: nothing is attempted, nothing is failed, new events are not queued for it.
    await emit('p4');
    app.clock.advance(3 * 86_400_000);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(sentBeforeOff);
    let log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries.map((d: any) => [d.payload.data.id, d.status, d.nextAttemptAt])).toEqual([
      ['p3', 'PENDING', null],
      ['p2', 'PENDING', null],
      ['p1', 'PENDING', null],
    ]);
    const attemptsBefore = log.deliveries.map((d: any) => d.attemptCount);

    // Fixed and switched back on: the backlog goes out now, once each.
    ep.replies.length = 0;
    const on = await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { isEnabled: true } });
    expect(on.body).toMatchObject({ isEnabled: true, autoDisabledDueToFailures: false, failureCount: 0 });
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(sentBeforeOff + 3);
    log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries.map((d: any) => [d.status, d.attemptCount])).toEqual(attemptsBefore.map((n: number) => ['SUCCEEDED', n + 1]));
    app.clock.advance(2 * 86_400_000);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(sentBeforeOff + 3);
  });

  it('issue #20: a change to the webhook starts its 12 hours of failures again', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED'] });
    for (let i = 0; i < 200; i++) ep.replies.push({ status: 500 });
    for (const id of ['p1', 'p2']) await app.deps.db.knex.transaction((trx) => app.deps.webhooks.emit(trx, s.program.id, 'NEW_PARTICIPANT_ADDED', { id, campaign: { id: s.program.id } }));
    const started = app.clock.now();
    await app.deps.jobs.runDue();
    let patchedAt = 0;
    for (let round = 2; round <= MAX_DELIVERY_ATTEMPTS; round++) {
      app.clock.advance(RETRY_DELAYS_MS[round - 2]!);
      if (!patchedAt && app.clock.now() - started > AUTO_DISABLE_FAILING_FOR_MS - 3600_000) {
        expect((await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { events: ['NEW_PARTICIPANT_ADDED'] } })).status).toBe(200);
        patchedAt = app.clock.now();
      }
      await app.deps.jobs.runDue();
      const [hook] = await listHooks(app, s.key, s.base);
      // Failing for more than 12 hours since the first failure, but not since the change.
      const sincePatch = patchedAt ? app.clock.now() - patchedAt : app.clock.now() - started;
      expect(hook!.isEnabled, `round ${round}`).toBe(sincePatch < AUTO_DISABLE_FAILING_FOR_MS);
    }
    expect(app.clock.now() - started).toBeGreaterThan(AUTO_DISABLE_FAILING_FOR_MS + 3600_000);
  });

  it('sends nothing for an event emitted in a transaction that rolls back', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['NEW_PARTICIPANT_ADDED'] });
    const data = { campaign: { id: s.program.id }, participant: { id: 'p1', email: 'p1@example.com' } };
    await expect(
      app.deps.db.knex.transaction(async (trx) => {
        await app.deps.webhooks.emit(trx, s.program.id, 'NEW_PARTICIPANT_ADDED', data);
        throw new Error('the participant insert failed');
      }),
    ).rejects.toThrow('the participant insert failed');
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(0);
    expect((await deliveries(app, s.key, s.base, 'primary')).deliveries).toEqual([]);
    // The same emit committed is delivered.
    await app.deps.db.knex.transaction((trx) => app.deps.webhooks.emit(trx, s.program.id, 'NEW_PARTICIPANT_ADDED', data));
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(1);
    expect(JSON.parse(ep.requests[0]!.body)).toEqual({ event: 'NEW_PARTICIPANT_ADDED', createdAt: app.clock.now(), data });
  });

  it('delivers after a restart: emitted by one server, delivered by the next on the same database', async () => {
    const db = await freshDatabase();
    try {
      const first = await startApp(PRIVATE, { databaseUrl: db.url });
      const ep = receiver.endpoint();
      let s: Awaited<ReturnType<typeof setup>>;
      try {
        s = await setup(first);
        await createHook(first, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'], secret: 'whsec_restart' });
        await endProgram(first, s.key, s.program.id);
      } finally {
        await first.close();
      }
      expect(ep.requests).toHaveLength(0);
      const second = await startApp(PRIVATE, { databaseUrl: db.url });
      try {
        await second.deps.jobs.runDue();
        expect(ep.requests).toHaveLength(1);
        const got = ep.requests[0]!;
        expect(JSON.parse(got.body)).toMatchObject({ event: 'CAMPAIGN_ENDED', data: { campaign: { id: s.program.id, status: 'COMPLETE' } } });
        expect(verifySignature(got.body, got.headers['growsurf-signature'] as string, 'whsec_restart', Math.floor(second.clock.now() / 1000))).toBe(true);
      } finally {
        await second.close();
      }
    } finally {
      await db.cleanup();
    }
  });
});

describe('target address guard', () => {
  it('refuses 127.0.0.1, localhost and metadata addresses with a field error when WEBHOOK_ALLOW_PRIVATE is not set', async () => {
    const guarded = await startApp();
    try {
      const s = await setup(guarded);
      for (const url of [receiver.endpoint().url, 'http://localhost:9/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/', 'http://[::ffff:10.0.0.1]/']) {
        const res = await guarded.request('POST', s.base, { key: s.key, body: { payloadUrl: url } });
        expect(res.status, url).toBe(400);
        expect(res.body.errors[0], url).toMatchObject({ field: 'payloadUrl', code: 'PRIVATE_ADDRESS' });
      }
      const unresolvable = await guarded.request('POST', s.base, { key: s.key, body: { payloadUrl: 'http://no-such-host.invalid/hook' } });
      expect(unresolvable.status).toBe(400);
      expect(unresolvable.body.errors[0]).toMatchObject({ field: 'payloadUrl', code: 'UNRESOLVABLE' });
      expect(await listHooks(guarded, s.key, s.base)).toEqual([]);
    } finally {
      await guarded.close();
    }
  });

  it('checks again at delivery time: a webhook saved while private targets were allowed is refused later', async () => {
    const db = await freshDatabase();
    try {
      const ep = receiver.endpoint();
      const permissive = await startApp(PRIVATE, { databaseUrl: db.url });
      let s: Awaited<ReturnType<typeof setup>>;
      try {
        s = await setup(permissive);
        await createHook(permissive, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'] });
        await endProgram(permissive, s.key, s.program.id);
      } finally {
        await permissive.close();
      }
      const strict = await startApp({}, { databaseUrl: db.url });
      try {
        await strict.deps.jobs.runDue();
        expect(ep.requests).toHaveLength(0);
        const log = await deliveries(strict, s.key, s.base, 'primary');
        expect(log.deliveries[0]).toMatchObject({ status: 'PENDING', attemptCount: 1, lastAttempt: { statusCode: null, error: expect.stringMatching(/^Refused: .*127\.0\.0\.1/) } });
        expect((await listHooks(strict, s.key, s.base))[0]).toMatchObject({ failureCount: 1 });
      } finally {
        await strict.close();
      }
    } finally {
      await db.cleanup();
    }
  });

  it('classifies private, loopback, link-local, CGNAT, metadata, multicast and embedded IPv4 addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fc00::1', 'fd00:ec2::254', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', '2002:c0a8:101::1', 'not-an-ip']) {
      expect(isForbiddenAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(isForbiddenAddress(ip), ip).toBe(false);
    }
  });

  it('refuses a name with any private answer, requires https in production, and pins the first public address', async () => {
    const policy = { allowPrivate: false, requireHttps: false };
    const mixed = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await expect(checkTarget('https://rebind.example/hook', { ...policy, lookup: mixed })).rejects.toMatchObject({ code: 'PRIVATE_ADDRESS' });
    await expect(checkTarget('http://public.example/hook', { ...policy, requireHttps: true, lookup: async () => [{ address: '93.184.215.14', family: 4 }] })).rejects.toMatchObject({ code: 'HTTPS_REQUIRED' });
    const target = await checkTarget('https://public.example/hook', { ...policy, lookup: async () => [{ address: '93.184.215.14', family: 4 }] });
    expect(target).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(target.url.host).toBe('public.example');
    await expect(checkTarget('file:///etc/passwd', policy)).rejects.toMatchObject({ code: 'INVALID_URL' });
  });
});

describe('GET /campaign/{id}/webhooks/{webhookId}/deliveries', () => {
  it('pages the log newest first with limit and nextId', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED', 'NEW_PARTICIPANT_ADDED'] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      await app.request('POST', `${s.base}/primary/test`, { key: s.key });
      ids.unshift(ep.requests[i]!.headers['growsurf-delivery-id'] as string);
      app.clock.advance(1000);
    }
    const page1 = await deliveries(app, s.key, s.base, 'primary', '?limit=2');
    expect(page1.limit).toBe(2);
    expect(page1.deliveries.map((d) => d.id)).toEqual(ids.slice(0, 2));
    expect(page1.nextId).toBe(ids[2]);
    const page2 = await deliveries(app, s.key, s.base, 'primary', `?limit=2&nextId=${page1.nextId}`);
    expect(page2.deliveries.map((d) => d.id)).toEqual([ids[2]]);
    expect(page2.nextId).toBeNull();
    expect(page2.deliveries[0]).toMatchObject({ webhookId: 'primary', event: 'CAMPAIGN_ENDED', payload: { event: 'CAMPAIGN_ENDED' }, replayOf: null });
    expect((await deliveries(app, s.key, s.base, 'primary')).limit).toBe(20);
  });

  it('rejects a limit out of range and an unknown nextId', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const zero = await app.request('GET', `${s.base}/primary/deliveries?limit=0`, { key: s.key });
    expect(zero.status).toBe(400);
    expect(zero.body.errors[0].field).toBe('query.limit');
    expect((await app.request('GET', `${s.base}/primary/deliveries?limit=101`, { key: s.key })).status).toBe(400);
    const cursor = await app.request('GET', `${s.base}/primary/deliveries?nextId=nosuchdelivery`, { key: s.key });
    expect(cursor.status).toBe(400);
    expect(cursor.body.errors[0].field).toBe('query.nextId');
  });

  it('answers 403 without program:read', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    const noScope = await keyWith(app, s.teamId, ['participant:read']);
    expect((await app.request('GET', `${s.base}/primary/deliveries`, { key: noScope })).status).toBe(403);
  });

  it('answers 404 for an unknown webhook', async () => {
    const s = await setup();
    expect((await app.request('GET', `${s.base}/primary/deliveries`, { key: s.key })).status).toBe(404);
  });
});

describe('POST /campaign/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/replay', () => {
  it('queues a finished delivery again under a new delivery id with the same envelope', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'] });
    await endProgram(app, s.key, s.program.id);
    await app.deps.jobs.runDue();
    const [original] = (await deliveries(app, s.key, s.base, 'primary')).deliveries;
    const res = await app.request('POST', `${s.base}/primary/deliveries/${original!.id}/replay`, { key: s.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'PENDING', replayOf: original!.id, attemptCount: 0, payload: original!.payload, test: false });
    expect(res.body.id).not.toBe(original!.id);
    await app.deps.jobs.runDue();
    expect(ep.requests).toHaveLength(2);
    expect(ep.requests[1]!.body).toBe(ep.requests[0]!.body);
    expect(ep.requests[1]!.headers['growsurf-delivery-id']).toBe(res.body.id);
    const log = await deliveries(app, s.key, s.base, 'primary');
    expect(log.deliveries.map((d) => [d.id, d.status])).toEqual([
      [res.body.id, 'SUCCEEDED'],
      [original!.id, 'SUCCEEDED'],
    ]);
  });

  it('refuses a pending delivery, a disabled webhook and a test delivery (406), and a body with fields (400)', async () => {
    const s = await setup();
    const ep = receiver.endpoint();
    ep.replies.push({ status: 500 });
    await createHook(app, s.key, s.base, { payloadUrl: ep.url, events: ['CAMPAIGN_ENDED'] });
    await endProgram(app, s.key, s.program.id);
    await app.deps.jobs.runDue();
    const [pending] = (await deliveries(app, s.key, s.base, 'primary')).deliveries;
    expect(pending!.status).toBe('PENDING');
    const busy = await app.request('POST', `${s.base}/primary/deliveries/${pending!.id}/replay`, { key: s.key });
    expect(busy.status).toBe(406);
    const withBody = await app.request('POST', `${s.base}/primary/deliveries/${pending!.id}/replay`, { key: s.key, body: { now: true } });
    expect(withBody.status).toBe(400);
    await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { isEnabled: false } });
    app.clock.advance(RETRY_DELAYS_MS[0]!);
    await app.deps.jobs.runDue();
    const [skipped] = (await deliveries(app, s.key, s.base, 'primary')).deliveries;
    expect(skipped!.status).toBe('SKIPPED');
    const disabled = await app.request('POST', `${s.base}/primary/deliveries/${skipped!.id}/replay`, { key: s.key });
    expect(disabled.status).toBe(406);
    await app.request('PATCH', `${s.base}/primary`, { key: s.key, body: { isEnabled: true } });
    await app.request('POST', `${s.base}/primary/test`, { key: s.key });
    const [test] = (await deliveries(app, s.key, s.base, 'primary')).deliveries;
    expect(test!.test).toBe(true);
    const replayTest = await app.request('POST', `${s.base}/primary/deliveries/${test!.id}/replay`, { key: s.key });
    expect(replayTest.status).toBe(406);
    expect(replayTest.body.message).toMatch(/send a new test/);
  });

  it('answers 403 without program:write', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url, events: ['CAMPAIGN_ENDED'] });
    await app.request('POST', `${s.base}/primary/test`, { key: s.key });
    const [d] = (await deliveries(app, s.key, s.base, 'primary')).deliveries;
    const readOnly = await keyWith(app, s.teamId, ['program:read']);
    expect((await app.request('POST', `${s.base}/primary/deliveries/${d!.id}/replay`, { key: readOnly })).status).toBe(403);
  });

  it('answers 404 for an unknown delivery', async () => {
    const s = await setup();
    await createHook(app, s.key, s.base, { payloadUrl: receiver.endpoint().url });
    expect((await app.request('POST', `${s.base}/primary/deliveries/nosuchdelivery/replay`, { key: s.key })).status).toBe(404);
  });
});

describe('GrowSurf-Signature', () => {
  it('verifies for any body and secret, and fails for any other body (property)', () => {
    const nonEmpty = fc.string({ minLength: 1, maxLength: 64 });
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), nonEmpty, fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }), (body, secret, t) => {
        const header = signatureHeader(secret, t, body);
        expect(verifySignature(body, header, secret, t)).toBe(true);
        expect(verifySignature(`${body}x`, header, secret, t)).toBe(false);
        expect(verifySignature(body, header, secret, t + 301)).toBe(false);
      }),
    );
  });

  it('rejects malformed headers', () => {
    for (const header of [undefined, '', 't=abc,v1=00', 'v1=' + '0'.repeat(64), `t=1700000000,v1=${'g'.repeat(64)}`, 't=1700000000']) {
      expect(verifySignature('{}', header, 'secret', 1_700_000_000)).toBe(false);
    }
  });
});

describe('webhook log retention (maintenance)', () => {
  it('prunes events older than 30 days with their deliveries once none is pending, and keeps pending ones', async () => {
    const app = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    try {
      const acct = await verifiedAccount(app);
      const program = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body;
      const hook = await app.request('POST', `/v2/campaign/${program.id}/webhooks`, { key: acct.key, body: { payloadUrl: 'http://127.0.0.1:9/hook', events: ['CAMPAIGN_ENDED'] } });
      expect(hook.status, hook.text).toBe(200);
      await app.request('PATCH', `/v2/campaign/${program.id}`, { key: acct.key, body: { status: 'IN_PROGRESS' } });
      await app.request('PATCH', `/v2/campaign/${program.id}`, { key: acct.key, body: { status: 'COMPLETE' } });
      const { knex } = app.deps.db;
      expect(await knex('webhook_events')).toHaveLength(1);
      app.clock.advance(31 * 86_400_000);
      // Still pending: kept.
      await app.deps.maintenance.prune();
      expect(await knex('webhook_events')).toHaveLength(1);
      await knex('webhook_deliveries').update({ status: 'SUCCEEDED', completed_at: app.clock.now() });
      await app.deps.maintenance.prune();
      expect(await knex('webhook_events')).toHaveLength(0);
      expect(await knex('webhook_deliveries')).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});
