import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { Browser, PASSWORD, consoleCall, consoleCsrf, joinedTeammate, mailLink, newEmail, setPassword, shownKeys, signIn, signedInOwner } from '../../helpers/owner.ts';
import { base32Decode, base32Encode, matchTotp, totpCode } from '../../../server/domain/platform/totp.ts';

// Issue #35 parts 2 and 3: two-factor sign-in (enrol from the console, the /signin/code step with a
// code or a recovery code, five wrong codes → limited, remember this browser, the team's
// requirement), re-authentication before creating a key, and sessions (list, end one, the owner
// ending a member's, rotation on sign-in and on 2FA changes).

let app: TestApp;
let owner: Awaited<ReturnType<typeof signedInOwner>> & { recovery?: string[] };
let csrf: string;
let secret = '';

/** The code the member's app shows now; the clock moves a step first, since each step's code works once. */
function code(): string {
  app.clock.advance(30_000);
  return totpCode(secret, app.clock.now());
}

/** Signs in with the password, then the code step; returns the browser and the step's answer. */
async function signInWithCode(email: string, second: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const { b, res } = await signIn(app, email, PASSWORD, headers);
  expect(res.status).toBe(303);
  expect(res.location).toBe('/signin/code');
  const page = await b.get('/signin/code');
  const pendingCsrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const done = await b.post('/signin/code', { csrf: pendingCsrf, code: second, ...extra }, headers);
  return { b, done, pendingCsrf };
}

beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
  owner = await signedInOwner(app);
  csrf = await consoleCsrf(owner.b);
});
afterAll(async () => {
  await app.close();
});

describe('TOTP (RFC 6238, server/domain/platform/totp.ts)', () => {
  it('gives the RFC 6238 Appendix B SHA1 codes (their last six digits) and accepts one step of drift, once', () => {
    const secret = base32Encode(Buffer.from('12345678901234567890'));
    expect(secret).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode(secret.toLowerCase())!.toString()).toBe('12345678901234567890');
    for (const [seconds, code] of [[59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'], [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130']] as const) {
      expect(totpCode(secret, seconds * 1000)).toBe(code.slice(2));
    }
    const at = 1111111111_000;
    expect(matchTotp(secret, totpCode(secret, at - 30_000), at)).toBe(Math.floor(at / 30_000) - 1);
    expect(matchTotp(secret, totpCode(secret, at - 60_000), at)).toBeNull();
    expect(matchTotp(secret, totpCode(secret, at), at, Math.floor(at / 30_000))).toBeNull();
  });
});

describe('POST /owner/two-factor and /owner/two-factor/confirm (TF2, TF3)', () => {
  it('enrols with a code from the secret, answers ten recovery codes once, and rotates the session', async () => {
    expect((await consoleCall(owner.b, csrf, 'GET', '/owner/two-factor')).body).toEqual({ enabled: false, enabledAt: null, recoveryCodesLeft: 0, teamRequires: false });
    const begun = await consoleCall(owner.b, csrf, 'POST', '/owner/two-factor', {});
    expect(begun.status).toBe(200);
    secret = begun.body.secret;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(begun.body.uri);
    expect([uri.protocol, uri.host, decodeURIComponent(uri.pathname)]).toEqual(['otpauth:', 'totp', `/refloop:${owner.email}`]);
    expect(Object.fromEntries(uri.searchParams)).toEqual({ secret, issuer: 'refloop', algorithm: 'SHA1', digits: '6', period: '30' });
    // The same URI as a QR code the console shows (an SVG image).
    expect(Buffer.from(begun.body.qrCode.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString()).toMatch(/^<svg [^>]*viewBox/);
    // Not on until confirmed: a wrong code is a field error, a malformed one the schema's 400.
    const wrong = await consoleCall(owner.b, csrf, 'POST', '/owner/two-factor/confirm', { code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: 'code', code: 'INVALID_CODE' })]);
    expect((await consoleCall(owner.b, csrf, 'POST', '/owner/two-factor/confirm', { code: 'abc' })).status).toBe(400);
    const before = owner.b.cookie;
    const done = await consoleCall(owner.b, csrf, 'POST', '/owner/two-factor/confirm', { code: code() });
    expect(done.status).toBe(200);
    expect(done.body.recoveryCodes).toHaveLength(10);
    owner.recovery = done.body.recoveryCodes;
    // Rotation: a new token in the cookie; the old one opens nothing.
    expect(owner.b.cookie).not.toBe(before);
    expect((await new Browser(app).json('GET', '/console/api/session', undefined, { cookie: before })).status).toBe(401);
    expect((await consoleCall(owner.b, csrf, 'GET', '/owner/two-factor')).body).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    // An API key may not enrol anyone.
    expect((await app.request('POST', '/v2/owner/two-factor', { key: owner.key, body: {} })).status).toBe(403);
  });
});

describe('POST /signin/code', () => {
  it('asks for the code after the password; the pending session grants nothing; a code signs in with a new token', async () => {
    const { b, res } = await signIn(app, owner.email);
    expect(res.location).toBe('/signin/code');
    const pending = b.cookie;
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
    expect((await b.json('GET', '/console/api/session')).status).toBe(401);
    expect((await b.get('/keys')).location).toBe('/signin');
    const page = await b.get('/signin/code');
    expect(page.status).toBe(200);
    expect(page.text).toContain('autocomplete="one-time-code"');
    const pendingCsrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const done = await b.post('/signin/code', { csrf: pendingCsrf, code: code() });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/console');
    expect(b.cookie).not.toBe(pending);
    expect((await b.json('GET', '/console/api/session')).status).toBe(200);
  });

  it('signs in with a recovery code once; the same code then fails', async () => {
    const rc = owner.recovery![0]!;
    const first = await signInWithCode(owner.email, rc.toUpperCase());
    expect(first.done.status).toBe(303);
    const again = await signInWithCode(owner.email, rc);
    expect(again.done.status).toBe(400);
    expect(again.done.text).toContain('That code is not right');
    expect((await consoleCall(first.b, await consoleCsrf(first.b), 'GET', '/owner/two-factor')).body.recoveryCodesLeft).toBe(9);
  });

  it('limits a member after five wrong codes, even with the right code next', async () => {
    const mate = await member('MEMBER');
    const { b, pendingCsrf } = await signInWithCode(mate.email, '111111');
    for (let i = 0; i < 3; i++) expect((await b.post('/signin/code', { csrf: pendingCsrf, code: '222222' })).status).toBe(400);
    const fifth = await b.post('/signin/code', { csrf: pendingCsrf, code: '333333' });
    expect(fifth.status).toBe(429);
    expect(fifth.text).toContain('Too many wrong codes');
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThan(0);
    app.clock.advance(30_000);
    const right = await b.post('/signin/code', { csrf: pendingCsrf, code: totpCode(mate.secret, app.clock.now()) });
    expect(right.status).toBe(429);
    // The audit trail (issue #35): each wrong code, then the lockout, as the member, from this address.
    const { id: mateId } = await app.deps.db.knex('users').where({ email: mate.email }).first('id');
    const events = await app.deps.db.knex('audit_log').where({ actor_id: mateId }).whereIn('action', ['access.signInCodeFailed', 'access.lockout']).orderBy('seq').select('action', 'ip');
    expect(events.map((e: { action: string }) => e.action)).toEqual([...Array(5).fill('access.signInCodeFailed'), 'access.lockout']);
    expect(events.every((e: { ip: string | null }) => e.ip === '127.0.0.1' || e.ip === '::ffff:127.0.0.1')).toBe(true);
  });

  it('remembers the browser for 30 days when asked: the next sign-in skips the code', async () => {
    const { done } = await signInWithCode(owner.email, code(), { remember: 'on' });
    expect(done.status).toBe(303);
    const device = done.headers.getSetCookie().find((c) => c.startsWith('refloop_device='))!;
    expect(device).toMatch(/Path=\/signin; Max-Age=2592000; HttpOnly; SameSite=Strict/);
    const token = /^refloop_device=([^;]+)/.exec(device)![1]!;
    const remembered = await signIn(app, owner.email, PASSWORD, { cookie: `refloop_device=${token}` });
    expect(remembered.res.location).toBe('/console');
    // Another browser, or a forged token, still gets the code step.
    expect((await signIn(app, owner.email, PASSWORD, { cookie: 'refloop_device=forged' })).res.location).toBe('/signin/code');
  });
});

let mates = 0;
/** A teammate with two-factor sign-in on: their browser, CSRF value and secret. */
async function member(role: 'ADMIN' | 'MEMBER') {
  const email = newEmail(`tf${mates++}`);
  const sent = await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email, role, manageApi: false });
  if (sent.status !== 200) {
    csrf = await consoleCsrf(owner.b);
    expect((await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email, role, manageApi: false })).status).toBe(200);
  }
  const joined = await joinedTeammate(app, email, await mailLink(app, email, '/invite/accept?'));
  const begun = await consoleCall(joined.b, joined.csrf, 'POST', '/owner/two-factor', {});
  app.clock.advance(30_000);
  const confirmed = await consoleCall(joined.b, joined.csrf, 'POST', '/owner/two-factor/confirm', { code: totpCode(begun.body.secret, app.clock.now()) });
  expect(confirmed.status).toBe(200);
  return { ...joined, secret: begun.body.secret as string, recoveryCodes: confirmed.body.recoveryCodes as string[] };
}

describe('PATCH /team/security (T6)', () => {
  it('requires two-factor sign-in of every member: one without it may only enrol, then everything opens', async () => {
    const email = newEmail('plain');
    expect((await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email, role: 'ADMIN' })).status).toBe(200);
    const plain = await joinedTeammate(app, email, await mailLink(app, email, '/invite/accept?'));
    // Admins may not change it; the Owner may.
    expect((await consoleCall(plain.b, plain.csrf, 'PATCH', '/team/security', { requireTwoFactor: true })).status).toBe(403);
    expect((await consoleCall(owner.b, csrf, 'PATCH', '/team/security', { requireTwoFactor: 'yes' })).status).toBe(400);
    expect((await consoleCall(owner.b, csrf, 'PATCH', '/team/security', { requireTwoFactor: true })).body).toEqual({ requireTwoFactor: true });
    const refused = await consoleCall(plain.b, plain.csrf, 'GET', '/campaigns');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('TWO_FACTOR_REQUIRED_ERROR');
    expect((await plain.b.json('GET', '/console/api/session')).body.twoFactor).toEqual({ enabled: false, teamRequires: true, mustEnrol: true });
    expect((await plain.b.get('/keys')).location).toBe('/console/security');
    const begun = await consoleCall(plain.b, plain.csrf, 'POST', '/owner/two-factor', {});
    app.clock.advance(30_000);
    expect((await consoleCall(plain.b, plain.csrf, 'POST', '/owner/two-factor/confirm', { code: totpCode(begun.body.secret, app.clock.now()) })).status).toBe(200);
    expect((await consoleCall(plain.b, plain.csrf, 'GET', '/campaigns')).status).toBe(200);
    expect((await consoleCall(owner.b, csrf, 'PATCH', '/team/security', { requireTwoFactor: false })).status).toBe(200);
  });
});

describe('POST /owner/reauthenticate (RA1) before sensitive actions', () => {
  it('refuses creating a key without a recent re-authentication, and allows it for five minutes after password + code', async () => {
    app.clock.advance(5 * 60_000);
    const body = { scopes: ['program:read'] };
    const refused = await consoleCall(owner.b, csrf, 'POST', '/team/api-keys', body);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'REAUTHENTICATION_REQUIRED_ERROR', name: 'ReauthenticationRequiredError' });
    expect((await consoleCall(owner.b, csrf, 'DELETE', '/owner/two-factor')).body.code).toBe('REAUTHENTICATION_REQUIRED_ERROR');
    // Payout settings are sensitive; the rest of the options document is not.
    expect((await consoleCall(owner.b, csrf, 'PATCH', '/campaign/nope/options', { payoutSettings: { minimumPayout: 100 } })).body.code).toBe('REAUTHENTICATION_REQUIRED_ERROR');
    expect((await consoleCall(owner.b, csrf, 'PATCH', '/campaign/nope/options', { fraud: {} })).status).toBe(404);
    const wrongPassword = await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: 'not it at all', code: code() });
    expect(wrongPassword.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'WRONG_PASSWORD' })]);
    const noCode = await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: PASSWORD });
    expect(noCode.body.errors).toEqual([expect.objectContaining({ field: 'code', code: 'REQUIRED' })]);
    const ok = await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: PASSWORD, code: code() });
    expect(ok.body.reauthenticatedUntil).toBe(app.clock.now() + 5 * 60_000);
    expect((await consoleCall(owner.b, csrf, 'POST', '/team/api-keys', body)).status).toBe(200);
    app.clock.advance(5 * 60_000);
    expect((await consoleCall(owner.b, csrf, 'POST', '/team/api-keys', body)).status).toBe(403);
  });
});

describe('POST /owner/two-factor/recovery-codes (TF5)', () => {
  it('replaces the recovery codes after a re-authentication: shown once, the old ones refused at sign-in at once, a new one works once', async () => {
    // A member of their own: the Owner's wrong codes above count toward the five that lock a member out.
    const mate = await member('MEMBER');
    const mateCode = () => {
      app.clock.advance(30_000);
      return totpCode(mate.secret, app.clock.now());
    };
    const old = mate.recoveryCodes;
    expect(old).toHaveLength(10);
    app.clock.advance(6 * 60_000);
    const refused = await consoleCall(mate.b, mate.csrf, 'POST', '/owner/two-factor/recovery-codes', {});
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('REAUTHENTICATION_REQUIRED_ERROR');
    expect((await app.request('POST', '/v2/owner/two-factor/recovery-codes', { key: owner.key, body: {} })).status).toBe(403);
    expect((await consoleCall(mate.b, mate.csrf, 'POST', '/owner/reauthenticate', { password: PASSWORD, code: mateCode() })).status).toBe(200);
    expect((await consoleCall(mate.b, mate.csrf, 'POST', '/owner/two-factor/recovery-codes', { extra: true })).status).toBe(400);
    const before = Number((await app.deps.db.knex('audit_log').where({ team_id: owner.teamId }).max({ n: 'seq' }).first())!.n);
    const done = await consoleCall(mate.b, mate.csrf, 'POST', '/owner/two-factor/recovery-codes', {});
    expect(done.status).toBe(200);
    const fresh: string[] = done.body.recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect(new Set(fresh).size).toBe(10);
    for (const c of fresh) expect(c).toMatch(/^[A-Za-z0-9_-]{5}-[A-Za-z0-9_-]{5}$/);
    expect(fresh.some((c) => old.includes(c))).toBe(false);
    expect((await consoleCall(mate.b, mate.csrf, 'GET', '/owner/two-factor')).body.recoveryCodesLeft).toBe(10);
    // One audit entry (TF5, the member), never the codes themselves.
    const rows = await app.deps.db.knex('audit_log').where({ team_id: owner.teamId }).where('seq', '>', before).orderBy('seq');
    expect(rows.map((r) => r.action)).toEqual(['TF5']);
    expect(rows[0]).toMatchObject({ actor_type: 'MEMBER', actor_label: mate.email });
    for (const c of [...fresh, ...old]) expect(JSON.stringify(rows)).not.toContain(c);
    // An old, unused code is refused at sign-in; a new one signs in once.
    const stale = await signInWithCode(mate.email, old[0]!);
    expect(stale.done.status).toBe(400);
    expect(stale.done.text).toContain('That code is not right');
    const first = await signInWithCode(mate.email, fresh[3]!);
    expect(first.done.status).toBe(303);
    expect((await first.b.json('GET', '/console/api/session')).status).toBe(200);
    expect((await signInWithCode(mate.email, fresh[3]!)).done.status).toBe(400);
    expect((await consoleCall(first.b, await consoleCsrf(first.b), 'GET', '/owner/two-factor')).body.recoveryCodesLeft).toBe(9);
  });

  it('answers 406 to a member with two-factor sign-in off', async () => {
    const email = newEmail('norc');
    expect((await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email, role: 'MEMBER' })).status).toBe(200);
    const plain = await joinedTeammate(app, email, await mailLink(app, email, '/invite/accept?'));
    const res = await consoleCall(plain.b, plain.csrf, 'POST', '/owner/two-factor/recovery-codes', {});
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ code: 'INVALID_STATE_ERROR', message: expect.stringContaining('Two-factor sign-in is off') });
  });
});

describe('GET /keys and POST /keys/reveal: revealing a waiting key', () => {
  it('shows the first sign-in’s key only to a session re-authenticated in the last five minutes', async () => {
    const acct = await verifiedAccount(app);
    await setPassword(app, acct.passwordLink);
    const { b } = await signIn(app, acct.email);
    app.clock.advance(6 * 60_000);
    const members = await b.get('/team/members');
    expect(shownKeys(members.text)).toEqual([]);
    const gated = await b.get('/keys');
    expect(shownKeys(gated.text)).toEqual([]);
    expect(gated.text).toContain('action="/keys/reveal"');
    const keyCsrf = /name="csrf" value="([^"]+)"/.exec(gated.text)![1]!;
    const wrong = await b.post('/keys/reveal', { csrf: keyCsrf, password: 'not the password' });
    expect(wrong.status).toBe(400);
    expect((await b.post('/keys/reveal', { csrf: keyCsrf, password: PASSWORD })).location).toBe('/keys');
    const shown = shownKeys((await b.get('/keys')).text);
    expect(shown).toHaveLength(1);
    expect((await app.request('GET', '/v2/team', { key: shown[0] })).status).toBe(200);
  });
});

describe('POST /keys on the owner pages without a recent sign-in', () => {
  it('asks for the password and code in place, keeping the key’s fields, and creates the key once they are right', async () => {
    const mate = await member('ADMIN');
    const mateCode = () => {
      app.clock.advance(30_000);
      return totpCode(mate.secret, app.clock.now());
    };
    app.clock.advance(6 * 60_000);
    const keyCsrf = await mate.b.csrf('/keys');
    const fields = { csrf: keyCsrf, scopes: ['team:read', 'program:read'], programIds: '', label: 'Nightly export' };
    const asked = await mate.b.post('/keys', fields);
    expect(asked.status).toBe(403);
    expect(asked.text).toContain('Confirm it is you to create the key');
    expect(asked.text).toContain('name="scopes" value="program:read"');
    expect(asked.text).toContain('name="label" value="Nightly export"');
    expect(asked.text).toContain('id="key-reauth-code"');
    const count = async () => (await app.deps.db.knex('api_keys').where({ label: 'Nightly export' }).count({ n: '*' }).first())!.n;
    const wrong = await mate.b.post('/keys', { ...fields, reauth: '1', password: 'not my password', code: mateCode() });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('That password is not right.');
    expect(Number(await count())).toBe(0);
    const done = await mate.b.post('/keys', { ...fields, reauth: '1', password: PASSWORD, code: mateCode() });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/keys');
    const [secretKey] = shownKeys((await mate.b.get('/keys')).text);
    expect((await app.request('GET', '/v2/campaigns', { key: secretKey })).status).toBe(200);
    expect(Number(await count())).toBe(1);
  });
});

describe('DELETE /team/members/{email} (TM7)', () => {
  it('removes a member only after a re-authentication, never an Owner, and ends their sessions in the team', async () => {
    const mate = await member('MEMBER');
    app.clock.advance(5 * 60_000);
    const path = `/team/members/${encodeURIComponent(mate.email)}`;
    expect((await consoleCall(owner.b, csrf, 'DELETE', path)).body.code).toBe('REAUTHENTICATION_REQUIRED_ERROR');
    expect((await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: PASSWORD, code: code() })).status).toBe(200);
    expect((await consoleCall(mate.b, mate.csrf, 'DELETE', `/team/members/${encodeURIComponent(owner.email)}`)).status).toBe(403);
    expect((await consoleCall(owner.b, csrf, 'DELETE', `/team/members/${encodeURIComponent(owner.email)}`)).status).toBe(406);
    expect((await consoleCall(owner.b, csrf, 'DELETE', path)).body).toEqual({ email: mate.email, success: true });
    expect((await consoleCall(owner.b, csrf, 'DELETE', path)).status).toBe(404);
    expect((await consoleCall(owner.b, csrf, 'GET', '/team/members')).body.members.some((m: { email: string }) => m.email === mate.email)).toBe(false);
    expect((await mate.b.json('GET', '/console/api/session')).status).toBe(401);
  });
});

describe('GET /owner/sessions, DELETE /owner/sessions/{id} (OS2, OS3) and DELETE /team/members/{email}/sessions (TM6)', () => {
  it('lists the sessions with device, IP and this browser, and ends another one', async () => {
    const chrome = { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' };
    const other = await signInWithCode(owner.email, code(), {}, chrome);
    const listed = await consoleCall(owner.b, csrf, 'GET', '/owner/sessions');
    expect(listed.status).toBe(200);
    const mine = listed.body.sessions.filter((s: { current: boolean }) => s.current);
    expect(mine).toHaveLength(1);
    const theirs = listed.body.sessions.find((s: { browser: string }) => s.browser === 'Chrome');
    expect(theirs).toMatchObject({ os: 'macOS', ip: expect.any(String), current: false, createdAt: app.clock.now() });
    expect((await consoleCall(owner.b, csrf, 'DELETE', '/owner/sessions/not-an-id')).status).toBe(404);
    expect((await consoleCall(owner.b, csrf, 'DELETE', `/owner/sessions/${theirs.id}`)).body).toEqual({ id: theirs.id, success: true });
    expect((await other.b.json('GET', '/console/api/session')).status).toBe(401);
    expect((await consoleCall(owner.b, csrf, 'GET', '/owner/sessions')).body.sessions.some((s: { id: string }) => s.id === theirs.id)).toBe(false);
  });

  it('writes last seen at most once a minute', async () => {
    const first = (await consoleCall(owner.b, csrf, 'GET', '/owner/sessions')).body.sessions.find((s: { current: boolean }) => s.current).lastSeenAt;
    app.clock.advance(20_000);
    expect((await consoleCall(owner.b, csrf, 'GET', '/owner/sessions')).body.sessions.find((s: { current: boolean }) => s.current).lastSeenAt).toBe(first);
    app.clock.advance(60_000);
    expect((await consoleCall(owner.b, csrf, 'GET', '/owner/sessions')).body.sessions.find((s: { current: boolean }) => s.current).lastSeenAt).toBe(app.clock.now());
  });

  it('lets the Owner end every session of a member, and no one else', async () => {
    const mate = await member('ADMIN');
    expect((await consoleCall(mate.b, mate.csrf, 'DELETE', `/team/members/${encodeURIComponent(owner.email)}/sessions`)).status).toBe(403);
    expect((await consoleCall(owner.b, csrf, 'DELETE', `/team/members/${encodeURIComponent('nobody@acme-widgets.com')}/sessions`)).status).toBe(404);
    const ended = await consoleCall(owner.b, csrf, 'DELETE', `/team/members/${encodeURIComponent(mate.email)}/sessions`);
    expect(ended.body).toEqual({ success: true, ended: 1 });
    expect((await mate.b.json('GET', '/console/api/session')).status).toBe(401);
    expect((await app.request('DELETE', `/v2/team/members/${encodeURIComponent(mate.email)}/sessions`, { key: owner.key })).status).toBe(403);
  });

  it('turning two-factor sign-in off (after re-authentication) rotates the session and signs in with the password alone', async () => {
    expect((await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: PASSWORD, code: code() })).status).toBe(200);
    const before = owner.b.cookie;
    expect((await consoleCall(owner.b, csrf, 'DELETE', '/owner/two-factor')).body).toEqual({ enabled: false });
    expect(owner.b.cookie).not.toBe(before);
    expect((await signIn(app, owner.email)).res.location).toBe('/console');
  });
});
