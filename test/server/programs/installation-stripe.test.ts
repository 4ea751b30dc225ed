// installation.stripe.clientReferenceId (refloop, issue #25): whether the attribution script puts the
// pending referral code into Stripe Payment Links, Buy Buttons and Pricing Tables, validated on PATCH
// and handed to the widget as the window payload's `stripeClientReferenceId`: AUTO only while the
// program has an active Stripe connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, type TestApp } from '../../helpers/app.ts';
import { installationProgram, patchInstallation, windowPayload } from './installation-helpers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

const program = () => installationProgram(app, 'AFFILIATE');
const patch = (p: { key: string; id: string }, body: unknown) => patchInstallation(app, p, body);
const stripe = (p: { key: string; id: string }, method: 'POST' | 'DELETE', body?: unknown) => app.request(method, `/v2/campaign/${p.id}/integrations/stripe`, { key: p.key, body });

/** The window payload's flag as a page on any site gets it. */
async function flag(programId: string) {
  return (await windowPayload(app, programId)).stripeClientReferenceId;
}

describe('installation.stripe.clientReferenceId', () => {
  it('defaults to AUTO and keeps what a PATCH sets', async () => {
    const p = await program();
    const get = await app.request('GET', `/v2/campaign/${p.id}/installation`, { key: p.key });
    expect(get.body.stripe).toEqual({ clientReferenceId: 'AUTO' });
    const res = await patch(p, { stripe: { clientReferenceId: 'OVERWRITE' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.stripe).toEqual({ clientReferenceId: 'OVERWRITE' });
    expect((await app.request('GET', `/v2/campaign/${p.id}/installation`, { key: p.key })).body.stripe).toEqual({ clientReferenceId: 'OVERWRITE' });
  });

  it('refuses an unknown mode or field with the error object, changing nothing', async () => {
    const p = await program();
    for (const body of [{ stripe: { clientReferenceId: 'SOMETIMES' } }, { stripe: { clientReferenceId: 'OFF', extra: 1 } }, { stripe: 'OFF' }]) {
      const res = await patch(p, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors?.[0] ?? res.body).toHaveProperty('message');
    }
    expect((await app.request('GET', `/v2/campaign/${p.id}/installation`, { key: p.key })).body.stripe).toEqual({ clientReferenceId: 'AUTO' });
  });

  it('reaches the widget: AUTO only while Stripe is connected, ALWAYS and OVERWRITE without, OFF never', async () => {
    const p = await program();
    expect(await flag(p.id)).toBeNull();
    expect((await stripe(p, 'POST', { webhookSigningSecret: 'whsec_' + 'a'.repeat(32) })).status).toBe(200);
    expect(await flag(p.id)).toBe('FILL');
    expect((await patch(p, { stripe: { clientReferenceId: 'OVERWRITE' } })).status).toBe(200);
    expect(await flag(p.id)).toBe('OVERWRITE');
    expect((await patch(p, { stripe: { clientReferenceId: 'OFF' } })).status).toBe(200);
    expect(await flag(p.id)).toBeNull();
    expect((await patch(p, { stripe: { clientReferenceId: 'AUTO' } })).status).toBe(200);
    expect((await stripe(p, 'DELETE')).status).toBe(200);
    expect(await flag(p.id)).toBeNull();
    expect((await patch(p, { stripe: { clientReferenceId: 'ALWAYS' } })).status).toBe(200);
    expect(await flag(p.id)).toBe('FILL');
  });
});
