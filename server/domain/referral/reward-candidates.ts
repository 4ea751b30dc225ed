import type { Knex } from 'knex';
import type { ParticipantRow } from '../participants/model.ts';
import type { ConfigRow } from '../programs/reward-configs.ts';

// Which rewards a moment earns: the candidates of a referral moment (decided from the rows alone)
// and of a leaderboard period (its top participants, read in the caller's transaction), each with
// the issue key that names its occasion. Limits, approval and writing are `RewardIssuer`'s
// (reward-issuing.ts).

/** One reward a moment may earn, before limits. */
export interface Candidate {
  config: ConfigRow;
  recipientId: string;
  isReferrer: boolean;
  referrerId: string | null;
  referredId: string | null;
  /** The occasion, unique per reward ever issued. */
  key: string;
  /** Why, for the activity log ("for referring ann@example.com"). */
  why: string;
}

/** Which referral moment is being rewarded. */
export type ReferralMoment = 'LEAD' | 'CONVERSION';

/**
 * The rewards one referral moment earns: SINGLE_SIDED and DOUBLE_SIDED for the referrer (and the
 * friend, unless the friend's reward is given upfront), MILESTONE when the referrer's count reaches
 * a multiple of `conversionsRequired`. LEAD rewards count recorded referrals (pending or credited);
 * CONVERSION rewards count credited ones.
 */
export function referralCandidates(configs: ConfigRow[], moments: ReferralMoment[], referrer: ParticipantRow, referred: ParticipantRow): Candidate[] {
  const out: Candidate[] = [];
  /** A candidate of this referral under `config`, for the referrer or for the friend. */
  const earn = (config: ConfigRow, isReferrer: boolean, key: string, why: string) =>
    out.push({ config, recipientId: isReferrer ? referrer.id : referred.id, isReferrer, referrerId: referrer.id, referredId: referred.id, key, why });
  for (const c of configs) {
    const event = c.event ?? 'CONVERSION';
    if (!moments.includes(event)) continue;
    if (c.type === 'SINGLE_SIDED' || c.type === 'DOUBLE_SIDED') {
      earn(c, true, `${c.id}:${referrer.id}:ref:${referred.id}`, `for referring ${referred.email}`);
      if (c.type === 'DOUBLE_SIDED' && !c.referred_reward_upfront) earn(c, false, `${c.id}:${referred.id}:friend`, `for being referred by ${referrer.email}`);
    } else if (c.type === 'MILESTONE') {
      const needed = Math.max(1, Number(c.conversions_required ?? 1));
      const count = Number(referrer.referral_count) + (event === 'LEAD' ? Number(referrer.lead_count) : 0);
      if (count > 0 && count % needed === 0) earn(c, true, `${c.id}:${referrer.id}:milestone:${count}`, `for reaching ${count} ${event === 'LEAD' ? 'referred sign-ups' : 'referrals'}`);
    }
  }
  return out;
}

/**
 * Leaderboard prizes: the top `numberOfWinners` of each LEADERBOARD configuration among `configs`,
 * ties to the earlier participant. PER_MONTH configurations rank month `scope.month` (winners per month,
 * §2.5); the others rank all-time referral counts, and only when `scope.allTime`. Only participants
 * with at least one credited referral can win. `people` holds every winner's row.
 */
export async function leaderboardCandidates(trx: Knex.Transaction, programId: string, configs: ConfigRow[], scope: { month: number; allTime: boolean }): Promise<{ candidates: Candidate[]; people: Map<string, ParticipantRow> }> {
  const candidates: Candidate[] = [];
  const people = new Map<string, ParticipantRow>();
  for (const c of configs) {
    if (c.type !== 'LEADERBOARD') continue;
    const monthly = c.limit_duration === 'PER_MONTH';
    if (!monthly && !scope.allTime) continue;
    const n = Math.max(1, Number(c.number_of_winners ?? 3));
    const winners = monthly ? await topOfMonth(trx, programId, scope.month, n) : await topAllTime(trx, programId, n);
    winners.forEach((w, i) => {
      people.set(w.id, w);
      const period = monthly ? `M${scope.month}` : 'ALL_TIME';
      candidates.push({
        config: c,
        recipientId: w.id,
        isReferrer: true,
        referrerId: w.id,
        referredId: null,
        key: `${c.id}:${w.id}:leaderboard:${period}`,
        why: `for place ${i + 1} on the ${monthly ? `leaderboard of ${monthLabel(scope.month)}` : 'all-time leaderboard'}`,
      });
    });
  }
  return { candidates, people };
}

/** All-time best: referral counts, among participants with at least one. */
async function topAllTime(trx: Knex.Transaction, programId: string, n: number): Promise<ParticipantRow[]> {
  return trx('participants')
    .where('program_id', programId)
    .where('referral_count', '>', 0)
    .orderBy([{ column: 'referral_count', order: 'desc' }, { column: 'created_at' }, { column: 'id' }])
    .limit(n);
}

/** Month `key`'s best: rows still on that month, and rows already rolled into the next (their previous month). */
async function topOfMonth(trx: Knex.Transaction, programId: string, key: number, n: number): Promise<ParticipantRow[]> {
  const current: ParticipantRow[] = await trx('participants')
    .where({ program_id: programId, month_key: key })
    .where('monthly_referral_count', '>', 0)
    .orderBy([{ column: 'monthly_referral_count', order: 'desc' }, { column: 'created_at' }, { column: 'id' }])
    .limit(n);
  const rolled: ParticipantRow[] = await trx('participants')
    .where({ program_id: programId, month_key: key + 1 })
    .where('prev_monthly_referral_count', '>', 0)
    .orderBy([{ column: 'prev_monthly_referral_count', order: 'desc' }, { column: 'created_at' }, { column: 'id' }])
    .limit(n);
  const score = (r: ParticipantRow) => (Number(r.month_key) === key ? Number(r.monthly_referral_count) : Number(r.prev_monthly_referral_count));
  return [...current, ...rolled]
    .sort((a, b) => score(b) - score(a) || Number(a.created_at) - Number(b.created_at) || (a.id < b.id ? -1 : 1))
    .slice(0, n);
}

/** `2026-01` for a month key. */
export function monthLabel(key: number): string {
  return `${Math.floor(key / 12)}-${String((key % 12) + 1).padStart(2, '0')}`;
}
