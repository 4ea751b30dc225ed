import { z } from 'zod';
import { SHARE_CHANNELS } from './program-config-fields.ts';
import { epochMs } from './common.ts';
import { analyticsInterval, analyticsPlatform } from './analytics-queries.ts';

// Analytics and activity logs (rest-v2 §2.24–§2.26, §2.29–§2.31): what AN1/AN2 and P12/P13 answer,
// from totals, series, email and status counts to engagement and activation metrics with their
// coverage, and the activity log pages. What each request may ask is in analytics-queries.ts.

/** Coverage state of a metric (§2.29). */
export const analyticsAvailability = z.enum(['AVAILABLE', 'PARTIAL', 'UNAVAILABLE']);
/** Why a metric is not (fully) available (§2.29). */
export const analyticsUnavailableReason = z.enum([
  'COVERAGE_UNAVAILABLE',
  'PRE_COVERAGE',
  'PARTIAL_COVERAGE',
  'INSUFFICIENT_COVERAGE',
  'EMPTY_DENOMINATOR',
  'QUERY_LIMIT_EXCEEDED',
  'PARTICIPANT_NOT_ELIGIBLE',
]);
/** Activation funnel stages, in funnel order (§2.29). */
export const activationStageKey = z.enum(['ELIGIBLE', 'PORTAL_VIEWED', 'SHARE_ACTION', 'UNIQUE_REFERRAL_VISIT', 'LEAD', 'CREDITED_REFERRAL']);
/** Stalled segments between consecutive stages (§2.29). */
export const stalledSegmentKey = z.enum(['ELIGIBLE_NO_PORTAL_VIEW', 'PORTAL_VIEWED_NO_SHARE_ACTION', 'SHARED_NO_UNIQUE_REFERRAL_VISIT', 'UNIQUE_VISIT_NO_LEAD', 'LEAD_NO_CREDITED_REFERRAL']);
/** Where a program can do better, per largest drop (§2.29). */
export const improvementAreaKey = z.enum(['PORTAL_ACCESS', 'SHARING_EXPERIENCE', 'SHARE_EFFECTIVENESS', 'VISITOR_SIGNUP', 'ATTRIBUTION_AND_QUALIFICATION']);
/** Activation anchor: enrolment for referral programs, affiliate approval for affiliate programs. */
export const activationAnchorField = z.enum(['enrolledAsAdvocateAt', 'approvedAsAffiliateAt']);
/** First-share channels (§2.29). */
export const firstShareChannel = z.enum([...SHARE_CHANNELS, 'copyRefLink', 'iosNativeShare', 'androidNativeShare']);

const int = z.number().int();
const rate = z.number().meta({ description: 'Ratio 0–1.' });

/** Share counters of AnalyticsTotals, keyed by the `Participant.shareCount` channel they count. */
export const SHARE_TOTAL_KEYS = {
  email: 'emailShares',
  sms: 'smsShares',
  copyRefLink: 'copyRefLinkShares',
  qrcode: 'qrcodeShares',
  facebook: 'facebookShares',
  twitter: 'twitterShares',
  linkedin: 'linkedInShares',
  messenger: 'messengerShares',
  whatsapp: 'whatsAppShares',
  telegram: 'telegramShares',
  wechat: 'wechatShares',
  reddit: 'redditShares',
  pinterest: 'pinterestShares',
  tumblr: 'tumblrShares',
  bluesky: 'blueskyShares',
  threads: 'threadsShares',
  iosNativeShare: 'iosNativeShares',
  androidNativeShare: 'androidNativeShares',
} as const;

/** AnalyticsTotals (§2.24); the affiliate keys appear for affiliate programs only. */
export const analyticsTotals = z
  .object({
    participants: int.optional(),
    referrals: int.optional(),
    invites: int.optional(),
    impressions: int.optional(),
    uniqueImpressions: int.optional(),
    referralCreditPendings: int.optional(),
    referralCreditExpireds: int.optional(),
    ...(Object.fromEntries(Object.values(SHARE_TOTAL_KEYS).map((k) => [k, int.optional()])) as Record<(typeof SHARE_TOTAL_KEYS)[keyof typeof SHARE_TOTAL_KEYS], z.ZodOptional<z.ZodNumber>>),
    totalRevenue: int.optional(),
    totalCommissions: int.optional(),
    totalCommissionCount: int.optional(),
    uniqueCommissionReferrals: int.optional(),
  })
  .meta({ id: 'AnalyticsTotals' });

/** EmailAnalyticsCounts (§2.31). */
export const emailAnalyticsCounts = z
  .object({ sent: int, delivered: int, opened: int, clicked: int, bounced: int, spamComplaints: int })
  .meta({ id: 'EmailAnalyticsCounts' });

const emailRates = { deliveryRate: rate, openRate: rate, clickRate: rate, bounceRate: rate };

/** EmailAnalytics (§2.31): `coverageStartDate` null and `isPartial` true say delivery tracking has no coverage. */
export const emailAnalytics = emailAnalyticsCounts
  .extend({
    ...emailRates,
    byType: z.array(emailAnalyticsCounts.extend({ ...emailRates, emailType: z.string() })),
    coverageStartDate: epochMs.nullable(),
    isPartial: z.boolean(),
  })
  .meta({ id: 'EmailAnalytics' });

/** One bucket of a series: totals plus `periodStart` (the bucket's first instant). */
export const analyticsSeriesItem = analyticsTotals
  .extend({
    periodStart: epochMs,
    email: emailAnalyticsCounts.optional(),
    portalViews: int.nullable().optional().meta({ description: 'Participant series with include=activation; null while portal views are not tracked.' }),
    shareActions: int.nullable().optional(),
  })
  .meta({ id: 'AnalyticsSeriesItem' });

const bucketCounts = z.object({ count: int, totalAmount: int });

/** StatusCounts (§2.24) with the later SDKs' reward buckets. */
export const statusCounts = z
  .object({
    currencyISO: z.string().optional(),
    rewardStatus: z.object({ unapproved: int, unfulfilled: int, completed: int }).optional(),
    affiliateStatus: z.record(z.string(), int).optional(),
    commissionStatus: z
      .object({ pending: bucketCounts.extend({ totalRevenue: int }), approved: bucketCounts.extend({ totalRevenue: int }), paid: bucketCounts.extend({ totalRevenue: int }), reversed: bucketCounts.extend({ totalRevenue: int }) })
      .optional(),
    payoutStatus: z.object({ upcoming: bucketCounts, queued: bucketCounts, issued: bucketCounts, failed: bucketCounts, reversed: bucketCounts }).optional(),
  })
  .meta({ id: 'StatusCounts' });

/** Rates (§2.24): 0 when the denominator is 0. */
export const analyticsRates = z.object({ referralConversionRate: z.number(), participationRate: z.number(), sharesPerParticipant: z.number() }).meta({ id: 'AnalyticsRates' });

/** A metric with its coverage (§2.30). */
export const analyticsMetric = z
  .object({ state: analyticsAvailability, value: z.number().nullable(), reason: analyticsUnavailableReason.nullable(), delta: z.number().optional() })
  .meta({ id: 'AnalyticsMetric' });

const ENGAGEMENT_TOTALS = ['activeParticipants', 'sharingParticipants', 'sharingRate', 'repeatActiveParticipants', 'repeatSharingParticipants', 'retainedActiveParticipants', 'portalViews', 'shareActions'] as const;
const ENGAGEMENT_COMPARISON = ['activeParticipants', 'sharingParticipants', 'repeatActiveParticipants', 'repeatSharingParticipants', 'portalViews', 'shareActions'] as const;

const engagementTotals = z.object(Object.fromEntries(ENGAGEMENT_TOTALS.map((k) => [k, analyticsMetric])) as Record<(typeof ENGAGEMENT_TOTALS)[number], typeof analyticsMetric>);

/** CampaignEngagementAnalytics (§2.30). */
export const campaignEngagementAnalytics = z
  .object({
    coverageStartAt: epochMs.nullable(),
    metricContractVersion: int,
    programType: z.enum(['REFERRAL', 'AFFILIATE']),
    timezone: z.string(),
    interval: analyticsInterval,
    platform: z.object({ requested: analyticsPlatform, applied: analyticsPlatform, state: analyticsAvailability }),
    period: z.object({ from: epochMs, to: epochMs, effectiveFrom: epochMs.nullable(), previousFrom: epochMs, previousTo: epochMs }),
    state: analyticsAvailability,
    reason: analyticsUnavailableReason.nullable(),
    totals: engagementTotals,
    previousPeriod: z.object({ state: analyticsAvailability, reason: analyticsUnavailableReason.nullable(), totals: engagementTotals.nullable() }),
    comparison: z.object({
      state: analyticsAvailability,
      reason: analyticsUnavailableReason.nullable(),
      metrics: z.object(Object.fromEntries(ENGAGEMENT_COMPARISON.map((k) => [k, analyticsMetric.optional()])) as Record<(typeof ENGAGEMENT_COMPARISON)[number], z.ZodOptional<typeof analyticsMetric>>).nullable(),
    }),
    series: z.array(z.object({ from: epochMs, to: epochMs, activeParticipants: int, sharingParticipants: int, portalViews: int, shareActions: int })),
    breakdowns: z.object({
      platforms: z.array(z.object({ key: z.enum(['WEB', 'IOS', 'ANDROID']), activeParticipants: int, sharingParticipants: int, portalViews: int, shareActions: int })),
      portalViewSources: z.array(
        z.object({ key: z.enum(['DEFAULT_LAUNCHER', 'SDK_OPEN', 'CSS_CLASS', 'EMBEDDABLE_ELEMENT', 'HOSTED_PORTAL', 'NATIVE_WINDOW', 'UNKNOWN']), activeParticipants: int, portalViews: int }),
      ),
      shareChannels: z.array(z.object({ key: z.string(), sharingParticipants: int, shareActions: int })),
      firstShareChannels: z.array(z.object({ key: z.string(), sharingParticipants: int })),
    }),
  })
  .meta({ id: 'CampaignEngagementAnalytics' });

/** AN1 response (§2.24). */
export const campaignAnalytics = z
  .object({
    analytics: analyticsTotals,
    startDate: epochMs,
    endDate: epochMs,
    series: z.array(analyticsSeriesItem).optional(),
    previousPeriod: z.object({ analytics: analyticsTotals, startDate: epochMs, endDate: epochMs, email: emailAnalytics.optional() }).optional(),
    statusCounts: statusCounts.optional(),
    rates: analyticsRates.optional(),
    email: emailAnalytics.optional(),
    engagement: campaignEngagementAnalytics.optional(),
  })
  .meta({ id: 'CampaignAnalytics' });

const stageCounts = z.object(Object.fromEntries(activationStageKey.options.map((k) => [k, int])) as Record<z.infer<typeof activationStageKey>, z.ZodNumber>);

/** One cohort's funnel (§2.29); stage fields are null unless `state` has data. */
export const cohortResult = z
  .object({
    state: analyticsAvailability,
    reason: analyticsUnavailableReason.nullable(),
    cohort: z.object({ from: epochMs, to: epochMs, effectiveFrom: epochMs.nullable(), maturedAt: epochMs, asOf: epochMs, anchorField: activationAnchorField }),
    strictStages: z
      .array(
        z.object({
          key: activationStageKey,
          count: int,
          conversionRateFromPrior: z.number().nullable(),
          conversionRateFromEligible: z.number().nullable(),
          dropOffRate: z.number().nullable(),
          dropOffCount: int.nullable(),
          medianTimeToStageMs: z.number().nullable(),
          stalledSegmentKey: stalledSegmentKey.nullable(),
        }),
      )
      .nullable()
      .meta({ description: 'Stages we observe, in funnel order; a stage without tracking coverage (PORTAL_VIEWED) is left out and the cohort is PARTIAL.' }),
    rawStageCounts: stageCounts.nullable().meta({ description: 'Null while a stage has no tracking coverage (its count would not be a measurement).' }),
    stalledSegments: z.array(z.object({ key: stalledSegmentKey, fromStage: activationStageKey, toStage: activationStageKey, count: int })).nullable(),
    outcomes: z.object({ FIRST_REWARD: z.object({ count: int }).optional(), FIRST_COMMISSION: z.object({ count: int }).optional(), PAYOUT_SETUP_COMPLETED: z.object({ count: int }).optional() }).nullable(),
    largestDrop: z
      .object({ fromStage: z.string(), toStage: z.string(), count: int, rate: z.number(), stalledSegmentKey: z.string(), improvementAreaKey, improvementArea: z.string() })
      .nullable(),
  })
  .meta({ id: 'CohortResult' });

/** AN2 response (§2.29). */
export const campaignActivationAnalytics = z
  .object({
    coverageStartAt: epochMs.nullable(),
    metricContractVersion: int,
    programType: z.enum(['REFERRAL', 'AFFILIATE']),
    timezone: z.string(),
    cohortInterval: analyticsInterval,
    observationWindowDays: int,
    portalViewedLabel: z.enum(['Referral portal viewed', 'Affiliate portal viewed']),
    portalViewedHelperText: z.string(),
    aggregate: cohortResult,
    cohorts: z.array(cohortResult),
  })
  .meta({ id: 'CampaignActivationAnalyticsResponse' });

/** ParticipantActivationAnalytics (§2.29). */
export const participantActivationAnalytics = z
  .object({
    coverageStartAt: epochMs.nullable(),
    metricContractVersion: int,
    programType: z.enum(['REFERRAL', 'AFFILIATE']),
    state: analyticsAvailability,
    reason: analyticsUnavailableReason.nullable(),
    cohort: z.object({ anchorField: activationAnchorField, anchorAt: epochMs.nullable() }),
    enrolledAsAdvocateAt: epochMs.nullable(),
    milestones: z.object({
      firstPortalViewedAt: epochMs.nullable(),
      firstReferralLinkCopiedAt: epochMs.nullable(),
      firstShareAt: epochMs.nullable(),
      firstUniqueClickAt: epochMs.nullable(),
      firstLeadAt: epochMs.nullable(),
      firstReferralAt: epochMs.nullable(),
      firstRewardAt: epochMs.nullable(),
      firstCommissionAt: epochMs.nullable(),
      payoutSetupCompletedAt: epochMs.nullable(),
    }),
    firstShareChannel: firstShareChannel.nullable(),
  })
  .meta({ id: 'ParticipantActivationAnalytics' });

/** P12 response (§2.25): counters are all-time; the window shapes `series` and `email` only. */
export const participantAnalytics = z
  .object({
    analytics: z.object({
      referrals: int,
      monthlyReferrals: int,
      leads: int,
      expiredReferrals: int,
      impressions: int,
      uniqueImpressions: int,
      invitesSent: int,
      rewardStatus: z.object({ unapproved: int, unfulfilled: int, completed: int }),
      referralRevenue: int.optional(),
      totalCommissions: int.optional(),
      totalPaidOut: int.optional(),
      upcomingPayout: int.optional(),
      currencyISO: z.string(),
    }),
    ranks: z.object({ rank: int.nullable(), monthlyRank: int.nullable(), prevMonthlyRank: int.nullable() }),
    shareCount: z.record(z.string(), int),
    series: z.array(analyticsSeriesItem).optional(),
    startDate: epochMs.optional(),
    endDate: epochMs.optional(),
    email: emailAnalytics.optional(),
    activation: participantActivationAnalytics.optional(),
  })
  .meta({ id: 'ParticipantAnalytics' });

/** P13 response (§2.26): newest first; `offset` is the next page's offset, null when none follows. */
export const activityLogList = z
  .object({
    activityLogs: z.array(z.object({ type: z.string(), text: z.string(), createdAt: epochMs })),
    limit: int,
    offset: int.nullable(),
  })
  .meta({ id: 'ActivityLogsResponse' });

export type AnalyticsTotals = z.infer<typeof analyticsTotals>;
export type AnalyticsSeriesItem = z.infer<typeof analyticsSeriesItem>;
export type EmailAnalytics = z.infer<typeof emailAnalytics>;
export type EmailAnalyticsCounts = z.infer<typeof emailAnalyticsCounts>;
export type StatusCounts = z.infer<typeof statusCounts>;
export type CampaignAnalytics = z.infer<typeof campaignAnalytics>;
export type CampaignEngagementAnalytics = z.infer<typeof campaignEngagementAnalytics>;
export type AnalyticsMetric = z.infer<typeof analyticsMetric>;
export type CohortResult = z.infer<typeof cohortResult>;
export type CampaignActivationAnalytics = z.infer<typeof campaignActivationAnalytics>;
export type ParticipantActivationAnalytics = z.infer<typeof participantActivationAnalytics>;
export type ParticipantAnalytics = z.infer<typeof participantAnalytics>;
export type ActivityLogList = z.infer<typeof activityLogList>;
