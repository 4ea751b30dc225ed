// The arithmetic of the progress panel (issue #24), by the server's own earning rules
// (server/domain/referral/reward-candidates.ts; limits in reward-issuing.ts): SINGLE_SIDED and
// DOUBLE_SIDED rewards are earned on every referral, MILESTONE rewards when the count reaches a
// multiple of `conversionsRequired`, up to the reward's limit; LEAD rewards count recorded sign-ups
// as well. Only the window payload is read: no call of its own. Pure, so happy-dom tests check it
// without a server. The home's figures (figures.tsx, whose chunk carries it) show the first figures, the progress panel all of them.
// The home's first paint carries a copy of the next-reward part (next-reward.ts, for bytes; a unit test keeps the two in agreement).
import { t } from '../../i18n/index.ts';
import type { Participant, WindowPayload } from '../api.ts';

/** A reward configuration as the window payload lists it. */
export type RewardConfig = WindowPayload['rewards'][number];

/** One milestone on the ladder: `at` the count that earns it (the next one for a repeating milestone). */
export interface Step {
  reward: RewardConfig;
  at: number;
  /** Referrals still needed (0 once done). */
  remaining: number;
  state: 'done' | 'next' | 'later';
}

/** The next reward: `remaining` more referrals earn it (at a count of `at`). */
export interface Next {
  reward: RewardConfig;
  remaining: number;
  at: number;
}

export interface Progress {
  /** The participant's referral count. */
  count: number;
  next: Next | null;
  /** MILESTONE rewards in the order they are reached. */
  steps: Step[];
  /** The participant's rank on the design's default board, when the program shows a leaderboard. */
  rank: number | null;
  /** The program's LEADERBOARD rewards (top `numberOfWinners` win). */
  prizes: RewardConfig[];
}

type Counts = Pick<Participant, 'referralCount' | 'leadCount' | 'rank' | 'monthlyRank' | 'prevMonthlyRank'>;

/** How many times a reward can be earned in all (Infinity when unlimited or limited per month/year, since the limit resets). */
function times(r: RewardConfig): number {
  if (r.isUnlimited || r.limitDuration !== 'IN_TOTAL') return Infinity;
  return r.limit == null || r.limit < 0 ? 1 : Math.max(1, r.limit);
}

/** The count a reward is measured against: referrals, plus recorded sign-ups for LEAD rewards. */
const countFor = (p: Counts, r: RewardConfig) => (p.referralCount ?? 0) + (r.event === 'LEAD' ? (p.leadCount ?? 0) : 0);

/** For one reward: the count that earns it next, or null when it cannot be earned again. */
export function nextAt(p: Counts, r: RewardConfig): number | null {
  const count = countFor(p, r);
  const max = times(r);
  if (r.type === 'SINGLE_SIDED' || r.type === 'DOUBLE_SIDED') return count < max ? count + 1 : null;
  if (r.type !== 'MILESTONE') return null;
  const needed = Math.max(1, r.conversionsRequired ?? 1);
  const earned = Math.floor(count / needed);
  return earned < max ? (earned + 1) * needed : null;
}

/** The progress panel's figures for a participant and the window payload's rewards and board. */
export function progress(p: Counts, rewards: RewardConfig[], board: WindowPayload['leaderboard'] | undefined): Progress {
  const sorted = [...rewards].sort((a, b) => a.order - b.order);
  let next: Next | null = null;
  for (const r of sorted) {
    const at = nextAt(p, r);
    if (at == null) continue;
    const remaining = at - countFor(p, r);
    if (!next || remaining < next.remaining) next = { reward: r, remaining, at };
  }
  const milestones = sorted
    .filter((r) => r.type === 'MILESTONE')
    .map((r) => {
      const at = nextAt(p, r);
      // A milestone that cannot be earned again is done at the count that earned it last.
      return { reward: r, at: at ?? Math.max(1, r.conversionsRequired ?? 1) * times(r), remaining: at == null ? 0 : at - countFor(p, r) };
    })
    .sort((a, b) => a.at - b.at);
  let seen = false;
  const steps: Step[] = milestones.map((m) => {
    const state = !m.remaining ? 'done' : seen ? 'later' : 'next';
    if (m.remaining) seen = true;
    return { ...m, state };
  });
  const type = board?.leaderboardType;
  const rank = !board ? null : ((type === 'CURRENT_MONTH' ? p.monthlyRank : type === 'PREV_MONTH' ? p.prevMonthlyRank : p.rank) ?? null);
  return { count: p.referralCount ?? 0, next, steps, rank, prizes: sorted.filter((r) => r.type === 'LEADERBOARD') };
}
/** The name a participant sees for a reward: its description, else its title. */
export const rewardName = (r: RewardConfig) => r.description || r.title || t('rewards.reward');

/** A MILESTONE reward's own progress copy (`nextMilestonePrefix` count `nextMilestoneSuffix`), else the catalogue's. */
export function nextText(r: RewardConfig, remaining: number): string {
  if (r.type === 'MILESTONE' && (r.nextMilestonePrefix?.trim() || r.nextMilestoneSuffix?.trim())) return [r.nextMilestonePrefix?.trim(), remaining, r.nextMilestoneSuffix?.trim()].filter(Boolean).join(' ');
  return t('progress.next', { count: remaining, reward: rewardName(r) });
}

