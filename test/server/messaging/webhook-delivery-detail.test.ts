import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { RETRY_DELAYS_MS } from '../../../server/domain/messaging/webhook-delivery.ts';

// W8, our delivery-log extension (issue #23: the console's delivery log shows every attempt of a
// delivery with its status and reply excerpt). Receivers are real HTTP servers on 127.0.0.1.

let app: TestApp;
let replies: Array<{ status: number; body: string }> = [];
let received = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    const r = replies.shift() ?? { status: 200, body: 'ok' };
    res.writeHead(r.status, { 'content-type': 'text/plain' }).end(r.body);
  });
});
let hookUrl = '';

beforeAll(async () => {
  app = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
});
afterAll(async () => {
  await app.close();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
});

/** A verified team with a program, a webhook on CAMPAIGN_ENDED and one delivery queued by ending the program. */
async function endedProgramWithHook() {
  const acct = await verifiedAccount(app);
  const program = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', name: 'Autumn' } })).body as { id: string };
  const base = `/v2/campaign/${program.id}/webhooks`;
  expect((await app.request('POST', base, { key: acct.key, body: { payloadUrl: hookUrl, events: ['CAMPAIGN_ENDED'] } })).status).toBe(200);
  expect((await app.request('PATCH', `/v2/campaign/${program.id}`, { key: acct.key, body: { status: 'IN_PROGRESS' } })).status).toBe(200);
  expect((await app.request('PATCH', `/v2/campaign/${program.id}`, { key: acct.key, body: { status: 'COMPLETE' } })).status).toBe(200);
  return { ...acct, program, base };
}

describe('GET /campaign/{id}/webhooks/{webhookId}/deliveries/{deliveryId}', () => {
  it('returns the delivery with every attempt oldest first, each with its status code and reply excerpt', async () => {
    const s = await endedProgramWithHook();
    replies = [{ status: 503, body: 'busy, try later' }];
    const before = received;
    await app.deps.jobs.runDue();
    app.clock.advance(RETRY_DELAYS_MS[0]!);
    await app.deps.jobs.runDue();
    expect(received - before).toBe(2);
    const [delivery] = (await app.request('GET', `${s.base}/primary/deliveries`, { key: s.key })).body.deliveries;
    const res = await app.request('GET', `${s.base}/primary/deliveries/${delivery.id}`, { key: s.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: delivery.id, event: 'CAMPAIGN_ENDED', status: 'SUCCEEDED', attemptCount: 2, lastAttempt: { attempt: 2, statusCode: 200 } });
    expect(res.body.attempts).toEqual([
      { attempt: 1, at: expect.any(Number), durationMs: expect.any(Number), statusCode: 503, responseBody: 'busy, try later', error: 'HTTP 503' },
      { attempt: 2, at: expect.any(Number), durationMs: expect.any(Number), statusCode: 200, responseBody: 'ok', error: null },
    ]);
    expect(res.body.attempts[1].at - res.body.attempts[0].at).toBe(RETRY_DELAYS_MS[0]);
  });

  it('answers 404 for a delivery of another webhook or none at all', async () => {
    const s = await endedProgramWithHook();
    await app.deps.jobs.runDue();
    const unknown = await app.request('GET', `${s.base}/primary/deliveries/nope`, { key: s.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('No delivery nope for webhook primary.');
    const other = await endedProgramWithHook();
    await app.deps.jobs.runDue();
    const [theirs] = (await app.request('GET', `${other.base}/primary/deliveries`, { key: other.key })).body.deliveries;
    expect((await app.request('GET', `${s.base}/primary/deliveries/${theirs.id}`, { key: s.key })).status).toBe(404);
    expect((await app.request('GET', `${s.base}/primary/deliveries/${'x'.repeat(65)}`, { key: s.key })).status).toBe(404);
  });

  it('refuses a key without program:read and another team’s key with 403', async () => {
    const s = await endedProgramWithHook();
    await app.deps.jobs.runDue();
    const [delivery] = (await app.request('GET', `${s.base}/primary/deliveries`, { key: s.key })).body.deliveries;
    const path = `${s.base}/primary/deliveries/${delivery.id}`;
    const narrow = (await app.deps.keys.create(app.deps.db.knex, { teamId: s.teamId, scopes: ['participant:read'] as never, programIds: null, origin: 'CLI' })).secret;
    expect((await app.request('GET', path, { key: narrow })).status).toBe(403);
    const stranger = await verifiedAccount(app);
    expect((await app.request('GET', path, { key: stranger.key })).status).toBe(403);
  });
});
