import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Mailer } from './mail.ts';
import type { Accounts } from './accounts.ts';
import type { Keys } from './keys.ts';
import type { Team } from '../../../shared/schemas/team.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { PLAN_NAMES, type PlanName } from './plans.ts';

/** Teams: the REST team resource, verification and the operator's controls. */
export class Teams {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly mailer: Mailer,
    private readonly accounts: Accounts,
    private readonly keys: Keys,
  ) {}

  /** The team as `GET /team` returns it. */
  async get(teamId: string): Promise<Team> {
    const row = await this.db.get('SELECT name, verification_status, verification_requested_at, owner_email_verified FROM teams WHERE id = ?', teamId);
    if (!row) throw new NotFoundError('Team not found.');
    return toTeam(row);
  }

  /** `PATCH /team`. */
  async rename(teamId: string, name: string): Promise<Team> {
    await this.db.knex('teams').where({ id: teamId }).update({ name, updated_at: this.clock.now() });
    return this.get(teamId);
  }

  /** `POST /team/verification-request`: NOT_REQUESTED → REQUESTED; a repeat while pending changes nothing. */
  async requestVerification(teamId: string): Promise<Team> {
    const now = this.clock.now();
    const n = await this.db.knex('teams').where({ id: teamId, verification_status: 'NOT_REQUESTED' }).update({
      verification_status: 'REQUESTED',
      verification_requested_at: now,
      updated_at: now,
    });
    if (n) this.keys.teamsChanged(this.db.knex, [teamId]);
    return this.get(teamId);
  }

  /** Operator approval (`refloop team verify`): REQUESTED or NOT_REQUESTED → VERIFIED. */
  async approveVerification(teamId: string): Promise<Team> {
    const n = await this.db.knex('teams').where({ id: teamId }).update({ verification_status: 'VERIFIED', updated_at: this.clock.now() });
    if (!n) throw new NotFoundError('Team not found.');
    this.keys.teamsChanged(this.db.knex, [teamId]);
    return this.get(teamId);
  }

  /** `POST /team/owner/verification-email`: 400 when the owner is already verified. */
  async resendOwnerVerification(teamId: string): Promise<{ success: true; status: 'SENT' }> {
    await this.db.knex.transaction(async (trx) => {
      const owner = await trx('memberships as m').join('users as u', 'u.id', 'm.user_id').where({ 'm.team_id': teamId, 'm.role': 'OWNER' }).first('u.id', 'u.email', 'u.email_verified_at');
      if (!owner) throw new NotFoundError('The team has no owner.');
      if (owner.email_verified_at != null) {
        throw new ValidationError('The team owner has already verified their email address.', [{ field: 'owner', code: 'ALREADY_VERIFIED', message: 'Already verified.' }]);
      }
      await this.accounts.sendOwnerVerification(trx, owner.id, owner.email, teamId);
    });
    return { success: true, status: 'SENT' };
  }

  /** `POST /api-key/rotate`: new key returned once, old key dead, owner notified. */
  async rotateKey(teamId: string, keyId: string): Promise<{ apiKey: string }> {
    return this.db.knex.transaction(async (trx) => {
      const created = await this.keys.rotate(trx, keyId);
      const owner = await trx('memberships as m').join('users as u', 'u.id', 'm.user_id').where({ 'm.team_id': teamId, 'm.role': 'OWNER' }).first('u.email');
      if (owner) {
        await this.mailer.send(trx, {
          to: owner.email,
          teamId,
          kind: 'account.key_rotated',
          subject: 'An API key was rotated',
          text: `An API key of your refloop team was rotated. The new key starts with ${created.prefix}; the old key no longer works.\nIf you did not do this, revoke the key on your API keys page.\n`,
        });
      }
      return { apiKey: created.secret };
    });
  }

  /** Operator: enable or disable a team; a disabled team's keys answer 403 account disabled. */
  async setDisabled(teamId: string, disabled: boolean): Promise<void> {
    const n = await this.db.knex('teams').where({ id: teamId }).update({ disabled, updated_at: this.clock.now() });
    if (!n) throw new NotFoundError('Team not found.');
    this.keys.teamsChanged(this.db.knex, [teamId]);
  }

  /** Operator: sets the plan and whether a payment method is on file. */
  async setPlan(teamId: string, plan: string, hasPaymentMethod?: boolean): Promise<void> {
    if (!(PLAN_NAMES as readonly string[]).includes(plan)) throw new ValidationError(`Unknown plan ${plan}; choose one of ${PLAN_NAMES.join(', ')}`);
    const patch: Record<string, unknown> = { plan: plan as PlanName, updated_at: this.clock.now() };
    if (hasPaymentMethod !== undefined) patch.has_payment_method = hasPaymentMethod;
    const n = await this.db.knex('teams').where({ id: teamId }).update(patch);
    if (!n) throw new NotFoundError('Team not found.');
    this.keys.teamsChanged(this.db.knex, [teamId]);
  }

  /** Operator listing of every team with its owner. */
  async list(): Promise<Array<Record<string, unknown>>> {
    const rows = await this.db
      .knex('teams as t')
      .leftJoin('memberships as m', function () {
        this.on('m.team_id', 't.id').andOnVal('m.role', 'OWNER');
      })
      .leftJoin('users as u', 'u.id', 'm.user_id')
      .orderBy('t.created_at')
      .select('t.*', 'u.email as owner_email');
    return rows.map((r: any) => ({
      id: r.id,
      name: r.name,
      ownerEmail: r.owner_email ?? null,
      ownerEmailVerified: Boolean(r.owner_email_verified),
      verificationStatus: r.verification_status,
      plan: r.plan,
      hasPaymentMethod: Boolean(r.has_payment_method),
      disabled: Boolean(r.disabled),
      trialEndsAt: r.trial_ends_at == null ? null : Number(r.trial_ends_at),
      createdAt: Number(r.created_at),
    }));
  }
}

/** Maps a team row to the wire shape. */
function toTeam(row: any): Team {
  return {
    name: row.name,
    verificationStatus: row.verification_status,
    verificationRequestedAt: row.verification_requested_at == null ? null : Number(row.verification_requested_at),
    ownerEmailVerified: Boolean(row.owner_email_verified),
  };
}
