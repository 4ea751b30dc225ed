import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { NotAuthorizedError, NotFoundError } from '../../errors.ts';
import { teamActorOf } from '../../domain/platform/console-access.ts';
import { canInvite } from '../../domain/platform/owners.ts';
import type { KeySummary } from '../../domain/platform/keys.ts';
import {
  sessionsEnded,
  teamApiKeyCreate,
  teamApiKeyCreated,
  teamApiKeyList,
  teamApiKeyRevoked,
  teamInvitation,
  teamInvitationCancelled,
  teamInvitationCreate,
  teamInvitationList,
  teamInvitationSent,
  teamMemberList,
  teamOutboxPage,
  teamOutboxQuery,
} from '../../../shared/schemas/team-admin.ts';

// Team administration for the owner console (issue #23), all refloop extensions. Members are read
// with `team:read` by anyone; everything else is a person's act: only an owner's console session
// (a KeyRecord of origin CONSOLE) may call it, so an API key never mints keys or invites teammates
// (403 whatever its scopes). The member's role then decides, by the owner pages' own rules in
// server/domain/platform/team-admin.ts (canManageKeys, canInvite): the scope each operation
// declares is what every such role holds, not what authorizes it.

const PERSON_ONLY = ' Only an owner signed in to the console may call it (an API key gets 403, whatever its scopes).';

function summary(k: KeySummary) {
  return { prefix: k.prefix, label: k.label, scopes: k.scopes, programIds: k.programIds, origin: k.origin, createdAt: k.createdAt };
}

/** TM1 `GET /team/members` (refloop extension). */
export const listTeamMembers = operation({
  id: 'TM1',
  name: 'teamMembers.list',
  method: 'GET',
  path: '/team/members',
  access: { scopes: ['team:read'] },
  summary: 'refloop extension. The team’s members with their role and whether they may manage API keys, Owners first, then Admins, then Members, each by email.',
  response: teamMemberList,
  handler: async ({ auth, deps }) => ({ members: await deps.owners.team.members(auth!.teamId) }),
});

/** TM2 `GET /team/invitations` (refloop extension). */
export const listTeamInvitations = operation({
  id: 'TM2',
  name: 'teamInvitations.list',
  method: 'GET',
  path: '/team/invitations',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Invitations sent and neither accepted nor expired (links last 7 days), newest first. Owners and Admins only.${PERSON_ONLY}`,
  response: teamInvitationList,
  handler: async ({ auth, deps }) => ({ invitations: await deps.owners.team.pendingInvitations(teamActorOf(auth)) }),
});

/** TM3 `POST /team/invitations` (refloop extension). */
export const createTeamInvitation = operation({
  id: 'TM3',
  name: 'teamInvitations.create',
  method: 'POST',
  path: '/team/invitations',
  access: { scopes: ['team:write'] },
  summary: `refloop extension. Emails a single-use link (7 days) to join the team as an Admin or a Member, optionally with "Manage API". Owners and Admins only; 400 when the address is already a member.${PERSON_ONLY}`,
  body: teamInvitationCreate,
  response: teamInvitationSent,
  async handler({ body, auth, deps }) {
    const sent = await deps.owners.team.invite(teamActorOf(auth), body);
    deps.jobs.kick();
    return { id: sent.id, email: sent.email, status: 'SENT' as const };
  },
});

/** TM4 `DELETE /team/invitations/{invitationId}` (refloop extension). */
export const cancelTeamInvitation = operation({
  id: 'TM4',
  name: 'teamInvitations.cancel',
  method: 'DELETE',
  path: '/team/invitations/:invitationId',
  access: { scopes: ['team:write'] },
  summary: `refloop extension. Cancels a pending invitation (id as TM2 lists it): its link stops working at once, and opening it says the invitation was cancelled. 404 when the team has no invitation with this id; 406 when it was already accepted, cancelled or has expired. Owners and Admins only.${PERSON_ONLY}`,
  response: teamInvitationCancelled,
  async handler({ params, auth, deps }) {
    const done = await deps.owners.team.cancelInvitation(teamActorOf(auth), params.invitationId ?? '');
    return { id: done.id, email: done.email, status: 'CANCELLED' as const };
  },
});

/** TM5 `POST /team/invitations/{invitationId}/resend` (refloop extension). */
export const resendTeamInvitation = operation({
  id: 'TM5',
  name: 'teamInvitations.resend',
  method: 'POST',
  path: '/team/invitations/:invitationId/resend',
  access: { scopes: ['team:write'] },
  summary: `refloop extension. Emails a pending invitation again with a new link and a new 7-day expiry; the old link stops working at once, and opening it says a newer invitation was sent. At most once every 5 minutes per invitation, counted from its last sending (429, policyName TEAM_INVITATION_RESEND, Retry-After). 404 when the team has no invitation with this id; 406 when it was already accepted, cancelled or has expired, or the address has joined the team meanwhile. Owners and Admins only.${PERSON_ONLY}`,
  body: emptyBody,
  response: teamInvitation,
  async handler({ params, auth, deps }) {
    const sent = await deps.owners.team.resendInvitation(teamActorOf(auth), params.invitationId ?? '');
    deps.jobs.kick();
    return sent;
  },
});

/** TK1 `GET /team/api-keys` (refloop extension). */
export const listTeamApiKeys = operation({
  id: 'TK1',
  name: 'teamApiKeys.list',
  method: 'GET',
  path: '/team/api-keys',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. The team’s active API keys, newest first, by their first characters (never the secret). Owners, Admins and Members with "Manage API".${PERSON_ONLY}`,
  response: teamApiKeyList,
  handler: async ({ auth, deps }) => ({ apiKeys: (await deps.owners.team.listKeys(teamActorOf(auth))).map(summary) }),
});

/** TK2 `POST /team/api-keys` (refloop extension). */
export const createTeamApiKey = operation({
  id: 'TK2',
  name: 'teamApiKeys.create',
  method: 'POST',
  path: '/team/api-keys',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Creates an API key with the given scopes, optionally limited to some programs, and returns its secret this once. Owners, Admins and Members with "Manage API".${PERSON_ONLY}`,
  body: teamApiKeyCreate,
  response: teamApiKeyCreated,
  audit: { resource: 'apiKey' },
  async handler({ body, auth, deps }) {
    const k = await deps.owners.team.issueKey(teamActorOf(auth), { scopes: body.scopes, programIds: body.programIds ?? [], label: body.label ?? '' });
    return { apiKey: k.secret, key: { prefix: k.prefix, label: k.label, scopes: k.scopes, programIds: k.programIds, origin: 'DASHBOARD', createdAt: deps.clock.now() } };
  },
});

/** TK3 `DELETE /team/api-keys/{prefix}` (refloop extension). */
export const revokeTeamApiKey = operation({
  id: 'TK3',
  name: 'teamApiKeys.revoke',
  method: 'DELETE',
  path: '/team/api-keys/:prefix',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Revokes the team’s active key with this prefix (as listed); it stops working at once. 404 when no active key of the team has it.${PERSON_ONLY}`,
  response: teamApiKeyRevoked,
  audit: { resource: 'apiKey' },
  async handler({ params, auth, deps }) {
    const prefix = params.prefix ?? '';
    if (!(await deps.owners.team.revokeKey(teamActorOf(auth), prefix))) throw new NotFoundError('No active key of this team starts with that prefix.');
    return { prefix, success: true };
  },
});

/** OS1 `DELETE /owner/sessions` (refloop extension). */
export const endOwnerSessions = operation({
  id: 'OS1',
  name: 'ownerSessions.deleteAll',
  method: 'DELETE',
  path: '/owner/sessions',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Signs the signed-in person out everywhere: ends every one of their sessions, in every browser, this one included.${PERSON_ONLY}`,
  response: sessionsEnded,
  async handler({ auth, deps }) {
    const ended = await deps.owners.signOutEverywhere(teamActorOf(auth).session.userId);
    return { success: true, ended };
  },
});

/** TO1 `GET /team/outbox` (refloop extension). */
export const listTeamOutbox = operation({
  id: 'TO1',
  name: 'teamOutbox.list',
  method: 'GET',
  path: '/team/outbox',
  access: { scopes: ['team:read'] },
  summary:
    'refloop extension, only on a server without SMTP_URL (404 otherwise), where mail is kept rather than sent. The team’s mail, newest first: messages sent for the team to its members, its programs’ participants or the people it invited; account mail only to the reader themself. limit 1–50 (default 20), cursor = nextCursor. Owners and Admins only.' +
    PERSON_ONLY,
  query: teamOutboxQuery,
  response: teamOutboxPage,
  async handler({ query, auth, deps }) {
    const actor = teamActorOf(auth);
    if (!canInvite(actor.member)) throw new NotAuthorizedError('Only Owners and Admins may read the team’s outbox.');
    if (deps.config.smtpUrl) throw new NotFoundError('This server sends mail over SMTP (SMTP_URL), so it keeps no outbox to read.');
    return deps.teamOutbox.list(auth!.teamId, actor.session.email, { limit: query.limit, cursor: query.cursor });
  },
});
