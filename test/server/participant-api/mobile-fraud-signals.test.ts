import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobile, mobileProgram, session, shareKey } from '../../helpers/mobile.ts';
import { startVerifier, type Verifier } from '../../helpers/recaptcha.ts';

// Issue #4 "Fraud" on the participant API: options.fraud.recaptcha checked for sign-ups from pages
// (against a siteverify endpoint on loopback, RECAPTCHA_VERIFY_URL), and the country lists applied
// from the operator's proxy header (GEO_COUNTRY_HEADER).

/** What the verification endpoint answers per token; anything else is `success: false`. */
const ANSWERS: Record<string, { status?: number; body: unknown }> = {
  human: { body: { success: true, score: 0.9, action: 'signup', hostname: 'shop.example' } },
  v2: { body: { success: true, hostname: 'shop.example' } },
  bot: { body: { success: true, score: 0.1, action: 'signup' } },
  login: { body: { success: true, score: 0.9, action: 'login' } },
  down: { status: 503, body: { error: 'unavailable' } },
};

let verifier: Verifier;
let seen: URLSearchParams[];
let app: TestApp;

beforeAll(async () => {
  verifier = await startVerifier((form) => {
    const answer = ANSWERS[form.get('response') ?? ''] ?? { body: { success: false, 'error-codes': ['invalid-input-response'] } };
    return form.get('secret') === 'the-secret' ? answer : { body: { success: false, 'error-codes': ['invalid-input-secret'] } };
  });
  seen = verifier.seen;
  app = await startApp({ ...RAISED_LIMITS, RECAPTCHA_VERIFY_URL: verifier.url, GEO_COUNTRY_HEADER: 'CF-IPCountry' });
});
afterAll(async () => {
  await app.close();
  await verifier.close();
});

const ORIGIN = 'https://shop.example';
const RECAPTCHA = { fraud: { recaptcha: { isEnabled: true, siteKey: 'the-site-key', secretKey: 'the-secret' } } };

describe('reCAPTCHA on participant-API sign-ups', () => {
  it('tells pages the site key while it is on, and nothing while it is off', async () => {
    const on = await mobileProgram(app, { options: RECAPTCHA });
    const off = await mobileProgram(app);
    const win = async (p: typeof on) => (await mobile(app, 'GET', '/window', await session(app, p, { origin: ORIGIN }), { headers: { origin: ORIGIN } })).body;
    expect((await win(on)).recaptchaSiteKey).toBe('the-site-key');
    expect((await win(off)).recaptchaSiteKey).toBeNull();
  });

  it('adds a page’s participant only with a token the service accepts for the signup action, and sends it the secret and the address', async () => {
    const p = await mobileProgram(app, { options: RECAPTCHA });
    const s = await session(app, p, { origin: ORIGIN });
    const add = (email: string, token?: string) =>
      mobile(app, 'POST', '/participants', s, { headers: { origin: ORIGIN }, body: { email, ...(token ? { recaptchaToken: token } : {}) } });
    for (const [token, why] of [
      [undefined, 'no reCAPTCHA token'],
      ['forged', 'invalid-input-response'],
      ['bot', 'score 0.1'],
      ['login', 'another action'],
    ] as const) {
      const res = await add(`refused-${token ?? 'none'}@example.com`, token);
      expect(res.status, res.text).toBe(422);
      expect(res.body).toMatchObject({ code: 'PARTICIPANT_BLOCKED_ERROR' });
      expect(res.body.message).toContain('RECAPTCHA_FAILED');
      expect(res.body.message).toContain(why);
    }
    expect(Number((await app.deps.db.knex('participants').where({ program_id: p.pid }).count({ n: '*' }).first())?.n)).toBe(0);

    seen.length = 0;
    const ok = await add('human@example.com', 'human');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.participant.email).toBe('human@example.com');
    expect(seen).toHaveLength(1);
    expect(Object.fromEntries(seen[0]!)).toEqual({ secret: 'the-secret', response: 'human', remoteip: '127.0.0.1' });
    expect((await add('classic@example.com', 'v2')).status).toBe(200);
    const rest = await app.request('GET', `/v2/campaign/${p.pid}/participant/human@example.com`, { key: p.key });
    expect(rest.body).toMatchObject({ fraudRiskLevel: 'LOW', fraudReasonCode: 'UNIQUE_IDENTITY' });
  });

  it('checks referred sign-ups too, and a page session stays a page session without its Origin header', async () => {
    const p = await mobileProgram(app, { options: RECAPTCHA });
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p, { origin: ORIGIN });
    const refused = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', referredBy: shareKey(ann) } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toContain('RECAPTCHA_FAILED');
    const added = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', referredBy: shareKey(ann), recaptchaToken: 'human' } });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toMatchObject({ added: true, validReferral: true });
  });

  it('does not ask native apps (sessions started with the public key) for a token', async () => {
    const p = await mobileProgram(app, { options: RECAPTCHA });
    const s = await session(app, p);
    seen.length = 0;
    const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'app-user@example.com' } });
    expect(res.status, res.text).toBe(200);
    expect(seen).toHaveLength(0);
  });

  it('lets a sign-up through held for review when the service cannot answer or refuses the owner’s secret', async () => {
    const p = await mobileProgram(app, { options: RECAPTCHA });
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p, { origin: ORIGIN });
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', referredBy: shareKey(ann), recaptchaToken: 'down' } });
    expect(res.status, res.text).toBe(200);
    const friend = await app.request('GET', `/v2/campaign/${p.pid}/participant/friend@example.com`, { key: p.key });
    expect(friend.body).toMatchObject({ fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'RECAPTCHA_UNVERIFIED', referralStatus: 'CREDIT_PENDING' });

    const wrongSecret = await mobileProgram(app, { options: { fraud: { recaptcha: { isEnabled: true, siteKey: 'k', secretKey: 'not-the-secret' } } } });
    const s2 = await session(app, wrongSecret, { origin: ORIGIN });
    const res2 = await mobile(app, 'POST', '/participants', s2, { body: { email: 'someone@example.com', recaptchaToken: 'human' } });
    expect(res2.status, res2.text).toBe(200);
    const someone = await app.request('GET', `/v2/campaign/${wrongSecret.pid}/participant/someone@example.com`, { key: wrongSecret.key });
    expect(someone.body).toMatchObject({ fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'RECAPTCHA_UNVERIFIED' });
  });

  it('checks affiliate applications from pages, and holds one it could not check for review', async () => {
    const p = await mobileProgram(app, { type: 'AFFILIATE', options: { ...RECAPTCHA, affiliateApplicationMode: 'AUTO_APPROVE' } });
    const s = await session(app, p, { origin: ORIGIN });
    const apply = (email: string, token?: string) => mobile(app, 'POST', '/affiliate-applications', s, { body: { email, ...(token ? { recaptchaToken: token } : {}) } });
    const refused = await apply('spammer@example.com');
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toContain('RECAPTCHA_FAILED');
    expect(Number((await app.deps.db.knex('affiliate_applications').where({ program_id: p.pid }).count({ n: '*' }).first())?.n)).toBe(0);
    const approved = await apply('creator@example.com', 'human');
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ status: 'APPROVED' });
    const held = await apply('maybe@example.com', 'down');
    expect(held.status, held.text).toBe(200);
    expect(held.body).toMatchObject({ status: 'PENDING', participantId: null });
    const row = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications/${held.body.applicationId}`, { key: p.key });
    expect(row.body).toMatchObject({ status: 'PENDING', riskLevel: 'MEDIUM' });
  });

  it('screens open enrollment through applications like any sign-up: country lists and an unchecked reCAPTCHA', async () => {
    const p = await mobileProgram(app, { type: 'AFFILIATE', options: { ...RECAPTCHA, affiliateApplicationMode: 'OPEN_ENROLLMENT', fraud: { ...RECAPTCHA.fraud, blockedCountries: ['RU'] } } });
    const s = await session(app, p, { origin: ORIGIN });
    const apply = (email: string, token: string, country: string) =>
      mobile(app, 'POST', '/affiliate-applications', s, { headers: { 'cf-ipcountry': country }, body: { email, recaptchaToken: token } });
    const ru = await apply('ivan@example.com', 'human', 'RU');
    expect(ru.status, ru.text).toBe(422);
    expect(ru.body.message).toContain('BLOCKED_COUNTRY');
    const held = await apply('maybe@example.com', 'down', 'DE');
    expect(held.status, held.text).toBe(200);
    expect(held.body).toMatchObject({ status: 'APPROVED' });
    const row = await app.request('GET', `/v2/campaign/${p.pid}/participant/maybe@example.com`, { key: p.key });
    expect(row.body).toMatchObject({ isAffiliate: true, fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'RECAPTCHA_UNVERIFIED' });
  });

  it('leaves REST sign-ups (the owner’s server) alone', async () => {
    const p = await mobileProgram(app, { options: RECAPTCHA });
    seen.length = 0;
    expect((await addParticipant(app, p, { email: 'backend@example.com' })).email).toBe('backend@example.com');
    expect(seen).toHaveLength(0);
  });
});

describe('country lists from GEO_COUNTRY_HEADER', () => {
  it('refuses blocked countries and, with an allow list, every other country; an unknown country is not refused', async () => {
    const blocked = await mobileProgram(app, { options: { fraud: { blockedCountries: ['RU'] } } });
    const allowed = await mobileProgram(app, { options: { fraud: { allowedCountries: ['US', 'CA'] } } });
    const add = async (p: typeof blocked, email: string, country?: string) =>
      mobile(app, 'POST', '/participants', await session(app, p), { body: { email }, headers: country ? { 'cf-ipcountry': country } : {} });

    const ru = await add(blocked, 'ivan@example.com', 'RU');
    expect(ru.status, ru.text).toBe(422);
    expect(ru.body.message).toContain('BLOCKED_COUNTRY');
    expect((await add(blocked, 'hans@example.com', 'de')).status).toBe(200);

    const de = await add(allowed, 'hans@example.com', 'DE');
    expect(de.status, de.text).toBe(422);
    expect(de.body.message).toContain('BLOCKED_COUNTRY');
    expect((await add(allowed, 'sam@example.com', 'US')).status).toBe(200);
    // No header, or a proxy's "unknown" / Tor codes: the lists cannot apply.
    expect((await add(allowed, 'nobody-knows@example.com')).status).toBe(200);
    expect((await add(allowed, 'tor@example.com', 'T1')).status).toBe(200);
    // REST sign-ups come from the owner's server, whose country says nothing about the participant.
    const rest = await app.request('POST', `/v2/campaign/${allowed.pid}/participant`, { key: allowed.key, body: { email: 'api@example.com' }, headers: { 'cf-ipcountry': 'DE' } });
    expect(rest.status, rest.text).toBe(200);
  });
});
