import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { ValidationError } from '../../errors.ts';
import { Limits } from '../limits.ts';
import { afterTransaction } from '../../db/ambient.ts';
import type { Deps } from '../deps.ts';
import { consoleSessionOf, teamActorOf } from '../../domain/platform/console-access.ts';
import { setTeamRequiresTwoFactor, wrongCode } from '../../domain/platform/two-factor.ts';
import {
  ownerSessionEnded,
  ownerSessionList,
  teamMemberRemoved,
  teamMemberUpdate,
  teamMemberUpdated,
  recoveryCodesRegenerated,
  reauthenticate,
  reauthenticated,
  teamSecurity,
  teamSecurityUpdate,
  twoFactorConfirm,
  twoFactorConfirmed,
  twoFactorDisabled,
  twoFactorEnrolment,
  twoFactorStatus,
} from '../../../shared/schemas/owner-security.ts';
import { sessionsEnded } from '../../../shared/schemas/team-admin.ts';
import type { AccessEvent } from '../../domain/platform/audit.ts';

// Two-factor sign-in, re-authentication and sessions for the owner console (issue #35 parts 2 and
// 3), refloop extensions and a person's acts like the rest of team administration: only an owner's
// console session may call them (an API key gets 403 whatever its scopes). The console decides
// which actions need a fresh re-authentication (server/http/console/api.ts NEEDS_REAUTH), and
// which a member who must still enrol may call. Wrong codes and passwords here count toward the
// same lockout as the sign-in page's (five per member, twenty per IP, in 15 minutes).

const PERSON_ONLY = ' Only a person signed in to the console may call it (an API key gets 403, whatever its scopes).';
const REAUTH = ' Needs a re-authentication within the last five minutes (403 REAUTHENTICATION_REQUIRED_ERROR otherwise; POST /owner/reauthenticate).';

/** Refuses a member locked out of codes (429, policyName TWO_FACTOR), before any check. */
async function notLockedOut(deps: Deps, userId: string, ip: string): Promise<void> {
  const wait = await deps.limits.codeLockout(userId, ip);
  if (wait > 0) throw Limits.codeLockedError(wait);
}

/** Counts a wrong code or password and throws its refusal: 400 at the field, or 429 when this one started a lockout. */
async function refuse(deps: Deps, userId: string, ip: string, error: ValidationError, event: AccessEvent = 'access.reauthenticateFailed'): Promise<never> {
  const wait = await deps.limits.wrongCode(userId, ip);
  // Access events (issue #35): recorded once the request's transaction, which this refusal rolls
  // back, has ended (on SQLite it holds the one connection), outside it, and before the refusal is
  // answered (the REST pipeline waits for it: `settleAfter` in server/http/rest.ts).
  const from = { ip: ip || null, userAgent: null };
  await afterTransaction(async () => {
    await deps.audit.access(event, { email: '', userId }, from, { field: error.errors?.[0]?.field ?? null });
    if (wait > 0) await deps.audit.access('access.lockout', { email: '', userId }, from);
  });
  if (wait > 0) throw Limits.codeLockedError(wait);
  throw error;
}

/** TF1 `GET /owner/two-factor` (refloop extension). */
export const getTwoFactor = operation({
  id: 'TF1',
  name: 'ownerTwoFactor.get',
  method: 'GET',
  path: '/owner/two-factor',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Whether the signed-in person has two-factor sign-in (TOTP) on, since when, how many recovery codes are unused, and whether the current team requires it.${PERSON_ONLY}`,
  response: twoFactorStatus,
  async handler({ auth, deps }) {
    const s = consoleSessionOf(auth);
    const status = await deps.owners.twoFactor.status(s.userId);
    const team = await deps.db.knex('teams').where({ id: auth!.teamId }).first('require_two_factor');
    return { ...status, teamRequires: Boolean(team?.require_two_factor) };
  },
});

/** TF2 `POST /owner/two-factor` (refloop extension). */
export const beginTwoFactor = operation({
  id: 'TF2',
  name: 'ownerTwoFactor.begin',
  method: 'POST',
  path: '/owner/two-factor',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Starts enrolling an authenticator app: a new TOTP secret (RFC 6238: SHA1, 6 digits, 30 s) as text and as an otpauth:// URI. Two-factor sign-in is on only once TF3 confirms a code made from it; starting again replaces the secret. 406 when it is already on.${PERSON_ONLY}`,
  body: emptyBody,
  response: twoFactorEnrolment,
  async handler({ auth, deps }) {
    const s = consoleSessionOf(auth);
    return deps.owners.twoFactor.begin(s.userId, s.email);
  },
});

/** TF3 `POST /owner/two-factor/confirm` (refloop extension). */
export const confirmTwoFactor = operation({
  id: 'TF3',
  name: 'ownerTwoFactor.confirm',
  method: 'POST',
  path: '/owner/two-factor/confirm',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Turns two-factor sign-in on with a code from the app enrolled by TF2 and answers ten single-use recovery codes, shown this once (stored only hashed). The session gets a new token (its cookie is set again). 400 INVALID_CODE at \`code\` for a wrong code; five wrong codes in 15 minutes answer 429 (policyName TWO_FACTOR); 406 without an enrolment started.${PERSON_ONLY}`,
  body: twoFactorConfirm,
  response: twoFactorConfirmed,
  async handler({ body, auth, deps, ip }) {
    const s = consoleSessionOf(auth);
    await notLockedOut(deps, s.userId, ip);
    let recoveryCodes: string[];
    try {
      recoveryCodes = await deps.owners.twoFactor.confirm(s.userId, body.code);
    } catch (err) {
      if (err instanceof ValidationError) return refuse(deps, s.userId, ip, err, 'access.twoFactorConfirmFailed');
      throw err;
    }
    // Audited as this write (TF3) by the REST pipeline.
    s.owner.newSessionToken = (await deps.owners.sessions.rotate(s.hash)) ?? undefined;
    return { enabled: true as const, recoveryCodes };
  },
});

/** TF4 `DELETE /owner/two-factor` (refloop extension). */
export const disableTwoFactor = operation({
  id: 'TF4',
  name: 'ownerTwoFactor.disable',
  method: 'DELETE',
  path: '/owner/two-factor',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Turns two-factor sign-in off: the secret, the recovery codes and every remembered browser are deleted, and the session gets a new token.${REAUTH}${PERSON_ONLY}`,
  response: twoFactorDisabled,
  async handler({ auth, deps }) {
    const s = consoleSessionOf(auth);
    await deps.owners.twoFactor.disable(s.userId);
    // Audited as this write (TF4) by the REST pipeline.
    s.owner.newSessionToken = (await deps.owners.sessions.rotate(s.hash)) ?? undefined;
    return { enabled: false as const };
  },
});

/** TF5 `POST /owner/two-factor/recovery-codes` (refloop extension). */
export const regenerateRecoveryCodes = operation({
  id: 'TF5',
  name: 'ownerTwoFactor.regenerateRecoveryCodes',
  method: 'POST',
  path: '/owner/two-factor/recovery-codes',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Replaces the signed-in person’s recovery codes with ten new single-use ones, answered this once (stored only hashed); every earlier code, used or not, stops working at once. 406 when two-factor sign-in is off.${REAUTH}${PERSON_ONLY}`,
  body: emptyBody,
  response: recoveryCodesRegenerated,
  async handler({ auth, deps }) {
    const s = consoleSessionOf(auth);
    // Audited as this write (TF5) by the REST pipeline; the codes are an answer, never recorded.
    return { recoveryCodes: await deps.owners.twoFactor.regenerateRecoveryCodes(s.userId) };
  },
});

/** RA1 `POST /owner/reauthenticate` (refloop extension). */
export const reauthenticateOwner = operation({
  id: 'RA1',
  name: 'ownerSessions.reauthenticate',
  method: 'POST',
  path: '/owner/reauthenticate',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Confirms the signed-in person again before a sensitive action (creating an API key, changing payout settings, removing a member, turning two-factor sign-in off): the password, and a code or recovery code when two-factor sign-in is on. Opens those actions to this session for five minutes. 400 at \`password\` or \`code\` when wrong; wrong answers count toward the same lockout as codes (429, policyName TWO_FACTOR).${PERSON_ONLY}`,
  body: reauthenticate,
  response: reauthenticated,
  async handler({ body, auth, deps, ip }) {
    const s = consoleSessionOf(auth);
    await notLockedOut(deps, s.userId, ip);
    const result = await deps.owners.reauthenticate(s, body.password, body.code ?? '');
    if (!result.ok) {
      const error =
        result.field === 'password'
          ? new ValidationError('That password is not right.', [{ field: 'password', code: 'WRONG_PASSWORD', message: 'Not your password.' }])
          : body.code
            ? wrongCode()
            : new ValidationError('Enter the code your authenticator app shows, or a recovery code.', [{ field: 'code', code: 'REQUIRED', message: 'Two-factor sign-in is on: a code is needed.' }]);
      return refuse(deps, s.userId, ip, error);
    }
    return { reauthenticatedUntil: result.until };
  },
});

/** OS2 `GET /owner/sessions` (refloop extension). */
export const listOwnerSessions = operation({
  id: 'OS2',
  name: 'ownerSessions.list',
  method: 'GET',
  path: '/owner/sessions',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. The signed-in person’s live sessions, the most recently seen first: browser and system (from the user agent), IP, when each was opened and last seen, and which one is this browser.${PERSON_ONLY}`,
  response: ownerSessionList,
  async handler({ auth, deps }) {
    const s = consoleSessionOf(auth);
    return { sessions: await deps.owners.sessions.list(s.userId, s.hash) };
  },
});

/** OS3 `DELETE /owner/sessions/{sessionId}` (refloop extension). */
export const endOwnerSession = operation({
  id: 'OS3',
  name: 'ownerSessions.delete',
  method: 'DELETE',
  path: '/owner/sessions/:sessionId',
  access: { scopes: ['team:read'] },
  summary: `refloop extension. Ends one of the signed-in person’s sessions (id as OS2 lists it): that browser is signed out at its next request. 404 when none of theirs has the id.${PERSON_ONLY}`,
  response: ownerSessionEnded,
  async handler({ params, auth, deps }) {
    const s = consoleSessionOf(auth);
    const id = params.sessionId ?? '';
    await deps.owners.sessions.end(s.userId, id);
    return { id, success: true };
  },
});

/** TM6 `DELETE /team/members/{email}/sessions` (refloop extension). */
export const endMemberSessions = operation({
  id: 'TM6',
  name: 'teamMemberSessions.deleteAll',
  method: 'DELETE',
  path: '/team/members/:email/sessions',
  access: { scopes: ['team:write'] },
  summary: `refloop extension. Ends every session of a member of the team (their email as TM1 lists it, URL-encoded), in every browser: they must sign in again. The team’s Owner only; 404 when the address is not a member.${PERSON_ONLY}`,
  response: sessionsEnded,
  async handler({ params, auth, deps }) {
    const ended = await deps.owners.sessions.endMember(teamActorOf(auth), params.email ?? '');
    return { success: true, ended };
  },
});

/** TM7 `DELETE /team/members/{email}` (refloop extension). */
export const removeTeamMember = operation({
  id: 'TM7',
  name: 'teamMembers.delete',
  method: 'DELETE',
  path: '/team/members/:email',
  access: { scopes: ['team:write'] },
  summary: `refloop extension. Removes a member from the team (their email as TM1 lists it, URL-encoded): their membership and their sessions in this team end at once; their account and the API keys they made stay. The team’s Owner only; 404 when the address is not a member; 406 for an Owner.${REAUTH}${PERSON_ONLY}`,
  response: teamMemberRemoved,
  async handler({ params, auth, deps }) {
    const done = await deps.owners.team.removeMember(teamActorOf(auth), params.email ?? '');
    return { email: done.email, success: true };
  },
});

/** TM8 `PATCH /team/members/{email}` (refloop extension). */
export const updateTeamMember = operation({
  id: 'TM8',
  name: 'teamMembers.update',
  method: 'PATCH',
  path: '/team/members/:email',
  access: { scopes: ['team:write'] },
  summary: `refloop extension. Changes another member’s role (ADMIN or MEMBER) and whether a Member may manage API keys (their email as TM1 lists it, URL-encoded). When either changes, every session of that member ends at once, in every browser (the session ids issued under the old privileges stop working; their console is asked to sign in again, 401 PRIVILEGES_CHANGED_ERROR), and an OAuth connection they approved works only while they may still manage keys. The team’s Owner only; 404 when the address is not a member; 406 for an Owner, the Owner’s own role included.${REAUTH}${PERSON_ONLY}`,
  body: teamMemberUpdate,
  response: teamMemberUpdated,
  audit: { before: ({ params, auth, deps }) => deps.owners.team.memberPrivileges(auth!.teamId, params.email ?? '') },
  async handler({ params, body, auth, deps }) {
    return deps.owners.team.changeMember(teamActorOf(auth), params.email ?? '', body);
  },
});

/** T6 `PATCH /team/security` (refloop extension). */
export const updateTeamSecurity = operation({
  id: 'T6',
  name: 'teamSecurity.update',
  method: 'PATCH',
  path: '/team/security',
  access: { scopes: ['team:write'] },
  summary: `refloop extension. Whether the team requires two-factor sign-in of every member: a member without it can then call only the two-factor, re-authentication and session operations (403 TWO_FACTOR_REQUIRED_ERROR otherwise) until they turn it on. The team’s Owner only; turning it on needs the Owner’s own two-factor sign-in first (406).${PERSON_ONLY}`,
  body: teamSecurityUpdate,
  response: teamSecurity,
  async handler({ body, auth, deps }) {
    await setTeamRequiresTwoFactor(deps.db, deps.owners.twoFactor, teamActorOf(auth), body.requireTwoFactor);
    return { requireTwoFactor: body.requireTwoFactor };
  },
});
