// Lazy chunk: the traffic report (mobile rule 11) with a small SVG line chart of visits per day.
import '../../i18n/panels.ts';
import { t } from '../../i18n/index.ts';
import type { WindowPayload } from '../api.ts';
import { state } from '../state.ts';
import { Section, Tiles, copy } from '../ui.tsx';

type Report = NonNullable<WindowPayload['traffic']>;

/** Visits over time as an SVG polyline; the label carries the totals for screen readers. */
export function Chart({ report }: { report: Report }) {
  const pts = report.visitsOverTime;
  const max = Math.max(1, ...pts.map((p) => p.visits));
  const W = 300;
  const H = 80;
  const step = pts.length > 1 ? W / (pts.length - 1) : W;
  const line = pts.map((p, i) => `${(i * step).toFixed(1)},${(H - (p.visits / max) * (H - 4) - 2).toFixed(1)}`).join(' ');
  return (
    <svg viewBox={`0 0 ${W} ${H}`} width="100%" height={H} role="img" aria-label={`${t('traffic.chart', { days: report.days })}: ${report.visits}`}>
      <polyline points={line} fill="none" stroke="var(--p)" stroke-width="2" />
    </svg>
  );
}

/** Totals, the chart and the top sources. */
export default function Traffic() {
  const s = state.value;
  if (s.status !== 'ready') return null;
  const r = s.win.traffic;
  const d = s.win.design?.trafficInsights;
  return (
    <Section title={copy(d?.title, 'traffic.title')}>
      {!r ? (
        <p class="m">{copy(d?.messages?.unavailable, 'state.unavailable')}</p>
      ) : (
        <>
          <Tiles
            items={[
              ...(d?.metrics?.visits?.isVisible === false ? [] : [[copy(d?.metrics?.visits?.label, 'traffic.visits'), r.visits] as [string, number]]),
              ...(d?.metrics?.uniqueVisitors?.isVisible === false ? [] : [[copy(d?.metrics?.uniqueVisitors?.label, 'traffic.unique'), r.uniqueVisitors] as [string, number]]),
            ]}
          />
          <h3>{copy(d?.visitsOverTimeTitle, 'traffic.chart', { days: r.days })}</h3>
          <Chart report={r} />
          <h3>{copy(d?.breakdownsTitle, 'traffic.sources')}</h3>
          {r.sources.length ? (
            <ul>
              {r.sources.map((x, i) => (
                <li key={i}>
                  <span>{x.source ?? copy(d?.notSetLabel, 'traffic.notSet')}</span>
                  <span>{x.visits}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="m">{copy(d?.emptyState, 'traffic.empty')}</p>
          )}
        </>
      )}
    </Section>
  );
}
