// The way to the next reward for the home's first paint (issue #32): which reward a participant
// earns next and its text, so the box the home keeps for its figures (share.tsx) holds that text and
// is as tall as the tile to come, however the reward's name wraps; nothing moves when the figures'
// chunk arrives. A deliberate copy of the first part of the progress panel's arithmetic
// (progress-math.ts, which travels with the figures): a module both the share panel's chunk and
// the figures' chunk imported would become a chunk of its own in the window's first load, 194 B
// gzip more than this copy, over the budget (docs/decisions.md). The unit test
// test/widget/progress-icons.test.tsx checks, over generated rewards and counts, that the two give
// the same reward, count and text.
import { t } from '../../i18n/index.ts';
import type { Participant, WindowPayload } from '../api.ts';

type RewardConfig = WindowPayload['rewards'][number];
type Counts = Pick<Participant, 'referralCount' | 'leadCount'>;

/** How many times a reward can be earned in all (progress-math.ts `times`). */
function times(r: RewardConfig): number {
  if (r.isUnlimited || r.limitDuration !== 'IN_TOTAL') return Infinity;
  return r.limit == null || r.limit < 0 ? 1 : Math.max(1, r.limit);
}

/** The count a reward is measured against (progress-math.ts `countFor`). */
const countFor = (p: Counts, r: RewardConfig) => (p.referralCount ?? 0) + (r.event === 'LEAD' ? (p.leadCount ?? 0) : 0);

/** For one reward: the count that earns it next, or null (progress-math.ts `nextAt`). */
export function nextAt(p: Counts, r: RewardConfig): number | null {
  const count = countFor(p, r);
  const max = times(r);
  if (r.type === 'SINGLE_SIDED' || r.type === 'DOUBLE_SIDED') return count < max ? count + 1 : null;
  if (r.type !== 'MILESTONE') return null;
  const needed = Math.max(1, r.conversionsRequired ?? 1);
  const earned = Math.floor(count / needed);
  return earned < max ? (earned + 1) * needed : null;
}

/** The reward the fewest referrals away, the first in `order` on a tie, or null (progress-math.ts `progress().next`). */
export function nextReward(p: Counts, rewards: RewardConfig[]): { reward: RewardConfig; remaining: number } | null {
  let next: { reward: RewardConfig; remaining: number } | null = null;
  for (const r of [...rewards].sort((a, b) => a.order - b.order)) {
    const at = nextAt(p, r);
    if (at == null) continue;
    const remaining = at - countFor(p, r);
    if (!next || remaining < next.remaining) next = { reward: r, remaining };
  }
  return next;
}

/** The next reward's text as the figures draw it (progress-math.ts `nextText`). */
export function nextText(r: RewardConfig, remaining: number): string {
  if (r.type === 'MILESTONE' && (r.nextMilestonePrefix?.trim() || r.nextMilestoneSuffix?.trim())) return [r.nextMilestonePrefix?.trim(), remaining, r.nextMilestoneSuffix?.trim()].filter(Boolean).join(' ');
  return t('progress.next', { count: remaining, reward: r.description || r.title || t('rewards.reward') });
}
