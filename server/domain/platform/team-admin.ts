import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Mailer } from './mail.ts';
import type { Accounts } from './accounts.ts';
import { parseScopes, type KeySummary, type Keys } from './keys.ts';
import { hashPassword, newId, sha256, type Sealer } from '../../crypto.ts';
import { InvalidStateError, NotAuthorizedError, NotFoundError, RateLimitedError, ValidationError } from '../../errors.ts';
import type { Scope } from '../../../shared/scopes.ts';
import { endSessionsForPrivilegeChange } from './owner-sessions.ts';
import {
  MAX_LABEL,
  canInvite,
  canManageKeys,
  emailSchema,
  parseProgramIds,
  passwordProblem,
  type Actor,
  type Flash,
  type Invitation,
  type Member,
  type NewKeyInput,
  type Role,
  type ShownKey,
  type TeamActor,
} from './owner-rules.ts';

const INVITE_ONLY = 'Only Owners and Admins may invite teammates.';

/** A team invitation is resent at most this often (measured from its last sending), like an affiliate invite. */
export const TEAM_INVITE_RESEND_INTERVAL_MS = 5 * 60_000;

/** Why an invitation link stopped working before it was used: the team cancelled it, or a resend replaced it. */
export type EndedInvitationReason = 'CANCELLED' | 'REPLACED';

/** An invitation sent and not yet accepted. */
export interface PendingInvitation {
  /** The invitation's id, the same across resends (each resend changes only its link and expiry). */
  id: string;
  email: string;
  role: 'ADMIN' | 'MEMBER';
  manageApi: boolean;
  sentAt: number;
  expiresAt: number;
}

/**
 * A team's members, invitations and API keys, as the owner pages and the console's REST extensions
 * (server/http/resources/team-admin.ts) both use them: one implementation of who may do what
 * (canManageKeys, canInvite) and of every write.
 */
export class TeamAdmin {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly mailer: Mailer,
    private readonly accounts: Accounts,
    private readonly keys: Keys,
    private readonly sealer: Sealer,
  ) {}

  /** The current team's active keys (never their secrets). */
  async listKeys(actor: TeamActor): Promise<KeySummary[]> {
    this.#assertKeys(actor);
    return this.keys.list(actor.member.teamId);
  }

  /** Creates a key for the current team (in `q` when given) and returns it with its secret, which is never retrievable again. */
  async issueKey(actor: TeamActor, input: NewKeyInput, q?: Knex.Transaction): Promise<ShownKey & { id: string; scopes: Scope[]; programIds: string[] | null }> {
    this.#assertKeys(actor);
    const scopes: Scope[] = parseScopes(input.scopes);
    const programIds = parseProgramIds(input.programIds);
    const label = input.label.trim();
    if ([...label].length > MAX_LABEL) throw new ValidationError(`Keep the label to ${MAX_LABEL} characters.`, [{ field: 'label', code: 'TOO_LONG', message: `At most ${MAX_LABEL} characters.` }]);
    const created = await this.keys.create(q ?? this.db.knex, { teamId: actor.member.teamId, scopes, programIds, origin: 'DASHBOARD', label: label || null, userId: actor.session.userId });
    return { id: created.id, teamName: actor.member.teamName, prefix: created.prefix, secret: created.secret, label: label || null, scopes, programIds };
  }

  /** Creates a key for the current team and keeps its secret in the session's flash for the keys page's next view. */
  async createKey(actor: Actor, input: NewKeyInput): Promise<{ prefix: string }> {
    return this.db.knex.transaction(async (trx) => {
      const { id: _id, scopes: _s, programIds: _p, ...shown } = await this.issueKey(actor, input, trx);
      const flash: Flash = { keys: [shown] };
      await trx('sessions').where({ hash: actor.session.hash }).update({ flash: this.sealer.seal(JSON.stringify(flash)) });
      return { prefix: shown.prefix };
    });
  }

  /** Revokes one of the current team's keys by its display prefix; false when none matched. */
  async revokeKey(actor: TeamActor, prefix: string): Promise<boolean> {
    this.#assertKeys(actor);
    if (!prefix || prefix.length > 16) return false;
    return this.keys.revokeByPrefix(prefix, actor.member.teamId);
  }

  #assertKeys(actor: TeamActor): void {
    if (!canManageKeys(actor.member)) {
      throw new NotAuthorizedError('Only Owners, Admins and Members with "Manage API" may manage API keys. Ask an Owner or Admin of this team.');
    }
  }

  /** The current team's members, Owners first. */
  async members(teamId: string): Promise<Member[]> {
    const rows = await this.db
      .knex('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('m.team_id', teamId)
      .orderByRaw("case m.role when 'OWNER' then 0 when 'ADMIN' then 1 else 2 end")
      .orderBy('u.email')
      .select('u.email', 'm.role', 'm.manage_api', 'm.created_at');
    return rows.map((r: any) => ({ email: r.email, role: r.role, manageApi: Boolean(r.manage_api), joinedAt: Number(r.created_at) }));
  }

  /** The current team's invitations not yet accepted and not expired, newest first (Owners and Admins only). */
  async pendingInvitations(actor: TeamActor): Promise<PendingInvitation[]> {
    if (!canInvite(actor.member)) throw new NotAuthorizedError(INVITE_ONLY);
    const rows = await this.db
      .knex('owner_tokens')
      .where({ purpose: 'TEAM_INVITE', team_id: actor.member.teamId })
      .whereNull('used_at')
      .whereNull('revoked_at')
      .where('expires_at', '>', this.clock.now())
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'hash' }])
      .limit(200)
      .select('invitation_id', 'email', 'data', 'created_at', 'expires_at');
    return rows.map(pendingOf);
  }

  /** Emails a single-use invitation to join the current team with the given role. */
  async invite(actor: TeamActor, input: { email: string; role: string; manageApi: boolean }): Promise<{ id: string; email: string }> {
    if (!canInvite(actor.member)) throw new NotAuthorizedError(INVITE_ONLY);
    const email = input.email.trim().toLowerCase();
    if (!emailSchema.safeParse(email).success) throw new ValidationError('Enter the teammate’s email address, like name@example.com.', [{ field: 'email', code: 'INVALID_EMAIL', message: 'Enter an email address, like name@example.com.' }]);
    if (input.role !== 'ADMIN' && input.role !== 'MEMBER') throw new ValidationError('Choose the role Admin or Member.');
    const role: Role = input.role;
    const teamId = actor.member.teamId;
    const id = newId(24);
    await this.db.knex.transaction(async (trx) => {
      if (await this.#isMember(trx, teamId, email)) throw new ValidationError(`${email} is already a member of this team.`, [{ field: 'email', code: 'ALREADY_MEMBER', message: 'Already a member of this team.' }]);
      const token = await this.accounts.issueOwnerToken(trx, 'TEAM_INVITE', { teamId, email, data: { role, manageApi: input.manageApi }, invitationId: id });
      await this.#mailInvitation(trx, actor, { email, role, manageApi: input.manageApi }, token, false);
    });
    return { id, email };
  }

  /**
   * Cancels one of the current team's pending invitations: its link stops working at once and says
   * the invitation was cancelled. 404 for an id the team never sent (another team's included), 406
   * when it was already accepted, cancelled or expired.
   */
  async cancelInvitation(actor: TeamActor, id: string): Promise<{ id: string; email: string }> {
    if (!canInvite(actor.member)) throw new NotAuthorizedError('Only Owners and Admins may cancel invitations.');
    return this.db.knex.transaction(async (trx) => {
      const row = await this.#pendingRow(trx, actor.member.teamId, id, 'cancel');
      await this.#endRow(trx, row.hash, 'CANCELLED');
      return { id, email: row.email };
    });
  }

  /**
   * Resends one of the current team's pending invitations: a new link with a new 7-day expiry,
   * emailed again; the old link stops working and says a newer one was sent. At most once per
   * TEAM_INVITE_RESEND_INTERVAL_MS (429 with Retry-After); 404 and 406 as for cancelling, and 406
   * when the address has joined the team meanwhile.
   */
  async resendInvitation(actor: TeamActor, id: string): Promise<PendingInvitation> {
    if (!canInvite(actor.member)) throw new NotAuthorizedError('Only Owners and Admins may resend invitations.');
    const teamId = actor.member.teamId;
    return this.db.knex.transaction(async (trx) => {
      const row = await this.#pendingRow(trx, teamId, id, 'resend');
      if (await this.#isMember(trx, teamId, row.email)) throw new InvalidStateError(`${row.email} has already joined this team, so there is nothing to resend; cancel the invitation instead.`);
      const wait = Number(row.created_at) + TEAM_INVITE_RESEND_INTERVAL_MS - this.clock.now();
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new RateLimitedError('TEAM_INVITATION_RESEND', `This invitation was sent moments ago; resend it again in ${seconds} seconds.`, { 'Retry-After': String(seconds) });
      }
      await this.#endRow(trx, row.hash, 'REPLACED');
      const data = row.data ? JSON.parse(row.data) : {};
      const token = await this.accounts.issueOwnerToken(trx, 'TEAM_INVITE', { teamId, email: row.email, data, invitationId: id });
      const invitation = pendingOf(await trx('owner_tokens').where({ hash: sha256(token) }).first('invitation_id', 'email', 'data', 'created_at', 'expires_at'));
      await this.#mailInvitation(trx, actor, invitation, token, true);
      return invitation;
    });
  }

  /**
   * Why an invitation link no longer works when it was ended before use (cancelled, or replaced by a
   * resend), with the team's name for the page that says so; null for any other link.
   */
  async endedInvitation(token: string): Promise<{ reason: EndedInvitationReason; teamName: string } | null> {
    if (!token || token.length > 200) return null;
    const row = await this.db
      .knex('owner_tokens as o')
      .join('teams as t', 't.id', 'o.team_id')
      .where({ 'o.hash': sha256(token), 'o.purpose': 'TEAM_INVITE' })
      .whereNotNull('o.revoked_at')
      .first('o.revoked_reason', 't.name');
    if (!row || (row.revoked_reason !== 'CANCELLED' && row.revoked_reason !== 'REPLACED')) return null;
    return { reason: row.revoked_reason, teamName: row.name };
  }

  /** The newest link of one of the team's invitations, refused unless it is still pending. */
  async #pendingRow(trx: Knex.Transaction, teamId: string, id: string, act: 'cancel' | 'resend'): Promise<{ hash: string; email: string; data: string | null; created_at: number; expires_at: number }> {
    const notFound = 'No invitation of this team has this id.';
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) throw new NotFoundError(notFound);
    const row = await trx('owner_tokens')
      .where({ team_id: teamId, invitation_id: id, purpose: 'TEAM_INVITE' })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'hash' }])
      .first('hash', 'email', 'data', 'created_at', 'expires_at', 'used_at', 'revoked_at', 'revoked_reason');
    if (!row) throw new NotFoundError(notFound);
    const verb = act === 'cancel' ? 'cancel' : 'resend';
    if (row.used_at != null) throw new InvalidStateError(`This invitation was already accepted: ${row.email} is a member of the team, so there is nothing to ${verb}.`);
    if (row.revoked_at != null) throw new InvalidStateError(`This invitation to ${row.email} was cancelled, so there is nothing to ${verb}. Send a new invitation instead.`);
    if (Number(row.expires_at) <= this.clock.now()) throw new InvalidStateError(`This invitation to ${row.email} has expired, so there is nothing to ${verb}. Send a new invitation instead.`);
    return row;
  }

  /** Ends a link before use; a concurrent acceptance or cancellation that won first makes this a 406. */
  async #endRow(trx: Knex.Transaction, hash: string, reason: EndedInvitationReason): Promise<void> {
    const n = await trx('owner_tokens').where({ hash }).whereNull('used_at').whereNull('revoked_at').update({ revoked_at: this.clock.now(), revoked_reason: reason });
    if (n !== 1) throw new InvalidStateError('This invitation was accepted or cancelled a moment ago. Reload the list.');
  }

  async #isMember(q: Knex | Knex.Transaction, teamId: string, email: string): Promise<boolean> {
    return Boolean(await q('memberships as m').join('users as u', 'u.id', 'm.user_id').where({ 'm.team_id': teamId, 'u.email': email }).first('u.id'));
  }

  async #mailInvitation(trx: Knex.Transaction, actor: TeamActor, inv: { email: string; role: Role; manageApi: boolean }, token: string, resent: boolean): Promise<void> {
    const url = `${this.config.publicUrl}/invite/accept?token=${encodeURIComponent(token)}`;
    await this.mailer.send(trx, {
      to: inv.email,
      teamId: actor.member.teamId,
      kind: 'team.invite',
      subject: `You are invited to the team ${actor.member.teamName} on refloop`,
      text: [
        `${actor.session.email} invited you to join the team "${actor.member.teamName}" on refloop as ${inv.role === 'ADMIN' ? 'an Admin' : 'a Member'}${inv.manageApi ? ' who may manage API keys' : ''}.`,
        ...(resent ? ['', 'This invitation was sent again: the link in any earlier invitation no longer works, use this one.'] : []),
        '',
        'Accept the invitation (the link works once and expires in 7 days):',
        url,
        '',
        'If you did not expect this, ignore this message.',
      ].join('\n'),
    });
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

  /** A member's role and "Manage API" flag as stored, by email; null when the address is not a member (TM8's audit `before`). */
  async memberPrivileges(teamId: string, emailInput: string): Promise<{ role: Role; manageApi: boolean } | null> {
    const row = await this.db
      .knex('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.team_id': teamId, 'u.email': emailInput.trim().toLowerCase() })
      .first('m.role', 'm.manage_api');
    return row ? { role: row.role, manageApi: Boolean(row.manage_api) } : null;
  }

  /**
   * Changes another member's role (Admin or Member) and "Manage API" flag (the team's Owner only;
   * issue #35). When either changes, every session of that member ends at once, in every team and
   * browser, so no session opened under the old privileges keeps them, and they sign in again
   * (password and second factor) to get the new ones. 404 when the address is not a member; 406 for
   * an Owner, the Owner themself included. Nothing changed: nothing ends.
   */
  async changeMember(actor: TeamActor, emailInput: string, change: { role?: 'ADMIN' | 'MEMBER'; manageApi?: boolean }): Promise<{ email: string; role: 'ADMIN' | 'MEMBER'; manageApi: boolean; sessionsEnded: number }> {
    if (actor.member.role !== 'OWNER') throw new NotAuthorizedError('Only the team’s Owner may change a member’s role or Manage API access.');
    const email = emailInput.trim().toLowerCase();
    if (email === actor.session.email.toLowerCase()) throw new InvalidStateError('You cannot change your own role: you are this team’s Owner.');
    return this.db.knex.transaction(async (trx) => {
      const row = await trx('memberships as m').join('users as u', 'u.id', 'm.user_id').where({ 'm.team_id': actor.member.teamId, 'u.email': email }).first('u.id', 'm.role', 'm.manage_api');
      if (!row) throw new NotFoundError('No member of this team has this email address.');
      if (row.role === 'OWNER') throw new InvalidStateError('An Owner’s role cannot be changed.');
      const role: 'ADMIN' | 'MEMBER' = change.role ?? row.role;
      const manageApi = change.manageApi ?? Boolean(row.manage_api);
      if (role === row.role && manageApi === Boolean(row.manage_api)) return { email, role, manageApi, sessionsEnded: 0 };
      const n = await trx('memberships').where({ team_id: actor.member.teamId, user_id: row.id, role: row.role }).update({ role, manage_api: manageApi });
      if (n !== 1) throw new InvalidStateError('This member’s role changed a moment ago. Reload the list.');
      const sessionsEnded = await endSessionsForPrivilegeChange(trx, row.id, this.clock.now());
      // Audited as the TM8 write by the REST pipeline (before and after of role and manageApi).
      return { email, role, manageApi, sessionsEnded };
    });
  }

  /**
   * Removes a member from the current team (the team's Owner only; issue #35 asks for a fresh
   * re-authentication first, which the console checks): their membership goes and so do their
   * sessions in this team. 404 when the address is not a member; 406 for an Owner, the remover included.
   */
  async removeMember(actor: TeamActor, emailInput: string): Promise<{ email: string }> {
    if (actor.member.role !== 'OWNER') throw new NotAuthorizedError('Only the team’s Owner may remove members.');
    const email = emailInput.trim().toLowerCase();
    return this.db.knex.transaction(async (trx) => {
      const row = await trx('memberships as m').join('users as u', 'u.id', 'm.user_id').where({ 'm.team_id': actor.member.teamId, 'u.email': email }).first('u.id', 'm.role');
      if (!row) throw new NotFoundError('No member of this team has this email address.');
      if (row.role === 'OWNER') throw new InvalidStateError('An Owner cannot be removed from the team.');
      await trx('memberships').where({ team_id: actor.member.teamId, user_id: row.id }).del();
      await trx('sessions').where({ user_id: row.id, team_id: actor.member.teamId }).del();
      // Audited as the TM7 write by the REST pipeline.
      return { email };
    });
  }
}

/** An invitation's row as listed. */
function pendingOf(r: { invitation_id: string; email: string; data: string | null; created_at: number | string; expires_at: number | string }): PendingInvitation {
  const data = r.data ? JSON.parse(r.data) : {};
  return { id: r.invitation_id, email: r.email, role: data.role === 'ADMIN' ? 'ADMIN' : 'MEMBER', manageApi: Boolean(data.manageApi), sentAt: Number(r.created_at), expiresAt: Number(r.expires_at) };
}
