import { z } from 'zod';

// Analytics and activity-log queries (rest-v2 §3.8 P12/P13, §3.11 AN1/AN2): the window, include
// tokens, interval, platform and time zone each request may ask for. Query schemas check every
// combination the references leave to the server (unknown include tokens, dates sent alone, bad
// time zones) so each answers 400 with a per-field error; the answers are in analytics.ts.

/** Longest analytics window in days (rest-v2 §5 #4). */
export const MAX_ANALYTICS_DAYS = 1825;
/** Default analytics window in days. */
export const DEFAULT_ANALYTICS_DAYS = 365;
/** AN1 `include` tokens. */
export const CAMPAIGN_INCLUDE = ['previousPeriod', 'statusCounts', 'rates', 'email', 'engagement'] as const;
/** P12 `include` tokens. */
export const PARTICIPANT_INCLUDE = ['series', 'email', 'activation'] as const;

/** Analytics series bucket (AN1 also takes `total`: no series). */
export const analyticsInterval = z.enum(['day', 'week', 'month']);
/** AN1 `platform`. */
export const analyticsPlatform = z.enum(['ALL', 'WEB', 'IOS', 'ANDROID']);

/** True when `tz` is an IANA zone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const queryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const queryMs = z.coerce.number().int().min(0).max(8_640_000_000_000_000);
const timezone = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, { message: 'Must be an IANA time zone such as UTC or America/Los_Angeles.' })
  .transform((tz) => new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone)
  .optional()
  .meta({ description: 'IANA time zone for bucket and cohort boundaries (default UTC).' });

/** A comma-separated token list (also accepted repeated), checked against `allowed`. */
function tokens<T extends string>(allowed: readonly T[]) {
  return z
    .union([z.string().max(200), z.array(z.string().max(200)).max(10)])
    .optional()
    .transform((v, ctx) => {
      const list = (Array.isArray(v) ? v.join(',') : (v ?? ''))
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = list.filter((t) => !(allowed as readonly string[]).includes(t));
      if (unknown.length) ctx.addIssue({ code: 'custom', message: `Unknown include token${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; allowed: ${allowed.join(', ')}.` });
      return new Set(list as T[]);
    })
    .meta({ description: `Comma-separated: ${allowed.join(', ')}.` });
}

/** The analytics window: `days`, or `startDate` with `endDate` (epoch ms, both inclusive). */
const windowFields = {
  days: queryInt(1, MAX_ANALYTICS_DAYS).optional().meta({ description: `Window ending now, 1–${MAX_ANALYTICS_DAYS} days (default ${DEFAULT_ANALYTICS_DAYS}).` }),
  startDate: queryMs.optional().meta({ description: 'Window start, epoch ms; send with endDate.' }),
  endDate: queryMs.optional().meta({ description: 'Window end (inclusive), epoch ms; send with startDate.' }),
};

/** Checks that the window is `days` or both dates, in order and at most the longest window. */
function windowRules(q: { days?: number; startDate?: number; endDate?: number }, ctx: z.RefinementCtx): void {
  const hasStart = q.startDate !== undefined;
  const hasEnd = q.endDate !== undefined;
  if (hasStart !== hasEnd) {
    ctx.addIssue({ code: 'custom', path: [hasStart ? 'endDate' : 'startDate'], message: 'startDate and endDate are sent together.' });
    return;
  }
  if (!hasStart) return;
  if (q.days !== undefined) ctx.addIssue({ code: 'custom', path: ['days'], message: 'Send days or startDate and endDate, not both.' });
  if (q.endDate! < q.startDate!) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'endDate must not be before startDate.' });
  else if (q.endDate! - q.startDate! >= MAX_ANALYTICS_DAYS * 86_400_000) {
    ctx.addIssue({ code: 'custom', path: ['endDate'], message: `The window is at most ${MAX_ANALYTICS_DAYS} days.` });
  }
}

/** AN1 `GET /campaign/{id}/analytics` query. */
export const campaignAnalyticsQuery = z
  .object({
    ...windowFields,
    interval: z.enum(['day', 'week', 'month', 'total']).default('total'),
    include: tokens(CAMPAIGN_INCLUDE),
    platform: analyticsPlatform.default('ALL'),
    timezone,
  })
  .superRefine(windowRules)
  .transform((q) => ({ ...q, timezone: q.timezone ?? 'UTC' }));

/** P12 `GET …/participant/{participantIdOrEmail}/analytics` query. */
export const participantAnalyticsQuery = z
  .object({
    ...windowFields,
    interval: analyticsInterval.default('day'),
    include: tokens(PARTICIPANT_INCLUDE),
    timezone,
  })
  .superRefine(windowRules)
  .transform((q) => ({ ...q, timezone: q.timezone ?? 'UTC' }));

/** AN2 `GET /campaign/{id}/analytics/activation` query. */
export const activationAnalyticsQuery = z
  .object({
    cohortFrom: queryMs.optional().meta({ description: 'Inclusive enrolment start, epoch ms; send with cohortTo.' }),
    cohortTo: queryMs.optional().meta({ description: 'Exclusive enrolment end, epoch ms; after cohortFrom.' }),
    cohortInterval: analyticsInterval.default('day'),
    observationWindowDays: z.enum(['7', '30']).default('30').transform(Number).meta({ description: '7 or 30 (default 30).' }),
    timezone,
  })
  .superRefine((q, ctx) => {
    const hasFrom = q.cohortFrom !== undefined;
    if (hasFrom !== (q.cohortTo !== undefined)) {
      ctx.addIssue({ code: 'custom', path: [hasFrom ? 'cohortTo' : 'cohortFrom'], message: 'cohortFrom and cohortTo are sent together, or neither.' });
    } else if (hasFrom && q.cohortTo! <= q.cohortFrom!) {
      ctx.addIssue({ code: 'custom', path: ['cohortTo'], message: 'cohortTo must be after cohortFrom.' });
    } else if (hasFrom && q.cohortTo! - q.cohortFrom! > MAX_ANALYTICS_DAYS * 86_400_000) {
      ctx.addIssue({ code: 'custom', path: ['cohortTo'], message: `The cohort range is at most ${MAX_ANALYTICS_DAYS} days.` });
    }
  })
  .transform((q) => ({ ...q, timezone: q.timezone ?? 'UTC' }));

/** P13 query: `limit` 1–100 (default 20), `offset` ≥ 0. */
export const activityLogQuery = z.object({
  limit: queryInt(1, 100).default(20),
  offset: queryInt(0, 1_000_000).default(0),
});

export type CampaignAnalyticsQuery = z.output<typeof campaignAnalyticsQuery>;
export type ParticipantAnalyticsQuery = z.output<typeof participantAnalyticsQuery>;
export type ActivationAnalyticsQuery = z.output<typeof activationAnalyticsQuery>;
