import type { Knex } from 'knex';
import type { Clock } from '../../clock.ts';
import { newOrderedId } from '../../crypto.ts';
import { runSql, trxRows } from '../../db/rows.ts';
import type { Program, Programs } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import type { ParticipantRow, Q } from '../participants/model.ts';
import { ACTIONS, type Activity, type ActivityEntry } from '../platform/activity.ts';
import type { Webhooks } from '../messaging/webhooks.ts';
import type { ScoreLedger } from '../participants/score-ledger.ts';
import type { ParticipantReward } from '../../../shared/schemas/reward.ts';
import type { CampaignReward } from '../../../shared/schemas/reward-config.ts';
import { liveConfigRows, type ConfigRow } from '../programs/reward-configs.ts';
import { leaderboardCandidates, type Candidate } from './reward-candidates.ts';

// Writing the rewards a moment earns (reward-candidates.ts decides which), inside the transaction of
// the change that earned them: limits, approval, winners, activity and webhooks. Every issued reward
// has an `issue_key` naming the occasion (configuration, recipient and referral, milestone count or
// leaderboard period); the unique index on it makes issuing idempotent, so a retried trigger, a
// replayed job or a referral credited twice issues nothing new.

export type { ConfigRow };

/** A participant_rewards row as stored. */
export interface RewardRow {
  id: string;
  program_id: string;
  participant_id: string;
  reward_config_id: string;
  issue_key: string;
  status: 'PENDING' | 'FULFILLED';
  approved: boolean | number;
  approved_at: number | null;
  fulfilled_at: number | null;
  is_available: boolean | number;
  is_referrer: boolean | number;
  referrer_id: string | null;
  referred_id: string | null;
  unread: boolean | number;
  amount: number | null;
  currency_iso: string | null;
  commission_structure: string | null;
  created_at: number;
  deleted_at: number | null;
}


const GOAL_EVENT = 'PARTICIPANT_REACHED_A_GOAL';

const CONFIG_COLUMNS = [
  'id',
  'type',
  'title',
  'description',
  'referral_description',
  'coupon_code',
  'referral_coupon_code',
  'is_unlimited',
  'event',
  'referred_reward_upfront',
  'reward_limit',
  'limit_duration',
  'conversions_required',
  'number_of_winners',
] as const;

const REWARD_COLUMNS = [
  'id',
  'program_id',
  'participant_id',
  'reward_config_id',
  'issue_key',
  'status',
  'approved',
  'approved_at',
  'fulfilled_at',
  'is_available',
  'is_referrer',
  'referrer_id',
  'referred_id',
  'unread',
  'amount',
  'currency_iso',
  'commission_structure',
  'created_at',
  'deleted_at',
] as const satisfies ReadonlyArray<keyof RewardRow>;

/** The multi-row INSERT of `count` rewards that skips taken issue keys and returns the ids it inserted. */
function insertRewardsSql(count: number): string {
  const values = `(${REWARD_COLUMNS.map(() => '?').join(', ')})`;
  return `INSERT INTO "participant_rewards" (${REWARD_COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES ${Array(count).fill(values).join(', ')} ON CONFLICT ("issue_key") DO NOTHING RETURNING "id"`;
}

/** The wire shape of an issued reward (rest-v2 §2.11); optional ids are left out rather than null. */
export function toParticipantReward(r: RewardRow): ParticipantReward {
  const approved = !!r.approved;
  return {
    id: r.id,
    rewardId: r.reward_config_id,
    status: r.status,
    approved,
    amount: r.amount == null ? null : Number(r.amount),
    currencyISO: r.currency_iso,
    approvedAt: r.approved_at == null ? null : Number(r.approved_at),
    fulfilledAt: r.fulfilled_at == null ? null : Number(r.fulfilled_at),
    isFulfilled: r.status === 'FULFILLED',
    isAvailable: !!r.is_available,
    isReferrer: !!r.is_referrer,
    ...(r.referrer_id ? { referrerId: r.referrer_id } : {}),
    ...(r.referred_id ? { referredId: r.referred_id } : {}),
    unread: !!r.unread,
    commissionStructure: r.commission_structure ? (JSON.parse(r.commission_structure) as Record<string, unknown>) : null,
  };
}

/**
 * `data.reward` of PARTICIPANT_REACHED_A_GOAL: the CampaignReward's fields (coupon codes, title,
 * descriptions, image, metadata, …; its `id` is `rewardId` here) combined with the ParticipantReward's,
 * and `createdAt`, when it was issued. Both coupon codes are kept as configured: `couponCode` is the
 * referrer's, `referralCouponCode` the referred friend's (`isReferrer` says whose reward this is).
 */
export function goalReward(config: CampaignReward | undefined, r: RewardRow): Omit<CampaignReward, 'id' | 'commissionStructure'> & ParticipantReward & { createdAt: number } {
  // Copied key by key: V8 builds `{ ...config, ...reward, createdAt }` of these ~40 keys through its
  // slow path (≈ 30–40 µs a call, measured), this loop in ≈ 2 µs.
  const out: Record<string, unknown> = {};
  if (config) for (const k in config) if (k !== 'id') out[k] = config[k as keyof CampaignReward];
  const issued = toParticipantReward(r);
  for (const k in issued) out[k] = issued[k as keyof ParticipantReward];
  out.createdAt = Number(r.created_at);
  return out as ReturnType<typeof goalReward>;
}

/** A reward's name in activity text: its internal title, else its description, else its id. */
export function rewardLabel(c: Pick<ConfigRow, 'id' | 'title' | 'description'>): string {
  return JSON.stringify((c.title ?? c.description ?? c.id).slice(0, 80));
}

/** Start of the `limitDuration` window containing `now` (UTC calendar months and years). */
export function windowStart(duration: ConfigRow['limit_duration'], now: number): number {
  if (duration === 'IN_TOTAL') return 0;
  const d = new Date(now);
  return duration === 'PER_MONTH' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) : Date.UTC(d.getUTCFullYear(), 0, 1);
}

/** Writes issued rewards and everything that follows from them: winners, activity, webhooks. */
export class RewardIssuer {
  /** Work that follows newly issued rewards in the same transaction (the `goalAchieved` email). */
  readonly onIssued: Array<(trx: Knex.Transaction, program: Program, issued: Array<{ reward: RewardRow; config: ConfigRow }>, people: Map<string, ParticipantRow>) => Promise<void>> = [];

  constructor(
    private readonly clock: Clock,
    private readonly programs: Programs,
    private readonly participants: Participants,
    private readonly activity: Activity,
    private readonly webhooks: Pick<Webhooks, 'emitMany' | 'listens'>,
  ) {}

  /**
   * The program's live, visible configurations (hidden ones are "no longer awarded", §2.5). Inside a
   * transaction from the rows it read once (`liveConfigRows`, which the webhook payload's campaign
   * reads too).
   */
  async configs(q: Q, programId: string): Promise<ConfigRow[]> {
    if ((q as Knex.Transaction).isTransaction === true) {
      return (await liveConfigRows(q as Knex.Transaction, programId, this.programs.configRows)).filter((r) => r.is_visible === true || r.is_visible === 1) as unknown as ConfigRow[];
    }
    return q('reward_configs')
      .where({ program_id: programId, is_visible: true })
      .whereNull('deleted_at')
      .orderBy([{ column: 'sort_order' }, { column: 'seq' }])
      .select(...CONFIG_COLUMNS);
  }

  /**
   * Issues the candidates that are within their limits, once per issue key. New rewards start
   * approved unless options.requireManualRewardApproval, and fulfilled when options.autoFulfillRewards
   * also says so. Each new reward is an activity row and a PARTICIPANT_REACHED_A_GOAL event; a
   * recipient's first approved reward makes them a winner (through `ledger`, so the program counter
   * is written with the other shared rows at the end of the transaction). `people` holds the rows of
   * every recipient (already locked by the caller) and is updated in place.
   */
  async issue(trx: Knex.Transaction, program: Program, candidates: Candidate[], ledger: ScoreLedger, people: Map<string, ParticipantRow>): Promise<RewardRow[]> {
    if (!candidates.length) return [];
    const now = this.clock.now();
    const kept: Candidate[] = [];
    for (const c of candidates) if (await this.withinLimit(trx, c, now)) kept.push(c);
    if (!kept.length) return [];
    // Both options default to false, so reading the stored keys equals reading the completed document.
    const options = program.documents.options as { requireManualRewardApproval?: unknown; autoFulfillRewards?: unknown };
    const approved = options.requireManualRewardApproval !== true;
    const fulfilled = approved && options.autoFulfillRewards === true;
    const rows: RewardRow[] = kept.map((c) => ({
      id: newOrderedId(),
      program_id: program.id,
      participant_id: c.recipientId,
      reward_config_id: c.config.id,
      issue_key: c.key,
      status: fulfilled ? 'FULFILLED' : 'PENDING',
      approved,
      approved_at: approved ? now : null,
      fulfilled_at: fulfilled ? now : null,
      is_available: approved,
      is_referrer: c.isReferrer,
      referrer_id: c.referrerId,
      referred_id: c.referredId,
      unread: true,
      amount: null,
      currency_iso: null,
      commission_structure: null,
      created_at: now,
      deleted_at: null,
    }));
    const inserted = await trxRows<{ id: string }>(trx, insertRewardsSql(rows.length), rows.flatMap((r) => REWARD_COLUMNS.map((c) => r[c])));
    const ids = new Set(inserted.map((r) => r.id));
    const issued = rows.filter((r) => ids.has(r.id));
    if (!issued.length) return [];
    const byId = new Map(kept.map((c, i) => [rows[i]!.id, c]));

    if (approved) await this.markWinners(trx, issued.map((r) => r.participant_id), ledger, people);
    const entries: ActivityEntry[] = issued.map((r) => {
      const c = byId.get(r.id)!;
      return {
        programId: program.id,
        participantId: r.participant_id,
        type: 'REWARD',
        action: ACTIONS.rewardIssued,
        text: `Earned reward ${rewardLabel(c.config)} ${c.why}${approved ? '' : ' (awaiting approval)'}`,
        data: { rewardId: r.id, rewardConfigId: c.config.id, rewardType: c.config.type, isReferrer: c.isReferrer, approved, fulfilled },
      };
    });
    await this.activity.record(trx, ...entries);
    await this.announce(trx, program, issued, people, ledger);
    if (this.onIssued.length) {
      const pairs = issued.map((reward) => ({ reward, config: byId.get(reward.id)!.config }));
      for (const hook of this.onIssued) await hook(trx, program, pairs, people);
    }
    return issued;
  }

  /**
   * Sets `is_winner` on recipients of an approved reward who were not winners yet and counts them on
   * the program's `winnerCount` (participants with ≥ 1 approved reward, §2.3).
   */
  async markWinners(trx: Knex.Transaction, participantIds: string[], ledger: ScoreLedger, people?: Map<string, ParticipantRow>): Promise<void> {
    // Rows the caller holds (locked, current) that are winners already need no write.
    const ids = [...new Set(participantIds)].filter((id) => !people?.get(id)?.is_winner);
    if (!ids.length) return;
    const flipped = await runSql(trx, `UPDATE "participants" SET "is_winner" = ? WHERE "id" IN (${ids.map(() => '?').join(', ')}) AND "is_winner" = ?`, [true, ...ids, false]);
    if (flipped) ledger.winners(Number(flipped));
    for (const id of ids) {
      const p = people?.get(id);
      if (p) p.is_winner = true;
    }
  }

  /**
   * One PARTICIPANT_REACHED_A_GOAL per reward, built only when a webhook listens: when it is issued,
   * and again when a reward that awaited approval is approved (GrowSurf sends both; `reward.approved`
   * tells them apart). `data` is GrowSurf's: the recipient (with `referee`, the friend they referred,
   * on the referrer's side; `referrer` on the friend's), the reward configuration's fields combined
   * with the issued reward's, and the program (docs/webhooks.md).
   */
  async announce(trx: Knex.Transaction, program: Program, rewards: RewardRow[], people: Map<string, ParticipantRow>, ledger?: ScoreLedger): Promise<void> {
    if (!(await this.webhooks.listens(trx, program.id, GOAL_EVENT))) return;
    const recipients = [...new Set(rewards.map((r) => r.participant_id))];
    const missing = recipients.filter((id) => !people.has(id));
    if (missing.length) for (const row of await trx('participants').whereIn('id', missing)) people.set(row.id, row);
    const rows = recipients.map((id) => people.get(id)).filter((r): r is ParticipantRow => !!r);
    // One moment rewards one referral, so a recipient has at most one referee in a batch.
    const referees = new Map<string, string>();
    for (const r of rewards) if (r.is_referrer && r.referred_id) referees.set(r.participant_id, r.referred_id);
    const wire = new Map((await this.participants.forEvents(trx, program, rows, { referees, known: people, ledger })).map((p) => [p.id, p]));
    const campaign = await this.programs.toCampaign(program, trx, ledger);
    const configs = new Map(campaign.rewards.map((c) => [c.id, c]));
    const datas = rewards.flatMap((r) => {
      const participant = wire.get(r.participant_id);
      return participant ? [{ campaign, participant, reward: goalReward(configs.get(r.reward_config_id), r) }] : [];
    });
    await this.webhooks.emitMany(trx, program.id, GOAL_EVENT, datas);
  }

  /** True while the recipient has earned this configuration fewer than `limit` times in its window (per side). */
  private async withinLimit(trx: Knex.Transaction, c: Candidate, now: number): Promise<boolean> {
    if (c.config.is_unlimited || c.config.type === 'LEADERBOARD') return true;
    // A limited reward without a stored limit is earned once (docs/decisions.md, reward configurations).
    const limit = c.config.reward_limit == null || Number(c.config.reward_limit) < 0 ? 1 : Number(c.config.reward_limit);
    const row = await trx('participant_rewards')
      .where({ reward_config_id: c.config.id, participant_id: c.recipientId, is_referrer: c.isReferrer })
      .where('created_at', '>=', windowStart(c.config.limit_duration, now))
      .whereNull('deleted_at')
      .count({ n: '*' })
      .first();
    return Number(row?.n ?? 0) < limit;
  }

  /**
   * Leaderboard prizes: the top `numberOfWinners` of each visible LEADERBOARD configuration
   * (`leaderboardCandidates`), issued like any other reward.
   */
  async leaderboardPrizes(trx: Knex.Transaction, program: Program, ledger: ScoreLedger, scope: { month: number; allTime: boolean }): Promise<RewardRow[]> {
    const { candidates, people } = await leaderboardCandidates(trx, program.id, await this.configs(trx, program.id), scope);
    return this.issue(trx, program, candidates, ledger, people);
  }
}
