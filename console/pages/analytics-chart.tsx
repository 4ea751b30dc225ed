// One series chart of the analytics page: the current window's line and the previous window's
// (dashed) on the same axis, drawn by uPlot on a canvas. The canvas is an image with a spoken summary;
// the numbers themselves are in a table under it, so keyboard and screen-reader users get them too.
import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';
import { num, t } from '../i18n/index.ts';
import { dayOf } from './analytics-range.ts';

const CURRENT = '#1f5fbf';
const PREVIOUS = '#6b4f00';
const HEIGHT = 220;

/** A point in time of the series (epoch ms) with this window's value and the previous window's value at the same position. */
export interface Point {
  at: number;
  prevAt: number | null;
  value: number;
  prev: number | null;
}

/** A date of the chosen zone, as shown in the page. */
export function shortDate(ms: number, tz: string): string {
  return new Intl.DateTimeFormat('en', { timeZone: tz, dateStyle: 'medium' }).format(ms);
}

/** A line chart of `points` titled `title`, with its numbers in a disclosure table. */
export function SeriesChart({ id, title, points, tz }: { id: string; title: string; points: Point[]; tz: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [points.map((p) => p.at / 1000), points.map((p) => p.value), points.map((p) => p.prev)];
    const plot = new uPlot(
      {
        width: Math.max(240, el.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: false },
        select: { show: false, left: 0, top: 0, width: 0, height: 0 },
        tzDate: (s) => uPlot.tzDate(new Date(s * 1000), tz),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{ stroke: '#4b5563', grid: { stroke: '#e5e7eb' } }, { stroke: '#4b5563', grid: { stroke: '#e5e7eb' }, values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? num(v) : '')) }],
        series: [{}, { stroke: CURRENT, width: 2, points: { show: points.length < 40 } }, { stroke: PREVIOUS, width: 2, dash: [6, 4], points: { show: false } }],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [points, tz]);
  const total = points.reduce((n, p) => n + p.value, 0);
  const prevTotal = points.reduce((n, p) => n + (p.prev ?? 0), 0);
  const summary = t('chart.summary', { title, total: num(total), previous: num(prevTotal), from: points[0] ? shortDate(points[0].at, tz) : '', to: points.at(-1) ? shortDate(points.at(-1)!.at, tz) : '' });
  return (
    <figure class="chart card" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        <ul class="chart-key" aria-hidden="true">
          <li>
            <span class="swatch current" /> {t('chart.current')}
          </li>
          <li>
            <span class="swatch previous" /> {t('chart.previous')}
          </li>
        </ul>
      </figcaption>
      <div class="chart-plot" ref={box} role="img" aria-label={summary} data-chart={id} />
      <details>
        <summary>{t('chart.numbers', { title })}</summary>
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('chart.tableCaption', { title })}>
          <table>
            <caption>{t('chart.tableCaption', { title })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('chart.period')}</th>
                <th scope="col" class="num">
                  {t('chart.current')}
                </th>
                <th scope="col">{t('chart.previousPeriod')}</th>
                <th scope="col" class="num">
                  {t('chart.previous')}
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.at}>
                  <th scope="row">
                    <time dateTime={dayOf(p.at, tz)}>{shortDate(p.at, tz)}</time>
                  </th>
                  <td class="num">{num(p.value)}</td>
                  <td>{p.prevAt === null ? '—' : shortDate(p.prevAt, tz)}</td>
                  <td class="num">{p.prev === null ? '—' : num(p.prev)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
