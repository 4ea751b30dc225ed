import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { limitedKey, moneyProgram } from '../../helpers/money.ts';
import { SIGNING_SECRET, connectStripe } from './stripe-helpers.ts';
import { PADDLE_API_KEY, PADDLE_SECRET, connectPaddle, deliverPaddle, paddleEvent, paddleLog } from './paddle-helpers.ts';

// BI6–BI10, the Paddle Billing connection's REST extensions, next to Stripe's, and I1 with both (issue #25).

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
});
afterAll(async () => {
  await app.close();
});

const base = (pid: string) => `/v2/campaign/${pid}/integrations/paddle`;

describe('POST /campaign/:id/integrations/paddle', () => {
  it('connects the program, answers the destination URL and never a key; Stripe’s connection stays apart', async () => {
    const p = await moneyProgram(app);
    const res = await app.request('POST', base(p.pid), { key: p.key, body: { webhookSecretKey: PADDLE_SECRET, apiKey: PADDLE_API_KEY } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      provider: 'PADDLE',
      state: 'ACTIVE',
      webhookUrl: `http://refloop.test/integrations/paddle/${res.body.id}/webhook`,
      events: ['transaction.completed', 'transaction.paid', 'adjustment.created', 'adjustment.updated', 'subscription.canceled'],
      hasRestrictedApiKey: true,
      restrictedApiKeyHint: '9876',
      createdAt: app.clock.now(),
      updatedAt: app.clock.now(),
      lastEventAt: null,
      unmatchedRefunds: 0,
    });
    expect(res.text).not.toContain(PADDLE_SECRET);
    expect(res.text).not.toContain(PADDLE_API_KEY);
    const row = await app.deps.db.knex('billing_connections').where({ id: res.body.id }).first();
    expect(JSON.stringify(row)).not.toContain('refloopTestSecretKey');
    expect(JSON.stringify(row)).not.toContain('refloopTestApiKey');
    expect((await app.request('GET', base(p.pid), { key: p.key })).body).toEqual(res.body);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/integrations/stripe`, { key: p.key })).body).toMatchObject({ provider: 'STRIPE', state: 'NOT_CONNECTED' });
    const stripe = await connectStripe(app, p.key, p.pid);
    expect(stripe.connection.id).not.toBe(res.body.id);
    const list = await app.request('GET', `/v2/campaign/${p.pid}/integrations`, { key: p.key });
    expect(list.body.integrations.map((i: { id: string; connected: boolean }) => [i.id, i.connected])).toEqual([
      ['stripe', true],
      ['paddle', true],
    ]);
  });

  it('answers 400 with the field for a key that is not Paddle’s, and stores nothing', async () => {
    const p = await moneyProgram(app);
    for (const body of [{}, { webhookSecretKey: SIGNING_SECRET }, { webhookSecretKey: PADDLE_SECRET, apiKey: 'rk_test_51PqKbqLkdIwHu7ixAbCdWxYz' }, { webhookSigningSecret: PADDLE_SECRET }]) {
      const res = await app.request('POST', base(p.pid), { key: p.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    expect((await app.request('GET', base(p.pid), { key: p.key })).body).toMatchObject({ id: null, provider: 'PADDLE', state: 'NOT_CONNECTED', webhookUrl: null });
  });

  it('answers 403 without program:write, and to another team’s key', async () => {
    const p = await moneyProgram(app);
    const reader = await limitedKey(app, p.teamId, ['program:read']);
    expect((await app.request('POST', base(p.pid), { key: reader, body: { webhookSecretKey: PADDLE_SECRET } })).status).toBe(403);
    expect((await app.request('GET', base(p.pid), { key: reader })).status).toBe(200);
    const stranger = await verifiedAccount(app);
    for (const [method, path] of [['POST', base(p.pid)], ['GET', base(p.pid)], ['PATCH', base(p.pid)], ['DELETE', base(p.pid)], ['GET', `${base(p.pid)}/events`]] as const) {
      const res = await app.request(method, path, { key: stranger.key, ...(method === 'GET' || method === 'DELETE' ? {} : { body: { webhookSecretKey: PADDLE_SECRET } }) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });
});

describe('PATCH, DELETE and the log of /campaign/:id/integrations/paddle', () => {
  it('rotates the secret key (notifications signed with the old one are refused), removes the API key, disconnects and keeps the URL', async () => {
    const p = await moneyProgram(app);
    const first = await connectPaddle(app, p.key, p.pid, { webhookSecretKey: PADDLE_SECRET, apiKey: PADDLE_API_KEY });
    const rotated = 'pdl_ntfset_01hv8wptq8987qeep44cyrewp9_rotatedAfterPaddleRotate1';
    const res = await app.request('PATCH', base(p.pid), { key: p.key, body: { webhookSecretKey: rotated, apiKey: null } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ state: 'ACTIVE', hasRestrictedApiKey: false, restrictedApiKeyHint: null });
    const event = paddleEvent('subscription.canceled');
    expect((await deliverPaddle(app, first.path, event)).status).toBe(400);
    expect((await deliverPaddle(app, first.path, event, { secret: rotated })).status).toBe(200);
    expect((await app.request('DELETE', base(p.pid), { key: p.key })).body).toEqual({ id: first.connection.id, success: true });
    expect((await app.request('GET', base(p.pid), { key: p.key })).body).toMatchObject({ state: 'DISCONNECTED' });
    expect(await paddleLog(app, p.key, p.pid)).toHaveLength(1);
    const again = await connectPaddle(app, p.key, p.pid);
    expect(again.connection).toMatchObject({ id: first.connection.id, webhookUrl: first.connection.webhookUrl });
  });

  it('answers 406 when the program is not connected, and 400 for an empty change', async () => {
    const p = await moneyProgram(app);
    expect((await app.request('PATCH', base(p.pid), { key: p.key, body: { webhookSecretKey: PADDLE_SECRET } })).status).toBe(406);
    expect((await app.request('DELETE', base(p.pid), { key: p.key })).status).toBe(406);
    await connectPaddle(app, p.key, p.pid);
    expect((await app.request('PATCH', base(p.pid), { key: p.key, body: {} })).status).toBe(400);
  });

  it('pages the log newest first with limit and nextId', async () => {
    const p = await moneyProgram(app);
    const { path } = await connectPaddle(app, p.key, p.pid);
    for (const id of ['evt_01a', 'evt_01b', 'evt_01c']) {
      app.clock.advance(1000);
      await deliverPaddle(app, path, paddleEvent('subscription.canceled', (e, d) => ((e.event_id = id), (d.id = `sub_${id}`))));
    }
    const first = await app.request('GET', `${base(p.pid)}/events?limit=2`, { key: p.key });
    expect(first.body.events.map((e: { eventId: string }) => e.eventId)).toEqual(['evt_01c', 'evt_01b']);
    const second = await app.request('GET', `${base(p.pid)}/events?limit=2&nextId=${first.body.nextId}`, { key: p.key });
    expect(second.body).toMatchObject({ events: [expect.objectContaining({ eventId: 'evt_01a', type: 'subscription.canceled', outcome: 'ACCEPTED' })], nextId: null });
    expect((await app.request('GET', `${base(p.pid)}/events?limit=0`, { key: p.key })).status).toBe(400);
    expect((await app.request('GET', base(p.pid), { key: p.key })).body.lastEventAt).toBe(app.clock.now());
    // Stripe's log of the same program is another one.
    expect((await app.request('GET', `/v2/campaign/${p.pid}/integrations/stripe/events`, { key: p.key })).body.events).toEqual([]);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    const ops = doc.paths['/campaign/{id}/integrations/paddle'];
    expect(Object.keys(ops).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    expect(ops.post.summary).toMatch(/pdl_ntfset_/);
    expect(doc.paths['/campaign/{id}/integrations/paddle/events'].get.summary).toMatch(/last 30 days/);
    expect(JSON.stringify(doc.components.schemas.PaddleConnectionCreate)).toContain('webhookSecretKey');
  });
});
