// Lazy chunk: the traffic report (mobile rule 11) with a small SVG line chart of visits per day.
import '../../i18n/panels.ts';
import { locale, t } from '../../i18n/index.ts';
import type { WindowPayload } from '../api.ts';
import { useState } from 'preact/hooks';
import { ctx, state } from '../state.ts';
import { Async, Tiles } from '../kit.tsx';
import { Section, copy } from '../ui.tsx';

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
    <svg viewBox={`0 0 ${W} ${H}`} width="100%" height={H} role="img" aria-label={`${t('traffic.chart', { count: report.days, days: report.days })}: ${report.visits}`}>
      <polyline points={line} fill="none" stroke="var(--p)" stroke-width="2" />
    </svg>
  );
}

const RANGES = ['LAST_7_DAYS', 'LAST_30_DAYS', 'LAST_90_DAYS', 'ALL_TIME'] as const;
/** design.trafficInsights.breakdowns, in its order (shared/schemas/mobile-window.ts TRAFFIC_BREAKDOWNS; not imported: that module brings zod). */
const BREAKDOWNS = ['utm', 'referrer', 'destination', 'geo', 'technology', 'trigger'] as const;
type BreakdownId = (typeof BREAKDOWNS)[number];

/** A country code as the window's language names it (no table shipped), else the code itself. */
function region(code: string): string {
  try {
    return new Intl.DisplayNames([locale()], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * One breakdown: its top values with visits; the design's `values` map renames a value (for
 * countries, then the design's `countryLabels`), a missing one is `notSetLabel`. A breakdown that
 * knows no value for any visit shows `breakdownEmpty`.
 */
function Breakdown({ id, rows }: { id: BreakdownId; rows: Report['breakdowns'][BreakdownId] }) {
  const s = state.value;
  const design = s.status === 'ready' ? s.win.design : undefined;
  const d = design?.trafficInsights;
  const b = d?.breakdowns?.[id];
  const country = (v: string) => design?.countryLabels?.[v] || region(v);
  const name = (v: string | null) => (v === null ? copy(d?.notSetLabel, 'traffic.notSet') : b?.values?.[v] || (id === 'geo' ? country(v) : id === 'technology' ? t(`traffic.device.${v}` as 'traffic.device.app') : v));
  return (
    <>
      <h4>{copy(b?.label, `traffic.b.${id}`)}</h4>
      {rows.some((x) => x.value !== null) ? (
        <ul>
          {rows.map((x, i) => (
            <li key={i}>
              <span>{name(x.value)}</span>
              <span>{x.visits}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="m">{copy(d?.messages?.breakdownEmpty, 'traffic.breakdownEmpty')}</p>
      )}
    </>
  );
}

/** Totals, the chart and the breakdowns the design shows, for the design's default date range or the one picked. */
export default function Traffic() {
  const [range, setRange] = useState<string | null>(null);
  const s = state.value;
  if (s.status !== 'ready') return null;
  const first = s.win.traffic;
  const d = s.win.design?.trafficInsights;
  if (!first) {
    return (
      <Section title={copy(d?.title, 'traffic.title')}>
        <p class="m">{copy(d?.messages?.unavailable, 'state.unavailable')}</p>
      </Section>
    );
  }
  const shown = range ?? first.range;
  return (
    <Section title={copy(d?.title, 'traffic.title')}>
      <label>
        {t('traffic.range')}
        <select value={shown} onChange={(e) => setRange((e.currentTarget as HTMLSelectElement).value)}>
          {RANGES.map((r) => (
            <option key={r} value={r}>
              {copy(d?.dateRangeLabels?.[r], `traffic.${r}`)}
            </option>
          ))}
        </select>
      </label>
      <Async key={shown} load={() => (shown === first.range ? Promise.resolve(first) : ctx.api.call<Report>('get', 'participant/traffic', undefined, { range: shown }))}>
        {(r) => (
          <>
            <Tiles
              items={[
                ...(d?.metrics?.visits?.isVisible === false ? [] : [[copy(d?.metrics?.visits?.label, 'traffic.visits'), r.visits] as [string, number]]),
                ...(d?.metrics?.uniqueVisitors?.isVisible === false ? [] : [[copy(d?.metrics?.uniqueVisitors?.label, 'traffic.unique'), r.uniqueVisitors] as [string, number]]),
              ]}
            />
            <h3>{copy(d?.visitsOverTimeTitle, 'traffic.chart', { count: r.days, days: r.days })}</h3>
            <Chart report={r} />
            <h3>{copy(d?.breakdownsTitle, 'traffic.sources')}</h3>
            {r.visits ? (
              BREAKDOWNS.filter((b) => d?.breakdowns?.[b]?.isVisible !== false).map((b) => <Breakdown key={b} id={b} rows={r.breakdowns?.[b] ?? []} />)
            ) : (
              <p class="m">{copy(d?.emptyState, 'traffic.empty')}</p>
            )}
          </>
        )}
      </Async>
    </Section>
  );
}
