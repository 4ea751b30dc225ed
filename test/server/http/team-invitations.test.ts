import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { Browser, PASSWORD, consoleCall, consoleCsrf, consoleOwnerApp, joinedTeammate, mailLink, newEmail, signIn, signedInOwner } from '../../helpers/owner.ts';

// Issue #23: pending team invitations can be cancelled (TM4) and resent (TM5), refloop extensions
// beside TM1–TM3. People only (an owner's console session, Owners and Admins); the old link stops
// working at once and its page says why; a resend waits 5 minutes after the last sending; another
// team's invitation is a 404.

let app: TestApp;
let owner: Awaited<ReturnType<typeof signedInOwner>>;
let csrf: string;

const call = (method: string, path: string, body?: unknown) => consoleCall(owner.b, csrf, method, path, body);

/** Invites `email` from the owner's console and returns the invitation's id and its emailed link. */
async function invited(email: string, role: 'ADMIN' | 'MEMBER' = 'MEMBER', manageApi = false) {
  const sent = await call('POST', '/team/invitations', { email, role, manageApi });
  expect(sent.status).toBe(200);
  expect(sent.body).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{1,32}$/), email, status: 'SENT' });
  return { id: sent.body.id as string, link: await mailLink(app, email, '/invite/accept?') };
}

const pending = async () => (await call('GET', '/team/invitations')).body.invitations as Array<{ id: string; email: string; role: string; manageApi: boolean; sentAt: number; expiresAt: number }>;

/** Opens an invitation link as the invitee would (no session). */
const open = (link: string) => new Browser(app).get(link);
/** Accepts an invitation link with a new password, as the invitee's form posts it. */
const accept = (link: string) => new Browser(app).post(link, { password: PASSWORD, confirm: PASSWORD });

const heading = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

async function memberEmails(): Promise<string[]> {
  return (await call('GET', '/team/members')).body.members.map((m: { email: string }) => m.email);
}

/** A teammate who accepted an invitation and signed in; returns their browser and CSRF value. */
async function teammate(role: 'ADMIN' | 'MEMBER', manageApi: boolean) {
  const email = newEmail(role.toLowerCase());
  const { link } = await invited(email, role, manageApi);
  return joinedTeammate(app, email, link);
}

beforeAll(async () => {
  ({ app, owner, csrf } = await consoleOwnerApp());
});
afterAll(async () => {
  await app.close();
});

describe('POST /team/invitations/{id}/resend (TM5, refloop extension, issue #23)', () => {
  it('waits 5 minutes after the last sending, then mails a new link with a new expiry; the old link says a newer one was sent', async () => {
    const email = newEmail('resend');
    const { id, link: first } = await invited(email, 'MEMBER', true);
    const before = (await pending()).find((i) => i.id === id)!;
    expect(before).toMatchObject({ email, role: 'MEMBER', manageApi: true });

    // Too soon: 429 in the error object, with words and Retry-After; nothing sent, the first link still works.
    const soon = await call('POST', `/team/invitations/${id}/resend`, {});
    expect(soon.status).toBe(429);
    expect(soon.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'TEAM_INVITATION_RESEND', message: 'This invitation was sent moments ago; resend it again in 300 seconds.' });
    expect(soon.headers.get('retry-after')).toBe('300');
    expect(await app.deps.mailer.count({ to: email })).toBe(1);
    app.clock.advance(4 * 60_000);
    const later = await call('POST', `/team/invitations/${id}/resend`, {});
    expect(later.status).toBe(429);
    expect(later.body.message).toBe('This invitation was sent moments ago; resend it again in 60 seconds.');
    expect((await open(first)).status).toBe(200);

    app.clock.advance(60_000);
    const resent = await call('POST', `/team/invitations/${id}/resend`, {});
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ id, email, role: 'MEMBER', manageApi: true, sentAt: app.clock.now(), expiresAt: app.clock.now() + 7 * 24 * 3600_000 });
    expect(resent.body.expiresAt).toBeGreaterThan(before.expiresAt);
    expect(await app.deps.mailer.count({ to: email })).toBe(2);
    const second = await mailLink(app, email, '/invite/accept?');
    expect(second).not.toBe(first);
    const [mail] = await app.deps.mailer.list({ to: email, limit: 1 });
    expect(mail!.text).toContain('the link in any earlier invitation no longer works');
    // Listed once, as resent.
    expect((await pending()).filter((i) => i.email === email)).toEqual([resent.body]);

    // The old link: its page says a newer invitation was sent, and posting to it joins no one.
    const old = await open(first);
    expect(old.status).toBe(410);
    expect(heading(old.text)).toBe('A newer invitation was sent');
    expect(old.text).toContain('Open the link in the newest invitation email.');
    expect(old.text).not.toContain('<form');
    const oldPost = await accept(first);
    expect(oldPost.status).toBe(410);
    expect(await memberEmails()).not.toContain(email);

    // The new link joins with the invitation's role.
    expect((await open(second)).status).toBe(200);
    expect((await accept(second)).status).toBe(303);
    const members = (await call('GET', '/team/members')).body.members;
    expect(members).toContainEqual(expect.objectContaining({ email, role: 'MEMBER', manageApi: true }));
    expect((await pending()).map((i) => i.email)).not.toContain(email);

    // Accepted: neither resent nor cancelled (406 with words).
    app.clock.advance(6 * 60_000);
    const again = await call('POST', `/team/invitations/${id}/resend`, {});
    expect(again.status).toBe(406);
    expect(again.body).toMatchObject({ code: 'INVALID_STATE_ERROR', message: `This invitation was already accepted: ${email} is a member of the team, so there is nothing to resend.` });
    expect((await call('DELETE', `/team/invitations/${id}`)).status).toBe(406);
  });

  it('refuses with 406 when the address joined through another invitation meanwhile', async () => {
    const email = newEmail('twice');
    const { id } = await invited(email);
    const { link } = await invited(email, 'ADMIN');
    expect((await accept(link)).status).toBe(303);
    app.clock.advance(6 * 60_000);
    const res = await call('POST', `/team/invitations/${id}/resend`, {});
    expect(res.status).toBe(406);
    expect(res.body.message).toBe(`${email} has already joined this team, so there is nothing to resend; cancel the invitation instead.`);
    expect(await app.deps.mailer.count({ to: email })).toBe(2);
  });

  it('answers a body with fields 400', async () => {
    const { id } = await invited(newEmail('body'));
    app.clock.advance(6 * 60_000);
    const res = await call('POST', `/team/invitations/${id}/resend`, { email: 'other@acme-widgets.com' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST_ERROR');
  });
});

describe('DELETE /team/invitations/{id} (TM4, refloop extension, issue #23)', () => {
  it('cancels: the invitation leaves the list and its link says it was cancelled and joins no one', async () => {
    const email = newEmail('cancel');
    const { id, link } = await invited(email, 'ADMIN');
    expect((await open(link)).status).toBe(200);
    const res = await call('DELETE', `/team/invitations/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, email, status: 'CANCELLED' });
    expect((await pending()).map((i) => i.id)).not.toContain(id);

    const page = await open(link);
    expect(page.status).toBe(410);
    expect(heading(page.text)).toBe('This invitation was cancelled');
    expect(page.text).toContain('cancelled this invitation, so its link no longer works');
    expect(page.text).not.toContain('<form');
    const post = await accept(link);
    expect(post.status).toBe(410);
    expect(heading(post.text)).toBe('This invitation was cancelled');
    expect(await memberEmails()).not.toContain(email);
    const signin = await signIn(app, email);
    expect(signin.res.status).not.toBe(303);

    // Cancelled: neither cancelled again nor resent.
    const twice = await call('DELETE', `/team/invitations/${id}`);
    expect(twice.status).toBe(406);
    expect(twice.body.message).toBe(`This invitation to ${email} was cancelled, so there is nothing to cancel. Send a new invitation instead.`);
    app.clock.advance(6 * 60_000);
    expect((await call('POST', `/team/invitations/${id}/resend`, {})).status).toBe(406);
    expect(await app.deps.mailer.count({ to: email })).toBe(1);
  });

  it('cancels a resent invitation: both its links then say cancelled', async () => {
    const email = newEmail('resent-cancel');
    const { id, link: first } = await invited(email);
    app.clock.advance(6 * 60_000);
    expect((await call('POST', `/team/invitations/${id}/resend`, {})).status).toBe(200);
    const second = await mailLink(app, email, '/invite/accept?');
    expect((await call('DELETE', `/team/invitations/${id}`)).status).toBe(200);
    expect(heading((await open(second)).text)).toBe('This invitation was cancelled');
    // The first link was replaced before the cancellation: it still says so.
    expect(heading((await open(first)).text)).toBe('A newer invitation was sent');
    expect((await accept(second)).status).toBe(410);
  });

  it('answers 404 for an unknown or malformed id and a link that was never issued stays a plain 400', async () => {
    for (const id of ['nosuchinvitation', 'bad%20id!', 'x'.repeat(40)]) {
      const del = await call('DELETE', `/team/invitations/${id}`);
      expect(del.status, id).toBe(404);
      expect(del.body).toMatchObject({ code: 'NOT_FOUND_ERROR', message: 'No invitation of this team has this id.' });
      expect((await call('POST', `/team/invitations/${id}/resend`, {})).status, id).toBe(404);
    }
    const page = await open('/invite/accept?token=nosuchtoken');
    expect(page.status).toBe(400);
    expect(heading(page.text)).toBe('This invitation link is not valid');
  });
});

describe('who may cancel and resend (issue #23)', () => {
  it('refuses an API key with 403 whatever its scopes, and changes nothing', async () => {
    const email = newEmail('by-key');
    const { id, link } = await invited(email);
    app.clock.advance(6 * 60_000);
    const del = await app.request('DELETE', `/v2/team/invitations/${id}`, { key: owner.key });
    expect(del.status).toBe(403);
    expect(del.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect(del.body.message).toMatch(/API key cannot/);
    expect((await app.request('POST', `/v2/team/invitations/${id}/resend`, { key: owner.key, body: {} })).status).toBe(403);
    expect(await app.deps.mailer.count({ to: email })).toBe(1);
    expect((await open(link)).status).toBe(200);
    expect((await pending()).map((i) => i.id)).toContain(id);
  });

  it('refuses a console write without the CSRF value', async () => {
    const { id, link } = await invited(newEmail('csrf'));
    const res = await owner.b.json('DELETE', `/console/api/v2/team/invitations/${id}`);
    expect(res.status).toBe(403);
    expect((await open(link)).status).toBe(200);
  });

  it('refuses a Member (even with Manage API) with 403; an Admin may cancel and resend the Owner’s invitations', async () => {
    const email = newEmail('by-member');
    const { id, link } = await invited(email);
    const m = await teammate('MEMBER', true);
    app.clock.advance(6 * 60_000);
    const del = await consoleCall(m.b, m.csrf, 'DELETE', `/team/invitations/${id}`);
    expect(del.status).toBe(403);
    expect(del.body.code).toBe('NOT_AUTHORIZED_ERROR');
    const resend = await consoleCall(m.b, m.csrf, 'POST', `/team/invitations/${id}/resend`, {});
    expect(resend.status).toBe(403);
    expect((await open(link)).status).toBe(200);

    const admin = await teammate('ADMIN', false);
    app.clock.advance(6 * 60_000);
    const resent = await consoleCall(admin.b, admin.csrf, 'POST', `/team/invitations/${id}/resend`, {});
    expect(resent.status).toBe(200);
    const [mail] = await app.deps.mailer.list({ to: email, limit: 1 });
    expect(mail!.text).toContain(`${admin.email} invited you`);
    expect((await consoleCall(admin.b, admin.csrf, 'DELETE', `/team/invitations/${id}`)).body).toEqual({ id, email, status: 'CANCELLED' });
  });

  it("answers another team's owner 404 for this team's invitation, which keeps working", async () => {
    const email = newEmail('cross');
    const { id, link } = await invited(email);
    const other = await signedInOwner(app);
    const otherCsrf = await consoleCsrf(other.b);
    app.clock.advance(6 * 60_000);
    const del = await consoleCall(other.b, otherCsrf, 'DELETE', `/team/invitations/${id}`);
    expect(del.status).toBe(404);
    expect(del.body.message).toBe('No invitation of this team has this id.');
    expect((await consoleCall(other.b, otherCsrf, 'POST', `/team/invitations/${id}/resend`, {})).status).toBe(404);
    expect(await app.deps.mailer.count({ to: email })).toBe(1);
    expect((await open(link)).status).toBe(200);
    expect((await pending()).map((i) => i.id)).toContain(id);
    expect((await consoleCall(other.b, otherCsrf, 'GET', '/team/invitations')).body.invitations).toEqual([]);
  });
});

describe('documentation and expiry (issue #23)', () => {
  it('declares TM4 and TM5 in the OpenAPI document with team:write', async () => {
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    const del = doc.paths['/team/invitations/{invitationId}'].delete;
    expect(del).toMatchObject({ operationId: 'teamInvitations.cancel', 'x-refloop-id': 'TM4', 'x-scopes': ['team:write'] });
    expect(del.summary).toMatch(/cancelled/);
    const resend = doc.paths['/team/invitations/{invitationId}/resend'].post;
    expect(resend).toMatchObject({ operationId: 'teamInvitations.resend', 'x-refloop-id': 'TM5', 'x-scopes': ['team:write'] });
    expect(resend.summary).toMatch(/429/);
    expect(doc.components.schemas.TeamInvitation.required).toContain('id');
  });

  it('refuses to resend or cancel an expired invitation (406), whose link stays a plain invalid link', async () => {
    const email = newEmail('expired');
    const { id, link } = await invited(email);
    app.clock.advance(7 * 24 * 3600_000 + 1);
    const res = await call('POST', `/team/invitations/${id}/resend`, {});
    expect(res.status).toBe(406);
    expect(res.body.message).toBe(`This invitation to ${email} has expired, so there is nothing to resend. Send a new invitation instead.`);
    expect((await call('DELETE', `/team/invitations/${id}`)).status).toBe(406);
    expect((await open(link)).status).toBe(400);
  });
});
