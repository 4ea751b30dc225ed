import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { limitedKey, moneyProgram } from '../../helpers/money.ts';
import { SIGNING_SECRET, connectStripe, deliver, eventLog, stripeEvent } from './stripe-helpers.ts';

// BI1–BI5, the Stripe connection's REST extensions, and the honest I1 list (issue #25).

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
});
afterAll(async () => {
  await app.close();
});

const base = (pid: string) => `/v2/campaign/${pid}/integrations/stripe`;

describe('POST /campaign/:id/integrations/stripe', () => {
  it('connects the program, answers the endpoint URL and never the secret', async () => {
    const p = await moneyProgram(app);
    const res = await app.request('POST', base(p.pid), { key: p.key, body: { webhookSigningSecret: SIGNING_SECRET, restrictedApiKey: 'rk_test_51PqKbqLkdIwHu7ixAbCdWxYz' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      provider: 'STRIPE',
      state: 'ACTIVE',
      webhookUrl: `http://refloop.test/integrations/stripe/${res.body.id}/webhook`,
      events: ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid', 'charge.refunded', 'customer.subscription.deleted', 'refund.created', 'refund.failed', 'invoice_payment.paid'],
      hasRestrictedApiKey: true,
      restrictedApiKeyHint: 'WxYz',
      createdAt: app.clock.now(),
      updatedAt: app.clock.now(),
      lastEventAt: null,
      unmatchedRefunds: 0,
    });
    expect(res.text).not.toContain(SIGNING_SECRET);
    expect(res.text).not.toContain('rk_test_51PqKbqLkdIwHu7ixAbCdWxYz');
    // Stored sealed: the clear secret is nowhere in the row.
    const row = await app.deps.db.knex('billing_connections').where({ id: res.body.id }).first();
    expect(JSON.stringify(row)).not.toContain('refloopTestSigningSecret');
    expect(JSON.stringify(row)).not.toContain('AbCdWxYz');
    const read = await app.request('GET', base(p.pid), { key: p.key });
    expect(read.body).toEqual(res.body);
  });

  it('keeps the endpoint URL when the program is connected again after a disconnection', async () => {
    const p = await moneyProgram(app);
    const first = await connectStripe(app, p.key, p.pid);
    const gone = await app.request('DELETE', base(p.pid), { key: p.key });
    expect(gone.body).toEqual({ id: first.connection.id, success: true });
    expect((await app.request('GET', base(p.pid), { key: p.key })).body).toMatchObject({ state: 'DISCONNECTED', hasRestrictedApiKey: false });
    const again = await connectStripe(app, p.key, p.pid);
    expect(again.connection).toMatchObject({ id: first.connection.id, state: 'ACTIVE', webhookUrl: first.connection.webhookUrl });
    expect((await deliver(app, again.path, stripeEvent('charge.refunded'))).status).toBe(200);
  });

  it('answers 400 with the field for a secret that is not a Stripe signing secret, and stores nothing', async () => {
    const p = await moneyProgram(app);
    for (const body of [{}, { webhookSigningSecret: 'sk_live_notasigningsecret' }, { webhookSigningSecret: SIGNING_SECRET, restrictedApiKey: 'sk_live_fullkey12345678' }, { webhookSigningSecret: SIGNING_SECRET, extra: 1 }]) {
      const res = await app.request('POST', base(p.pid), { key: p.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    expect((await app.request('GET', base(p.pid), { key: p.key })).body).toMatchObject({ id: null, state: 'NOT_CONNECTED', webhookUrl: null });
  });

  it('answers 403 without program:write, and to another team’s key', async () => {
    const p = await moneyProgram(app);
    const reader = await limitedKey(app, p.teamId, ['program:read']);
    expect((await app.request('POST', base(p.pid), { key: reader, body: { webhookSigningSecret: SIGNING_SECRET } })).status).toBe(403);
    expect((await app.request('GET', base(p.pid), { key: reader })).status).toBe(200);
    const stranger = await verifiedAccount(app);
    for (const [method, path] of [['POST', base(p.pid)], ['GET', base(p.pid)], ['PATCH', base(p.pid)], ['DELETE', base(p.pid)], ['GET', `${base(p.pid)}/events`]] as const) {
      const res = await app.request(method, path, { key: stranger.key, ...(method === 'GET' || method === 'DELETE' ? {} : { body: { webhookSigningSecret: SIGNING_SECRET } }) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await app.request('GET', base(p.pid), { key: p.key })).body.state).toBe('NOT_CONNECTED');
  });
});

describe('PATCH and DELETE /campaign/:id/integrations/stripe', () => {
  it('rolls the signing secret: events signed with the old one are refused', async () => {
    const p = await moneyProgram(app);
    const { path } = await connectStripe(app, p.key, p.pid);
    const rolled = 'whsec_rolledSecretAfterStripeRoll000001';
    const res = await app.request('PATCH', base(p.pid), { key: p.key, body: { webhookSigningSecret: rolled, restrictedApiKey: null } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ state: 'ACTIVE', hasRestrictedApiKey: false });
    expect((await deliver(app, path, stripeEvent('charge.refunded'))).status).toBe(400);
    expect((await deliver(app, path, stripeEvent('charge.refunded'), { secret: rolled })).status).toBe(200);
  });

  it('answers 406 when the program is not connected, and 400 for an empty change', async () => {
    const p = await moneyProgram(app);
    expect((await app.request('PATCH', base(p.pid), { key: p.key, body: { webhookSigningSecret: SIGNING_SECRET } })).status).toBe(406);
    expect((await app.request('DELETE', base(p.pid), { key: p.key })).status).toBe(406);
    await connectStripe(app, p.key, p.pid);
    expect((await app.request('PATCH', base(p.pid), { key: p.key, body: {} })).status).toBe(400);
  });
});

describe('GET /campaign/:id/integrations/stripe/events', () => {
  it('pages the log newest first with limit and nextId', async () => {
    const p = await moneyProgram(app);
    const { path } = await connectStripe(app, p.key, p.pid);
    for (const id of ['evt_a', 'evt_b', 'evt_c']) {
      app.clock.advance(1000);
      await deliver(app, path, stripeEvent('customer.subscription.deleted', (e, o) => ((e.id = id), (o.id = `sub_${id}`))));
    }
    const first = await app.request('GET', `${base(p.pid)}/events?limit=2`, { key: p.key });
    expect(first.body.events.map((e: { eventId: string }) => e.eventId)).toEqual(['evt_c', 'evt_b']);
    expect(first.body).toMatchObject({ limit: 2, nextId: expect.any(String) });
    const second = await app.request('GET', `${base(p.pid)}/events?limit=2&nextId=${first.body.nextId}`, { key: p.key });
    expect(second.body).toMatchObject({ events: [expect.objectContaining({ eventId: 'evt_a' })], nextId: null });
    expect((await app.request('GET', `${base(p.pid)}/events?limit=0`, { key: p.key })).status).toBe(400);
    expect((await app.request('GET', `${base(p.pid)}/events?outcome=LOST`, { key: p.key })).status).toBe(400);
    expect((await app.request('GET', base(p.pid), { key: p.key })).body.lastEventAt).toBe(app.clock.now());
    expect(await eventLog(app, p.key, p.pid)).toHaveLength(3);
  });
});

describe('GET /campaign/:id/integrations', () => {
  it('lists Stripe, the integration refloop provides, with its real state and a connect URL that answers', async () => {
    const p = await moneyProgram(app);
    const before = await app.request('GET', `/v2/campaign/${p.pid}/integrations`, { key: p.key });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      integrations: [
        { id: 'stripe', name: 'Stripe', connected: false, enabled: false, autoDisabled: false, connectUrl: `http://refloop.test/console/programs/${p.pid}/integrations/stripe` },
        { id: 'paddle', name: 'Paddle Billing', connected: false, enabled: false, autoDisabled: false, connectUrl: `http://refloop.test/console/programs/${p.pid}/integrations/paddle` },
      ],
    });
    // The console page answers: its shell, or 503 "not built yet" on a checkout without dist/console
    // (test/e2e/console-integrations.test.ts signs in and uses the page).
    const opened = await fetch(`${app.url}${new URL(before.body.integrations[0].connectUrl).pathname}`);
    expect([200, 503]).toContain(opened.status);
    await connectStripe(app, p.key, p.pid);
    const after = await app.request('GET', `/v2/campaign/${p.pid}/integrations`, { key: p.key });
    expect(after.body.integrations[0]).toMatchObject({ id: 'stripe', connected: true, enabled: true, autoDisabled: false });
  });
});
