import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Mailer } from './mail.ts';
import type { Accounts } from './accounts.ts';
import type { Keys } from './keys.ts';
import { hashPassword, newSecret, sha256, verifyPassword, type Sealer } from '../../crypto.ts';
import { ValidationError } from '../../errors.ts';
import { PASSWORD_MAX, SESSION_TTL_MS, passwordProblem, toMembership, type Actor, type Flash, type Invitation, type Membership, type Session, type ShownKey } from './owner-rules.ts';
import { TeamAdmin } from './team-admin.ts';
import { TwoFactor } from './two-factor.ts';
import { OwnerSessions, REAUTH_WINDOW_MS } from './owner-sessions.ts';

export * from './owner-rules.ts';

/** A second-factor sign-in waits this long for its code; the session grants nothing meanwhile. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60_000;

/** Where a sign-in comes from: recorded on the session, and the remembered-browser cookie's token. */
export interface SignInFrom {
  ip?: string;
  userAgent?: string;
  deviceToken?: string;
}

/**
 * The owner pages' domain: passwords, sign-in sessions and team choice; `team` holds the team work
 * (members, invitations, API keys) that the owner pages and the console's REST extensions share.
 * Knows nothing of HTTP; the page layer passes plain values.
 */
export class Owners {
  #dummyHash: Promise<string> | null = null;
  /** Members, invitations and API keys of the signed-in user's team. */
  readonly team: TeamAdmin;
  /** The members' second factor (TOTP, recovery codes, remembered browsers). */
  readonly twoFactor: TwoFactor;
  /** Sessions as their people see them: listing, ending, rotating. */
  readonly sessions: OwnerSessions;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    config: Config,
    mailer: Mailer,
    private readonly accounts: Accounts,
    private readonly keys: Keys,
    private readonly sealer: Sealer,
  ) {
    this.team = new TeamAdmin(db, clock, config, mailer, accounts, keys, sealer);
    this.twoFactor = new TwoFactor(db, clock, sealer);
    this.sessions = new OwnerSessions(db, clock);
  }

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
      await trx('trusted_devices').where({ user_id: user.id }).del();
      return { email: user.email as string };
    });
  }

  /**
   * Checks credentials and opens a session; null for any failure so the page cannot reveal which
   * addresses have accounts. With two-factor sign-in on (and this browser not remembered) the
   * session is `pending`: it grants nothing until `completeSignIn` takes a code (issue #35).
   */
  async signIn(emailInput: string, password: string, previousToken?: string, from: SignInFrom = {}): Promise<{ token: string; teams: Membership[]; pending: boolean } | null> {
    const email = emailInput.trim().toLowerCase();
    if (!email || email.length > 254 || !password || password.length > PASSWORD_MAX * 4) return null;
    const user = await this.db.knex('users').where({ email }).first('id', 'password_hash');
    // Hash against a dummy when there is no user or no password yet, so timing does not reveal which.
    const ok = await verifyPassword(password, user?.password_hash ?? (await this.#dummy()));
    if (!user?.password_hash || !ok) return null;
    if ((await this.twoFactor.enabled(user.id)) && !(await this.twoFactor.deviceTrusted(user.id, from.deviceToken))) {
      // The password was right; the session waits for the code and grants nothing until then.
      const token = newSecret(32);
      const now = this.clock.now();
      await this.db.knex.transaction(async (trx) => {
        if (previousToken) await trx('sessions').where({ hash: sha256(previousToken) }).del();
        await trx('sessions').insert({ ...this.#origin(from), hash: sha256(token), user_id: user.id, team_id: null, csrf: newSecret(24), pending_two_factor: true, expires_at: now + PENDING_SIGN_IN_TTL_MS, created_at: now });
      });
      return { token, teams: [], pending: true };
    }
    return { ...(await this.#open(user.id, previousToken, from)), pending: false };
  }

  /** The person a sign-in waiting for its second factor belongs to, or null. */
  async pendingSignIn(token: string | undefined): Promise<{ userId: string; csrf: string } | null> {
    if (!token || token.length > 100) return null;
    const row = await this.db.knex('sessions').where({ hash: sha256(token), pending_two_factor: true }).first('user_id', 'csrf', 'expires_at');
    if (!row || Number(row.expires_at) <= this.clock.now()) return null;
    return { userId: row.user_id, csrf: row.csrf };
  }

  /**
   * Completes a sign-in waiting for its second factor: a current code or an unused recovery code
   * opens a new session (a new token: the pending one is deleted) and, when asked, remembers the
   * browser for 30 days. Null for a wrong code (the caller counts it) or a pending sign-in that is gone.
   */
  async completeSignIn(
    pendingToken: string,
    code: string,
    remember: boolean,
    from: SignInFrom = {},
  ): Promise<{ token: string; teams: Membership[]; deviceToken: string | null; used: 'TOTP' | 'RECOVERY' } | null> {
    const pending = await this.pendingSignIn(pendingToken);
    if (!pending) return null;
    const used = await this.twoFactor.verify(pending.userId, code);
    if (!used) return null;
    const opened = await this.#open(pending.userId, pendingToken, from);
    const deviceToken = remember ? await this.twoFactor.trustDevice(pending.userId) : null;
    return { ...opened, deviceToken, used };
  }

  /**
   * Confirms the person behind a session again before a sensitive action: the password, and a code
   * (TOTP or recovery) when two-factor sign-in is on. True marks the session re-authenticated for
   * five minutes; false for a wrong password or code (the caller counts it).
   */
  async reauthenticate(session: Pick<Session, 'hash' | 'userId'>, password: string, code: string): Promise<{ ok: true; until: number } | { ok: false; field: 'password' | 'code' }> {
    const user = await this.db.knex('users').where({ id: session.userId }).first('password_hash');
    const ok = password.length > 0 && password.length <= PASSWORD_MAX * 4 && (await verifyPassword(password, user?.password_hash ?? (await this.#dummy())));
    if (!user?.password_hash || !ok) return { ok: false, field: 'password' };
    if ((await this.twoFactor.enabled(session.userId)) && !(await this.twoFactor.verify(session.userId, code))) return { ok: false, field: 'code' };
    return { ok: true, until: await this.sessions.markReauthenticated(session.hash) };
  }

  #origin(from: SignInFrom) {
    return { ip: from.ip ? from.ip.slice(0, 64) : null, user_agent: from.userAgent ? from.userAgent.slice(0, 255) : null, last_seen_at: this.clock.now() };
  }

  /**
   * Opens a signed-in session (a new token; `previousToken`'s session, pending or not, is deleted),
   * re-authenticated as of now since the person just proved who they are. The first successful
   * sign-in replaces the account-creation keys of every team the user owns, in the same transaction
   * that records it, so a key is never replaced twice.
   */
  async #open(userId: string, previousToken: string | undefined, from: SignInFrom): Promise<{ token: string; teams: Membership[] }> {
    const token = newSecret(32);
    const now = this.clock.now();
    const teams = await this.db.knex.transaction(async (trx) => {
      const shown: ShownKey[] = [];
      const first = await trx('users').where({ id: userId }).whereNull('first_signed_in_at').update({ first_signed_in_at: now });
      if (first === 1) shown.push(...(await this.#replaceCreationKeys(trx, userId)));
      if (previousToken) await trx('sessions').where({ hash: sha256(previousToken) }).del();
      await trx('sessions').where({ user_id: userId }).where('expires_at', '<=', now).del();
      const teams = await this.#memberships(trx, userId);
      await trx('sessions').insert({
        ...this.#origin(from),
        hash: sha256(token),
        user_id: userId,
        team_id: teams.length === 1 ? teams[0]!.teamId : null,
        csrf: newSecret(24),
        flash: shown.length ? this.sealer.seal(JSON.stringify({ keys: shown } satisfies Flash)) : null,
        expires_at: now + SESSION_TTL_MS,
        created_at: now,
        reauthenticated_at: now,
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
      await this.keys.revoke(trx, k.id, 'REPLACED', created.id);
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
      .first('s.hash', 's.user_id', 's.team_id', 's.csrf', 's.expires_at', 'u.email', 's.pending_two_factor', 's.last_seen_at', 's.reauthenticated_at');
    // A sign-in still waiting for its second factor is no session at all.
    if (!row || Number(row.expires_at) <= this.clock.now() || Boolean(row.pending_two_factor)) return null;
    await this.sessions.touch(row.hash, row.last_seen_at == null ? null : Number(row.last_seen_at));
    const reauthenticatedAt = row.reauthenticated_at == null ? null : Number(row.reauthenticated_at);
    return { hash: row.hash, userId: row.user_id, email: row.email, teamId: row.team_id, csrf: row.csrf, expiresAt: Number(row.expires_at), recentlyReauthenticated: reauthenticatedAt !== null && this.clock.now() - reauthenticatedAt < REAUTH_WINDOW_MS };
  }

  /** Ends a session. */
  async signOut(session: Session): Promise<void> {
    await this.db.knex('sessions').where({ hash: session.hash }).del();
  }

  /** Ends every session of the user, in every browser (the console's "sign out everywhere"); returns how many ended. */
  async signOutEverywhere(userId: string): Promise<number> {
    return this.db.knex('sessions').where({ user_id: userId }).del();
  }

  /** An unexpired, unused invitation, or null (see TeamAdmin.invitation). */
  invitation(token: string): Promise<Invitation | null> {
    return this.team.invitation(token);
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

  /** Whether the session's one-time message holds a key secret not yet shown; reads it without taking it. */
  async keyWaiting(session: Session): Promise<boolean> {
    const row = await this.db.knex('sessions').where({ hash: session.hash }).first('flash');
    const plain = row?.flash ? this.sealer.open(row.flash) : null;
    return plain ? (JSON.parse(plain) as Flash).keys.length > 0 : false;
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
}
