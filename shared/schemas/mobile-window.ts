// The participant API's window payload (issue #5): everything the widget or an app's referral screen
// draws in one answer, and the traffic report it may carry.
import { z } from 'zod';
import { SHARE_CHANNELS } from './program-config-fields.ts';
import { affiliateSummary } from './payout.ts';
import { mobileParticipant } from './mobile.ts';
import { mobileCampaignReward, mobileLeaderboard } from './mobile-campaign.ts';

/** A payout provider the window may offer; `canConfirm` says whether the participant can confirm it now. */
export const mobilePayoutProvider = z.object({ provider: z.string(), canConfirm: z.boolean() }).meta({ id: 'MobilePayoutProvider' });

/** The traffic report (mobile rule 11): the signed-in participant's link visits over the last 30 days. */
/** Date ranges of the traffic report (design trafficInsights.dateRangeLabels). */
export const TRAFFIC_RANGES = ['LAST_7_DAYS', 'LAST_30_DAYS', 'LAST_90_DAYS', 'ALL_TIME'] as const;

/** The traffic report's breakdowns, in design.trafficInsights.breakdowns order. */
export const TRAFFIC_BREAKDOWNS = ['utm', 'referrer', 'destination', 'geo', 'technology', 'trigger'] as const;
const trafficBreakdown = z.array(z.object({ value: z.string().nullable(), visits: z.number().int() }));

/** `GET /mobile/v2/participant/traffic` query. */
export const mobileTrafficQuery = z.object({ range: z.enum(TRAFFIC_RANGES).optional().meta({ description: 'Default: design.trafficInsights.defaultDateRange.' }) }).meta({ id: 'MobileTrafficQuery' });

export const mobileTrafficReport = z
  .object({
    range: z.enum(TRAFFIC_RANGES).meta({ description: 'The date range reported (the window uses design.trafficInsights.defaultDateRange).' }),
    interval: z.enum(['DAY', 'MONTH']).meta({ description: 'visitsOverTime buckets: UTC days for the 7/30/90-day ranges, UTC months for ALL_TIME.' }),
    days: z.number().int().meta({ description: 'UTC days covered, today included (ALL_TIME: since the participant joined).' }),
    visits: z.number().int(),
    uniqueVisitors: z.number().int(),
    visitsOverTime: z.array(z.object({ date: z.string().meta({ description: 'UTC day YYYY-MM-DD, or month YYYY-MM for ALL_TIME.' }), visits: z.number().int() })),
    sources: z.array(z.object({ source: z.string().nullable(), visits: z.number().int() })).meta({ description: 'utm_source, else the referring host; null when neither was known. Top 10 (the same list as breakdowns.trigger).' }),
    breakdowns: z
      .object(Object.fromEntries(TRAFFIC_BREAKDOWNS.map((k) => [k, trafficBreakdown])) as Record<(typeof TRAFFIC_BREAKDOWNS)[number], typeof trafficBreakdown>)
      .meta({
        description:
          'Top 10 values of each design.trafficInsights.breakdowns entry: utm = utm_campaign; referrer = the referring host; destination = the landing path; geo = the ISO country code from GEO_COUNTRY_HEADER; technology = mobile, tablet, desktop or app (a native app); trigger = utm_source, else the referring host. `value` is null where the visit did not tell (and for visits recorded before the breakdown existed).',
      }),
  })
  .meta({ id: 'MobileTrafficReport' });

/** `GET /mobile/v2/window` answer: everything the widget or an app's referral screen draws. */
export const mobileWindow = z
  .object({
    participant: mobileParticipant.nullable().meta({ description: 'The signed-in participant; null without a participant token.' }),
    type: z.enum(['REFERRAL', 'AFFILIATE']).meta({ description: 'The program type: which panels the window offers.' }),
    languages: z.array(z.string()).meta({ description: 'The program’s languages, base language first.' }),
    design: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The program’s design document with defaults filled (rest-v2 §2.18, as GET /v2/campaign/{id}/design): what the window draws and how.' }),
    launcherTexts: z
      .object({ visitor: z.string(), participant: z.string(), button: z.string(), hide: z.string(), lang: z.string().meta({ description: 'The program language these words (and `design`’s texts) are in, for the launcher’s `lang` attribute.' }) })
      .optional()
      .meta({
        description:
          'refloop (issue #27): the corner launcher’s own words in the reader’s language (the language of `design`’s texts), for a reader of a language other than English and for every reader of an affiliate program (its words are the affiliate ones); absent for English readers of a referral program (the launcher carries those). visitor, participant, button: what a blank design.widget newVisitorText, participantText and buttonText fall back to; hide: the name of the button that hides the launcher.',
      }),
    share: z
      .object({
        preferredUrl: z.string().nullable().meta({ description: 'installation.shareUrl, when set.' }),
        fallbackUrl: z.string().meta({ description: 'The hosted share page.' }),
        channels: z.array(z.enum(SHARE_CHANNELS)).meta({ description: 'The design’s visible share channels: trackShare accepts these, copyRefLink and copy.' }),
      })
      .meta({ description: 'Mobile rule 12: link = participant.shareUrl, else preferredUrl, else fallbackUrl.' }),
    rewards: z.array(mobileCampaignReward).meta({
      description: 'The visible rewards, and (refloop, issue #24) the program’s unedited starter rewards with `isStarter: true`: switched off, nothing is awarded until the owner sets them up.',
    }),
    leaderboard: mobileLeaderboard.nullable().meta({ description: 'The first page of the design’s default board while design.leaderboard.isEnabled; else null.' }),
    payoutSettings: z.object({ payoutDestinations: z.object({ enabledProviders: z.array(mobilePayoutProvider) }) }),
    recaptchaSiteKey: z
      .string()
      .nullable()
      .meta({ description: 'options.fraud.recaptcha.siteKey while reCAPTCHA is on: pages then send a token (action `signup`) as recaptchaToken when adding a participant; else null.' }),
    formCapture: z
      .object({ form: z.string().nullable(), email: z.string().nullable(), firstName: z.string().nullable(), lastName: z.string().nullable() })
      .nullable()
      .meta({
        description:
          'refloop: while installation.signupEvent is FORM_DETECTION, the selectors of installation.signup.formFields (null = detect): the widget adds a participant when the site’s own sign-up form is submitted. Null under PROGRAMMATIC.',
      }),
    stripeClientReferenceId: z
      .enum(['FILL', 'OVERWRITE'])
      .nullable()
      .optional()
      .meta({
        description:
          'refloop (issue #25): installation.stripe.clientReferenceId as the attribution script applies it: FILL = put the pending referral code into Stripe Payment Links, Buy Buttons and Pricing Tables that carry no client reference id (AUTO with an active Stripe connection, or ALWAYS); OVERWRITE = also replace one; null = leave them alone.',
      }),
    upfrontDiscount: z
      .object({
        integration: z.enum(['stripe']),
        promotionCode: z.string().meta({ description: 'The promotion code the referred friend enters at checkout: the reward’s referralCouponCode.' }),
        couponId: z.string().nullable().meta({ description: 'The billing system’s coupon id: the reward’s metadata.stripeCouponId, or null.' }),
      })
      .nullable()
      .optional()
      .meta({
        description:
          'refloop (issue #25, docs/integrations.md "Codes"): the referral program’s referred-friend discount, given up front: its first visible DOUBLE_SIDED reward with referredRewardUpfront and a referralCouponCode. Null when there is none and for affiliate programs. The widget’s growsurf.getUpfrontDiscount() answers it to a visitor with a pending referral (web-sdk.md §6).',
      }),
    traffic: mobileTrafficReport.nullable().meta({ description: 'Only for a signed-in participant, when design.trafficInsights.isPublicDisplayed is on and the plan is paid.' }),
    affiliate: affiliateSummary
      .nullable()
      .meta({ description: 'Affiliate programs, signed-in participant, payment method on file: the affiliate summary (as GET /participant/affiliate-summary); else null.' }),
  })
  .meta({ id: 'MobileWindow' });
