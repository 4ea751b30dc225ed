import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { RAISED_LIMITS, startApp, type TestApp } from '../../helpers/app.ts';

// Paddle Billing notifications for the billing integration suites (issue #25): the recorded
// fixtures of test/fixtures/paddle, changed where a test needs, signed the way Paddle signs them
// (the SDK has no test-signature helper; this is the scheme its verifier checks).

/** A notification destination's secret key as Paddle shows it (pdl_ntfset_…). */
export const PADDLE_SECRET = 'pdl_ntfset_01hv8wptq8987qeep44cyrewp9_refloopTestSecretKey0123';
/** A sandbox API key in Paddle's format. */
export const PADDLE_API_KEY = 'pdl_sdbx_apikey_01hv8wptq8987qeep44cyrewp9_refloopTestApiKey9876';

const dir = path.resolve(import.meta.dirname, '../../fixtures/paddle');

/** A fresh copy of one fixture notification. */
export function paddleEvent(name: string, change?: (event: any, data: any) => void): any {
  const event = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
  change?.(event, event.data);
  return event;
}

/** Paddle's signature header: ts (unix seconds) and h1, the HMAC-SHA256 of "ts:body" keyed with the secret key. */
export function paddleSignature(body: string, secret: string, ts: number): string {
  const h1 = crypto.createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex');
  return `ts=${ts};h1=${h1}`;
}

/** Connects the program to Paddle over REST; answers the connection and its endpoint's path. */
export async function connectPaddle(app: TestApp, key: string, pid: string, body: Record<string, unknown> = { webhookSecretKey: PADDLE_SECRET }) {
  const res = await app.request('POST', `/v2/campaign/${pid}/integrations/paddle`, { key, body });
  expect(res.status, res.text).toBe(200);
  return { connection: res.body, path: new URL(res.body.webhookUrl).pathname };
}

/**
 * Posts one notification as Paddle would: the raw text and its Paddle-Signature, timestamped with
 * the wall clock (the SDK's verifier compares it with the wall clock, 5 seconds' tolerance).
 */
export function deliverPaddle(app: TestApp, endpoint: string, event: unknown, opts: { secret?: string; ts?: number; tamper?: (text: string) => string; signature?: string | null } = {}) {
  const payload = JSON.stringify(event);
  const header = paddleSignature(payload, opts.secret ?? PADDLE_SECRET, opts.ts ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Paddle' };
  if (opts.signature !== null) headers['paddle-signature'] = opts.signature ?? header;
  return app.request('POST', endpoint, { raw: opts.tamper ? opts.tamper(payload) : payload, headers });
}

/** The Paddle connection's event log (BI10), newest first. */
export async function paddleLog(app: TestApp, key: string, pid: string, query = ''): Promise<Array<Record<string, any>>> {
  const res = await app.request('GET', `/v2/campaign/${pid}/integrations/paddle/events${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.events;
}

/**
 * Paddle's API, as far as refloop uses it: GET /customers/{id} answers the customer entity in
 * Paddle's envelope, or Paddle's error object for an unknown id. Requests must carry the API key.
 */
export async function paddleApi(customers: Map<string, { email: string; name: string | null }>): Promise<{ url: string; close: () => Promise<void>; requests: string[] }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const m = /^\/customers\/(ctm_[a-z0-9]+)$/.exec(req.url ?? '');
    const c = m ? customers.get(m[1]!) : undefined;
    res.setHeader('content-type', 'application/json');
    // The auth scheme is case-insensitive (the SDK sends "bearer").
    if (!/^bearer /i.test(req.headers.authorization ?? '') || req.headers.authorization!.slice(7) !== PADDLE_API_KEY) {
      res.statusCode = 403;
      res.end(JSON.stringify({ error: { type: 'request_error', code: 'forbidden', detail: 'You aren’t permitted to perform this request.', documentation_url: 'https://developer.paddle.com/v1/errors/shared/forbidden' }, meta: { request_id: crypto.randomUUID() } }));
      return;
    }
    if (!m || !c) {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { type: 'request_error', code: 'entity_not_found', detail: `Entity ${m?.[1] ?? ''} not found`, documentation_url: 'https://developer.paddle.com/v1/errors/shared/entity_not_found' }, meta: { request_id: crypto.randomUUID() } }));
      return;
    }
    res.end(JSON.stringify({
      data: { id: m[1], name: c.name, email: c.email, marketing_consent: false, status: 'active', custom_data: null, locale: 'en', created_at: '2026-01-15T10:12:30.137Z', updated_at: '2026-01-15T10:12:30.137Z', import_meta: null },
      meta: { request_id: crypto.randomUUID() },
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * For a suite file: starts the local stand-in of Paddle's API and an app that reads customers from it
 * (PADDLE_API_URL, with `env` and raised limits) before its tests, and closes both after them. The
 * stand-in knows the customers put in `customers`; `app` and `api` are set once `beforeAll` has run.
 */
export function paddleSuite(env: Record<string, string> = {}) {
  const suite = { customers: new Map<string, { email: string; name: string | null }>() } as {
    customers: Map<string, { email: string; name: string | null }>;
    api: Awaited<ReturnType<typeof paddleApi>>;
    app: TestApp;
  };
  beforeAll(async () => {
    suite.api = await paddleApi(suite.customers);
    suite.app = await startApp({ ...RAISED_LIMITS, ...env, PADDLE_API_URL: suite.api.url });
  });
  afterAll(async () => {
    await suite.app.close();
    await suite.api.close();
  });
  return suite;
}
