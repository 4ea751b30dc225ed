// Progress toward the next reward (design `stats`, "referral-progress panel", web-sdk.md §4.1; issue
// #24): the referral count, the next reward and how far away it is, MILESTONE rewards as steps, the
// rank where the program shows a leaderboard and its prizes. A lazy chunk drawn from the window
// payload alone, so `growsurf.init()` (and every reload of the state) moves it; its styles come with it.
import '../../i18n/panels.ts';
import { t } from '../../i18n/index.ts';
import { state } from '../state.ts';
import { Section, copy, design } from '../ui.tsx';
import { KIT_CSS } from '../kit.tsx';
// From the home's figures' chunk (figures.tsx), which holds the arithmetic (boot requests it for a
// participant, so it is loaded before this panel can be shown): progress-math.ts is no chunk of its own.
import { nextText, progress, rewardName } from './figures.tsx';

export { nextText, rewardName };

const CSS = `.pg{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}.pg b{font-size:28px;line-height:1}
.pb{height:8px;border-radius:4px;background:#e5e7eb;overflow:hidden;margin:6px 0}
.pb i{display:block;height:100%;background:var(--p);transition:width .4s}
.st{padding:0;margin:0}.st li{justify-content:flex-start;align-items:center;flex-wrap:nowrap}
.st .k{flex:none;width:28px;height:28px;border-radius:50%;display:grid;place-items:center;border:2px solid var(--m);color:var(--m);font-size:12px;overflow:hidden}
.st .done .k{background:var(--p);border-color:var(--p);color:var(--bt)}.st .next .k{border-color:var(--p);color:var(--p)}
.st img,.ri{width:28px;height:28px;object-fit:cover;border-radius:50%;flex:none}
.st span:last-child{margin-left:auto}`;

/** The progress panel (referral programs, signed-in participant). */
export default function Progress() {
  const s = state.value;
  if (s.status !== 'ready' || !s.win.participant) return null;
  const d = design();
  // As the tab (registry.tsx): the design's `stats` title unless it repeats the referral list's.
  const title = d.stats?.title === d.referralStatus?.title ? t('progress.title') : copy(d.stats?.title, 'progress.title');
  // A starter reward is switched off (the rewards panel says so): nothing to make progress toward.
  const rewards = s.win.rewards.filter((r) => !r.isStarter);
  const p = progress(s.win.participant, rewards, s.win.leaderboard);
  const n = p.next;
  // The bar measures the way to the next milestone (a per-referral reward is always one referral away).
  const step = p.steps.find((x) => x.state === 'next');
  const done = step ? step.at - step.remaining : 0;
  return (
    <Section title={title}>
      <style>{KIT_CSS + CSS}</style>
      <p class="pg">
        <b>{p.count}</b> {t('progress.count', { count: p.count })}
      </p>
      {n ? (
        <p>{nextText(n.reward, n.remaining)}</p>
      ) : (
        rewards.some((r) => r.type !== 'LEADERBOARD') && <p class="m">{t('progress.all')}</p>
      )}
      {p.steps.length > 0 && (
        <>
          <h3>{t('progress.steps')}</h3>
          {step && (
            <div class="pb" role="progressbar" aria-label={t('progress.bar')} aria-valuemin={0} aria-valuemax={step.at} aria-valuenow={done} aria-valuetext={t('progress.of', { count: step.at, done })}>
              <i style={{ width: `${(100 * done) / step.at}%` }} />
            </div>
          )}
          <ol class="st">
            {p.steps.map((x, i) => (
              <li key={x.reward.id} class={x.state} aria-current={x.state === 'next' ? 'step' : undefined}>
                {x.reward.imageUrl ? <img src={x.reward.imageUrl} alt="" width={28} height={28} loading="lazy" /> : <span class="k" aria-hidden="true">{x.state === 'done' ? '✓' : i + 1}</span>}
                <span>
                  {rewardName(x.reward)}
                  <br />
                  <span class="m">{t('progress.at', { count: x.at })}</span>
                </span>
                <span class="m">{x.state === 'done' ? t('progress.done') : x.state === 'next' ? t('progress.toGo', { count: x.remaining }) : t('progress.later')}</span>
              </li>
            ))}
          </ol>
        </>
      )}
      {p.rank != null && <p>{t('progress.rank', { rank: p.rank })}</p>}
      {p.prizes.map((r) => (
        <p key={r.id} class="m">
          {t('progress.prize', { count: r.numberOfWinners ?? 1, reward: rewardName(r) })}
        </p>
      ))}
    </Section>
  );
}
