// The home's figures (issue #32): the referral count and the way to the next reward (the progress
// panel's arithmetic, progress-math.ts) in a referral program; in an affiliate program the referral
// count, the earnings so far and the upcoming payout (MW1's affiliate summary, present once the
// program can pay out). Their own chunk, which boot requests beside the share panel's (registry.tsx
// `preloadFirstPanel`), so it normally arrives with it; the home (share.tsx) paints the offer, the
// link, Copy and the share buttons without waiting for it, in a box that already has the figures'
// height, so nothing moves when they arrive. Drawn from the window payload alone (no call of its own).
import { t } from '../../i18n/index.ts';
import { me, programType, state } from '../state.ts';
import { money } from '../ui.tsx';
import { nextText, progress, rewardName } from './progress-math.ts';

// The progress panel takes the arithmetic from this chunk (a participant has it, requested at boot,
// before that panel can show): progress-math.ts is not a chunk of its own.
export { nextText, progress, rewardName };

/** A figure and what it counts. */
const Tile = ({ v, label }: { v: string | number; label: string }) => (
  <div class="tile">
    <b>{v}</b>
    <span class="m">{label}</span>
  </div>
);

/** The tiles, drawn into the home's `.hs` grid. */
export function Figures() {
  const s = state.value;
  const p = me();
  if (s.status !== 'ready' || !p) return null;
  const count = p.referralCount ?? 0;
  let figures;
  if (programType() === 'AFFILIATE') {
    const a = s.win.affiliate;
    figures = a && [
      <Tile key="e" v={money(a.totalPaidOut + a.upcomingPayout, a.currencyISO)} label={t('home.earned')} />,
      <Tile key="u" v={money(a.upcomingPayout, a.currencyISO)} label={t('affiliate.upcoming')} />,
    ];
  } else {
    // A starter reward is switched off (the rewards panel says so): nothing to make progress toward.
    const rewards = s.win.rewards.filter((r) => !r.isStarter);
    const g = progress(p, rewards, s.win.leaderboard);
    const n = g.next;
    // The bar measures the way to the next milestone, as on the progress panel.
    const step = g.steps.find((x) => x.state === 'next');
    const done = step ? step.at - step.remaining : 0;
    figures = n ? (
      <div class="tile">
        <span>{nextText(n.reward, n.remaining)}</span>
        {step && (
          <div class="pb" role="progressbar" aria-label={t('progress.bar')} aria-valuemin={0} aria-valuemax={step.at} aria-valuenow={done} aria-valuetext={t('progress.of', { count: step.at, done })}>
            <i style={{ width: `${(100 * done) / step.at}%` }} />
          </div>
        )}
      </div>
    ) : (
      rewards.some((r) => r.type !== 'LEADERBOARD') && <p class="m">{t('progress.all')}</p>
    );
  }
  return (
    <>
      <Tile v={count} label={t('progress.count', { count })} />
      {figures}
    </>
  );
}
