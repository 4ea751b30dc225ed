// The analytics page's window: a preset (the last 7, 30 or 90 days, which AN1 takes as `days`) or
// two calendar dates read in the chosen time zone (AN1's inclusive `startDate`/`endDate`), kept in
// the address bar so a view can be shared.
import { query } from '../api.ts';

/** The preset windows, in days. */
export const PRESETS = [7, 30, 90] as const;

/** What the page shows: a preset or a custom pair of `YYYY-MM-DD` dates, in time zone `tz`. */
export interface Range {
  preset: (typeof PRESETS)[number] | 'custom';
  from: string;
  to: string;
  tz: string;
}

const DAY = 86_400_000;

/** The browser's own time zone (UTC when it has none). */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The time zones this browser knows, with `UTC` and `current` first. */
export function zones(current: string): string[] {
  const all = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return [...new Set(['UTC', current, ...all])];
}

/** The range of the address bar's query (`range`, `from`, `to`, `tz`), defaulting to the last 30 days here. */
export function readRange(q: URLSearchParams): Range {
  const r = q.get('range');
  const preset = r === 'custom' ? 'custom' : (PRESETS.find((p) => String(p) === r) ?? 30);
  return { preset, from: q.get('from') ?? '', to: q.get('to') ?? '', tz: q.get('tz') || localZone() };
}

/** The address-bar query of `r`. */
export function rangeQuery(r: Range): string {
  return query({ range: r.preset, from: r.preset === 'custom' ? r.from : undefined, to: r.preset === 'custom' ? r.to : undefined, tz: r.tz });
}

/** Milliseconds `tz` is ahead of UTC at instant `ms`. */
function offset(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(ms);
  const p = Object.fromEntries(parts.map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(ms / 1000) * 1000;
}

/** The first instant of calendar day `ymd` (`YYYY-MM-DD`) in `tz`, or NaN when it is not a date. */
export function startOfDay(ymd: string, tz: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return NaN;
  const guess = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const first = guess - offset(guess, tz);
  return guess - offset(first, tz);
}

/** The calendar day (`YYYY-MM-DD`) of instant `ms` in `tz`. */
export function dayOf(ms: number, tz: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
}

/** The day after `ymd`. */
function nextDay(ymd: string): string {
  const t = Date.parse(`${ymd}T00:00:00Z`);
  return Number.isFinite(t) ? new Date(t + DAY).toISOString().slice(0, 10) : '';
}

/** Days the range covers (for the series bucket), or null for a custom range not yet complete. */
export function spanDays(r: Range): number | null {
  if (r.preset !== 'custom') return r.preset;
  const a = Date.parse(`${r.from}T00:00:00Z`);
  const b = Date.parse(`${r.to}T00:00:00Z`);
  return Number.isFinite(a) && Number.isFinite(b) ? Math.round((b - a) / DAY) + 1 : null;
}

/** The series bucket: days up to about three months, then weeks, then months. */
export function intervalFor(r: Range): 'day' | 'week' | 'month' {
  const n = spanDays(r) ?? 30;
  return n <= 92 ? 'day' : n <= 400 ? 'week' : 'month';
}

/** AN1's window parameters for `r`: `days`, or the dates' first and last instants in the zone. */
export function windowParams(r: Range): { days?: number; startDate?: number; endDate?: number } {
  if (r.preset !== 'custom') return { days: r.preset };
  const start = startOfDay(r.from, r.tz);
  const end = startOfDay(nextDay(r.to), r.tz) - 1;
  return { startDate: Number.isFinite(start) ? start : undefined, endDate: Number.isFinite(end) ? end : undefined };
}
