// A program's analytics (AN1) over a chosen window and time zone: the totals and rates beside the
// previous window of the same length, a chart per series with the previous window drawn dashed,
// the numbers by period, activation cohorts (AN2) and the top referrers (P2). Every table downloads
// as the CSV of exactly its rows.
import { useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { navigate, params as addressQuery } from '../router.tsx';
import { Async, Field, PageTitle } from '../ui.tsx';
import { money, num, t, type MessageKey } from '../i18n/index.ts';
import type { AnalyticsTotals, CampaignAnalytics } from '../../shared/schemas/analytics.ts';
import { dayOf, intervalFor, PRESETS, rangeQuery, readRange, windowParams, zones, type Range } from './analytics-range.ts';
import { SeriesChart, shortDate, type Point } from './analytics-chart.tsx';
import { Cohorts, TopReferrers } from './analytics-cohorts.tsx';
import { DataTable, type Cell } from './data-table.tsx';

type Loaded = { cur: CampaignAnalytics; prev: CampaignAnalytics };

/** The AN1 window, then the previous window's series (AN1 gives that window's totals only). */
async function load(programId: string, r: Range): Promise<Loaded> {
  const base = `/campaign/${encodeURIComponent(programId)}/analytics`;
  const interval = intervalFor(r);
  const cur = await api<CampaignAnalytics>('GET', base + query({ ...windowParams(r), interval, include: 'previousPeriod,rates,statusCounts', timezone: r.tz }));
  const p = cur.previousPeriod!;
  const prev = await api<CampaignAnalytics>('GET', base + query({ startDate: p.startDate, endDate: p.endDate, interval, timezone: r.tz }));
  return { cur, prev };
}

function RangeForm({ range }: { range: Range }) {
  const [custom, setCustom] = useState(range.preset === 'custom');
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  const go = (r: Range) => navigate(location.pathname + rangeQuery(r), true);
  const apply = (e: Event) => {
    e.preventDefault();
    go({ ...range, preset: 'custom', from, to });
  };
  const pick = (value: string) => {
    if (value === 'custom') {
      setCustom(true);
      // Start from the window on screen, read as calendar days of the zone.
      const box = document.querySelector<HTMLElement>('[data-window]');
      if (box && !from) {
        const [a, b] = box.dataset.window!.split('/').map(Number);
        setFrom(dayOf(a!, range.tz));
        setTo(dayOf(b!, range.tz));
      }
      return;
    }
    setCustom(false);
    go({ ...range, preset: Number(value) as Range['preset'] });
  };
  return (
    <form class="card range" onSubmit={apply} aria-label={t('analytics.rangeForm')}>
      <fieldset>
        <legend>{t('analytics.range')}</legend>
        <div class="choices">
          {PRESETS.map((d) => (
            <label class="choice" key={d}>
              <input type="radio" name="range" value={d} checked={!custom && range.preset === d} onChange={() => pick(String(d))} />
              {t('analytics.lastDays', { count: d })}
            </label>
          ))}
          <label class="choice">
            <input type="radio" name="range" value="custom" checked={custom} onChange={() => pick('custom')} />
            {t('analytics.custom')}
          </label>
        </div>
      </fieldset>
      {custom && (
        <div class="inline-fields">
          <Field id="range-from" label={t('analytics.from')}>
            <input id="range-from" type="date" required value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
          </Field>
          <Field id="range-to" label={t('analytics.to')}>
            <input id="range-to" type="date" required value={to} onInput={(e) => setTo(e.currentTarget.value)} />
          </Field>
          <button type="submit">{t('analytics.apply')}</button>
        </div>
      )}
      <Field id="range-tz" label={t('analytics.timezone')} hint={t('analytics.timezoneHint')}>
        <select id="range-tz" aria-describedby="range-tz-hint" value={range.tz} onChange={(e) => go({ ...range, tz: e.currentTarget.value })}>
          {zones(range.tz).map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </Field>
    </form>
  );
}

/** The totals the page compares, in order; `money` ones are minor units of the program's currency. */
const METRICS: Array<{ key: keyof AnalyticsTotals | 'shares'; label: MessageKey; money?: boolean }> = [
  { key: 'participants', label: 'metric.participants' },
  { key: 'referrals', label: 'metric.referrals' },
  { key: 'uniqueImpressions', label: 'metric.uniqueImpressions' },
  { key: 'impressions', label: 'metric.impressions' },
  { key: 'invites', label: 'metric.invites' },
  { key: 'shares', label: 'metric.shares' },
  { key: 'referralCreditPendings', label: 'metric.pending' },
  { key: 'totalCommissionCount', label: 'metric.commissionCount' },
  { key: 'totalRevenue', label: 'metric.revenue', money: true },
  { key: 'totalCommissions', label: 'metric.commissions', money: true },
];

function value(a: AnalyticsTotals, key: (typeof METRICS)[number]['key']): number | undefined {
  // Every share counter of AnalyticsTotals ends in `Shares` (emailShares, copyRefLinkShares, …).
  if (key === 'shares') return Object.entries(a).reduce((n, [k, v]) => n + (k.endsWith('Shares') ? (v as number) : 0), 0);
  return a[key];
}

function change(now: number, before: number): Cell {
  if (before === 0) return { text: now === 0 ? '0%' : '—', csv: now === 0 ? 0 : '' };
  const pct = Math.round(((now - before) / before) * 1000) / 10;
  return { text: `${pct > 0 ? '+' : ''}${pct.toLocaleString('en')}%`, csv: pct };
}

const pctText = (r: number) => `${(Math.round(r * 1000) / 10).toLocaleString('en')}%`;

/**
 * A rate per unique visitor, shown only where that denominator means something (issue #32): with
 * no visit counted, or with more of `count` than visitors (people who joined without a counted
 * visit: imported, added by the API or the console, or on a site without the script), a percentage
 * would be nothing or over 100 %, so the card says why there is none.
 */
function Rate({ label, rate, count, visitors }: { label: string; rate: number; count: number; visitors: number }) {
  const why = visitors === 0 ? t('rate.noVisitors') : count > visitors ? t('rate.moreThanVisitors', { count: visitors }) : null;
  return (
    <div>
      <dt>{label}</dt>
      <dd>{why ? '—' : pctText(rate)}</dd>
      {why && <dd class="hint">{why}</dd>}
    </div>
  );
}

/** The series charts: counts that move day to day. */
const CHARTS: Array<{ key: keyof AnalyticsTotals; label: MessageKey }> = [
  { key: 'participants', label: 'metric.participants' },
  { key: 'referrals', label: 'metric.referrals' },
  { key: 'uniqueImpressions', label: 'metric.uniqueImpressions' },
];

function Report({ d, range, programId }: { d: Loaded; range: Range; programId: string }) {
  const { cur, prev } = d;
  const before = cur.previousPeriod!.analytics;
  const currency = cur.statusCounts?.currencyISO ?? null;
  const tz = range.tz;
  const span = `${dayOf(cur.startDate, tz)}_${dayOf(cur.endDate, tz)}`;
  const shownMetrics = METRICS.filter((m) => value(cur.analytics, m.key) !== undefined);
  const fmt = (m: (typeof METRICS)[number], n: number) => (m.money ? money(n, currency) : num(n));
  const totals: Cell[][] = shownMetrics.map((m) => {
    const a = value(cur.analytics, m.key)!;
    const b = value(before, m.key) ?? 0;
    return [{ text: t(m.label) }, { text: fmt(m, a), csv: a }, { text: fmt(m, b), csv: b }, change(a, b)];
  });
  const series = cur.series ?? [];
  const prevSeries = prev.series ?? [];
  const points = (key: keyof AnalyticsTotals): Point[] =>
    series.map((s, i) => ({ at: s.periodStart, value: (s[key] as number | undefined) ?? 0, prevAt: prevSeries[i]?.periodStart ?? null, prev: prevSeries[i] ? ((prevSeries[i]![key] as number | undefined) ?? 0) : null }));
  const interval = intervalFor(range);
  const byPeriod: Cell[][] = series.map((s) => [{ text: shortDate(s.periodStart, tz), csv: dayOf(s.periodStart, tz) }, ...CHARTS.map((c) => ({ text: num((s[c.key] as number) ?? 0), csv: (s[c.key] as number) ?? 0 })), { text: num(s.impressions ?? 0), csv: s.impressions ?? 0 }, { text: num(s.invites ?? 0), csv: s.invites ?? 0 }]);
  const rates = cur.rates;
  return (
    <div data-window={`${cur.startDate}/${cur.endDate}`}>
      <p class="window">
        {t('analytics.window', { from: shortDate(cur.startDate, tz), to: shortDate(cur.endDate, tz), prevFrom: shortDate(cur.previousPeriod!.startDate, tz), prevTo: shortDate(cur.previousPeriod!.endDate, tz), tz })}
      </p>
      <section aria-labelledby="rates-title">
        <h2 id="rates-title">{t('analytics.rates')}</h2>
        {rates && (
          <dl class="stats">
            <Rate label={t('rate.conversion')} rate={rates.referralConversionRate} count={cur.analytics.referrals ?? 0} visitors={cur.analytics.uniqueImpressions ?? 0} />
            <Rate label={t('rate.participation')} rate={rates.participationRate} count={cur.analytics.participants ?? 0} visitors={cur.analytics.uniqueImpressions ?? 0} />
            <div>
              <dt>{t('rate.shares')}</dt>
              <dd>{rates.sharesPerParticipant.toLocaleString('en', { maximumFractionDigits: 2 })}</dd>
            </div>
          </dl>
        )}
        <p class="hint">{t('analytics.ratesHint')}</p>
      </section>
      <section aria-labelledby="totals-title">
        <h2 id="totals-title">{t('analytics.totals')}</h2>
        <DataTable caption={t('analytics.totalsCaption')} columns={[{ label: t('col.metric') }, { label: t('chart.current'), num: true }, { label: t('chart.previous'), num: true }, { label: t('col.change'), num: true }]} rows={totals} file={`analytics-totals-${programId}-${span}.csv`} />
      </section>
      <section aria-labelledby="charts-title">
        <h2 id="charts-title">{t('analytics.overTime')}</h2>
        <div class="charts">
          {CHARTS.map((c) => (
            <SeriesChart key={c.key} id={`chart-${c.key}`} title={t('chart.per', { metric: t(c.label), interval: t(`interval.${interval}`) })} points={points(c.key)} tz={tz} />
          ))}
        </div>
        <DataTable
          caption={t('analytics.byPeriod', { interval: t(`interval.${interval}`) })}
          columns={[{ label: t('chart.period') }, ...CHARTS.map((c) => ({ label: t(c.label), num: true })), { label: t('metric.impressions'), num: true }, { label: t('metric.invites'), num: true }]}
          rows={byPeriod}
          file={`analytics-by-${interval}-${programId}-${span}.csv`}
        />
      </section>
      <Cohorts programId={programId} from={cur.startDate} to={cur.endDate} tz={tz} />
    </div>
  );
}

export default function Analytics({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const range = readRange(addressQuery());
  const key = `${id}${rangeQuery(range)}`;
  return (
    <>
      <PageTitle>{t('analytics.title')}</PageTitle>
      <RangeForm key={key} range={range} />
      <Async depKey={key} load={() => load(id, range)}>
        {(d) => <Report d={d} range={range} programId={id} />}
      </Async>
      <TopReferrers programId={id} />
    </>
  );
}
