import fs from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';

// Stripe events for the billing integration suites (issue #25): the recorded fixtures of
// test/fixtures/stripe, changed where a test needs, signed with the official test-header helper.

/** A signing secret as Stripe shows it (whsec_…). */
export const SIGNING_SECRET = 'whsec_refloopTestSigningSecret0123456789';

const dir = path.resolve(import.meta.dirname, '../../fixtures/stripe');

/** A fresh copy of one fixture event. */
export function stripeEvent(name: string, change?: (event: any, object: any) => void): any {
  const event = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
  change?.(event, event.data.object);
  return event;
}

/** Connects the program to Stripe over REST; answers the connection and its endpoint's path. */
export async function connectStripe(app: TestApp, key: string, pid: string, body: Record<string, unknown> = { webhookSigningSecret: SIGNING_SECRET }) {
  const res = await app.request('POST', `/v2/campaign/${pid}/integrations/stripe`, { key, body });
  expect(res.status, res.text).toBe(200);
  return { connection: res.body, path: new URL(res.body.webhookUrl).pathname };
}

/** Posts one event exactly as Stripe would: the raw text, its Stripe-Signature (now, unless `timestamp`). */
export function deliver(app: TestApp, endpoint: string, event: unknown, opts: { secret?: string; timestamp?: number; tamper?: (text: string) => string; signature?: string | null } = {}) {
  const payload = JSON.stringify(event, null, 2);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SIGNING_SECRET, timestamp: opts.timestamp ?? Math.floor(app.clock.now() / 1000) });
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
  if (opts.signature !== null) headers['stripe-signature'] = opts.signature ?? header;
  return app.request('POST', endpoint, { raw: opts.tamper ? opts.tamper(payload) : payload, headers });
}

/** The connection's event log (BI5), newest first. */
export async function eventLog(app: TestApp, key: string, pid: string, query = ''): Promise<Array<Record<string, any>>> {
  const res = await app.request('GET', `/v2/campaign/${pid}/integrations/stripe/events${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.events;
}
