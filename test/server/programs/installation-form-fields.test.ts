// installation.signup.formFields (refloop, issue #24): the selectors form capture reads a site's own
// sign-up form with, validated on PATCH, and handed to the widget in the window payload's
// `formCapture` only while signupEvent is FORM_DETECTION.
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

const program = () => installationProgram(app, 'REFERRAL');
const patch = (p: { key: string; id: string }, body: unknown) => patchInstallation(app, p, body);

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
    expect((await windowPayload(app, p.id)).formCapture).toBeNull();
    expect((await patch(p, { signupEvent: 'FORM_DETECTION' })).status).toBe(200);
    expect((await windowPayload(app, p.id)).formCapture).toEqual({ form: null, email: '#mail', firstName: null, lastName: null });
    expect((await patch(p, { signupEvent: 'PROGRAMMATIC' })).status).toBe(200);
    expect((await windowPayload(app, p.id)).formCapture).toBeNull();
  });
});
