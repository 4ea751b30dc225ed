import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, type TestApp } from '../../helpers/app.ts';
import { Browser, PASSWORD, consoleCall, consoleCsrf, consoleOwnerApp, joinedTeammate, mailLink, newEmail, signIn, signedInOwner } from '../../helpers/owner.ts';

// Issue #23: team administration as REST extensions (members, invitations, API keys, sessions,
// outbox). People only: an owner's console session with the right role; an API key gets 403.

let app: TestApp;
let owner: Awaited<ReturnType<typeof signedInOwner>>;
let csrf: string;

/** A teammate who accepted an invitation and signed in; returns their browser and CSRF value. */
async function teammate(role: 'ADMIN' | 'MEMBER', manageApi: boolean) {
  const email = newEmail(role.toLowerCase());
  const sent = await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email, role, manageApi });
  expect(sent.status).toBe(200);
  return joinedTeammate(app, email, await mailLink(app, email, '/invite/accept?'));
}

beforeAll(async () => {
  ({ app, owner, csrf } = await consoleOwnerApp());
});
afterAll(async () => {
  await app.close();
});

describe('POST /team/invitations and GET /team/members, /team/invitations (refloop extensions, issue #23)', () => {
  it('invites by email with a role and Manage API; the invitation is listed, then the member once accepted', async () => {
    const email = newEmail('invitee');
    const sent = await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email, role: 'MEMBER', manageApi: true });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ id: expect.any(String), email, status: 'SENT' });
    const pending = await consoleCall(owner.b, csrf, 'GET', '/team/invitations');
    expect(pending.body.invitations).toContainEqual(expect.objectContaining({ id: sent.body.id, email, role: 'MEMBER', manageApi: true }));
    const link = await mailLink(app, email, '/invite/accept?');
    expect((await new Browser(app).post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
    const members = await app.request('GET', '/v2/team/members', { key: owner.key });
    expect(members.status).toBe(200);
    expect(members.body.members[0]).toMatchObject({ email: owner.email, role: 'OWNER', manageApi: true });
    expect(members.body.members).toContainEqual(expect.objectContaining({ email, role: 'MEMBER', manageApi: true }));
    expect((await consoleCall(owner.b, csrf, 'GET', '/team/invitations')).body.invitations.map((i: { email: string }) => i.email)).not.toContain(email);
  });

  it('refuses a bad address and a current member with 400 and per-field errors', async () => {
    const bad = await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email: 'not-an-address', role: 'MEMBER' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ field: 'email' });
    const self = await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email: owner.email, role: 'ADMIN' });
    expect(self.status).toBe(400);
    expect(self.body.message).toMatch(/already a member/);
    const role = await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email: newEmail('x'), role: 'OWNER' });
    expect(role.status).toBe(400);
  });

  it('answers an API key with 403 on invitations, whatever its scopes, and sends nothing', async () => {
    const email = newEmail('by-key');
    const res = await app.request('POST', '/v2/team/invitations', { key: owner.key, body: { email, role: 'ADMIN' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect(res.body.message).toMatch(/API key cannot/);
    expect(await app.deps.mailer.count({ to: email })).toBe(0);
    expect((await app.request('GET', '/v2/team/invitations', { key: owner.key })).status).toBe(403);
  });

  it('refuses a Member: invitations are for Owners and Admins', async () => {
    const m = await teammate('MEMBER', true);
    const res = await consoleCall(m.b, m.csrf, 'POST', '/team/invitations', { email: newEmail('y'), role: 'MEMBER' });
    expect(res.status).toBe(403);
    expect((await consoleCall(m.b, m.csrf, 'GET', '/team/invitations')).status).toBe(403);
  });
});

describe('POST, GET /team/api-keys and DELETE /team/api-keys/{prefix} (refloop extensions, issue #23)', () => {
  it('creates a key with two scopes shown once, which works over REST until revoked', async () => {
    const created = await consoleCall(owner.b, csrf, 'POST', '/team/api-keys', { scopes: ['team:read', 'program:read'], label: 'Reporting' });
    expect(created.status).toBe(200);
    const secret = created.body.apiKey as string;
    expect(secret).toMatch(/^sk_/);
    expect(created.body.key).toMatchObject({ prefix: secret.slice(0, 11), label: 'Reporting', scopes: ['team:read', 'program:read'], programIds: null, origin: 'DASHBOARD' });
    const list = await consoleCall(owner.b, csrf, 'GET', '/team/api-keys');
    expect(list.body.apiKeys.find((k: { prefix: string }) => k.prefix === created.body.key.prefix)).toMatchObject({ label: 'Reporting', scopes: ['team:read', 'program:read'] });
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect((await app.request('GET', '/v2/team', { key: secret })).status).toBe(200);
    expect((await app.request('POST', '/v2/campaigns', { key: secret, body: { type: 'REFERRAL' } })).status).toBe(403);
    const revoked = await consoleCall(owner.b, csrf, 'DELETE', `/team/api-keys/${created.body.key.prefix}`);
    expect(revoked.body).toEqual({ prefix: created.body.key.prefix, success: true });
    expect((await app.request('GET', '/v2/team', { key: secret })).status).toBe(403);
    expect((await consoleCall(owner.b, csrf, 'DELETE', `/team/api-keys/${created.body.key.prefix}`)).status).toBe(404);
  });

  it('limits a key to programs and refuses unknown scopes, bad program ids and an empty scope list', async () => {
    const limited = await consoleCall(owner.b, csrf, 'POST', '/team/api-keys', { scopes: ['program:read'], programIds: ['prog_1', 'prog_2'] });
    expect(limited.body.key.programIds).toEqual(['prog_1', 'prog_2']);
    for (const body of [{ scopes: [] }, { scopes: ['everything'] }, { scopes: ['team:read'], programIds: ['bad id!'] }, { scopes: ['team:read'], extra: 1 }]) {
      const res = await consoleCall(owner.b, csrf, 'POST', '/team/api-keys', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
  });

  it('answers a team API key with 403: a key can never mint, list or revoke keys', async () => {
    const before = (await consoleCall(owner.b, csrf, 'GET', '/team/api-keys')).body.apiKeys.length;
    const mint = await app.request('POST', '/v2/team/api-keys', { key: owner.key, body: { scopes: ['team:read'] } });
    expect(mint.status).toBe(403);
    expect(mint.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect((await app.request('GET', '/v2/team/api-keys', { key: owner.key })).status).toBe(403);
    const prefix = owner.key.slice(0, 11);
    expect((await app.request('DELETE', `/v2/team/api-keys/${prefix}`, { key: owner.key })).status).toBe(403);
    expect((await app.request('GET', '/v2/team', { key: owner.key })).status).toBe(200);
    expect((await consoleCall(owner.b, csrf, 'GET', '/team/api-keys')).body.apiKeys.length).toBe(before);
  });

  it('refuses a Member without Manage API and lets a Member with it manage keys', async () => {
    const without = await teammate('MEMBER', false);
    const refused = await consoleCall(without.b, without.csrf, 'POST', '/team/api-keys', { scopes: ['team:read'] });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/Manage API/);
    expect((await consoleCall(without.b, without.csrf, 'GET', '/team/api-keys')).status).toBe(403);
    const withApi = await teammate('MEMBER', true);
    const made = await consoleCall(withApi.b, withApi.csrf, 'POST', '/team/api-keys', { scopes: ['participant:read'] });
    expect(made.status).toBe(200);
  });

  it("refuses another team's key: revoking it answers 404 and it keeps working", async () => {
    const other = await signedInOwner(app);
    const otherCsrf = await consoleCsrf(other.b);
    const theirs = await consoleCall(other.b, otherCsrf, 'POST', '/team/api-keys', { scopes: ['team:read'] });
    const res = await consoleCall(owner.b, csrf, 'DELETE', `/team/api-keys/${theirs.body.key.prefix}`);
    expect(res.status).toBe(404);
    expect((await app.request('GET', '/v2/team', { key: theirs.body.apiKey })).status).toBe(200);
    const mine = (await consoleCall(owner.b, csrf, 'GET', '/team/api-keys')).body.apiKeys.map((k: { prefix: string }) => k.prefix);
    expect(mine).not.toContain(theirs.body.key.prefix);
    const members = (await consoleCall(owner.b, csrf, 'GET', '/team/members')).body.members.map((m: { email: string }) => m.email);
    expect(members).not.toContain(other.email);
  });
});

describe('DELETE /owner/sessions (refloop extension, issue #23)', () => {
  it("ends every session of the signed-in person, in every browser, and no one else's", async () => {
    const acct = await signedInOwner(app);
    const second = await signIn(app, acct.email);
    const token = await consoleCsrf(acct.b);
    const res = await consoleCall(acct.b, token, 'DELETE', '/owner/sessions');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, ended: 2 });
    expect((await second.b.json('GET', '/console/api/session')).status).toBe(401);
    expect((await acct.b.json('GET', '/console/api/session')).status).toBe(401);
    expect((await owner.b.json('GET', '/console/api/session')).status).toBe(200);
  });

  it('answers an API key with 403', async () => {
    expect((await app.request('DELETE', '/v2/owner/sessions', { key: owner.key })).status).toBe(403);
  });
});

describe('GET /team/outbox (refloop extension, issue #23)', () => {
  it("lists the team's mail newest first in pages, never another team's or a teammate's account mail", async () => {
    const other = await signedInOwner(app);
    const otherCsrf = await consoleCsrf(other.b);
    const theirInvitee = newEmail('theirs');
    await consoleCall(other.b, otherCsrf, 'POST', '/team/invitations', { email: theirInvitee, role: 'MEMBER' });
    const mine = newEmail('mine');
    await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email: mine, role: 'ADMIN' });
    const first = await consoleCall(owner.b, csrf, 'GET', '/team/outbox?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.messages[0]).toMatchObject({ to: mine, kind: 'team.invite' });
    expect(first.body.messages[0].links.some((l: string) => l.includes('/invite/accept?'))).toBe(true);
    expect(first.body.nextCursor).toMatch(/^\d+$/);
    const all: Array<{ to: string; kind: string }> = [...first.body.messages];
    for (let cursor = first.body.nextCursor; cursor; ) {
      const next = await consoleCall(owner.b, csrf, 'GET', `/team/outbox?limit=2&cursor=${cursor}`);
      all.push(...next.body.messages);
      cursor = next.body.nextCursor;
    }
    const to = all.map((m) => m.to);
    expect(to).not.toContain(theirInvitee);
    expect(to).not.toContain(other.email);
    // The owner's own welcome email (account mail) is theirs to read.
    expect(all).toContainEqual(expect.objectContaining({ to: owner.email, kind: 'account.welcome' }));
    // An Admin of the team never sees the Owner's account mail (its set-password link).
    const admin = await teammate('ADMIN', false);
    const adminView = await consoleCall(admin.b, admin.csrf, 'GET', '/team/outbox?limit=50');
    expect(adminView.status).toBe(200);
    expect(adminView.body.messages.filter((m: { kind: string }) => m.kind.startsWith('account.'))).toEqual([]);
    expect(adminView.body.messages.map((m: { to: string }) => m.to)).toContain(mine);
  });

  it('refuses API keys and Members with 403 and a bad cursor with 400', async () => {
    expect((await app.request('GET', '/v2/team/outbox', { key: owner.key })).status).toBe(403);
    const m = await teammate('MEMBER', true);
    expect((await consoleCall(m.b, m.csrf, 'GET', '/team/outbox')).status).toBe(403);
    expect((await consoleCall(owner.b, csrf, 'GET', '/team/outbox?cursor=abc')).status).toBe(400);
  });

  it('answers 404 on a server that sends mail over SMTP', async () => {
    const smtp = await startApp({ ...RAISED_LIMITS, SMTP_URL: 'smtp://127.0.0.1:1' });
    try {
      const o = await signedInOwner(smtp);
      const info = await o.b.json('GET', '/console/api/session');
      expect(info.body.mailOutbox).toBe(false);
      expect((await o.b.json('GET', '/console/api/v2/team/outbox')).status).toBe(404);
    } finally {
      await smtp.close();
    }
  });
});
