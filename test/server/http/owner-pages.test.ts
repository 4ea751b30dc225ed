import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, createAccount, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { Browser, PASSWORD, invite, mailLink, newEmail, setPassword, shownKeys, signIn, signedInOwner, teamStatus } from '../../helpers/owner.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

describe('GET /set-password', () => {
  it('shows a labelled password form for the emailed link, not cached', async () => {
    const acct = await createAccount(app);
    const res = await new Browser(app).get(app.local(acct.passwordLink));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toContain(acct.email);
    expect(res.text).toMatch(/<label for="password">/);
    expect(res.text).toMatch(/<label for="confirm">/);
    expect(res.text).toMatch(/<button type="submit">Set password<\/button>/);
  });

  it('answers 400 for an unknown link', async () => {
    const res = await new Browser(app).get('/set-password?token=nope');
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/role="alert"/);
  });
});

describe('POST /set-password', () => {
  it('sets the password, redirects to /signin, and the link works only once', async () => {
    const acct = await createAccount(app);
    const b = new Browser(app);
    const res = await b.post(app.local(acct.passwordLink), { password: PASSWORD, confirm: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/signin?notice=password');
    const user = await app.deps.db.knex('users').where({ email: acct.email }).first('password_hash');
    expect(user.password_hash).toMatch(/^scrypt\$/);
    expect(user.password_hash).not.toContain(PASSWORD);

    const again = await b.post(app.local(acct.passwordLink), { password: 'another password 1', confirm: 'another password 1' });
    expect(again.status).toBe(400);
    expect(again.text).toMatch(/role="alert"[^>]*>The link is unknown, already used or expired/);
    expect((await b.get(app.local(acct.passwordLink))).status).toBe(400);
    expect((await signIn(app, acct.email, 'another password 1')).res.status).toBe(400);
    expect((await signIn(app, acct.email)).res.status).toBe(303);
  });

  it('rejects a short or mismatched password without using up the link', async () => {
    const acct = await createAccount(app);
    const b = new Browser(app);
    const short = await b.post(app.local(acct.passwordLink), { password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toMatch(/role="alert"[^>]*>Choose a password of at least 10 characters/);
    const long = await b.post(app.local(acct.passwordLink), { password: 'x'.repeat(201), confirm: 'x'.repeat(201) });
    expect(long.status).toBe(400);
    const mismatch = await b.post(app.local(acct.passwordLink), { password: PASSWORD, confirm: `${PASSWORD}!` });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toMatch(/do not match/);
    expect((await b.post(app.local(acct.passwordLink), { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
  });
});

describe('POST /signin', () => {
  it('answers 400 with one generic message for a wrong password or an unknown address, and sets no cookie', async () => {
    const acct = await createAccount(app);
    await setPassword(app, acct.passwordLink);
    const wrong = await signIn(app, acct.email, 'wrong password!!');
    const unknown = await signIn(app, newEmail('nobody'), PASSWORD);
    for (const { b, res } of [wrong, unknown]) {
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/role="alert"[^>]*>That email address and password do not match an account/);
      expect(b.cookie).toBe('');
    }
  });

  it('refuses an owner who never chose a password', async () => {
    const acct = await verifiedAccount(app);
    expect((await signIn(app, acct.email, '')).res.status).toBe(400);
    expect((await signIn(app, acct.email, PASSWORD)).res.status).toBe(400);
  });

  it('sets an HttpOnly, SameSite=Lax session cookie (not Secure over http) stored only as a hash', async () => {
    const acct = await verifiedAccount(app);
    await setPassword(app, acct.passwordLink);
    const { b, res } = await signIn(app, acct.email);
    expect(res.status).toBe(303);
    expect(res.location).toBe('/console');
    const set = b.lastSetCookie.find((c) => c.startsWith('refloop_session='))!;
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).toMatch(/Max-Age=1209600/);
    expect(set).not.toMatch(/Secure/);
    const token = b.cookie.split('=')[1]!;
    const rows = await app.deps.db.knex('sessions').select('hash', 'expires_at');
    expect(rows.some((r: any) => r.hash === token)).toBe(false);
    expect(rows.some((r: any) => r.hash === crypto.createHash('sha256').update(token).digest('hex') && Number(r.expires_at) === app.clock.now() + 14 * 24 * 3600 * 1000)).toBe(true);
  });

  it('accepts the email address in any case and with spaces', async () => {
    const acct = await createAccount(app);
    await setPassword(app, acct.passwordLink);
    expect((await signIn(app, `  ${acct.email.toUpperCase()} `)).res.status).toBe(303);
  });
});

describe('first sign-in', () => {
  it('replaces the account-creation key (verification alone does not) and shows the new key once', async () => {
    const acct = await verifiedAccount(app);
    // Verifying the email unlocked the key but did not replace it.
    expect(await teamStatus(app, acct.key)).toEqual({ status: 200, code: undefined });
    const before = await app.deps.db.knex('api_keys').where({ team_id: acct.teamId });
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ origin: 'ACCOUNT_CREATION', revoked_at: null });

    await setPassword(app, acct.passwordLink);
    expect(await teamStatus(app, acct.key)).toEqual({ status: 200, code: undefined });

    const { b, res } = await signIn(app, acct.email);
    expect(res.status).toBe(303);
    // The sign-in lands on the console, whose session document says a key waits (without taking it).
    expect(res.location).toBe('/console');
    const waiting = async () => JSON.parse((await b.get('/console/api/session')).text).keyWaiting;
    expect(await waiting()).toBe(true);
    expect(await waiting()).toBe(true);
    const keysPage = await b.get('/keys');
    expect(keysPage.status).toBe(200);
    const shown = shownKeys(keysPage.text);
    expect(shown).toHaveLength(1);
    const newKey = shown[0]!;
    expect(newKey).not.toBe(acct.key);
    expect(keysPage.text).toContain(`${acct.key.slice(0, 11)}…</code>, which no longer works`);

    expect(await teamStatus(app, acct.key)).toEqual({ status: 403, code: 'NOT_AUTHORIZED_ERROR' });
    expect(await teamStatus(app, newKey)).toEqual({ status: 200, code: undefined });

    const rows = await app.deps.db.knex('api_keys').where({ team_id: acct.teamId }).orderBy('created_at');
    const old = rows.find((r: any) => r.origin === 'ACCOUNT_CREATION');
    const replacement = rows.find((r: any) => r.origin === 'SIGN_IN');
    expect(old).toMatchObject({ revoked_reason: 'REPLACED', replaced_by: replacement.id });
    expect(JSON.parse(replacement.scopes)).toEqual(JSON.parse(old.scopes));
    expect(replacement.program_ids).toBe(old.program_ids);
    const user = await app.deps.db.knex('users').where({ email: acct.email }).first('first_signed_in_at');
    expect(Number(user.first_signed_in_at)).toBe(app.clock.now());

    // The key comes with a Copy button, shown by a script of our own origin (no inline script).
    expect(keysPage.text).toMatch(/<button type="button" data-copy="new-key-0"[^>]* hidden>Copy key<\/button>/);
    expect(keysPage.text).toContain('<script src="/owner/copy-key.js" defer></script>');
    expect(keysPage.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(keysPage.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = await b.get('/owner/copy-key.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.text).toContain('navigator.clipboard.writeText');

    // Shown exactly once: the flash is cleared, and the console no longer announces it.
    expect(await waiting()).toBe(false);
    const reload = await b.get('/keys');
    expect(shownKeys(reload.text)).toEqual([]);
    expect(reload.text).not.toContain(newKey);
    expect(reload.text).toContain(`${newKey.slice(0, 11)}…`);
  });

  it('a second sign-in replaces nothing', async () => {
    const owner = await signedInOwner(app);
    const count = (await app.deps.db.knex('api_keys').where({ team_id: owner.teamId })).length;
    const again = await signIn(app, owner.email);
    expect(again.res.status).toBe(303);
    expect(JSON.parse((await again.b.get('/console/api/session')).text).keyWaiting).toBe(false);
    expect(shownKeys((await again.b.get('/keys')).text)).toEqual([]);
    expect(await app.deps.db.knex('api_keys').where({ team_id: owner.teamId })).toHaveLength(count);
    expect(await teamStatus(app, owner.key)).toEqual({ status: 200, code: undefined });
  });

  it('also replaces the key of an owner who has not verified yet; verifying later replaces nothing', async () => {
    const acct = await createAccount(app);
    await setPassword(app, acct.passwordLink);
    const { b } = await signIn(app, acct.email);
    const [newKey] = shownKeys((await b.get('/keys')).text);
    expect(await teamStatus(app, acct.key)).toEqual({ status: 403, code: 'NOT_AUTHORIZED_ERROR' });
    const locked = await app.request('GET', '/v2/team', { key: newKey! });
    expect(locked.status).toBe(200);
    expect(locked.body.ownerEmailVerified).toBe(false);
    expect((await fetch(app.local(acct.verifyLink))).status).toBe(200);
    expect((await app.request('GET', '/v2/team', { key: newKey! })).body.ownerEmailVerified).toBe(true);
    // Verifying afterwards replaces nothing more.
    expect(await app.deps.db.knex('api_keys').where({ team_id: acct.teamId }).whereNull('revoked_at')).toHaveLength(1);
  });
});

describe('POST /signout', () => {
  it('ends the session and clears the cookie', async () => {
    const owner = await signedInOwner(app);
    const cookie = owner.b.cookie;
    const res = await owner.b.post('/signout', { csrf: await owner.b.csrf() });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/signin?notice=signedout');
    expect(owner.b.cookie).toBe('');
    owner.b.cookie = cookie;
    const after = await owner.b.get('/keys');
    expect(after.status).toBe(303);
    expect(after.location).toBe('/signin');
  });
});

describe('GET /keys', () => {
  it('redirects to /signin without a session, and after the session expires', async () => {
    const res = await new Browser(app).get('/keys');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/signin');
    const owner = await signedInOwner(app);
    app.clock.advance(14 * 24 * 3600 * 1000 + 1);
    expect((await owner.b.get('/keys')).location).toBe('/signin');
  });

  it('lists active keys by prefix with scopes, origin and date, never a secret', async () => {
    const owner = await signedInOwner(app);
    const page = await owner.b.get('/keys');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain(`${owner.key.slice(0, 11)}…`);
    expect(page.text).not.toContain(owner.key);
    expect(page.text).not.toContain(owner.key.slice(11));
    expect(page.text).toContain('First sign-in');
    expect(page.text).toContain('All scopes');
    expect(page.text).toMatch(/<time datetime="2026-/);
    // Revoked (replaced) keys are not listed.
    expect(page.text).not.toContain('Account creation</td>');
    // Every scope is offered with its description, and every input has a label.
    expect(page.text.match(/name="scopes"/g)).toHaveLength(13);
    expect(page.text).toContain('Read team name and verification state.');
    for (const [, id] of page.text.matchAll(/<input (?![^>]*type="hidden")[^>]*id="([^"]+)"/g)) expect(page.text).toContain(`<label for="${id}"`);
  });
});

describe('POST /keys', () => {
  it('creates a key with only the chosen scopes and shows the secret once', async () => {
    const owner = await signedInOwner(app);
    const res = await owner.b.post('/keys', { csrf: await owner.b.csrf(), scopes: ['team:read'], programIds: '', label: 'Reporting' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/keys');
    const page = await owner.b.get('/keys');
    const [secret] = shownKeys(page.text);
    expect(secret).toMatch(/^sk_/);
    expect(page.text).toContain('Reporting');
    expect((await app.request('GET', '/v2/team', { key: secret! })).status).toBe(200);
    const patch = await app.request('PATCH', '/v2/team', { key: secret!, body: { name: 'Nope' } });
    expect(patch.status).toBe(403);
    expect(patch.body.code).toBe('NOT_AUTHORIZED_ERROR');
    const row = await app.deps.db.knex('api_keys').where({ prefix: secret!.slice(0, 11) }).first();
    expect(row).toMatchObject({ origin: 'DASHBOARD', label: 'Reporting', program_ids: null });
    expect(JSON.parse(row.scopes)).toEqual(['team:read']);
    expect(shownKeys((await owner.b.get('/keys')).text)).toEqual([]);
  });

  it('keeps program grants', async () => {
    const owner = await signedInOwner(app);
    await owner.b.post('/keys', { csrf: await owner.b.csrf(), scopes: ['program:read', 'participant:read'], programIds: 'prog_a, prog_b,prog_a', label: '' });
    const [secret] = shownKeys((await owner.b.get('/keys')).text);
    const row = await app.deps.db.knex('api_keys').where({ prefix: secret!.slice(0, 11) }).first();
    expect(JSON.parse(row.program_ids)).toEqual(['prog_a', 'prog_b']);
    expect(JSON.parse(row.scopes)).toEqual(['program:read', 'participant:read']);
  });

  it('answers 400 with an alert for no scope, an unknown scope or a bad program id, keeping the choices', async () => {
    const owner = await signedInOwner(app);
    const csrf = await owner.b.csrf();
    const none = await owner.b.post('/keys', { csrf, programIds: '', label: 'Kept label' });
    expect(none.status).toBe(400);
    expect(none.text).toMatch(/role="alert"/);
    expect(none.text).toContain('value="Kept label"');
    const unknown = await owner.b.post('/keys', { csrf, scopes: ['team:read', 'root:all'] });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('Unknown scope: root:all');
    const badProgram = await owner.b.post('/keys', { csrf, scopes: ['team:read'], programIds: 'ok, <script>' });
    expect(badProgram.status).toBe(400);
    expect(badProgram.text).not.toContain('<script>');
    expect(badProgram.text).toContain('&lt;script&gt;');
    expect(await app.deps.db.knex('api_keys').where({ team_id: owner.teamId, origin: 'DASHBOARD' })).toHaveLength(0);
  });

  it('refuses a missing or wrong csrf value with 403', async () => {
    const owner = await signedInOwner(app);
    const missing = await owner.b.post('/keys', { scopes: ['team:read'] });
    expect(missing.status).toBe(403);
    expect(missing.text).toMatch(/role="alert"/);
    const wrong = await owner.b.post('/keys', { csrf: 'x'.repeat(32), scopes: ['team:read'] });
    expect(wrong.status).toBe(403);
    expect(await app.deps.db.knex('api_keys').where({ team_id: owner.teamId, origin: 'DASHBOARD' })).toHaveLength(0);
  });

  it('refuses a form posted from another origin with 403', async () => {
    const owner = await signedInOwner(app);
    const res = await owner.b.post('/keys', { csrf: await owner.b.csrf(), scopes: ['team:read'] }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    const own = await owner.b.post('/keys', { csrf: await owner.b.csrf(), scopes: ['team:read'] }, { origin: 'http://refloop.test' });
    expect(own.status).toBe(303);
  });
});

describe('POST /keys/revoke', () => {
  it('revokes a key of the current team by prefix, after which REST answers 403', async () => {
    const owner = await signedInOwner(app);
    const prefix = owner.key.slice(0, 11);
    const res = await owner.b.post('/keys/revoke', { csrf: await owner.b.csrf(), prefix });
    expect(res.status).toBe(303);
    expect(await teamStatus(app, owner.key)).toEqual({ status: 403, code: 'NOT_AUTHORIZED_ERROR' });
    const page = await owner.b.get('/keys');
    expect(page.text).toMatch(/role="status">The key sk_[\w-]+… is revoked/);
    expect(page.text).not.toContain(`<code>${prefix}…</code></td>`);
  });

  it('cannot revoke another team’s key', async () => {
    const owner = await signedInOwner(app);
    const other = await signedInOwner(app);
    const res = await owner.b.post('/keys/revoke', { csrf: await owner.b.csrf(), prefix: other.key.slice(0, 11) });
    expect(res.status).toBe(400);
    expect(await teamStatus(app, other.key)).toEqual({ status: 200, code: undefined });
  });
});

describe('POST /team/members/invite and /invite/accept', () => {
  it('invites a new teammate who chooses a password, joins verified and signs in', async () => {
    const owner = await signedInOwner(app);
    const email = newEmail('mate');
    const link = await invite(app, owner.b, email, 'ADMIN');
    const [mail] = await app.deps.mailer.list({ to: email, limit: 1 });
    expect(mail).toMatchObject({ kind: 'team.invite' });
    expect(mail!.links[0]).toMatch(/^http:\/\/refloop\.test\/invite\/accept\?token=/);
    const members = await owner.b.get('/team/members');
    expect(members.text).toMatch(/role="status">Invitation sent to/);

    const b = new Browser(app);
    const form = await b.get(link);
    expect(form.status).toBe(200);
    expect(form.text).toMatch(/<label for="password">/);
    const weak = await b.post(link, { password: 'short', confirm: 'short' });
    expect(weak.status).toBe(400);
    const res = await b.post(link, { password: PASSWORD, confirm: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/signin?notice=joined');
    const user = await app.deps.db.knex('users').where({ email }).first();
    expect(Number(user.email_verified_at)).toBe(app.clock.now());
    expect(await app.deps.db.knex('memberships').where({ user_id: user.id, team_id: owner.teamId }).first()).toMatchObject({ role: 'ADMIN' });

    // Single use.
    expect((await b.get(link)).status).toBe(400);
    expect((await b.post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(400);

    const mate = await signIn(app, email);
    expect(mate.res.location).toBe('/console');
    const keys = await mate.b.get('/keys');
    expect(keys.status).toBe(200);
    expect(keys.text).toContain(`${owner.key.slice(0, 11)}…`);
    // A new Admin owns nothing, so no key was replaced.
    expect(shownKeys(keys.text)).toEqual([]);
    expect(await teamStatus(app, owner.key)).toEqual({ status: 200, code: undefined });
  });

  it('lets a user of two teams pick one at sign-in', async () => {
    const alice = await signedInOwner(app);
    const bob = await signedInOwner(app);
    const link = await invite(app, alice.b, bob.email, 'MEMBER', true);
    const b = new Browser(app);
    const form = await b.get(link);
    expect(form.text).not.toMatch(/<label for="password">/);
    const accepted = await b.post(link, {});
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe('/signin?notice=joined');

    const { b: bobB, res } = await signIn(app, bob.email);
    expect(res.status).toBe(303);
    expect(res.location).toBe('/signin/team');
    const picker = await bobB.get('/signin/team');
    expect(picker.status).toBe(200);
    const teamIds = [...picker.text.matchAll(/name="teamId" value="([^"]+)"/g)].map((m) => m[1]);
    expect(teamIds.sort()).toEqual([alice.teamId, bob.teamId].sort());
    // Before a team is chosen the keys page sends the user back to the picker.
    expect((await bobB.get('/keys')).location).toBe('/signin/team');

    const csrf = /name="csrf" value="([^"]+)"/.exec(picker.text)![1]!;
    expect((await bobB.post('/signin/team', { csrf, teamId: 'not-my-team' })).status).toBe(400);
    const chosen = await bobB.post('/signin/team', { csrf, teamId: alice.teamId });
    expect(chosen.status).toBe(303);
    expect(chosen.location).toBe('/console');
    const keys = await bobB.get('/keys');
    expect(keys.status).toBe(200);
    expect(keys.text).toContain(`${alice.key.slice(0, 11)}…`);
    expect(keys.text).not.toContain(`${bob.key.slice(0, 11)}…`);

    await bobB.post('/signin/team', { csrf, teamId: bob.teamId });
    expect((await bobB.get('/keys')).text).toContain(`${bob.key.slice(0, 11)}…`);
  });

  it('gives a Member without Manage API 403 on the keys pages, and one with it access', async () => {
    const owner = await signedInOwner(app);
    const plainEmail = newEmail('plain');
    const apiEmail = newEmail('api');
    for (const [email, manage] of [
      [plainEmail, false],
      [apiEmail, true],
    ] as const) {
      const link = await invite(app, owner.b, email, 'MEMBER', manage);
      expect((await new Browser(app).post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
    }

    const plain = await signIn(app, plainEmail);
    expect(plain.res.location).toBe('/console');
    const denied = await plain.b.get('/keys');
    expect(denied.status).toBe(403);
    expect(denied.text).toMatch(/role="alert"/);
    expect(denied.text).not.toContain(owner.key.slice(0, 11));
    const csrf = await plain.b.csrf('/team/members');
    expect((await plain.b.post('/keys', { csrf, scopes: ['team:read'] })).status).toBe(403);
    expect((await plain.b.post('/keys/revoke', { csrf, prefix: owner.key.slice(0, 11) })).status).toBe(403);
    expect(await teamStatus(app, owner.key)).toEqual({ status: 200, code: undefined });
    // Members may not invite either.
    const members = await plain.b.get('/team/members');
    expect(members.status).toBe(200);
    expect(members.text).not.toContain('action="/team/members/invite"');
    expect((await plain.b.post('/team/members/invite', { csrf, email: newEmail('x'), role: 'MEMBER' })).status).toBe(403);

    const api = await signIn(app, apiEmail);
    expect(api.res.location).toBe('/console');
    expect((await api.b.get('/keys')).status).toBe(200);
    expect((await api.b.post('/keys', { csrf: await api.b.csrf('/keys'), scopes: ['team:read'] })).status).toBe(303);
    const [secret] = shownKeys((await api.b.get('/keys')).text);
    expect((await app.request('GET', '/v2/team', { key: secret! })).status).toBe(200);
  });

  it('answers 400 for a bad address, an Owner role or someone already in the team', async () => {
    const owner = await signedInOwner(app);
    const csrf = await owner.b.csrf();
    expect((await owner.b.post('/team/members/invite', { csrf, email: 'not-an-email', role: 'MEMBER' })).status).toBe(400);
    const ownerRole = await owner.b.post('/team/members/invite', { csrf, email: newEmail('x'), role: 'OWNER' });
    expect(ownerRole.status).toBe(400);
    expect(ownerRole.text).toMatch(/role="alert"/);
    const self = await owner.b.post('/team/members/invite', { csrf, email: owner.email, role: 'MEMBER' });
    expect(self.status).toBe(400);
    expect(self.text).toContain('already a member');
  });

  it('refuses an invitation without the csrf value', async () => {
    const owner = await signedInOwner(app);
    const email = newEmail('forged');
    expect((await owner.b.post('/team/members/invite', { email, role: 'ADMIN' })).status).toBe(403);
    expect(await app.deps.mailer.list({ to: email })).toHaveLength(0);
  });

  it('answers 400 for an unknown invitation link', async () => {
    expect((await new Browser(app).get('/invite/accept?token=nope')).status).toBe(400);
    expect((await new Browser(app).post('/invite/accept?token=nope', { password: PASSWORD, confirm: PASSWORD })).status).toBe(400);
  });
});

describe('owner pages over HTTPS', () => {
  let secure: TestApp;
  beforeAll(async () => {
    secure = await startApp({ PUBLIC_URL: 'https://refloop.test', TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await secure.close();
  });

  it('redirects plain-http GETs to the https URL with 301', async () => {
    const res = await new Browser(secure).get('/signin?notice=password', { 'x-forwarded-proto': 'http' });
    expect(res.status).toBe(301);
    expect(res.location).toBe('https://refloop.test/signin?notice=password');
    expect((await new Browser(secure).get('/keys')).location).toBe('https://refloop.test/keys');
  });

  it('refuses plain-http POSTs with 403', async () => {
    const acct = await verifiedAccount(secure);
    const res = await new Browser(secure).post('/signin', { email: acct.email, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.text).toMatch(/role="alert"/);
  });

  it('sets a Secure session cookie behind a TLS-terminating proxy', async () => {
    const acct = await verifiedAccount(secure);
    const viaProxy = { 'x-forwarded-proto': 'https' };
    const setRes = await new Browser(secure, viaProxy).post(secure.local(acct.passwordLink), { password: PASSWORD, confirm: PASSWORD });
    expect(setRes.status).toBe(303);
    const { b, res } = await signIn(secure, acct.email, PASSWORD, viaProxy);
    expect(res.status).toBe(303);
    const set = b.lastSetCookie.find((c) => c.startsWith('refloop_session='))!;
    expect(set).toMatch(/; Secure/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect((await b.get('/keys')).status).toBe(200);
  });
});

describe('POST /signin limit', () => {
  it('answers 429 after too many attempts for one email, even with the right password', async () => {
    const strict = await startApp({ SIGNIN_ATTEMPTS_PER_15_MIN: '3' });
    try {
      const acct = await createAccount(strict, newEmail('limit'));
      await setPassword(strict, acct.passwordLink);
      for (let i = 0; i < 3; i++) expect((await signIn(strict, acct.email, 'wrong password!!')).res.status).toBe(400);
      const blocked = (await signIn(strict, acct.email)).res;
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await strict.close();
    }
  });
});

// Issue #19: the one rule of server/http/pages/form-source.ts, for what a browser may send besides
// what Chromium sends in test/e2e/owner-pages.test.ts (no Fetch Metadata over plain http to a
// non-local host; `Origin: null` under privacy settings or from a sandboxed frame of any site).
describe('form posts: the browser’s signals, then the page’s token (issue #19)', () => {
  it('accepts Sec-Fetch-Site same-origin whatever Origin says, and refuses same-site, cross-site and none', async () => {
    const owner = await signedInOwner(app);
    const post = async (headers: Record<string, string>) => (await owner.b.post('/keys', { csrf: await owner.b.csrf(), scopes: ['team:read'] }, headers)).status;
    expect(await post({ 'sec-fetch-site': 'same-origin', origin: 'null' })).toBe(303);
    expect(await post({ 'sec-fetch-site': 'same-site', origin: 'http://shop.refloop.test' })).toBe(403);
    expect(await post({ 'sec-fetch-site': 'cross-site' })).toBe(403);
    expect(await post({ 'sec-fetch-site': 'none' })).toBe(303);
    expect(await app.deps.db.knex('api_keys').where({ team_id: owner.teamId, origin: 'DASHBOARD' })).toHaveLength(2);
  });

  it('lets the CSRF value decide on Origin: null without Fetch Metadata', async () => {
    const owner = await signedInOwner(app);
    expect((await owner.b.post('/keys', { csrf: await owner.b.csrf(), scopes: ['team:read'] }, { origin: 'null' })).status).toBe(303);
    expect((await owner.b.post('/keys', { csrf: 'x'.repeat(32), scopes: ['team:read'] }, { origin: 'null' })).status).toBe(403);
  });

  it('accepts the Origin of the Host the owner used, besides PUBLIC_URL', async () => {
    const owner = await signedInOwner(app);
    expect((await owner.b.post('/keys', { csrf: await owner.b.csrf(), scopes: ['team:read'] }, { origin: app.url })).status).toBe(303);
  });

  it('asks a sign-in form with Origin: null for the token its page set in a cookie', async () => {
    const acct = await verifiedAccount(app);
    await setPassword(app, acct.passwordLink);
    const form = await fetch(`${app.url}/signin`);
    const cookie = /refloop_form=([^;]+)/.exec(form.headers.getSetCookie().join('\n'))![1]!;
    expect(form.headers.getSetCookie().join('\n')).toMatch(/refloop_form=[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
    const token = /name="form" value="([^"]+)"/.exec(await form.text())![1]!;
    expect(token).toBe(cookie);
    const signIn = (fields: Record<string, string>, headers: Record<string, string>) =>
      fetch(`${app.url}/signin`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', ...headers }, body: new URLSearchParams({ email: acct.email, password: PASSWORD, ...fields }).toString() });
    const without = await signIn({}, {});
    expect(without.status).toBe(403);
    expect(without.headers.getSetCookie().join()).not.toContain('refloop_session=');
    expect((await signIn({ form: 'y'.repeat(24) }, { cookie: `refloop_form=${cookie}` })).status).toBe(403);
    const ok = await signIn({ form: token }, { cookie: `refloop_form=${cookie}` });
    expect(ok.status).toBe(303);
    expect(ok.headers.getSetCookie().join()).toContain('refloop_session=');
  });

  it('sends Referrer-Policy same-origin on every page with a form, so browsers post a real Origin', async () => {
    const acct = await createAccount(app);
    for (const path of ['/signin', '/signup', new URL(app.local(acct.passwordLink)).pathname + new URL(acct.passwordLink).search]) {
      const res = await fetch(app.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('referrer-policy'), path).toBe('same-origin');
    }
  });
});

describe('POST /signup (issue #19)', () => {
  const signUp = async (fields: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${app.url}/signup`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
    return { status: res.status, text: await res.text() };
  };

  it('creates the account as POST /accounts does and says where the welcome email went', async () => {
    const email = newEmail('signup');
    const res = await signUp({ email, company: 'Acme Widgets', terms: 'on' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Check your email');
    expect(res.text).toContain('href="/_dev/mail"');
    expect(res.text).not.toMatch(/sk_[A-Za-z0-9]/);
    const [mail] = await app.deps.mailer.list({ to: email });
    expect(mail!.kind).toBe('account.welcome');
    const team = await app.deps.db.knex('teams as t').join('memberships as m', 'm.team_id', 't.id').join('users as u', 'u.id', 'm.user_id').where('u.email', email).first('t.name', 'u.terms_accepted_at');
    expect(team).toMatchObject({ name: 'Acme Widgets', terms_accepted_at: expect.any(Number) });
  });

  it('answers 400 with the form kept for no terms tick, a bad or personal address, and 409 for a taken one', async () => {
    const email = newEmail('signup-dup');
    const noTerms = await signUp({ email, company: 'Kept Co' });
    expect(noTerms.status).toBe(400);
    expect(noTerms.text).toContain('Accept the terms of service and the privacy policy');
    expect(noTerms.text).toContain('value="Kept Co"');
    expect((await signUp({ email: 'not-an-address', terms: 'on' })).text).toContain('Enter a valid email address.');
    const personal = await signUp({ email: 'someone@gmail.com', terms: 'on' });
    expect(personal.status).toBe(400);
    expect(personal.text).toMatch(/role="alert"/);
    expect((await signUp({ email, terms: 'on' })).status).toBe(200);
    const again = await signUp({ email, terms: 'on' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('An account with this email already exists.');
    expect(await app.deps.db.knex('users').where({ email: 'someone@gmail.com' })).toHaveLength(0);
  });

  it('shares the per-IP account-creation limit of POST /accounts (429 with Retry-After)', async () => {
    const limited = await startApp({ ACCOUNT_CREATION_PER_HOUR: '1' });
    try {
      const post = (email: string) => fetch(`${limited.url}/signup`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email, terms: 'on' }).toString() });
      expect((await limited.request('POST', '/v2/accounts', { body: { email: newEmail('rest') } })).status).toBe(200);
      const res = await post(newEmail('page'));
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await res.text()).toContain('Too many accounts created from this address.');
    } finally {
      await limited.close();
    }
  });
});

describe('site pages (issue #21)', () => {
  it('the landing page is titled once, not "refloop · refloop", and every page links the icon', async () => {
    const res = await fetch(`${app.url}/`);
    const html = await res.text();
    const title = /<title>([^<]*)<\/title>/.exec(html)![1]!;
    expect(title).toBe('refloop: referral and affiliate programs');
    expect(title).not.toMatch(/refloop · refloop/);
    expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    const signin = await (await fetch(`${app.url}/signin`)).text();
    expect(/<title>([^<]*)<\/title>/.exec(signin)![1]).toBe('Sign in · refloop');
    expect(signin).toContain('href="/favicon.svg"');
  });

  it('/favicon.svg and /favicon.ico answer with an icon, cached for a day', async () => {
    const svg = await fetch(`${app.url}/favicon.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(svg.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(await svg.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const method of ['GET', 'HEAD']) {
      const ico = await fetch(`${app.url}/favicon.ico`, { method });
      expect(ico.status).toBe(200);
      expect(ico.headers.get('content-type')).toBe('image/x-icon');
      expect(ico.headers.get('cache-control')).toBe('public, max-age=86400');
      if (method === 'GET') {
        const bytes = Buffer.from(await ico.arrayBuffer());
        // ICONDIR: reserved 0, type 1 (icon), one image of 16 × 16 at 32 bits per pixel.
        expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4), bytes[6], bytes[7], bytes.readUInt16LE(12)]).toEqual([0, 1, 1, 16, 16, 32]);
        expect(bytes.readUInt32LE(18) + bytes.readUInt32LE(14)).toBe(bytes.length);
      }
    }
  });

  it('/_dev/mail says how many messages there are and pages through all of them', async () => {
    const to = `outbox-${crypto.randomUUID()}@example.com`;
    for (let i = 1; i <= 45; i++) await app.deps.mailer.send(app.deps.db.knex, { to, subject: `Message ${i}`, text: `Body ${i}`, kind: 'test.outbox' });
    const get = (q: string) => fetch(`${app.url}/_dev/mail?${q}`).then((r) => r.text());
    const first = await get(`to=${encodeURIComponent(to)}`);
    expect(first).toContain(`45 messages to ${to}, newest first. Showing 1–20 (page 1 of 3).`);
    expect(first).toContain('Message 45');
    expect(first).not.toContain('Message 25<');
    expect(first).toContain(`href="/_dev/mail?to=${encodeURIComponent(to)}&amp;page=2" rel="next">Next</a>`);
    expect(first).not.toContain('rel="prev"');
    const seen = new Set<string>();
    for (let page = 1; page <= 3; page++) {
      const html = await get(`to=${encodeURIComponent(to)}&page=${page}`);
      for (const m of html.matchAll(/<h2>Message (\d+)<\/h2>/g)) seen.add(m[1]!);
      if (page > 1) expect(html).toContain('rel="prev">Previous</a>');
      if (page === 3) {
        expect(html).toContain('Showing 41–45 (page 3 of 3).');
        expect(html).not.toContain('rel="next"');
      }
    }
    expect(seen.size).toBe(45);
    // Out-of-range pages show the nearest page; one message reads in the singular.
    expect(await get(`to=${encodeURIComponent(to)}&page=99`)).toContain('page 3 of 3');
    const single = `single-${crypto.randomUUID()}@example.com`;
    await app.deps.mailer.send(app.deps.db.knex, { to: single, subject: 'Only one', text: 'x', kind: 'test.outbox' });
    const one = await get(`to=${encodeURIComponent(single)}`);
    expect(one).toContain(`1 message to ${single}, newest first.`);
    expect(one).not.toContain('<nav');
    const json = await (await fetch(`${app.url}/_dev/mail?to=${encodeURIComponent(to)}`, { headers: { accept: 'application/json' } })).json();
    expect(json).toMatchObject({ total: 45, page: 1, pages: 1 });
    expect(json.messages).toHaveLength(45);
  });
});
