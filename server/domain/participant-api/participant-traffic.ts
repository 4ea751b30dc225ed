// The participant's traffic report (MT1 and the window's Traffic section): link visits over a date
// range, aggregated in SQL from the VISIT activity rows.
import type { ParticipantApiServices as Deps } from './services.ts';
import type { VisitTraits } from './impressions.ts';
import type { z } from 'zod';
import { TRAFFIC_BREAKDOWNS, type TRAFFIC_RANGES, type mobileTrafficReport } from '../../../shared/schemas/mobile-window.ts';

const DAY_MS = 86_400_000;

export type TrafficRange = (typeof TRAFFIC_RANGES)[number];
/** The stored visit trait (impressions.ts `VisitTraits`) behind each breakdown of the design. */
const BREAKDOWN_TRAIT: Record<(typeof TRAFFIC_BREAKDOWNS)[number], keyof VisitTraits> = {
  utm: 'campaign',
  referrer: 'referrer',
  destination: 'destination',
  geo: 'country',
  technology: 'device',
  trigger: 'source',
};
/** UTC days of each fixed range, today included (ALL_TIME starts on the day the participant joined). */
const RANGE_DAYS: Record<TrafficRange, number> = { LAST_7_DAYS: 7, LAST_30_DAYS: 30, LAST_90_DAYS: 90, ALL_TIME: 0 };

/**
 * The participant's link visits over a date range (7, 30 or 90 UTC days with today, or since they
 * joined), aggregated in SQL from the VISIT activity rows: totals, visits per day (per month for
 * ALL_TIME) and the top 10 sources.
 */
export async function readTraffic(deps: Deps, programId: string, participantId: string, now: number, range: TrafficRange): Promise<z.infer<typeof mobileTrafficReport>> {
  const knex = deps.db.knex;
  const today = Math.floor(now / DAY_MS);
  let firstDay = today - (RANGE_DAYS[range] - 1);
  if (range === 'ALL_TIME') {
    const joined = await knex('participants').where({ id: participantId }).first('created_at');
    firstDay = Math.min(today, Math.floor(Number(joined?.created_at ?? now) / DAY_MS));
  }
  const since = firstDay * DAY_MS;
  const base = () => knex('activity_logs').where({ participant_id: participantId, program_id: programId, type: 'VISIT' }).where('created_at', '>=', since);
  // One GROUP BY per breakdown over the trait stored in the VISIT row's `data` (impressions.ts `traitsData`).
  const sqlite = deps.db.dialect === 'sqlite';
  const top = async (trait: string): Promise<Array<{ value: string | null; visits: number }>> => {
    const field = sqlite ? `json_extract(data, '$.${trait}')` : `(data::json ->> '${trait}')`;
    const rows = await base().select(knex.raw(`${field} AS value`), knex.raw('COUNT(*) AS visits')).groupByRaw(field).orderBy([{ column: 'visits', order: 'desc' }, { column: 'value', order: 'asc', nulls: 'last' }]).limit(10);
    return rows.map((r: { value: string | null; visits: number | string }) => ({ value: r.value == null ? null : String(r.value), visits: Number(r.visits) }));
  };
  const [totals, days, ...tops] = await Promise.all([
    base().select(knex.raw('COUNT(*) AS visits'), knex.raw(`SUM(CASE WHEN action = 'visit.unique' THEN 1 ELSE 0 END) AS uniques`)).first(),
    base().select(knex.raw(`created_at / ${DAY_MS} AS day`), knex.raw('COUNT(*) AS visits')).groupByRaw(`created_at / ${DAY_MS}`),
    ...TRAFFIC_BREAKDOWNS.map((b) => top(BREAKDOWN_TRAIT[b])),
  ]);
  const breakdowns = Object.fromEntries(TRAFFIC_BREAKDOWNS.map((b, i) => [b, tops[i]!])) as Record<(typeof TRAFFIC_BREAKDOWNS)[number], Array<{ value: string | null; visits: number }>>;
  const monthly = range === 'ALL_TIME';
  const label = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, monthly ? 7 : 10);
  const buckets = new Map<string, number>();
  for (let day = firstDay; day <= today; day++) buckets.set(label(day), 0);
  for (const d of days as Array<{ day: number | string; visits: number | string }>) {
    const key = label(Math.floor(Number(d.day)));
    if (buckets.has(key)) buckets.set(key, buckets.get(key)! + Number(d.visits));
  }
  return {
    range,
    interval: monthly ? 'MONTH' : 'DAY',
    days: today - firstDay + 1,
    visits: Number(totals?.visits ?? 0),
    uniqueVisitors: Number(totals?.uniques ?? 0),
    visitsOverTime: [...buckets].map(([date, visits]) => ({ date, visits })),
    sources: breakdowns.trigger.map((r) => ({ source: r.value, visits: r.visits })),
    breakdowns,
  };
}
