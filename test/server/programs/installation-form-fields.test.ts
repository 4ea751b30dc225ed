// installation.signup.formFields (refloop, issue #24): the selectors form capture reads a site's own
// sign-up form with, validated on PATCH, and handed to the widget in the window payload's
// `formCapture` only while signupEvent is FORM_DETECTION.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

async function program() {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
  expect(res.status, res.text).toBe(200);
  return { key: acct.key, id: res.body.id as string };
}
const patch = (p: { key: string; id: string }, body: unknown) => app.request('PATCH', `/v2/campaign/${p.id}/installation`, { key: p.key, body });

/** The window payload a page on any site gets (no allowed-domain list: any origin). */
async function windowPayload(programId: string) {
  const s = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': programId, origin: 'https://shop.example' }, body: { instanceId: crypto.randomUUID() } });
  expect(s.status, s.text).toBe(200);
  const w = await app.request('GET', '/mobile/v2/window', { headers: { 'x-session-token': s.body.sessionToken, origin: 'https://shop.example' } });
  expect(w.status, w.text).toBe(200);
  return w.body;
}

describe('installation.signup.formFields', () => {
  it('defaults to detection (all null) and keeps what a PATCH sets, merged field by field', async () => {
    const p = await program();
    const start = await app.request('GET', `/v2/campaign/${p.id}/installation`, { key: p.key });
    expect(start.body.signup.formFields).toEqual({ form: null, email: null, firstName: null, lastName: null });
    const set = await patch(p, { signup: { formFields: { form: '#signup', email: 'input[name="work_email"]' } } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.signup.formFields).toEqual({ form: '#signup', email: 'input[name="work_email"]', firstName: null, lastName: null });
    const more = await patch(p, { signup: { formFields: { firstName: '#fn' } } });
    expect(more.body.signup.formFields).toEqual({ form: '#signup', email: 'input[name="work_email"]', firstName: '#fn', lastName: null });
  });

  it('refuses a blank, too long or unknown selector with the error object, changing nothing', async () => {
    const p = await program();
    const blank = await patch(p, { signup: { formFields: { email: '   ' } } });
    expect(blank.status).toBe(400);
    expect(blank.body.errors[0]).toMatchObject({ field: 'signup.formFields.email' });
    const long = await patch(p, { signup: { formFields: { form: `#${'a'.repeat(500)}` } } });
    expect(long.status).toBe(400);
    expect(long.body.errors[0]).toMatchObject({ field: 'signup.formFields.form', code: 'TOO_LONG' });
    const unknown = await patch(p, { signup: { formFields: { password: '#pw' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'signup.formFields.password', code: 'UNKNOWN_FIELD' });
    const after = await app.request('GET', `/v2/campaign/${p.id}/installation`, { key: p.key });
    expect(after.body.signup.formFields).toEqual({ form: null, email: null, firstName: null, lastName: null });
  });

  it('reaches the widget as the window payload’s formCapture only under FORM_DETECTION', async () => {
    const p = await program();
    await patch(p, { signup: { formFields: { email: '#mail' } } });
    expect((await windowPayload(p.id)).formCapture).toBeNull();
    expect((await patch(p, { signupEvent: 'FORM_DETECTION' })).status).toBe(200);
    expect((await windowPayload(p.id)).formCapture).toEqual({ form: null, email: '#mail', firstName: null, lastName: null });
    expect((await patch(p, { signupEvent: 'PROGRAMMATIC' })).status).toBe(200);
    expect((await windowPayload(p.id)).formCapture).toBeNull();
  });
});
