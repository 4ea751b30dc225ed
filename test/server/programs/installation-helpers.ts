import { expect } from 'vitest';
import { verifiedAccount, type TestApp } from '../../helpers/app.ts';

// The installation document's suites (issue #24 form capture, issue #25 Stripe client reference):
// a fresh program to patch, and the window payload a page on any site gets for it.

/** A program to patch: a new verified account's program of `type`; its key and id. */
export async function installationProgram(app: TestApp, type: 'REFERRAL' | 'AFFILIATE'): Promise<{ key: string; id: string }> {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type } });
  expect(res.status, res.text).toBe(200);
  return { key: acct.key, id: res.body.id as string };
}

/** PATCH /campaign/{id}/installation. */
export function patchInstallation(app: TestApp, p: { key: string; id: string }, body: unknown) {
  return app.request('PATCH', `/v2/campaign/${p.id}/installation`, { key: p.key, body });
}

/** The window payload a page on any site gets (no allowed-domain list: any origin). */
export async function windowPayload(app: TestApp, programId: string) {
  const s = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': programId, origin: 'https://shop.example' }, body: { instanceId: crypto.randomUUID() } });
  expect(s.status, s.text).toBe(200);
  const w = await app.request('GET', '/mobile/v2/window', { headers: { 'x-session-token': s.body.sessionToken, origin: 'https://shop.example' } });
  expect(w.status, w.text).toBe(200);
  return w.body;
}
