import { z } from 'zod';
import { ValidationError } from '../../errors.ts';

// The owner pages' and the console's shared vocabulary: sessions, memberships, roles and what each
// role may do, password and program-id rules. Plain values only, so owners.ts (sessions) and
// team-admin.ts (members, invitations, keys) both build on it without importing each other.

/** Owner sessions last this long; the cookie's Max-Age matches. */
export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;
/** Password length bounds: long enough to resist guessing, short enough that scrypt input stays cheap. */
export const PASSWORD_MIN = 10;
/** Upper bound on password length (see PASSWORD_MIN). */
export const PASSWORD_MAX = 200;

const PROGRAM_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_PROGRAM_IDS = 50;
/** Longest key label, in characters. */
export const MAX_LABEL = 100;
/** A teammate's address as invitations accept it. */
export const emailSchema = z.email().max(254);

/** A team role; only Owners get their account-creation key replaced at first sign-in. */
export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

/** One team the user belongs to, with what they may do there. */
export interface Membership {
  teamId: string;
  teamName: string;
  role: Role;
  manageApi: boolean;
}

/** A live owner session (the cookie holds the token; the database only its hash). */
export interface Session {
  hash: string;
  userId: string;
  email: string;
  teamId: string | null;
  csrf: string;
  expiresAt: number;
  /** Re-authenticated (or signed in) within the last five minutes: the sensitive actions' condition (issue #35). */
  recentlyReauthenticated?: boolean;
}

/** A signed-in user acting in their current team. */
export interface Actor {
  session: Session;
  member: Membership;
}

/**
 * Who does team work (members, invitations, keys): an owner page's Actor, or the console's session
 * as the REST pipeline sees it (console-access.ts), which knows the person but not the cookie.
 */
export interface TeamActor {
  session: Pick<Session, 'userId' | 'email'>;
  member: Membership;
}

/** A freshly created key whose secret is shown once. */
export interface ShownKey {
  teamName: string;
  prefix: string;
  secret: string;
  label: string | null;
  replacedPrefix?: string;
}

/** What the next page shows once and then forgets. */
export interface Flash {
  keys: ShownKey[];
  notice?: string;
}

/** A teammate as listed on the members page. */
export interface Member {
  email: string;
  role: Role;
  manageApi: boolean;
  joinedAt: number;
}

/** An invitation as shown before it is accepted. */
export interface Invitation {
  email: string;
  teamName: string;
  role: Role;
  manageApi: boolean;
  needsPassword: boolean;
}

/** What creating a key on the keys page needs. */
export interface NewKeyInput {
  scopes: string[];
  /** Comma-separated (the keys page's field) or a list (the REST body); empty means every program. */
  programIds: string | string[];
  label: string;
}

/** Why a password is unacceptable, or null; checked before any token is consumed so a typo never burns a link. */
export function passwordProblem(password: string, confirm: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `Choose a password of at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `Choose a password of at most ${PASSWORD_MAX} characters.`;
  if (password !== confirm) return 'The two passwords do not match.';
  return null;
}

/** Owners and Admins always manage API keys; Members only when granted "Manage API". */
export function canManageKeys(m: Membership): boolean {
  return m.role === 'OWNER' || m.role === 'ADMIN' || (m.role === 'MEMBER' && m.manageApi);
}

/** Only Owners and Admins may invite teammates. */
export function canInvite(m: Membership): boolean {
  return m.role === 'OWNER' || m.role === 'ADMIN';
}

/** Parses the program ids of a new key (the keys form's comma-separated text or a list); empty means every program. */
export function parseProgramIds(input: string | string[]): string[] | null {
  const ids = [...new Set((Array.isArray(input) ? input : input.split(',')).map((s) => s.trim()).filter(Boolean))];
  if (ids.length === 0) return null;
  if (ids.length > MAX_PROGRAM_IDS) throw new ValidationError(`A key can be limited to at most ${MAX_PROGRAM_IDS} programs.`);
  const bad = ids.find((id) => !PROGRAM_ID.test(id));
  if (bad !== undefined) throw new ValidationError(`"${bad.slice(0, 80)}" is not a program id: use letters, digits, "-" and "_" (at most 64).`);
  return ids;
}

/** A membership row (joined with its team's name) as a Membership. */
export function toMembership(r: any): Membership {
  return { teamId: r.team_id, teamName: r.name, role: r.role, manageApi: Boolean(r.manage_api) };
}
