import type { Db } from '../../db/connect.ts';
import type { Program } from '../programs/programs.ts';
import type { ParticipantRow } from '../participants/model.ts';
import { ValidationError } from '../../errors.ts';
import { ACTIONS } from '../platform/activity.ts';
import { DAY, bucketOf, bucketsBetween, dayStart, localDay, nextBucket } from './analytics-time.ts';
import { boolBinding, rows, shareChannel, type Tables } from './analytics-sql.ts';
import { METRIC_CONTRACT_VERSION } from './analytics-engagement.ts';
import type { CampaignActivationAnalytics, CohortResult, ParticipantActivationAnalytics } from '../../../shared/schemas/analytics.ts';
import type { ActivationAnalyticsQuery } from '../../../shared/schemas/analytics-queries.ts';
import { firstShareChannel } from '../../../shared/schemas/analytics.ts';

// Activation (rest-v2 §2.29, AN2 and P12 `include=activation`): eligible participants followed from
// their anchor (enrolment; for affiliate programs, enrolment as an affiliate) through the funnel
// within the observation window. We observe share actions, unique visits to their link (activity
// log), leads and credited referrals (the referred participants' rows), and first rewards. Portal
// views are not tracked, so PORTAL_VIEWED is left out of the funnel, raw stage counts (which need
// it) are null, and every cohort with members is PARTIAL / PARTIAL_COVERAGE.

/** Most eligible participants one activation request follows; beyond it the answer is QUERY_LIMIT_EXCEEDED. */
export const ACTIVATION_MAX_ELIGIBLE = 200_000;
/** Most cohorts one AN2 request returns. */
export const ACTIVATION_MAX_COHORTS = 400;

type StageKey = 'ELIGIBLE' | 'SHARE_ACTION' | 'UNIQUE_REFERRAL_VISIT' | 'LEAD' | 'CREDITED_REFERRAL';
/** The stages we observe, in funnel order. */
const STAGES: StageKey[] = ['ELIGIBLE', 'SHARE_ACTION', 'UNIQUE_REFERRAL_VISIT', 'LEAD', 'CREDITED_REFERRAL'];
/** The stalled segment ending at a stage (none before SHARE_ACTION: its prior stage, PORTAL_VIEWED, is not observed). */
const SEGMENT_INTO: Partial<Record<StageKey, { key: 'SHARED_NO_UNIQUE_REFERRAL_VISIT' | 'UNIQUE_VISIT_NO_LEAD' | 'LEAD_NO_CREDITED_REFERRAL'; area: 'SHARE_EFFECTIVENESS' | 'VISITOR_SIGNUP' | 'ATTRIBUTION_AND_QUALIFICATION'; text: string }>> = {
  UNIQUE_REFERRAL_VISIT: { key: 'SHARED_NO_UNIQUE_REFERRAL_VISIT', area: 'SHARE_EFFECTIVENESS', text: 'Share effectiveness: shares are not bringing visitors to referral links.' },
  LEAD: { key: 'UNIQUE_VISIT_NO_LEAD', area: 'VISITOR_SIGNUP', text: 'Visitor sign-up: visitors from referral links are not signing up.' },
  CREDITED_REFERRAL: { key: 'LEAD_NO_CREDITED_REFERRAL', area: 'ATTRIBUTION_AND_QUALIFICATION', text: 'Attribution and qualification: referred sign-ups are not becoming credited referrals.' },
};

/** A member of the cohort range: anchor time and the first time (within the window) at each observed stage. */
interface Member {
  anchor: number;
  at: Partial<Record<StageKey | 'FIRST_REWARD', number>>;
}

function median(values: number[]): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The funnel of `members` (state PARTIAL: PORTAL_VIEWED is unobserved). */
function funnel(members: Member[], rewardsTracked: boolean): Pick<CohortResult, 'strictStages' | 'rawStageCounts' | 'stalledSegments' | 'outcomes' | 'largestDrop'> {
  const strict = new Map<StageKey, number[]>(STAGES.map((s) => [s, []]));
  for (const m of members) {
    // Strict: a member counts at a stage only after reaching every earlier observed stage.
    for (const stage of STAGES) {
      const t = stage === 'ELIGIBLE' ? m.anchor : m.at[stage];
      if (t === undefined) break;
      strict.get(stage)!.push(t - m.anchor);
    }
  }
  const eligible = members.length;
  const strictStages: NonNullable<CohortResult['strictStages']> = STAGES.map((key, i) => {
    const count = strict.get(key)!.length;
    const prior = i > 0 ? strict.get(STAGES[i - 1]!)!.length : null;
    return {
      key,
      count,
      conversionRateFromPrior: prior ? count / prior : null,
      conversionRateFromEligible: eligible ? count / eligible : null,
      dropOffRate: prior ? (prior - count) / prior : null,
      dropOffCount: prior === null ? null : prior - count,
      medianTimeToStageMs: key === 'ELIGIBLE' ? null : median(strict.get(key)!),
      stalledSegmentKey: SEGMENT_INTO[key]?.key ?? null,
    };
  });
  const stalledSegments: NonNullable<CohortResult['stalledSegments']> = [];
  let largestDrop: CohortResult['largestDrop'] = null;
  for (const [i, stage] of strictStages.entries()) {
    const seg = SEGMENT_INTO[stage.key as StageKey];
    if (!seg) continue;
    const from = strictStages[i - 1]!;
    const count = from.count - stage.count;
    stalledSegments.push({ key: seg.key, fromStage: from.key, toStage: stage.key, count });
    if (count > 0 && (!largestDrop || count > largestDrop.count)) {
      largestDrop = { fromStage: from.key, toStage: stage.key, count, rate: count / from.count, stalledSegmentKey: seg.key, improvementAreaKey: seg.area, improvementArea: seg.text };
    }
  }
  return {
    strictStages,
    rawStageCounts: null,
    stalledSegments,
    outcomes: rewardsTracked ? { FIRST_REWARD: { count: members.filter((m) => m.at.FIRST_REWARD !== undefined).length } } : {},
    largestDrop,
  };
}

/** A cohort's result: its bounds and, when it has members and coverage, its funnel. */
function cohortResult(members: Member[], from: number, to: number, coverageStartAt: number, windowMs: number, now: number, anchorField: CohortResult['cohort']['anchorField'], rewardsTracked: boolean, limited: boolean): CohortResult {
  const maturedAt = to + windowMs;
  const cohort = { from, to, effectiveFrom: coverageStartAt > from && coverageStartAt < to ? coverageStartAt : null, maturedAt, asOf: Math.min(now, maturedAt), anchorField };
  const none = { strictStages: null, rawStageCounts: null, stalledSegments: null, outcomes: null, largestDrop: null };
  if (limited) return { state: 'UNAVAILABLE', reason: 'QUERY_LIMIT_EXCEEDED', cohort, ...none };
  if (to <= coverageStartAt) return { state: 'UNAVAILABLE', reason: 'PRE_COVERAGE', cohort, ...none };
  if (!members.length) return { state: 'UNAVAILABLE', reason: 'EMPTY_DENOMINATOR', cohort, ...none };
  return { state: 'PARTIAL', reason: 'PARTIAL_COVERAGE', cohort, ...funnel(members, rewardsTracked) };
}

/** The eligible-participant filter of a program type (`p` is the participants alias). */
function eligibleSql(db: Db, program: Program): { sql: string; bindings: unknown[] } {
  return program.type === 'AFFILIATE' ? { sql: ' AND p.is_affiliate = ?', bindings: [boolBinding(db, true)] } : { sql: '', bindings: [] };
}

/** AN2: cohorts of eligible participants by anchor time, each followed for the observation window. */
export async function campaignActivation(db: Db, tables: Tables, program: Program, q: ActivationAnalyticsQuery, now: number): Promise<CampaignActivationAnalytics> {
  const tz = q.timezone;
  const windowMs = q.observationWindowDays * DAY;
  const anchorField = program.type === 'AFFILIATE' ? 'approvedAsAffiliateAt' : 'enrolledAsAdvocateAt';
  const coverageStartAt = program.createdAt;

  // Cohort bounds: the requested range cut at the interval's local boundaries, or the latest cohort
  // whose observation window has fully passed.
  const bounds: Array<{ from: number; to: number }> = [];
  if (q.cohortFrom !== undefined && q.cohortTo !== undefined) {
    const buckets = bucketsBetween(tz, q.cohortFrom, q.cohortTo, q.cohortInterval);
    if (buckets.length > ACTIVATION_MAX_COHORTS) {
      throw new ValidationError(`At most ${ACTIVATION_MAX_COHORTS} cohorts per request; use a longer cohortInterval or a shorter range.`, [
        { field: 'query.cohortTo', code: 'INVALID', message: `The range holds ${buckets.length} ${q.cohortInterval} cohorts; at most ${ACTIVATION_MAX_COHORTS}.` },
      ]);
    }
    for (const b of buckets) bounds.push({ from: Math.max(q.cohortFrom, dayStart(tz, b)), to: Math.min(q.cohortTo, dayStart(tz, nextBucket(b, q.cohortInterval))) });
  } else {
    const matureBefore = now - windowMs;
    let b = bucketOf(localDay(tz, matureBefore), q.cohortInterval);
    if (dayStart(tz, nextBucket(b, q.cohortInterval)) > matureBefore) b = bucketOf(b - 1, q.cohortInterval);
    bounds.push({ from: dayStart(tz, b), to: dayStart(tz, nextBucket(b, q.cohortInterval)) });
  }
  const lo = bounds[0]!.from;
  const hi = bounds[bounds.length - 1]!.to;

  const elig = eligibleSql(db, program);
  const range = `p.program_id = ? AND p.created_at >= ? AND p.created_at < ?${elig.sql}`;
  const rangeBindings = [program.id, lo, hi, ...elig.bindings];
  const total = Number((await rows<{ n: number }>(db, `SELECT COUNT(*) AS n FROM participants p WHERE ${range}`, rangeBindings))[0]?.n ?? 0);
  const limited = total > ACTIVATION_MAX_ELIGIBLE;
  const rewardsTracked = await tables.has('participant_rewards');

  const members = new Map<string, Member>();
  if (!limited && total > 0) {
    const inWindow = (column: string) => `${column} >= p.created_at AND ${column} < p.created_at + CAST(? AS BIGINT)`;
    const firsts = (sql: string, extra: unknown[]) => rows<{ id: string; t: number }>(db, sql, [...rangeBindings, ...extra]);
    const [list, shares, visits, leads, credits, rewards] = await Promise.all([
      rows<{ id: string; created_at: number }>(db, `SELECT p.id AS id, p.created_at AS created_at FROM participants p WHERE ${range}`, rangeBindings),
      firsts(`SELECT p.id AS id, MIN(a.created_at) AS t FROM participants p JOIN activity_logs a ON a.participant_id = p.id WHERE ${range} AND a.type = 'SHARE' AND ${inWindow('a.created_at')} GROUP BY p.id`, [windowMs]),
      firsts(`SELECT p.id AS id, MIN(a.created_at) AS t FROM participants p JOIN activity_logs a ON a.participant_id = p.id WHERE ${range} AND a.type = 'VISIT' AND a.action = ? AND ${inWindow('a.created_at')} GROUP BY p.id`, [ACTIONS.visitUnique, windowMs]),
      firsts(`SELECT p.id AS id, MIN(r.referred_at) AS t FROM participants p JOIN participants r ON r.referred_by = p.id WHERE ${range} AND ${inWindow('r.referred_at')} GROUP BY p.id`, [windowMs]),
      firsts(
        `SELECT p.id AS id, MIN(r.credited_at) AS t FROM participants p JOIN participants r ON r.referred_by = p.id WHERE ${range} AND r.referral_status = 'CREDIT_AWARDED' AND ${inWindow('r.credited_at')} GROUP BY p.id`,
        [windowMs],
      ),
      rewardsTracked
        ? firsts(`SELECT p.id AS id, MIN(w.created_at) AS t FROM participants p JOIN participant_rewards w ON w.participant_id = p.id WHERE ${range} AND ${inWindow('w.created_at')} GROUP BY p.id`, [windowMs])
        : Promise.resolve([]),
    ]);
    for (const r of list) members.set(r.id, { anchor: Number(r.created_at), at: {} });
    const mark = (found: Array<{ id: string; t: number }>, stage: StageKey | 'FIRST_REWARD') => {
      for (const r of found) {
        const m = members.get(r.id);
        if (m) m.at[stage] = Number(r.t);
      }
    };
    mark(shares, 'SHARE_ACTION');
    mark(visits, 'UNIQUE_REFERRAL_VISIT');
    mark(leads, 'LEAD');
    mark(credits, 'CREDITED_REFERRAL');
    mark(rewards, 'FIRST_REWARD');
  }

  const all = [...members.values()].sort((a, b) => a.anchor - b.anchor);
  const firstAtOrAfter = (t: number) => {
    let a = 0;
    let b = all.length;
    while (a < b) {
      const m = (a + b) >> 1;
      if (all[m]!.anchor < t) a = m + 1;
      else b = m;
    }
    return a;
  };
  const cohorts = bounds.map((b) =>
    cohortResult(all.slice(firstAtOrAfter(b.from), firstAtOrAfter(b.to)), b.from, b.to, coverageStartAt, windowMs, now, anchorField, rewardsTracked, limited),
  );
  const aggregate = cohortResult(all, lo, hi, coverageStartAt, windowMs, now, anchorField, rewardsTracked, limited);
  const referral = program.type === 'REFERRAL';
  return {
    coverageStartAt,
    metricContractVersion: METRIC_CONTRACT_VERSION,
    programType: program.type,
    timezone: tz,
    cohortInterval: q.cohortInterval,
    observationWindowDays: q.observationWindowDays,
    portalViewedLabel: referral ? 'Referral portal viewed' : 'Affiliate portal viewed',
    portalViewedHelperText: 'Signed-in participant view.',
    aggregate,
    cohorts,
  };
}

/** P12 `activation`: one participant's milestones (all-time first times). */
export async function participantActivation(db: Db, tables: Tables, program: Program, p: ParticipantRow): Promise<ParticipantActivationAnalytics> {
  const referral = program.type === 'REFERRAL';
  const eligible = referral || !!p.is_affiliate;
  const anchorField = referral ? 'enrolledAsAdvocateAt' : 'approvedAsAffiliateAt';
  const anchorAt = eligible ? Number(p.created_at) : null;
  const base = {
    coverageStartAt: program.createdAt,
    metricContractVersion: METRIC_CONTRACT_VERSION,
    programType: program.type,
    cohort: { anchorField, anchorAt },
    enrolledAsAdvocateAt: referral ? Number(p.created_at) : null,
  } as const;
  const noMilestones = {
    firstPortalViewedAt: null,
    firstReferralLinkCopiedAt: null,
    firstShareAt: null,
    firstUniqueClickAt: null,
    firstLeadAt: null,
    firstReferralAt: null,
    firstRewardAt: null,
    firstCommissionAt: null,
    payoutSetupCompletedAt: null,
  };
  if (!eligible) return { ...base, state: 'UNAVAILABLE', reason: 'PARTICIPANT_NOT_ELIGIBLE', milestones: noMilestones, firstShareChannel: null };

  const first = async (sql: string, bindings: unknown[]) => {
    const r = (await rows<{ t: number | null; action?: string }>(db, sql, bindings))[0];
    return r && r.t != null ? { t: Number(r.t), action: r.action } : null;
  };
  const firstActivity = (extra: string, bindings: unknown[]) =>
    first(`SELECT created_at AS t, action FROM activity_logs WHERE participant_id = ? ${extra} ORDER BY created_at, seq LIMIT 1`, [p.id, ...bindings]);
  const [share, copied, click, portal, lead, credit, reward] = await Promise.all([
    firstActivity("AND type = 'SHARE'", []),
    firstActivity("AND type = 'SHARE' AND action = ?", ['share.copyRefLink']),
    firstActivity("AND type = 'VISIT' AND action = ?", [ACTIONS.visitUnique]),
    firstActivity("AND type = 'VISIT' AND action = ?", [ACTIONS.portalViewed]),
    first('SELECT MIN(referred_at) AS t FROM participants WHERE referred_by = ?', [p.id]),
    first("SELECT MIN(credited_at) AS t FROM participants WHERE referred_by = ? AND referral_status = 'CREDIT_AWARDED'", [p.id]),
    (await tables.has('participant_rewards')) ? first('SELECT MIN(created_at) AS t FROM participant_rewards WHERE participant_id = ?', [p.id]) : Promise.resolve(null),
  ]);
  const channel = share ? shareChannel(share.action ?? '') : null;
  const known = firstShareChannel.safeParse(channel);
  return {
    ...base,
    // Portal views, commissions and payout set-up are not tracked yet: their milestones are null
    // because unknown, which PARTIAL says.
    state: 'PARTIAL',
    reason: 'PARTIAL_COVERAGE',
    milestones: {
      firstPortalViewedAt: portal?.t ?? null,
      firstReferralLinkCopiedAt: copied?.t ?? null,
      firstShareAt: share?.t ?? null,
      firstUniqueClickAt: click?.t ?? null,
      firstLeadAt: lead?.t ?? null,
      firstReferralAt: credit?.t ?? null,
      firstRewardAt: reward?.t ?? null,
      firstCommissionAt: null,
      payoutSetupCompletedAt: null,
    },
    firstShareChannel: known.success ? known.data : null,
  };
}
