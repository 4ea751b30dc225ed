import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { Browser, invite, newEmail, setPassword, signIn, signedInOwner } from '../../helpers/owner.ts';

// Issue #23: the console's REST mirror `/console/api/v2/…` is the `/v2` routes table with the
// owner session as credential. Same answers, same refusals; writes need the CSRF value and our
// own origin; the team role decides the scopes.

let app: TestApp;
let owner: Awaited<ReturnType<typeof signedInOwner>>;
let csrf: string;

beforeAll(async () => {
  app = await startApp();
  owner = await signedInOwner(app);
  csrf = (await owner.b.json('GET', '/console/api/session')).body.csrf;
});
afterAll(async () => {
  await app.close();
});

describe('console API (issue #23)', () => {
  it('answers 401 NOT_SIGNED_IN_ERROR without a session, in the REST error object', async () => {
    const anon = new Browser(app);
    for (const path of ['/console/api/session', '/console/api/v2/campaigns']) {
      const res = await anon.json('GET', path);
      expect(res.status, path).toBe(401);
      expect(res.body).toMatchObject({ code: 'NOT_SIGNED_IN_ERROR', status: 401, name: 'NotSignedInError' });
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('tells the app who is signed in, in which team, with which scopes', async () => {
    const res = await owner.b.json('GET', '/console/api/session');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: owner.email, team: { role: 'OWNER', canManageKeys: true, canInvite: true } });
    expect(res.body.scopes).toContain('program:write');
    expect(res.body.scopes).not.toContain('api_key:rotate');
    expect(res.body.csrf).toMatch(/\S{16,}/);
  });

  it('gives the same answers as the REST API with a key', async () => {
    const created = await owner.b.json('POST', '/console/api/v2/campaigns', { type: 'REFERRAL', name: 'Console program' }, { 'x-csrf-token': csrf });
    expect(created.status).toBe(200);
    const viaKey = await app.request('GET', `/v2/campaign/${created.body.id}`, { key: owner.key });
    const viaConsole = await owner.b.json('GET', `/console/api/v2/campaign/${created.body.id}`);
    expect(viaConsole.status).toBe(200);
    expect(viaConsole.body).toEqual(viaKey.body);
    // Validation errors are the pipeline's own.
    const bad = await owner.b.json('POST', '/console/api/v2/campaigns', { type: 'NOPE' }, { 'x-csrf-token': csrf });
    const badKey = await app.request('POST', '/v2/campaigns', { key: owner.key, body: { type: 'NOPE' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(badKey.body.errors);
    const missing = await owner.b.json('GET', '/console/api/v2/nothing-here');
    expect(missing.status).toBe(404);
  });

  it('refuses writes without the CSRF value or from another site, with nothing written', async () => {
    const before = (await owner.b.json('GET', '/console/api/v2/campaigns')).body.campaigns.length;
    const noToken = await owner.b.json('POST', '/console/api/v2/campaigns', { type: 'REFERRAL' });
    expect(noToken.status).toBe(403);
    expect(noToken.body.code).toBe('NOT_AUTHORIZED_ERROR');
    const wrong = await owner.b.json('POST', '/console/api/v2/campaigns', { type: 'REFERRAL' }, { 'x-csrf-token': 'x'.repeat(csrf.length) });
    expect(wrong.status).toBe(403);
    const crossSite = await owner.b.json('POST', '/console/api/v2/campaigns', { type: 'REFERRAL' }, { 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const foreign = await owner.b.json('POST', '/console/api/v2/campaigns', { type: 'REFERRAL' }, { 'x-csrf-token': csrf, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await owner.b.json('GET', '/console/api/v2/campaigns')).body.campaigns.length).toBe(before);
  });

  it("refuses another team's program exactly as the REST API does", async () => {
    const other = await signedInOwner(app);
    const theirs = await app.request('POST', '/v2/campaigns', { key: other.key, body: { type: 'REFERRAL' } });
    const viaKey = await app.request('GET', `/v2/campaign/${theirs.body.id}`, { key: owner.key });
    const viaConsole = await owner.b.json('GET', `/console/api/v2/campaign/${theirs.body.id}`);
    expect(viaKey.status).toBe(403);
    expect(viaConsole.status).toBe(403);
    expect(viaConsole.body.message).toBe(viaKey.body.message);
  });

  it('gives a Member read scopes only: reads pass, writes are refused for the missing scope', async () => {
    const email = newEmail('member');
    const link = await invite(app, owner.b, email, 'MEMBER');
    const accept = await new Browser(app).post(link, { password: 'correct horse battery', confirm: 'correct horse battery' });
    expect(accept.status).toBe(303);
    const { b } = await signIn(app, email);
    const info = await b.json('GET', '/console/api/session');
    expect(info.body.team.role).toBe('MEMBER');
    expect(info.body.scopes.every((s: string) => s.endsWith(':read'))).toBe(true);
    expect((await b.json('GET', '/console/api/v2/campaigns')).status).toBe(200);
    const write = await b.json('POST', '/console/api/v2/campaigns', { type: 'REFERRAL' }, { 'x-csrf-token': info.body.csrf });
    expect(write.status).toBe(403);
    expect(write.body.message).toMatch(/missing the scope program:write/);
  });

  it('stops answering once the session is signed out', async () => {
    const acct = await signedInOwner(app);
    const token = (await acct.b.json('GET', '/console/api/session')).body.csrf;
    expect((await acct.b.post('/signout', { csrf: token })).status).toBe(303);
    // The browser dropped the cookie; the old cookie value no longer works either.
    expect((await acct.b.json('GET', '/console/api/v2/campaigns')).status).toBe(401);
  });

  it('serves the console shell at every console address, with a strict CSP', async () => {
    const anon = new Browser(app);
    for (const path of ['/console', '/console/programs/abc/participants']) {
      const res = await anon.get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.text).toContain('/console/assets/console.js');
    }
  });
});

void setPassword;
