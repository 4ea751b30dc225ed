import type { Db } from '../../db/connect.ts';
import type { Program } from '../programs/programs.ts';
import { localDaySql, type Interval } from './analytics-time.ts';
import { rows, shareChannel } from './analytics-sql.ts';
import type { AnalyticsWindow } from './analytics.ts';
import type { AnalyticsMetric, CampaignEngagementAnalytics } from '../../../shared/schemas/analytics.ts';

// Engagement (rest-v2 §2.30, AN1 `include=engagement`). Engagement is built around the referral
// portal: "active" means viewed the portal or shared. We record share actions but not portal views
// (there is no participant portal to observe yet), nor the platform of an event, so every metric
// that needs portal views or platforms is reported UNAVAILABLE / COVERAGE_UNAVAILABLE with a null
// value, the share metrics are AVAILABLE, and the whole block is PARTIAL.

/** Version of the metric definitions below (rest-v2 fixtures use 1). */
export const METRIC_CONTRACT_VERSION = 1;

interface ShareStats {
  actions: number;
  participants: number;
  repeat: number;
  channels: Map<string, { participants: number; actions: number }>;
  first: Map<string, number>;
}

/** Share actions in [lo, hi): totals, distinct sharers, sharers on two or more local days, per channel, and each sharer's first channel in the window. */
async function shareStats(db: Db, programId: string, lo: number, hi: number, tz: string): Promise<ShareStats> {
  const where = "program_id = ? AND type = 'SHARE' AND created_at >= ? AND created_at < ?";
  const day = localDaySql('created_at', tz, lo, hi);
  const [overall, channels, repeat, first] = await Promise.all([
    rows<{ n: number; p: number }>(db, `SELECT COUNT(*) AS n, COUNT(DISTINCT participant_id) AS p FROM activity_logs WHERE ${where}`, [programId, lo, hi]),
    rows<{ action: string; n: number; p: number }>(db, `SELECT action, COUNT(*) AS n, COUNT(DISTINCT participant_id) AS p FROM activity_logs WHERE ${where} GROUP BY action`, [programId, lo, hi]),
    rows<{ n: number }>(
      db,
      `SELECT COUNT(*) AS n FROM (SELECT participant_id FROM activity_logs WHERE ${where} AND participant_id IS NOT NULL GROUP BY participant_id HAVING COUNT(DISTINCT ${day.sql}) >= 2) x`,
      [programId, lo, hi, ...day.bindings],
    ),
    rows<{ action: string; n: number }>(
      db,
      `SELECT a.action AS action, COUNT(*) AS n FROM activity_logs a JOIN (SELECT MIN(seq) AS s FROM activity_logs WHERE ${where} AND participant_id IS NOT NULL GROUP BY participant_id) f ON a.seq = f.s GROUP BY a.action`,
      [programId, lo, hi],
    ),
  ]);
  const byChannel = new Map<string, { participants: number; actions: number }>();
  for (const r of channels) {
    const key = shareChannel(r.action) ?? 'unknown';
    const c = byChannel.get(key) ?? { participants: 0, actions: 0 };
    c.participants += Number(r.p);
    c.actions += Number(r.n);
    byChannel.set(key, c);
  }
  const firstByChannel = new Map<string, number>();
  for (const r of first) {
    const key = shareChannel(r.action) ?? 'unknown';
    firstByChannel.set(key, (firstByChannel.get(key) ?? 0) + Number(r.n));
  }
  return { actions: Number(overall[0]?.n ?? 0), participants: Number(overall[0]?.p ?? 0), repeat: Number(repeat[0]?.n ?? 0), channels: byChannel, first: firstByChannel };
}

const available = (value: number): AnalyticsMetric => ({ state: 'AVAILABLE', value, reason: null });
const unavailable = (reason: NonNullable<AnalyticsMetric['reason']>): AnalyticsMetric => ({ state: 'UNAVAILABLE', value: null, reason });
const UNTRACKED = (): AnalyticsMetric => unavailable('COVERAGE_UNAVAILABLE');

/** Engagement totals: share metrics from `s` (or `missing` when the window has no coverage), the portal-based ones unavailable. */
function totals(s: ShareStats | null, missing: NonNullable<AnalyticsMetric['reason']>): CampaignEngagementAnalytics['totals'] {
  const share = (v: (s: ShareStats) => number) => (s ? available(v(s)) : unavailable(missing));
  return {
    activeParticipants: UNTRACKED(),
    sharingParticipants: share((x) => x.participants),
    sharingRate: UNTRACKED(), // sharing / active: the denominator is not tracked
    repeatActiveParticipants: UNTRACKED(),
    repeatSharingParticipants: share((x) => x.repeat),
    retainedActiveParticipants: UNTRACKED(),
    portalViews: UNTRACKED(),
    shareActions: share((x) => x.actions),
  };
}

/** AN1 `engagement` for window `w`; coverage of share actions starts when the program was created. */
export async function engagement(db: Db, program: Program, w: AnalyticsWindow, opts: { tz: string; interval: Interval; platform: 'ALL' | 'WEB' | 'IOS' | 'ANDROID' }): Promise<CampaignEngagementAnalytics> {
  const coverageStartAt = program.createdAt;
  const covered = w.hi > coverageStartAt;
  const prevCovered = w.lo > coverageStartAt;
  const [cur, prev] = await Promise.all([
    covered ? shareStats(db, program.id, w.lo, w.hi, opts.tz) : null,
    prevCovered ? shareStats(db, program.id, w.prevLo, w.lo, opts.tz) : null,
  ]);
  const compare = (pick: (s: ShareStats) => number): AnalyticsMetric => ({ ...available(pick(cur!)), delta: pick(cur!) - pick(prev!) });
  return {
    coverageStartAt,
    metricContractVersion: METRIC_CONTRACT_VERSION,
    programType: program.type,
    timezone: opts.tz,
    interval: opts.interval,
    // Events carry no platform yet, so a platform filter cannot be applied: the figures are for ALL.
    platform: { requested: opts.platform, applied: 'ALL', state: opts.platform === 'ALL' ? 'AVAILABLE' : 'UNAVAILABLE' },
    period: { from: w.lo, to: w.hi - 1, effectiveFrom: coverageStartAt > w.lo && covered ? coverageStartAt : null, previousFrom: w.prevLo, previousTo: w.lo - 1 },
    state: covered ? 'PARTIAL' : 'UNAVAILABLE',
    reason: covered ? 'PARTIAL_COVERAGE' : 'PRE_COVERAGE',
    totals: totals(cur, 'PRE_COVERAGE'),
    previousPeriod: prev ? { state: 'PARTIAL', reason: 'PARTIAL_COVERAGE', totals: totals(prev, 'PRE_COVERAGE') } : { state: 'UNAVAILABLE', reason: 'PRE_COVERAGE', totals: null },
    comparison:
      cur && prev
        ? {
            state: 'PARTIAL',
            reason: 'PARTIAL_COVERAGE',
            metrics: {
              activeParticipants: UNTRACKED(),
              sharingParticipants: compare((s) => s.participants),
              repeatActiveParticipants: UNTRACKED(),
              repeatSharingParticipants: compare((s) => s.repeat),
              portalViews: UNTRACKED(),
              shareActions: compare((s) => s.actions),
            },
          }
        : { state: 'UNAVAILABLE', reason: 'PRE_COVERAGE', metrics: null },
    // Series points carry active participants and portal views as plain integers; with those untracked
    // no point can be filled honestly, so the series stays empty until portal views are recorded.
    series: [],
    breakdowns: {
      platforms: [],
      portalViewSources: [],
      shareChannels: cur ? [...cur.channels.entries()].sort((a, b) => b[1].actions - a[1].actions || (a[0] < b[0] ? -1 : 1)).map(([key, c]) => ({ key, sharingParticipants: c.participants, shareActions: c.actions })) : [],
      firstShareChannels: cur ? [...cur.first.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([key, n]) => ({ key, sharingParticipants: n })) : [],
    },
  };
}
