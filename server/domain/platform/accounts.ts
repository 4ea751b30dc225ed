import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Mailer } from './mail.ts';
import type { Jobs } from './jobs.ts';
import type { Keys } from './keys.ts';
import { newId, newSecret, sha256 } from '../../crypto.ts';
import { businessEmailProblem } from './email-policy.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { SCOPES } from '../../../shared/scopes.ts';
import { TRIAL_MS } from './plans.ts';
import type { CreateAccountRequest } from '../../../shared/schemas/team.ts';
import { SYSTEM, type AuditLog } from './audit.ts';

/** Unverified accounts are deleted this long after creation. */
export const UNVERIFIED_TTL_MS = 7 * 24 * 3600 * 1000;
/** One-time owner links (verify, set password, invite) stay valid this long. */
export const OWNER_LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/** Purposes of one-time owner links. */
export type OwnerTokenPurpose = 'VERIFY_EMAIL' | 'SET_PASSWORD' | 'TEAM_INVITE';

/** Account creation, owner email verification, the 7-day purge and one-time owner links. */
export class Accounts {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly mailer: Mailer,
    private readonly jobs: Jobs,
    private readonly keys: Keys,
    private readonly audit: AuditLog,
  ) {
    jobs.register('account.purge_unverified', async ({ userId }: { userId: string }) => {
      await this.purgeIfUnverified(userId);
    });
  }

  /** Mints a one-time link token; only its hash is stored. */
  async issueOwnerToken(
    q: Knex | Knex.Transaction,
    purpose: OwnerTokenPurpose,
    fields: { userId?: string | null; teamId?: string | null; email?: string | null; data?: unknown; invitationId?: string },
    ttlMs = OWNER_LINK_TTL_MS,
  ): Promise<string> {
    const token = newSecret(24);
    await q('owner_tokens').insert({
      hash: sha256(token),
      purpose,
      user_id: fields.userId ?? null,
      team_id: fields.teamId ?? null,
      email: fields.email ?? null,
      data: fields.data === undefined ? null : JSON.stringify(fields.data),
      invitation_id: fields.invitationId ?? null,
      expires_at: this.clock.now() + ttlMs,
      created_at: this.clock.now(),
    });
    return token;
  }

  /** Reads a one-time link token without consuming it; null when unknown, used, revoked (a cancelled or resent invitation) or expired. */
  async peekOwnerToken(q: Knex | Knex.Transaction, purpose: OwnerTokenPurpose, token: string): Promise<any | null> {
    if (!token || token.length > 200) return null;
    const row = await q('owner_tokens').where({ hash: sha256(token), purpose }).first();
    if (!row || row.used_at != null || row.revoked_at != null || Number(row.expires_at) <= this.clock.now()) return null;
    return { ...row, data: row.data ? JSON.parse(row.data) : null };
  }

  /** Consumes a one-time token (single use) and returns its row, or null. */
  async consumeOwnerToken(q: Knex.Transaction, purpose: OwnerTokenPurpose, token: string): Promise<any | null> {
    const row = await this.peekOwnerToken(q, purpose, token);
    if (!row) return null;
    const n = await q('owner_tokens').where({ hash: row.hash }).whereNull('used_at').whereNull('revoked_at').update({ used_at: this.clock.now() });
    return n === 1 ? row : null;
  }

  /** `POST /accounts`: team on a 14-day trial, owner, locked key, welcome email, purge job. */
  async create(input: CreateAccountRequest, clientIp: string): Promise<{ email: string; apiKey: string; verificationStatus: 'NOT_REQUESTED' }> {
    const email = input.email.trim().toLowerCase();
    const problem = businessEmailProblem(email);
    if (problem) throw new ValidationError(problem.message, [problem]);
    const now = this.clock.now();
    const domain = email.slice(email.indexOf('@') + 1);
    const teamId = newId();
    const userId = newId();
    try {
      const { secret, verifyToken, passwordToken } = await this.db.knex.transaction(async (trx) => {
        if (await trx('users').where({ email }).first('id')) {
          throw new ConflictError('An account with this email already exists.', ERROR_CODES.ACCOUNT_EXISTS);
        }
        await trx('teams').insert({
          id: teamId,
          name: input.company?.trim() || domain,
          verification_status: 'NOT_REQUESTED',
          plan: 'TRIAL',
          trial_ends_at: now + TRIAL_MS,
          created_at: now,
          updated_at: now,
        });
        await trx('users').insert({
          id: userId,
          email,
          first_name: input.firstName ?? null,
          last_name: input.lastName ?? null,
          company: input.company ?? null,
          terms_accepted_at: now,
          terms_version: this.config.termsVersion,
          terms_ip: clientIp.slice(0, 64),
          created_at: now,
        });
        await trx('memberships').insert({ team_id: teamId, user_id: userId, role: 'OWNER', manage_api: true, created_at: now });
        const key = await this.keys.create(trx, { teamId, scopes: [...SCOPES], origin: 'ACCOUNT_CREATION', label: 'Account creation key', userId });
        const verifyToken = await this.issueOwnerToken(trx, 'VERIFY_EMAIL', { userId, email });
        const passwordToken = await this.issueOwnerToken(trx, 'SET_PASSWORD', { userId, email });
        await this.jobs.enqueue(trx, 'account.purge_unverified', { userId }, { runAt: now + UNVERIFIED_TTL_MS, uniqueKey: `purge:${userId}` });
        await this.mailer.send(trx, this.#welcomeEmail(email, input.firstName, verifyToken, passwordToken, teamId));
        return { secret: key.secret, verifyToken, passwordToken };
      });
      void verifyToken;
      void passwordToken;
      this.jobs.kick();
      return { email, apiKey: secret, verificationStatus: 'NOT_REQUESTED' };
    } catch (err) {
      const code = String((err as { code?: string }).code ?? '');
      if (code === '23505' || code.startsWith('SQLITE_CONSTRAINT')) {
        throw new ConflictError('An account with this email already exists.', ERROR_CODES.ACCOUNT_EXISTS);
      }
      throw err;
    }
  }

  #welcomeEmail(email: string, firstName: string | undefined, verifyToken: string, passwordToken: string, teamId: string) {
    const base = this.config.publicUrl;
    const verifyUrl = `${base}/verify?token=${encodeURIComponent(verifyToken)}`;
    const passwordUrl = `${base}/set-password?token=${encodeURIComponent(passwordToken)}`;
    return {
      to: email,
      teamId,
      kind: 'account.welcome',
      subject: 'Welcome to refloop: verify your email',
      text: [
        `Hi${firstName ? ' ' + firstName : ''},`,
        '',
        'An account was created for this address. Verify your email to unlock your API key:',
        verifyUrl,
        '',
        'Then choose a password to sign in to your owner pages:',
        passwordUrl,
        '',
        'If you did not ask for this, ignore this message: unverified accounts are deleted after 7 days.',
      ].join('\n'),
    };
  }

  /** Sends a fresh verification link to the owner (`POST /team/owner/verification-email`). */
  async sendOwnerVerification(q: Knex.Transaction, userId: string, email: string, teamId: string): Promise<void> {
    const token = await this.issueOwnerToken(q, 'VERIFY_EMAIL', { userId, email });
    const url = `${this.config.publicUrl}/verify?token=${encodeURIComponent(token)}`;
    await this.mailer.send(q, {
      to: email,
      teamId,
      kind: 'account.verify',
      subject: 'Verify your refloop email address',
      text: `Open this link to verify your email address and unlock your API key:\n${url}\n`,
    });
  }

  /** Opens a verification link: marks the owner verified and unlocks every team they own. Returns the email, or null for a bad link. */
  async verifyEmail(token: string): Promise<string | null> {
    return this.db.knex.transaction(async (trx) => {
      const row = await this.peekOwnerToken(trx, 'VERIFY_EMAIL', token);
      if (!row || !row.user_id) return null;
      const user = await trx('users').where({ id: row.user_id }).first();
      if (!user) return null;
      const now = this.clock.now();
      if (user.email_verified_at == null) await trx('users').where({ id: user.id }).update({ email_verified_at: now });
      await this.syncOwnerVerified(trx, user.id);
      await trx('owner_tokens').where({ hash: row.hash }).update({ used_at: now });
      return user.email as string;
    });
  }

  /** Copies the owner's verification state onto the teams they own (read by the auth hot path). */
  async syncOwnerVerified(q: Knex | Knex.Transaction, userId: string): Promise<void> {
    const user = await q('users').where({ id: userId }).first('email_verified_at');
    const teamIds = (await q('memberships').where({ user_id: userId, role: 'OWNER' }).select('team_id')).map((r: any) => r.team_id);
    if (!teamIds.length) return;
    await q('teams').whereIn('id', teamIds).update({ owner_email_verified: user?.email_verified_at != null, updated_at: this.clock.now() });
    this.keys.teamsChanged(q, teamIds);
  }

  /** The purge job: deletes an owner still unverified, the teams they own, and their keys. */
  async purgeIfUnverified(userId: string): Promise<boolean> {
    return this.db.knex.transaction(async (trx) => {
      const user = await trx('users').where({ id: userId }).first();
      if (!user || user.email_verified_at != null) return false;
      if (Number(user.created_at) + UNVERIFIED_TTL_MS > this.clock.now()) return false;
      const owned = (await trx('memberships').where({ user_id: userId, role: 'OWNER' }).select('team_id')).map((r: any) => r.team_id);
      // The purged team's trail outlives it (no cascade reaches audit_log) until its retention ends.
      for (const teamId of owned) {
        await this.audit.system(trx, {
          teamId,
          source: SYSTEM.accountPurge,
          action: 'system.account.purge_unverified',
          resourceType: 'team',
          resourceId: teamId,
          changes: { ids: { teamId, userId }, fields: { team: { after: 'DELETED' }, ownerEmailVerified: { after: false }, createdAt: { after: Number(user.created_at) } } },
        });
      }
      if (owned.length) await trx('teams').whereIn('id', owned).del();
      // Their keys and programs went with them (ON DELETE CASCADE): caches drop both by team.
      this.keys.teamsChanged(trx, owned);
      await trx('users').where({ id: userId }).del();
      return true;
    });
  }
}
