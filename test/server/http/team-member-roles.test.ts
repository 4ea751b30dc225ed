import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, type TestApp } from '../../helpers/app.ts';
import { PASSWORD, consoleCall, consoleCsrf, joinedTeammate, mailLink, newEmail, signIn, signedInOwner } from '../../helpers/owner.ts';
import { VERIFIER, oauthKit } from '../../helpers/mcp.ts';

// Issue #35: "Sessions rotate on sign-in and on privilege change". TM8 lets the team's Owner change
// another member's role and "Manage API"; every session of that member then ends at once (its
// console is told why at the next request and signs in again to get the new privileges), and an
// OAuth connection they approved works only while they may still manage keys.

let app: TestApp;
let owner: Awaited<ReturnType<typeof signedInOwner>>;
let csrf: string;

beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
  owner = await signedInOwner(app);
  csrf = await consoleCsrf(owner.b);
});
afterAll(async () => {
  await app.close();
});

/** Invites `email` as `role` from the console and lets them join and sign in. */
async function teammate(role: 'ADMIN' | 'MEMBER', manageApi = false) {
  const email = newEmail('role');
  expect((await consoleCall(owner.b, csrf, 'POST', '/team/invitations', { email, role, manageApi })).status).toBe(200);
  return joinedTeammate(app, email, await mailLink(app, email, '/invite/accept?'));
}

const path = (email: string) => `/team/members/${encodeURIComponent(email)}`;
const entries = async () => app.deps.db.knex('audit_log').where({ team_id: owner.teamId, action: 'TM8' }).orderBy('seq');

/** Keeps the Owner's session re-authenticated (TM8 is a sensitive action; signing in counts, for five minutes). */
async function freshOwner() {
  const again = await signIn(app, owner.email);
  owner.b = again.b;
  csrf = await consoleCsrf(owner.b);
}

describe('PATCH /team/members/{email} (TM8)', () => {
  it('makes a Member an Admin: every session of theirs ends, the next request says why, and a new sign-in has the new role', async () => {
    const mate = await teammate('MEMBER');
    const laptop = await signIn(app, mate.email);
    expect((await consoleCall(mate.b, mate.csrf, 'GET', '/team/invitations')).status).toBe(403);
    expect((await mate.b.json('GET', '/console/api/session')).body.scopes).not.toContain('team:write');
    const recorded = (await entries()).length;

    const res = await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'ADMIN' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: mate.email, role: 'ADMIN', manageApi: false, sessionsEnded: 2 });

    // Both browsers' session ids stop working; each is told its privileges changed.
    for (const b of [mate.b, laptop.b]) {
      const gone = await b.json('GET', '/console/api/session');
      expect(gone.status).toBe(401);
      expect(gone.body).toMatchObject({ code: 'PRIVILEGES_CHANGED_ERROR', name: 'PrivilegesChangedError', status: 401 });
      expect((await consoleCall(b, mate.csrf, 'GET', '/campaigns')).body.code).toBe('PRIVILEGES_CHANGED_ERROR');
      expect((await b.get('/keys')).location).toBe('/signin');
      expect((await b.get('/signin')).text).toContain('Your role or API access in a team changed');
    }
    // The Owner's own session is untouched.
    expect((await owner.b.json('GET', '/console/api/session')).status).toBe(200);

    // Signing in again gives a new session with the new privileges.
    const back = await signIn(app, mate.email);
    const info = (await back.b.json('GET', '/console/api/session')).body;
    expect(info.team).toMatchObject({ role: 'ADMIN', canInvite: true, canManageKeys: true });
    expect(info.scopes).toContain('team:write');
    expect((await consoleCall(back.b, info.csrf, 'GET', '/team/invitations')).status).toBe(200);
    expect((await consoleCall(owner.b, csrf, 'GET', '/team/members')).body.members).toContainEqual(expect.objectContaining({ email: mate.email, role: 'ADMIN' }));

    // One audit entry, by the Owner, with the role before and after.
    const rows = await entries();
    expect(rows).toHaveLength(recorded + 1);
    const last = rows.at(-1)!;
    expect(last).toMatchObject({ actor_type: 'MEMBER', actor_label: owner.email, resource_type: 'teamMembers', resource_id: mate.email });
    expect(JSON.parse(last.changes).fields).toEqual({ role: { before: 'MEMBER', after: 'ADMIN' } });
  });

  it('turns Manage API on for a Member, recording both fields; the same values again change nothing and end no session', async () => {
    const mate = await teammate('MEMBER');
    const on = await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'MEMBER', manageApi: true });
    expect(on.body).toEqual({ email: mate.email, role: 'MEMBER', manageApi: true, sessionsEnded: 1 });
    expect(JSON.parse((await entries()).at(-1)!.changes).fields).toEqual({ role: { before: 'MEMBER', after: 'MEMBER' }, manageApi: { before: false, after: true } });
    const back = await signIn(app, mate.email);
    expect((await back.b.json('GET', '/console/api/session')).body.team).toMatchObject({ role: 'MEMBER', canManageKeys: true, canInvite: false });
    expect((await consoleCall(back.b, await consoleCsrf(back.b), 'GET', '/team/api-keys')).status).toBe(200);

    const same = await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { manageApi: true });
    expect(same.body).toEqual({ email: mate.email, role: 'MEMBER', manageApi: true, sessionsEnded: 0 });
    expect((await back.b.json('GET', '/console/api/session')).status).toBe(200);

    // Demoted: the API keys page closes for them at once, with their sessions.
    expect((await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { manageApi: false })).body.sessionsEnded).toBe(1);
    const again = await signIn(app, mate.email);
    expect((await consoleCall(again.b, await consoleCsrf(again.b), 'GET', '/team/api-keys')).status).toBe(403);
  });

  it('refuses an Admin (403), an API key (403), the Owner’s own role (406), an unknown address (404), a bad role or empty body (400), recording nothing', async () => {
    const admin = await teammate('ADMIN');
    const mate = await teammate('MEMBER');
    const recorded = (await entries()).length;
    const refused = async (res: { status: number; body: any }, status: number, code: string) => {
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toMatchObject({ status, code, message: expect.any(String), level: 'error' });
      return res.body;
    };
    await refused(await consoleCall(admin.b, admin.csrf, 'PATCH', path(mate.email), { role: 'ADMIN' }), 403, 'NOT_AUTHORIZED_ERROR');
    await refused(await app.request('PATCH', `/v2${path(mate.email)}`, { key: owner.key, body: { role: 'ADMIN' } }), 403, 'NOT_AUTHORIZED_ERROR');
    expect((await refused(await consoleCall(owner.b, csrf, 'PATCH', path(owner.email), { role: 'MEMBER' }), 406, 'INVALID_STATE_ERROR')).message).toContain('your own role');
    await refused(await consoleCall(owner.b, csrf, 'PATCH', path('nobody@acme-widgets.com'), { role: 'ADMIN' }), 404, 'NOT_FOUND_ERROR');
    const owner2 = await refused(await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'OWNER' }), 400, 'BAD_REQUEST_ERROR');
    expect(owner2.errors).toEqual([expect.objectContaining({ field: 'role' })]);
    await refused(await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'boss' }), 400, 'BAD_REQUEST_ERROR');
    await refused(await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { manageApi: 'yes' }), 400, 'BAD_REQUEST_ERROR');
    expect((await refused(await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), {}), 400, 'BAD_REQUEST_ERROR')).errors).toEqual([expect.objectContaining({ field: 'role' })]);
    await refused(await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'ADMIN', extra: 1 }), 400, 'BAD_REQUEST_ERROR');
    await refused(await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), [1]), 400, 'BAD_REQUEST_ERROR');
    await refused(await consoleCall(owner.b, 'wrong', 'PATCH', path(mate.email), { role: 'ADMIN' }), 403, 'NOT_AUTHORIZED_ERROR');
    expect(await entries()).toHaveLength(recorded);
    // Nothing changed, and the refused member's sessions still work.
    expect((await mate.b.json('GET', '/console/api/session')).body.team.role).toBe('MEMBER');
  });

  it('asks the Owner to confirm it is them when the last sign-in is more than five minutes old', async () => {
    const mate = await teammate('MEMBER');
    app.clock.advance(6 * 60_000);
    await refusedReauth();
    expect((await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: PASSWORD })).status).toBe(200);
    expect((await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'ADMIN' })).body.role).toBe('ADMIN');

    async function refusedReauth() {
      const res = await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'ADMIN' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('REAUTHENTICATION_REQUIRED_ERROR');
    }
  });

  it('stops an OAuth connection a Member approved once they may no longer manage keys, and lets it work again when they may', async () => {
    await freshOwner();
    const mate = await teammate('MEMBER', true);
    const kit = oauthKit(app);
    const { clientId, code } = await kit.codeFor({ email: mate.email, password: PASSWORD, teamId: owner.teamId });
    const tokens = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: 'https://host.example/callback' });
    expect(tokens.status).toBe(200);
    expect(await kit.mcpStatus(tokens.body.access_token)).toBe(200);

    expect((await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { manageApi: false })).status).toBe(200);
    expect(await kit.mcpStatus(tokens.body.access_token)).toBe(401);
    const refresh = await kit.token({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: clientId });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');

    expect((await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'ADMIN' })).status).toBe(200);
    expect(await kit.mcpStatus(tokens.body.access_token)).toBe(200);
  });

  it('keeps why a session ended only until the hourly prune of expired sessions; then it is a plain sign-out', async () => {
    await freshOwner();
    const mate = await teammate('MEMBER');
    expect((await consoleCall(owner.b, csrf, 'PATCH', path(mate.email), { role: 'ADMIN' })).body.sessionsEnded).toBe(1);
    expect((await mate.b.json('GET', '/console/api/session')).body.code).toBe('PRIVILEGES_CHANGED_ERROR');
    app.clock.advance(3_600_000);
    await app.deps.maintenance.prune();
    expect((await mate.b.json('GET', '/console/api/session')).body.code).toBe('NOT_SIGNED_IN_ERROR');
  });
});
