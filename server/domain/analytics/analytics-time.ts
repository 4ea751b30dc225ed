// Calendar arithmetic in an IANA time zone for analytics buckets and activation cohorts.
//
// Rows are bucketed in SQL by their *local day number* (days since 1970-01-01 in the zone):
// `(t + offset) / 86400000` with integer division, which SQLite and PostgreSQL both do the same way.
// A zone's offset changes at DST transitions, so a window is cut into segments of constant offset
// (a handful per year) and the SQL picks each row's offset with one CASE. Weeks and months are
// then unions of local days, assembled here.

/** Milliseconds per day. */
export const DAY = 86_400_000;

/** Bucket sizes. */
export type Interval = 'day' | 'week' | 'month';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at instant `t`, in ms (local = t + offset). */
export function offsetAt(tz: string, t: number): number {
  if (tz === 'UTC') return 0;
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(t))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour! === 24 ? 0 : parts.hour!, parts.minute!, parts.second!);
  return local - (t - (((t % 1000) + 1000) % 1000));
}

/** The local day number of instant `t`. */
export function localDay(tz: string, t: number): number {
  return Math.floor((t + offsetAt(tz, t)) / DAY);
}

/** The instant local day `d` begins (local midnight; the first instant after it when a DST gap skips midnight). */
export function dayStart(tz: string, d: number): number {
  const wall = d * DAY;
  let t = wall - offsetAt(tz, wall);
  t = wall - offsetAt(tz, t);
  return t;
}

/** Segments of constant offset covering [lo, hi): each applies until `until` (exclusive); the last is open-ended. */
export function offsetSegments(tz: string, lo: number, hi: number): Array<{ until: number; offset: number }> {
  if (tz === 'UTC') return [{ until: Infinity, offset: 0 }];
  const segments: Array<{ until: number; offset: number }> = [];
  let cur = offsetAt(tz, lo);
  let t = lo;
  // DST rules move the offset at most a few times a year; a weekly probe then a search to the second finds each move.
  while (t < hi) {
    const next = Math.min(t + 7 * DAY, hi);
    if (offsetAt(tz, next) === cur) {
      t = next;
      continue;
    }
    let a = Math.floor(t / 1000);
    let b = Math.ceil(next / 1000);
    while (b - a > 1) {
      const m = Math.floor((a + b) / 2);
      if (offsetAt(tz, m * 1000) === cur) a = m;
      else b = m;
    }
    segments.push({ until: b * 1000, offset: cur });
    cur = offsetAt(tz, b * 1000);
    t = b * 1000;
  }
  segments.push({ until: Infinity, offset: cur });
  return segments;
}

/**
 * SQL for the local day number of a bigint ms column over [lo, hi), with its bindings. The column
 * name comes from our code, never from input.
 */
export function localDaySql(column: string, tz: string, lo: number, hi: number): { sql: string; bindings: number[] } {
  const segments = offsetSegments(tz, lo, hi);
  if (segments.length === 1) {
    const off = segments[0]!.offset;
    return off === 0 ? { sql: `(${column} / ${DAY})`, bindings: [] } : { sql: `((${column} + CAST(? AS BIGINT)) / ${DAY})`, bindings: [off] };
  }
  const bindings: number[] = [];
  let sql = `((${column} + CASE`;
  for (const s of segments.slice(0, -1)) {
    sql += ` WHEN ${column} < ? THEN CAST(? AS BIGINT)`;
    bindings.push(s.until, s.offset);
  }
  sql += ` ELSE CAST(? AS BIGINT) END) / ${DAY})`;
  bindings.push(segments[segments.length - 1]!.offset);
  return { sql, bindings };
}

/** The first local day of the bucket holding local day `d` (weeks start on Monday, ISO 8601). */
export function bucketOf(d: number, interval: Interval): number {
  if (interval === 'day') return d;
  if (interval === 'week') return d - ((((d + 3) % 7) + 7) % 7); // day 0 (1970-01-01) was a Thursday
  const date = new Date(d * DAY);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY;
}

/** The first local day of the bucket after the one starting at local day `start`. */
export function nextBucket(start: number, interval: Interval): number {
  if (interval === 'day') return start + 1;
  if (interval === 'week') return start + 7;
  const date = new Date(start * DAY);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY;
}

/** Every bucket (first local day) touching the instants [lo, hi), ascending. */
export function bucketsBetween(tz: string, lo: number, hi: number, interval: Interval): number[] {
  const out: number[] = [];
  const last = localDay(tz, hi - 1);
  for (let b = bucketOf(localDay(tz, lo), interval); b <= last; b = nextBucket(b, interval)) out.push(b);
  return out;
}
