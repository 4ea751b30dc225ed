import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { selectArrays } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import type { Jobs } from '../platform/jobs.ts';
import type { Activity } from '../platform/activity.ts';
import { SYSTEM, type AuditLog } from '../platform/audit.ts';
import type { Webhooks } from '../messaging/webhooks.ts';
import { toProgram, type Program, type Programs } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import type { ParticipantRow, Q } from '../participants/model.ts';
import { monthKey } from '../participants/boards.ts';
import { readRows } from '../participants/leaderboard.ts';
import { ScoreLedger } from '../participants/score-ledger.ts';
import { InvalidStateError, NotFoundError, ValidationError } from '../../errors.ts';
import { RewardQueue } from './reward-queue.ts';
import { RewardIssuer, rewardLabel, toParticipantReward, type RewardRow } from './reward-issuing.ts';
import { monthLabel, referralCandidates } from './reward-candidates.ts';
import type { ParticipantReward, ParticipantRewardList, ParticipantRewardListQuery } from '../../../shared/schemas/reward.ts';

/** Most recent rewards shown in `Participant.rewards` (PR1 pages through all of them). */
export const PARTICIPANT_REWARDS_SHOWN = 100;

const MONTHLY_LEADERBOARD_JOB = 'rewards.monthly-leaderboard';

/** The columns `Participant.rewards` reads (`toParticipantReward`, plus the recipient and time it is ordered by). */
const SHOWN_COLUMNS = 'id, participant_id, reward_config_id, status, approved, amount, currency_iso, approved_at, fulfilled_at, is_available, is_referrer, referrer_id, referred_id, unread, commission_structure, created_at';

/** A row of SHOWN_COLUMNS (read as an array, in that order) as the stored row `toParticipantReward` takes. */
function shownReward(a: unknown[]): RewardRow {
  return {
    id: a[0],
    participant_id: a[1],
    reward_config_id: a[2],
    status: a[3],
    approved: a[4],
    amount: a[5],
    currency_iso: a[6],
    approved_at: a[7],
    fulfilled_at: a[8],
    is_available: a[9],
    is_referrer: a[10],
    referrer_id: a[11],
    referred_id: a[12],
    unread: a[13],
    commission_structure: a[14],
    created_at: a[15],
  } as RewardRow;
}

/** Ids we issue are [a-z0-9]; anything else cannot name a reward (and NUL would upset PostgreSQL). */
const plausibleId = (id: string) => /^[A-Za-z0-9_-]{1,64}$/.test(id);

/** First instant of month key `key` (UTC). */
function monthStart(key: number): number {
  return Date.UTC(Math.floor(key / 12), key % 12, 1);
}

/**
 * Issued rewards (rest-v2 §2.11, §3.9 PR1–PR4) and the moments that issue them: a referral recorded
 * (LEAD rewards), a referral credited (CONVERSION rewards, milestones), a program's end and each
 * month's end (leaderboard prizes). All of it runs inside the transaction of the change that earned it.
 */
export class Rewards {
  /** The issuing rules and writer, shared with the referral triggers. */
  readonly issuer: RewardIssuer;
  /** PR5: the program-wide rewards queue. */
  readonly queue: RewardQueue;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jobs: Jobs,
    private readonly programs: Programs,
    private readonly participants: Participants,
    private readonly activity: Activity,
    webhooks: Pick<Webhooks, 'emitMany' | 'listens'>,
    private readonly audit: AuditLog,
  ) {
    this.issuer = new RewardIssuer(clock, programs, participants, activity, webhooks);
    this.queue = new RewardQueue(db);
    participants.hooks.created.push((trx, program, participant, ledger, referrer) => this.onReferralRecorded(trx, program, participant, ledger, referrer));
    participants.hooks.referralCredited.push((trx, program, referrer, referred, ledger) => this.onReferralCredited(trx, program, referrer, referred, ledger));
    participants.hooks.deleting.push((trx, _program, ids, ledger) => this.onDeleting(trx, ids, ledger));
    participants.hooks.rewardsOf = (q, ids) => this.rewardsOf(q, ids);
    // First in line, so CAMPAIGN_ENDED (queued by the webhooks engine's own hook) reports the winners.
    programs.hooks.ended.unshift((trx, program) => this.onProgramEnded(trx, program));
    jobs.register(MONTHLY_LEADERBOARD_JOB, (payload: { programId: string; month: number }) => this.awardMonth(payload.programId, payload.month));
  }

  /** PR1: a participant's rewards, newest first; `nextId` is the last reward id of the page. */
  async list(program: Program, idOrEmail: string, query: ParticipantRewardListQuery): Promise<ParticipantRewardList> {
    const knex = this.db.knex;
    const participant = await this.participants.resolve(knex, program, idOrEmail);
    const q = knex('participant_rewards').where({ participant_id: participant.id }).whereNull('deleted_at');
    if (query.nextId) {
      const after = plausibleId(query.nextId)
        ? await knex('participant_rewards').where({ id: query.nextId, participant_id: participant.id }).first('created_at', 'id')
        : undefined;
      if (!after) {
        throw new ValidationError('nextId must be a reward id from the previous page.', [
          { field: 'query.nextId', code: 'INVALID', message: 'Not a reward of this participant.' },
        ]);
      }
      q.whereRaw('(created_at, id) < (?, ?)', [Number(after.created_at), after.id]);
    }
    const rows = await readRows<RewardRow>(this.db, knex, q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit + 1));
    const page = rows.slice(0, query.limit);
    return { rewards: page.map(toParticipantReward), limit: query.limit, nextId: rows.length > query.limit ? page[page.length - 1]!.id : null };
  }

  /**
   * PR2: approves a reward awaiting approval, and with `fulfill` also marks it fulfilled. Approving
   * an approved reward changes nothing; a fulfilled one answers 406 (seed: States and transitions).
   */
  async approve(program: Program, rewardId: string, fulfill: boolean): Promise<{ success: true }> {
    await this.db.knex.transaction(async (trx) => {
      const reward = await this.lockedReward(trx, program, rewardId);
      if (reward.status === 'FULFILLED') throw new InvalidStateError(`Reward ${reward.id} is already fulfilled.`);
      if (reward.approved && !fulfill) return;
      const now = this.clock.now();
      const changes: Partial<RewardRow> = {};
      if (!reward.approved) Object.assign(changes, { approved: true, approved_at: now, is_available: true });
      if (fulfill) Object.assign(changes, { status: 'FULFILLED', fulfilled_at: now });
      await trx('participant_rewards').where({ id: reward.id }).update(changes);
      const ledger = new ScoreLedger(program.id);
      if (!reward.approved) await this.issuer.markWinners(trx, [reward.participant_id], ledger);
      await this.activity.record(trx, {
        programId: program.id,
        participantId: reward.participant_id,
        type: 'REWARD',
        action: fulfill ? 'reward.fulfilled' : 'reward.approved',
        text: `Reward ${await this.label(trx, reward)} ${reward.approved ? 'marked fulfilled' : fulfill ? 'approved and marked fulfilled' : 'approved'}`,
        data: { rewardId: reward.id, rewardConfigId: reward.reward_config_id },
      });
      await ledger.flush(trx);
      // The second PARTICIPANT_REACHED_A_GOAL of a reward that awaited approval, now `approved: true`.
      if (!reward.approved) await this.issuer.announce(trx, program, [{ ...reward, ...changes } as RewardRow], new Map());
    });
    return { success: true };
  }

  /** PR3: marks an approved reward fulfilled; a fulfilled one, or one still awaiting approval, answers 406. */
  async fulfill(program: Program, rewardId: string): Promise<{ success: true }> {
    await this.db.knex.transaction(async (trx) => {
      const reward = await this.lockedReward(trx, program, rewardId);
      if (reward.status === 'FULFILLED') throw new InvalidStateError(`Reward ${reward.id} is already fulfilled.`);
      if (!reward.approved) throw new InvalidStateError(`Reward ${reward.id} is not approved yet; approve it first (or approve with fulfill: true).`);
      await trx('participant_rewards').where({ id: reward.id }).update({ status: 'FULFILLED', fulfilled_at: this.clock.now() });
      await this.activity.record(trx, {
        programId: program.id,
        participantId: reward.participant_id,
        type: 'REWARD',
        action: 'reward.fulfilled',
        text: `Reward ${await this.label(trx, reward)} marked fulfilled`,
        data: { rewardId: reward.id, rewardConfigId: reward.reward_config_id },
      });
    });
    return { success: true };
  }

  /**
   * PR4: removes a reward still awaiting approval (an approved one answers 406). The row is kept as
   * a tombstone so the same occasion never issues it again.
   */
  async remove(program: Program, rewardId: string): Promise<{ success: true }> {
    await this.db.knex.transaction(async (trx) => {
      const reward = await this.lockedReward(trx, program, rewardId);
      if (reward.approved) throw new InvalidStateError(`Reward ${reward.id} is already approved; only rewards awaiting approval can be deleted.`);
      await trx('participant_rewards').where({ id: reward.id }).update({ deleted_at: this.clock.now(), is_available: false });
      await this.activity.record(trx, {
        programId: program.id,
        participantId: reward.participant_id,
        type: 'REWARD',
        action: 'reward.deleted',
        text: `Reward ${await this.label(trx, reward)} deleted before approval`,
        data: { rewardId: reward.id, rewardConfigId: reward.reward_config_id },
      });
    });
    return { success: true };
  }

  /**
   * `Participant.rewards` of several participants: the 100 most recent of each, newest first. One
   * index-ordered, limited read per participant (joined with UNION ALL), so a participant with
   * thousands of rewards costs no more than one with a hundred.
   */
  async rewardsOf(q: Q, participantIds: string[]): Promise<Map<string, ParticipantReward[]>> {
    const out = new Map<string, ParticipantReward[]>();
    const ids = [...new Set(participantIds)];
    if (!ids.length) return out;
    // A literal LIMIT: a bound one makes SQLite re-plan the statement on every run (see inlineLimit).
    // Only the columns the wire shape needs: turning columns into JS values is most of this read's cost.
    const one = `SELECT * FROM (SELECT ${SHOWN_COLUMNS} FROM participant_rewards WHERE participant_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ${PARTICIPANT_REWARDS_SHOWN}) r`;
    const rows = (await selectArrays(this.db, q, `SELECT * FROM (${ids.map(() => one).join(' UNION ALL ')}) u`, ids)).map(shownReward);
    // UNION ALL promises no order across its parts, so each participant's list is ordered here.
    rows.sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    for (const r of rows) {
      const list = out.get(r.participant_id) ?? [];
      list.push(toParticipantReward(r));
      out.set(r.participant_id, list);
    }
    return out;
  }

  /** A new participant arrived with a pending referral: LEAD rewards (credited arrivals go through `onReferralCredited`). */
  private async onReferralRecorded(trx: Knex.Transaction, program: Program, participant: ParticipantRow, ledger: ScoreLedger, referrer: ParticipantRow | null): Promise<void> {
    if (!participant.referred_by || participant.referral_status !== 'CREDIT_PENDING' || program.type !== 'REFERRAL') return;
    const configs = (await this.issuer.configs(trx, program.id)).filter((c) => c.event === 'LEAD');
    if (!configs.length) return;
    if (!referrer) return;
    const people = new Map([
      [referrer.id, referrer],
      [participant.id, participant],
    ]);
    await this.issuer.issue(trx, program, referralCandidates(configs, ['LEAD'], referrer, participant), ledger, people);
  }

  /**
   * A referral became CREDIT_AWARDED: CONVERSION rewards and milestones, plus LEAD rewards the
   * referral did not get when it was recorded (it arrived credited, or was attached later).
   */
  private async onReferralCredited(trx: Knex.Transaction, program: Program, referrer: ParticipantRow, referred: ParticipantRow, ledger: ScoreLedger): Promise<void> {
    if (program.type !== 'REFERRAL') return;
    const configs = await this.issuer.configs(trx, program.id);
    if (!configs.length) return;
    if (configs.some((c) => c.type === 'LEADERBOARD' && c.limit_duration === 'PER_MONTH')) {
      const month = monthKey(this.clock.now());
      await this.jobs.enqueue(trx, MONTHLY_LEADERBOARD_JOB, { programId: program.id, month }, { runAt: monthStart(month + 1), uniqueKey: `leaderboard-month:${program.id}:${month}` });
    }
    const people = new Map([
      [referrer.id, referrer],
      [referred.id, referred],
    ]);
    await this.issuer.issue(trx, program, referralCandidates(configs, ['LEAD', 'CONVERSION'], referrer, referred), ledger, people);
  }

  /** Participants are being deleted: their winner status leaves the program's count (their rewards go by cascade). */
  private async onDeleting(trx: Knex.Transaction, ids: string[], ledger: ScoreLedger): Promise<void> {
    const row = await trx('participants').whereIn('id', ids).where('is_winner', true).count({ n: '*' }).first();
    const n = Number(row?.n ?? 0);
    if (n) ledger.winners(-n);
  }

  /** The program ended: all-time prizes, and this (partial) month's for monthly leaderboards. */
  private async onProgramEnded(trx: Knex.Transaction, program: Program): Promise<void> {
    if (program.type !== 'REFERRAL') return;
    const ledger = new ScoreLedger(program.id);
    await this.issuer.leaderboardPrizes(trx, program, ledger, { month: monthKey(this.clock.now()), allTime: true });
    await ledger.flush(trx);
  }

  /** The job at the start of month `month + 1`: month `month`'s prizes, unless the program ended before then (its end awarded them). */
  private async awardMonth(programId: string, month: number): Promise<void> {
    await this.db.knex.transaction(async (trx) => {
      const row = await trx('programs').where({ id: programId }).first();
      if (!row || row.status === 'DELETED') return;
      if (row.status === 'COMPLETE' && row.ended_at != null && Number(row.ended_at) < monthStart(month + 1)) return;
      const program = toProgram(row);
      const ledger = new ScoreLedger(program.id);
      const issued = await this.issuer.leaderboardPrizes(trx, program, ledger, { month, allTime: false });
      await ledger.flush(trx);
      if (issued.length) {
        await this.activity.record(trx, {
          programId,
          participantId: null,
          type: 'REWARD',
          action: 'reward.leaderboard_month',
          text: `Leaderboard prizes of ${monthLabel(month)} issued to ${issued.length} participant${issued.length === 1 ? '' : 's'}`,
          data: { month: monthLabel(month), rewards: issued.map((r) => r.id) },
        });
      }
      for (const r of issued) {
        await this.audit.system(trx, {
          teamId: program.teamId,
          source: SYSTEM.leaderboardMonth,
          action: 'system.reward.leaderboard_month',
          resourceType: 'rewards',
          resourceId: r.id,
          changes: { ids: { id: program.id, participantId: r.participant_id }, fields: { month: { after: monthLabel(month) }, rewardConfigId: { after: r.reward_config_id }, approved: { after: !!r.approved } } },
        });
      }
    });
  }

  /** The reward named in a path, locked; unknown, deleted or another program's → 404. */
  private async lockedReward(trx: Knex.Transaction, program: Program, rewardId: string): Promise<RewardRow> {
    const row: RewardRow | undefined = plausibleId(rewardId)
      ? await trx('participant_rewards').where({ id: rewardId, program_id: program.id }).whereNull('deleted_at').forUpdate().first()
      : undefined;
    if (!row) throw new NotFoundError(`No reward ${rewardId} in program ${program.id}.`);
    return row;
  }

  private async label(trx: Knex.Transaction, reward: RewardRow): Promise<string> {
    const c = await trx('reward_configs').where({ id: reward.reward_config_id }).first('id', 'title', 'description');
    return rewardLabel(c ?? { id: reward.reward_config_id, title: null, description: null });
  }
}
