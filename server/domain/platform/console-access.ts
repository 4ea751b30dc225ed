import type { Db } from '../../db/connect.ts';
import { SCOPES, type Scope } from '../../../shared/scopes.ts';
import { teamFields, type KeyRecord } from './keys.ts';
import { AppError, NotAuthorizedError } from '../../errors.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { Membership, Role, Session, TeamActor } from './owner-rules.ts';

// The owner console (issue #23) calls the REST operations through the signed-in member's session:
// the session stands in for an API key whose scopes follow the member's team role. Nothing else
// differs: the same routes table, schemas, program checks, budgets and error object.

/** The scopes a key holds to read but never change anything. */
export const READ_SCOPES: Scope[] = SCOPES.filter((s) => s.endsWith(':read'));

/**
 * What a team role may do in the console: Owners and Admins everything the REST API offers except
 * rotating "the key used for the request" (a session has none; keys are managed on the Team page),
 * Members read only. `manageApi` adds nothing here: it lets a Member manage the team's API keys.
 */
export function roleScopes(role: Role): Scope[] {
  if (role === 'OWNER' || role === 'ADMIN') return SCOPES.filter((s) => s !== 'api_key:rotate');
  return READ_SCOPES;
}

/** The session's member as the REST pipeline sees a key: `c_` + user id, so idempotency keys are per user. */
export interface ConsoleKey {
  key: KeyRecord;
  member: Membership;
  /** The team requires two-factor sign-in and this member has not turned it on: only enrolment is open to them. */
  mustEnrol: boolean;
  /** Whether the member has two-factor sign-in on. */
  twoFactor: boolean;
  /** Whether the team requires two-factor sign-in of every member. */
  teamRequiresTwoFactor: boolean;
}

/** 403 REAUTHENTICATION_REQUIRED_ERROR: a sensitive action without a re-authentication in the last five minutes. */
export class ReauthenticationRequiredError extends AppError {
  constructor() {
    super(403, ERROR_CODES.REAUTHENTICATION_REQUIRED, 'ReauthenticationRequiredError', 'Confirm it is you: enter your password (and a code when two-factor sign-in is on) with POST /owner/reauthenticate, then try again within five minutes.');
  }
}

/** 403 TWO_FACTOR_REQUIRED_ERROR: the team requires two-factor sign-in and the member has not turned it on. */
export class TwoFactorRequiredError extends AppError {
  constructor() {
    super(403, ERROR_CODES.TWO_FACTOR_REQUIRED, 'TwoFactorRequiredError', 'This team requires two-factor sign-in: turn it on for your account (Security in the console) before anything else.');
  }
}

const SQL = `SELECT m.role, m.manage_api, t.id AS team_id, t.name, t.disabled, t.owner_email_verified, t.plan, t.has_payment_method,
  t.trial_ends_at, t.verification_status, t.require_two_factor, u.totp_enabled_at FROM memberships m JOIN teams t ON t.id = m.team_id
  JOIN users u ON u.id = m.user_id WHERE m.user_id = ? AND m.team_id = ?`;

/** Resolves a live owner session into the key the REST pipeline checks; null without a current team. */
export async function consoleKey(db: Db, session: Session): Promise<ConsoleKey | null> {
  if (!session.teamId) return null;
  const row = await db.get<any>(SQL, session.userId, session.teamId);
  if (!row) return null;
  const member: Membership = { teamId: row.team_id, teamName: row.name, role: row.role, manageApi: Boolean(row.manage_api) };
  const twoFactor = row.totp_enabled_at != null;
  const teamRequiresTwoFactor = Boolean(row.require_two_factor);
  return {
    member,
    twoFactor,
    teamRequiresTwoFactor,
    mustEnrol: teamRequiresTwoFactor && !twoFactor,
    key: {
      id: `c_${session.userId}`.slice(0, 32),
      scopes: roleScopes(member.role),
      programIds: null,
      origin: 'CONSOLE',
      revokedAt: null,
      revokedReason: null,
      ...teamFields(row),
      owner: { userId: session.userId, email: session.email, role: member.role, manageApi: member.manageApi, teamName: member.teamName, sessionHash: session.hash },
    },
  };
}

/** The 403 of team administration called with anything but an owner's console session. */
export const OWNER_SESSION_ONLY =
  'Only a signed-in team member in the owner console may manage API keys, invitations and sessions; an API key cannot, whatever its scopes.';

/**
 * The person behind a REST call when it came from the console (origin CONSOLE), for the team work
 * only people may do: an API key never mints keys or invites teammates (403, the REST refusal).
 * What their role then allows is the owner pages' rule (canManageKeys, canInvite in TeamAdmin).
 */
export function teamActorOf(key: KeyRecord | null): TeamActor {
  const o = key?.origin === 'CONSOLE' ? key.owner : undefined;
  if (!key || !o) throw new NotAuthorizedError(OWNER_SESSION_ONLY);
  return { session: { userId: o.userId, email: o.email }, member: { teamId: key.teamId, teamName: o.teamName, role: o.role, manageApi: o.manageApi } };
}

/** The console session behind a person-only call (its hash and person), for the operations on the session itself. */
export function consoleSessionOf(key: KeyRecord | null): { hash: string; userId: string; email: string; owner: NonNullable<KeyRecord['owner']> } {
  const o = key?.origin === 'CONSOLE' ? key.owner : undefined;
  if (!o?.sessionHash) throw new NotAuthorizedError(OWNER_SESSION_ONLY);
  return { hash: o.sessionHash, userId: o.userId, email: o.email, owner: o };
}
