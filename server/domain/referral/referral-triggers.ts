import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import type { Jobs } from '../platform/jobs.ts';
import type { Activity } from '../platform/activity.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import type { ParticipantRow } from '../participants/model.ts';
import { newId } from '../../crypto.ts';
import { forUpdate, trxRows } from '../../db/rows.ts';
import { ValidationError } from '../../errors.ts';
import type { TriggerReferralResponse } from '../../../shared/schemas/reward.ts';
import { knowTeamVerified } from '../messaging/team-verification.ts';
import { SYSTEM, type AuditLog, type AuditWrite } from '../platform/audit.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const TRIGGER_JOB = 'referral.trigger';
const CREDIT_WINDOW_JOB = 'referral.credit-window';
/** Referrals expired per transaction by the credit-window sweep. */
const SWEEP_BATCH = 200;

/** The message of a cancelled delayed trigger (the official fixture's wording). */
export const CANCELLED_MESSAGE = 'Delayed referral cancelled';

/** P8's answer when the referral was credited before: nothing changed. */
export const ALREADY_AWARDED_MESSAGE = 'Referral credit was already awarded to the referrer.';
/** P8's answer when the credit window had passed: the referral expired now. */
export const EXPIRED_NOW_MESSAGE = 'The referral credit window has passed; the referral expired and no credit was awarded.';

/** What an immediate P8 changed, by its answer: the credit awarded, the referral expired, or nothing. */
export function creditChange(res: TriggerReferralResponse): 'CREDIT_AWARDED' | 'CREDIT_EXPIRED' | null {
  if (res.success && res.message === undefined) return 'CREDIT_AWARDED';
  if (!res.success && res.message === EXPIRED_NOW_MESSAGE) return 'CREDIT_EXPIRED';
  return null;
}

/** options.referralCreditWindowDays in ms, or null when referrals never expire. */
function creditWindowMs(program: Program): number | null {
  const days = (program.documents.options as { referralCreditWindowDays?: unknown }).referralCreditWindowDays;
  return typeof days === 'number' && days > 0 ? days * DAY : null;
}

/**
 * Referral credit on request (rest-v2 §3.8 P8/P9) and by time: `POST …/ref` awards credit now or
 * after `delayInDays` through a durable job, `DELETE …/ref` cancels the pending delayed trigger, and
 * credit windows (options.referralCreditWindowDays) expire referrals still pending after the window.
 * Every credit change goes through the participants core's `setReferralStatus`, so counts, ranks and
 * rewards follow.
 */
export class ReferralTriggers {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly jobs: Jobs,
    private readonly participants: Participants,
    private readonly activity: Activity,
    private readonly audit: AuditLog,
  ) {
    jobs.register(TRIGGER_JOB, (payload: { triggerId: string }) => this.runDelayed(payload.triggerId));
    jobs.register(CREDIT_WINDOW_JOB, async (payload: { programId: string }) => {
      await this.sweep(payload.programId);
    });
    participants.hooks.created.push((trx, program, participant) => this.onReferralRecorded(trx, program, participant));
  }

  /**
   * P8: credits the participant's referral now, or schedules it `delayInDays` from now.
   * `teamVerificationStatus`: the team's state as the request's credential read it, so the reward
   * emails of this trigger do not read the team row again.
   */
  async trigger(program: Program, idOrEmail: string, delayInDays: number | undefined, teamVerificationStatus?: string, audit?: AuditWrite): Promise<TriggerReferralResponse> {
    const run = async (trx: Knex.Transaction): Promise<TriggerReferralResponse> => {
      if (teamVerificationStatus !== undefined) knowTeamVerified(trx, program.teamId, teamVerificationStatus);
      const row = await this.participants.resolve(trx, program, idOrEmail, { lock: true });
      if (!row.referred_by) {
        throw new ValidationError(`Participant ${row.id} was not referred, so there is no referral to credit.`, [
          { field: 'participantIdOrEmail', code: 'NOT_REFERRED', message: 'This participant has no referrer.' },
        ]);
      }
      if (row.referral_status === 'CREDIT_AWARDED') return { success: true, message: ALREADY_AWARDED_MESSAGE };
      if (await this.expireIfLate(trx, program, row)) return { success: false, message: EXPIRED_NOW_MESSAGE };
      if (row.referral_status === 'CREDIT_EXPIRED') return { success: false, message: 'This referral has expired; no credit was awarded.' };
      const now = this.clock.now();
      // A literal status: SQLite re-plans a statement whose bound value may match a partial index's condition.
      const [pending] = await trxRows<{ id: string; run_at: number }>(trx, `SELECT * FROM referral_triggers WHERE participant_id = ? AND status = 'PENDING' LIMIT 1${forUpdate(trx)}`, [row.id]);
      if (delayInDays === undefined) {
        if (pending) await trx('referral_triggers').where({ id: pending.id }).update({ status: 'DONE', resolved_at: now });
        await this.participants.setReferralStatus(trx, program, row.id, 'CREDIT_AWARDED', row);
        return { success: true };
      }
      if (pending) {
        return { success: true, message: `A delayed referral trigger is already pending; credit will be awarded at ${new Date(Number(pending.run_at)).toISOString()} unless cancelled.` };
      }
      const runAt = now + delayInDays * DAY;
      const id = newId();
      await trx('referral_triggers').insert({ id, program_id: program.id, participant_id: row.id, status: 'PENDING', run_at: runAt, created_at: now, resolved_at: null });
      await this.jobs.enqueue(trx, TRIGGER_JOB, { triggerId: id }, { runAt, uniqueKey: `referral.trigger:${id}` });
      await this.activity.record(trx, {
        programId: program.id,
        participantId: row.referred_by,
        type: 'REFERRAL',
        action: 'referral.trigger_scheduled',
        text: `Credit for referring ${row.email} scheduled in ${delayInDays} day${delayInDays === 1 ? '' : 's'}`,
        data: { referredId: row.id, triggerId: id, runAt },
      });
      return { success: true, message: `Referral credit will be awarded in ${delayInDays} day${delayInDays === 1 ? '' : 's'} unless cancelled.` };
    };
    // Concurrent triggers share one SQLite transaction (group commit), each in its own savepoint;
    // the activity rows of one trigger are written together at its end.
    // The request's audit entry rides it too (issue #35): one INSERT at its end.
    return this.db.grouped(async (trx) => {
      const out = await this.activity.batched(trx, () => run(trx));
      await audit?.(trx, out);
      return out;
    });
  }

  /** P9: cancels the participant's pending delayed trigger; `success: false` when none is pending. */
  async cancel(program: Program, idOrEmail: string): Promise<TriggerReferralResponse> {
    return this.db.knex.transaction(async (trx) => {
      const row = await this.participants.resolve(trx, program, idOrEmail, { lock: true });
      const now = this.clock.now();
      const n = await trx('referral_triggers').where({ participant_id: row.id, status: 'PENDING' }).update({ status: 'CANCELLED', resolved_at: now });
      if (!n) return { success: false, message: 'No delayed referral trigger is pending for this participant.' };
      await this.activity.record(trx, {
        programId: program.id,
        participantId: row.referred_by ?? row.id,
        type: 'REFERRAL',
        action: 'referral.trigger_cancelled',
        text: `Delayed credit for referring ${row.email} cancelled`,
        data: { referredId: row.id },
      });
      return { success: true, message: CANCELLED_MESSAGE };
    });
  }

  /** The job of a delayed trigger: credits the referral when due, unless it was cancelled, superseded or removed. */
  private async runDelayed(triggerId: string): Promise<void> {
    const trigger = await this.db.knex('referral_triggers').where({ id: triggerId }).first();
    if (!trigger || trigger.status !== 'PENDING') return;
    await this.db.knex.transaction(async (trx) => {
      const programRow = await trx('programs').where({ id: trigger.program_id }).first();
      if (!programRow || programRow.status === 'DELETED') return;
      const program = toProgram(programRow);
      // Participant first, then the trigger: the same lock order as P8 and P9.
      const row: ParticipantRow | undefined = await trx('participants').where({ id: trigger.participant_id }).forNoKeyUpdate().first();
      const current = await trx('referral_triggers').where({ id: triggerId }).forUpdate().first();
      if (!row || !current || current.status !== 'PENDING') return;
      await trx('referral_triggers').where({ id: triggerId }).update({ status: 'DONE', resolved_at: this.clock.now() });
      if (!row.referred_by || row.referral_status === 'CREDIT_AWARDED' || row.referral_status === 'CREDIT_EXPIRED') return;
      const before = row.referral_status;
      // The referral's activity row comes from the participants core's hooks, like every credit.
      if (!(await this.participants.setReferralStatus(trx, program, row.id, 'CREDIT_AWARDED', row))) return;
      await this.audit.system(trx, {
        teamId: program.teamId,
        source: SYSTEM.delayedCredit,
        action: 'system.referral.delayed_credit',
        resourceType: 'participants',
        resourceId: row.id,
        changes: { ids: { id: program.id, participantId: row.id, triggerId }, fields: { referralStatus: { before, after: 'CREDIT_AWARDED' }, referredBy: { after: row.referred_by }, dueAt: { after: Number(current.run_at) } } },
      });
    });
  }

  /**
   * A referral past its credit window that the sweep has not reached yet expires now, so a trigger
   * cannot beat the sweep to it. Referrals with a pending delayed trigger have qualified and keep it.
   */
  private async expireIfLate(trx: Knex.Transaction, program: Program, row: ParticipantRow): Promise<boolean> {
    const window = creditWindowMs(program);
    if (window == null || row.referral_status !== 'CREDIT_PENDING' || row.referred_at == null) return false;
    if (Number(row.referred_at) + window > this.clock.now()) return false;
    if (await trx('referral_triggers').where({ participant_id: row.id, status: 'PENDING' }).first('id')) return false;
    await this.expire(trx, program, row);
    return true;
  }

  /** Expires one pending referral through the participants core (whose hooks log it); false when nothing changed. */
  private expire(trx: Knex.Transaction, program: Program, row: ParticipantRow): Promise<boolean> {
    return this.participants.setReferralStatus(trx, program, row.id, 'CREDIT_EXPIRED', row);
  }

  /** A pending referral was recorded: make sure the program's credit-window sweep runs when it falls due. */
  private async onReferralRecorded(trx: Knex.Transaction, program: Program, participant: ParticipantRow): Promise<void> {
    if (!participant.referred_by || participant.referral_status !== 'CREDIT_PENDING' || program.type !== 'REFERRAL') return;
    const window = creditWindowMs(program);
    if (window == null) return;
    await this.scheduleSweep(trx, program.id, Number(participant.referred_at ?? participant.created_at) + window);
  }

  /** One sweep per program per hour of due time: at the end of the hour in which `due` falls. */
  private async scheduleSweep(q: Knex | Knex.Transaction, programId: string, due: number): Promise<void> {
    const bucket = Math.floor(due / HOUR);
    await this.jobs.enqueue(q, CREDIT_WINDOW_JOB, { programId }, { runAt: (bucket + 1) * HOUR, uniqueKey: `credit-window:${programId}:${bucket}` });
  }

  /**
   * The credit-window sweep of one program: every referral still CREDIT_PENDING a full window after
   * it was recorded becomes CREDIT_EXPIRED (in batches, each its own transaction), then the next
   * sweep is scheduled for the oldest referral left pending.
   */
  async sweep(programId: string): Promise<number> {
    let expired = 0;
    for (;;) {
      const programRow = await this.db.knex('programs').where({ id: programId }).first();
      if (!programRow || programRow.status === 'DELETED') return expired;
      const program = toProgram(programRow);
      const window = creditWindowMs(program);
      if (window == null) return expired;
      const cutoff = this.clock.now() - window;
      const due = this.pendingQuery(program.id).where('p.referred_at', '<=', cutoff).orderBy('p.referred_at').limit(SWEEP_BATCH).select('p.id');
      const ids: string[] = (await due).map((r: { id: string }) => r.id);
      let changed = 0;
      if (ids.length) {
        await this.db.knex.transaction(async (trx) => {
          // Counted afresh when a PostgreSQL deadlock runs this callback again (server/db/retry.ts).
          changed = 0;
          for (const id of ids) {
            const row: ParticipantRow | undefined = await trx('participants').where({ id }).forNoKeyUpdate().first();
            if (!row || row.referral_status !== 'CREDIT_PENDING' || !(await this.expire(trx, program, row))) continue;
            changed++;
            await this.audit.system(trx, {
              teamId: program.teamId,
              source: SYSTEM.creditWindow,
              action: 'system.referral.credit_expired',
              resourceType: 'participants',
              resourceId: row.id,
              changes: { ids: { id: program.id, participantId: row.id }, fields: { referralStatus: { before: 'CREDIT_PENDING', after: 'CREDIT_EXPIRED' }, referredAt: { after: Number(row.referred_at) }, creditWindowDays: { after: window / DAY } } },
            });
          }
        });
        expired += changed;
      }
      // A full batch that changed nothing would be read again forever; stop and let the next sweep retry.
      if (ids.length < SWEEP_BATCH || changed === 0) {
        const next = await this.pendingQuery(program.id).where('p.referred_at', '>', cutoff).orderBy('p.referred_at').first('p.referred_at');
        if (next) await this.scheduleSweep(this.db.knex, program.id, Number(next.referred_at) + window);
        this.log.info('credit window sweep', { programId, expired });
        return expired;
      }
    }
  }

  /** The program's pending referrals without a pending delayed trigger (those have qualified). */
  private pendingQuery(programId: string): Knex.QueryBuilder {
    const knex = this.db.knex;
    return knex('participants as p')
      .where({ 'p.program_id': programId, 'p.referral_status': 'CREDIT_PENDING' })
      .whereNotExists(knex('referral_triggers as t').whereRaw('t.participant_id = p.id').where('t.status', 'PENDING').select(knex.raw('1')));
  }
}
