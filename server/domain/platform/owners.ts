import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../db/connect.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Mailer } from './mail.ts';
import type { Accounts } from './accounts.ts';
import { parseScopes, type KeySummary, type Keys } from './keys.ts';
import { hashPassword, newId, newSecret, sha256, verifyPassword, type Sealer } from '../crypto.ts';
import { NotAuthorizedError, ValidationError } from '../errors.ts';
import type { Scope } from '../../shared/scopes.ts';

/** Owner sessions last this long; the cookie's Max-Age matches. */
export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;
/** Password length bounds: long enough to resist guessing, short enough that scrypt input stays cheap. */
export const PASSWORD_MIN = 10;
/** Upper bound on password length (see PASSWORD_MIN). */
export const PASSWORD_MAX = 200;

const PROGRAM_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_PROGRAM_IDS = 50;
const MAX_LABEL = 100;
const emailSchema = z.email().max(254);

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
}

/** A signed-in user acting in their current team. */
export interface Actor {
  session: Session;
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
  programIds: string;
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

/** Parses the comma-separated program ids of the keys form; empty means every program. */
export function parseProgramIds(input: string): string[] | null {
  const ids = [...new Set(input.split(',').map((s) => s.trim()).filter(Boolean))];
  if (ids.length === 0) return null;
  if (ids.length > MAX_PROGRAM_IDS) throw new ValidationError(`A key can be limited to at most ${MAX_PROGRAM_IDS} programs.`);
  const bad = ids.find((id) => !PROGRAM_ID.test(id));
  if (bad !== undefined) throw new ValidationError(`"${bad.slice(0, 80)}" is not a program id: use letters, digits, "-" and "_" (at most 64).`);
  return ids;
}

function toMembership(r: any): Membership {
  return { teamId: r.team_id, teamName: r.name, role: r.role, manageApi: Boolean(r.manage_api) };
}

/**
 * The owner pages' domain: passwords, sign-in sessions, team memberships and invitations, and the
 * key work a signed-in user may do. Knows nothing of HTTP; the page layer passes plain values.
 */
export class Owners {
  #dummyHash: Promise<string> | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly mailer: Mailer,
    private readonly accounts: Accounts,
    private readonly keys: Keys,
    private readonly sealer: Sealer,
  ) {}

  /** The email a set-password link is for, or null when the link is unknown, used or expired. */
  async passwordLink(token: string): Promise<{ email: string } | null> {
    const row = await this.accounts.peekOwnerToken(this.db.knex, 'SET_PASSWORD', token);
    if (!row?.user_id) return null;
    const user = await this.db.knex('users').where({ id: row.user_id }).first('email');
    return user ? { email: user.email } : null;
  }

  /** Sets the password from a single-use emailed link; null for a bad link. Ends the user's other sessions, as any password reset should. */
  async setPassword(token: string, password: string, confirm: string): Promise<{ email: string } | null> {
    const problem = passwordProblem(password, confirm);
    if (problem) {
      if (!(await this.passwordLink(token))) return null;
      throw new ValidationError(problem);
    }
    // scrypt runs before the transaction: SQLite has one connection and must not wait on a slow hash.
    const hash = await hashPassword(password);
    return this.db.knex.transaction(async (trx) => {
      const row = await this.accounts.consumeOwnerToken(trx, 'SET_PASSWORD', token);
      if (!row?.user_id) return null;
      const user = await trx('users').where({ id: row.user_id }).first('id', 'email');
      if (!user) return null;
      await trx('users').where({ id: user.id }).update({ password_hash: hash });
      await trx('sessions').where({ user_id: user.id }).del();
      return { email: user.email as string };
    });
  }

  /**
   * Checks credentials and opens a session; null for any failure so the page cannot reveal which
   * addresses have accounts. The first successful sign-in replaces the account-creation keys of
   * every team the user owns, in the same transaction that records it, so a key is never replaced twice.
   */
  async signIn(emailInput: string, password: string, previousToken?: string): Promise<{ token: string; teams: Membership[] } | null> {
    const email = emailInput.trim().toLowerCase();
    if (!email || email.length > 254 || !password || password.length > PASSWORD_MAX * 4) return null;
    const user = await this.db.knex('users').where({ email }).first('id', 'password_hash');
    // Hash against a dummy when there is no user or no password yet, so timing does not reveal which.
    const ok = await verifyPassword(password, user?.password_hash ?? (await this.#dummy()));
    if (!user?.password_hash || !ok) return null;
    const token = newSecret(32);
    const now = this.clock.now();
    const teams = await this.db.knex.transaction(async (trx) => {
      const shown: ShownKey[] = [];
      const first = await trx('users').where({ id: user.id }).whereNull('first_signed_in_at').update({ first_signed_in_at: now });
      if (first === 1) shown.push(...(await this.#replaceCreationKeys(trx, user.id)));
      if (previousToken) await trx('sessions').where({ hash: sha256(previousToken) }).del();
      await trx('sessions').where({ user_id: user.id }).where('expires_at', '<=', now).del();
      const teams = await this.#memberships(trx, user.id);
      await trx('sessions').insert({
        hash: sha256(token),
        user_id: user.id,
        team_id: teams.length === 1 ? teams[0]!.teamId : null,
        csrf: newSecret(24),
        flash: shown.length ? this.sealer.seal(JSON.stringify({ keys: shown } satisfies Flash)) : null,
        expires_at: now + SESSION_TTL_MS,
        created_at: now,
      });
      return teams;
    });
    return { token, teams };
  }

  /** Revokes each live account-creation key in the teams the user owns and mints a SIGN_IN key with the same grants. */
  async #replaceCreationKeys(trx: Knex.Transaction, userId: string): Promise<ShownKey[]> {
    const old = await trx('api_keys as k')
      .join('memberships as m', 'm.team_id', 'k.team_id')
      .join('teams as t', 't.id', 'k.team_id')
      .where({ 'm.user_id': userId, 'm.role': 'OWNER', 'k.origin': 'ACCOUNT_CREATION' })
      .whereNull('k.revoked_at')
      .orderBy(['t.name', 'k.created_at'])
      .select('k.id', 'k.team_id', 'k.prefix', 'k.scopes', 'k.program_ids', 't.name as team_name');
    const shown: ShownKey[] = [];
    for (const k of old) {
      const label = 'Signed-in key (replaces the account creation key)';
      const created = await this.keys.create(trx, {
        teamId: k.team_id,
        scopes: JSON.parse(k.scopes),
        programIds: k.program_ids ? JSON.parse(k.program_ids) : null,
        origin: 'SIGN_IN',
        label,
        userId,
      });
      await trx('api_keys')
        .where({ id: k.id })
        .whereNull('revoked_at')
        .update({ revoked_at: this.clock.now(), revoked_reason: 'REPLACED', replaced_by: created.id });
      shown.push({ teamName: k.team_name, prefix: created.prefix, secret: created.secret, label, replacedPrefix: k.prefix });
    }
    return shown;
  }

  #dummy(): Promise<string> {
    this.#dummyHash ??= hashPassword(newSecret(16));
    return this.#dummyHash;
  }

  /** The live session for a cookie token, or null when unknown or expired. */
  async session(token: string | undefined): Promise<Session | null> {
    if (!token || token.length > 100) return null;
    const row = await this.db
      .knex('sessions as s')
      .join('users as u', 'u.id', 's.user_id')
      .where('s.hash', sha256(token))
      .first('s.hash', 's.user_id', 's.team_id', 's.csrf', 's.expires_at', 'u.email');
    if (!row || Number(row.expires_at) <= this.clock.now()) return null;
    return { hash: row.hash, userId: row.user_id, email: row.email, teamId: row.team_id, csrf: row.csrf, expiresAt: Number(row.expires_at) };
  }

  /** Ends a session. */
  async signOut(session: Session): Promise<void> {
    await this.db.knex('sessions').where({ hash: session.hash }).del();
  }

  /** Every team the user belongs to, by name. */
  async memberships(userId: string): Promise<Membership[]> {
    return this.#memberships(this.db.knex, userId);
  }

  async #memberships(q: Knex | Knex.Transaction, userId: string): Promise<Membership[]> {
    const rows = await q('memberships as m').join('teams as t', 't.id', 'm.team_id').where('m.user_id', userId).orderBy(['t.name', 't.id']).select('m.team_id', 'm.role', 'm.manage_api', 't.name');
    return rows.map(toMembership);
  }

  /** The session's current team membership, or null when no team is chosen or the membership is gone. */
  async actor(session: Session): Promise<Actor | null> {
    if (!session.teamId) return null;
    const row = await this.db
      .knex('memberships as m')
      .join('teams as t', 't.id', 'm.team_id')
      .where({ 'm.user_id': session.userId, 'm.team_id': session.teamId })
      .first('m.team_id', 'm.role', 'm.manage_api', 't.name');
    return row ? { session, member: toMembership(row) } : null;
  }

  /** Switches the session to one of the user's teams; null when the user is not a member. */
  async chooseTeam(session: Session, teamId: string): Promise<Actor | null> {
    const actor = await this.actor({ ...session, teamId });
    if (!actor) return null;
    await this.db.knex('sessions').where({ hash: session.hash }).update({ team_id: teamId });
    return actor;
  }

  /** Reads and clears the session's one-time message; the clear is conditional so two tabs cannot both show a secret. */
  async takeFlash(session: Session): Promise<Flash | null> {
    const row = await this.db.knex('sessions').where({ hash: session.hash }).first('flash');
    if (!row?.flash) return null;
    const n = await this.db.knex('sessions').where({ hash: session.hash, flash: row.flash }).update({ flash: null });
    if (n !== 1) return null;
    const plain = this.sealer.open(row.flash);
    return plain ? (JSON.parse(plain) as Flash) : null;
  }

  /** Adds a notice to the session's one-time message, keeping any key secret not yet shown. */
  async notify(session: Session, notice: string): Promise<void> {
    await this.db.knex.transaction(async (trx) => {
      const row = await trx('sessions').where({ hash: session.hash }).first('flash');
      const plain = row?.flash ? this.sealer.open(row.flash) : null;
      const flash: Flash = plain ? { ...(JSON.parse(plain) as Flash), notice } : { keys: [], notice };
      await trx('sessions').where({ hash: session.hash }).update({ flash: this.sealer.seal(JSON.stringify(flash)) });
    });
  }

  /** The current team's active keys (never their secrets). */
  async listKeys(actor: Actor): Promise<KeySummary[]> {
    this.#assertKeys(actor);
    return this.keys.list(actor.member.teamId);
  }

  /** Creates a key for the current team and keeps its secret in the session's flash for the next page. */
  async createKey(actor: Actor, input: NewKeyInput): Promise<{ prefix: string }> {
    this.#assertKeys(actor);
    const scopes: Scope[] = parseScopes(input.scopes);
    const programIds = parseProgramIds(input.programIds);
    const label = input.label.trim();
    if ([...label].length > MAX_LABEL) throw new ValidationError(`Keep the label to ${MAX_LABEL} characters.`);
    return this.db.knex.transaction(async (trx) => {
      const created = await this.keys.create(trx, { teamId: actor.member.teamId, scopes, programIds, origin: 'DASHBOARD', label: label || null, userId: actor.session.userId });
      const flash: Flash = { keys: [{ teamName: actor.member.teamName, prefix: created.prefix, secret: created.secret, label: label || null }] };
      await trx('sessions').where({ hash: actor.session.hash }).update({ flash: this.sealer.seal(JSON.stringify(flash)) });
      return { prefix: created.prefix };
    });
  }

  /** Revokes one of the current team's keys by its display prefix; false when none matched. */
  async revokeKey(actor: Actor, prefix: string): Promise<boolean> {
    this.#assertKeys(actor);
    if (!prefix || prefix.length > 16) return false;
    return this.keys.revokeByPrefix(prefix, actor.member.teamId);
  }

  #assertKeys(actor: Actor): void {
    if (!canManageKeys(actor.member)) {
      throw new NotAuthorizedError('Only Owners, Admins and Members with "Manage API" may manage API keys. Ask an Owner or Admin of this team.');
    }
  }

  /** The current team's members, Owners first. */
  async members(actor: Actor): Promise<Member[]> {
    const rows = await this.db
      .knex('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('m.team_id', actor.member.teamId)
      .orderByRaw("case m.role when 'OWNER' then 0 when 'ADMIN' then 1 else 2 end")
      .orderBy('u.email')
      .select('u.email', 'm.role', 'm.manage_api', 'm.created_at');
    return rows.map((r: any) => ({ email: r.email, role: r.role, manageApi: Boolean(r.manage_api), joinedAt: Number(r.created_at) }));
  }

  /** Emails a single-use invitation to join the current team with the given role. */
  async invite(actor: Actor, input: { email: string; role: string; manageApi: boolean }): Promise<{ email: string }> {
    if (!canInvite(actor.member)) throw new NotAuthorizedError('Only Owners and Admins may invite teammates.');
    const email = input.email.trim().toLowerCase();
    if (!emailSchema.safeParse(email).success) throw new ValidationError('Enter the teammate’s email address, like name@example.com.');
    if (input.role !== 'ADMIN' && input.role !== 'MEMBER') throw new ValidationError('Choose the role Admin or Member.');
    const role: Role = input.role;
    const teamId = actor.member.teamId;
    await this.db.knex.transaction(async (trx) => {
      const already = await trx('memberships as m').join('users as u', 'u.id', 'm.user_id').where({ 'm.team_id': teamId, 'u.email': email }).first('u.id');
      if (already) throw new ValidationError(`${email} is already a member of this team.`);
      const token = await this.accounts.issueOwnerToken(trx, 'TEAM_INVITE', { teamId, email, data: { role, manageApi: input.manageApi } });
      const url = `${this.config.publicUrl}/invite/accept?token=${encodeURIComponent(token)}`;
      await this.mailer.send(trx, {
        to: email,
        teamId,
        kind: 'team.invite',
        subject: `You are invited to the team ${actor.member.teamName} on refloop`,
        text: [
          `${actor.session.email} invited you to join the team "${actor.member.teamName}" on refloop as ${role === 'ADMIN' ? 'an Admin' : 'a Member'}${input.manageApi ? ' who may manage API keys' : ''}.`,
          '',
          'Accept the invitation (the link works once and expires in 7 days):',
          url,
          '',
          'If you did not expect this, ignore this message.',
        ].join('\n'),
      });
    });
    return { email };
  }

  /** An unexpired, unused invitation, or null. */
  async invitation(token: string): Promise<Invitation | null> {
    return this.#invitation(this.db.knex, token);
  }

  async #invitation(q: Knex | Knex.Transaction, token: string): Promise<(Invitation & { teamId: string; userId: string | null }) | null> {
    const row = await this.accounts.peekOwnerToken(q, 'TEAM_INVITE', token);
    if (!row?.team_id || !row.email) return null;
    const team = await q('teams').where({ id: row.team_id }).first('name');
    if (!team) return null;
    const user = await q('users').where({ email: row.email }).first('id', 'password_hash');
    const role: Role = row.data?.role === 'ADMIN' ? 'ADMIN' : 'MEMBER';
    return {
      teamId: row.team_id,
      email: row.email,
      teamName: team.name,
      role,
      manageApi: Boolean(row.data?.manageApi),
      userId: user?.id ?? null,
      // Someone with an account but no password yet (an owner who never used their link) sets one here: the invite proves the mailbox.
      needsPassword: !user?.password_hash,
    };
  }

  /**
   * Accepts an invitation: creates the user when the address is new (verified, since the link
   * reached their mailbox) and adds the membership. Null for a bad link; an existing membership keeps its role.
   */
  async acceptInvite(token: string, password: string, confirm: string): Promise<{ email: string; teamName: string } | null> {
    const peek = await this.#invitation(this.db.knex, token);
    if (!peek) return null;
    let hash: string | null = null;
    if (peek.needsPassword) {
      const problem = passwordProblem(password, confirm);
      if (problem) throw new ValidationError(problem);
      hash = await hashPassword(password);
    }
    return this.db.knex.transaction(async (trx) => {
      const inv = await this.#invitation(trx, token);
      if (!inv || (inv.needsPassword && !hash)) return null;
      const used = await this.accounts.consumeOwnerToken(trx, 'TEAM_INVITE', token);
      if (!used) return null;
      const now = this.clock.now();
      let userId = inv.userId;
      if (!userId) {
        userId = newId();
        await trx('users').insert({ id: userId, email: inv.email, password_hash: hash, email_verified_at: now, created_at: now });
      } else if (hash) {
        await trx('users').where({ id: userId }).whereNull('password_hash').update({ password_hash: hash });
      }
      await trx('memberships')
        .insert({ team_id: inv.teamId, user_id: userId, role: inv.role, manage_api: inv.manageApi, created_at: now })
        .onConflict(['team_id', 'user_id'])
        .ignore();
      return { email: inv.email, teamName: inv.teamName };
    });
  }
}
