// The options document (rest-v2 §2.20): `campaignOptions` with fraud rules, payout settings and team
// notification events per program type.
import { z } from 'zod';
import { PAYOUT_PROVIDERS, applicationQuestion } from './affiliate.ts';
import { COOKIE_WINDOW_DAYS, CREDIT_WINDOW_DAYS, PROGRAM_LANGUAGES, nText, nUrl, bool, intIn, hostname } from './program-config-fields.ts';

// ── Options (§2.20) ─────────────────────────────────────────────────────────────────────────────

const ipOrCidr = z
  .string()
  .trim()
  .max(64)
  .refine((s) => {
    const [addr, bits, extra] = s.split('/');
    if (extra !== undefined || !addr) return false;
    const v4 = z.ipv4().safeParse(addr).success;
    const v6 = !v4 && z.ipv6().safeParse(addr).success;
    if (!v4 && !v6) return false;
    if (bits === undefined) return true;
    const n = Number(bits);
    return /^\d{1,3}$/.test(bits) && n <= (v4 ? 32 : 128);
  }, 'Must be an IPv4 or IPv6 address, optionally with a /prefix.');
const country = z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 code such as US.');
const LIST_MAX = 500;

/** Team notification events per program type (options.notificationEmails.events). */
export const NOTIFICATION_EVENTS = {
  REFERRAL: ['PARTICIPANT_REACHED_A_GOAL', 'NEW_PARTICIPANT_ADDED_NON_REFERRED', 'NEW_PARTICIPANT_ADDED_REFERRED', 'CAMPAIGN_ENDED', 'WEEKLY_PERFORMANCE_REPORT', 'MONTHLY_PERFORMANCE_REPORT'],
  AFFILIATE: [
    'NEW_PARTICIPANT_ADDED_NON_REFERRED',
    'NEW_PARTICIPANT_ADDED_REFERRED',
    'CAMPAIGN_ENDED',
    'WEEKLY_PERFORMANCE_REPORT',
    'MONTHLY_PERFORMANCE_REPORT',
    'NEW_COMMISSION_ADDED',
    'COMMISSION_ADJUSTED',
    'NEW_PAYOUT_ISSUED',
    'AFFILIATE_BATCH_PAYOUT_COMPLETED',
    'MONTHLY_PAYOUT_REMINDER',
    'AFFILIATE_APPLICATIONS_PENDING_REVIEW',
  ],
} as const;
const ALL_EVENTS = [...new Set([...NOTIFICATION_EVENTS.REFERRAL, ...NOTIFICATION_EVENTS.AFFILIATE])];
export const REFERRAL_ONLY_EVENTS = ALL_EVENTS.filter((e) => !(NOTIFICATION_EVENTS.AFFILIATE as readonly string[]).includes(e));
export const AFFILIATE_ONLY_EVENTS = ALL_EVENTS.filter((e) => !(NOTIFICATION_EVENTS.REFERRAL as readonly string[]).includes(e));

/** `CampaignOptions`: the Options tab with TS-typed leaves plus refloop's documented additions. */
export const campaignOptions = z
  .strictObject({
    requireManualRewardApproval: bool.optional().describe('Referral programs only: hold earned rewards for approval.'),
    autoFulfillRewards: bool.optional().describe('Referral programs only: mark earned rewards fulfilled automatically.'),
    requireManualFraudApproval: bool.describe('Hold suspected fraud for review instead of blocking it.'),
    autoBlockFraud: bool.describe('Block high-risk sign-ups automatically.'),
    requireParticipantAuth: bool.describe('Returning participants must authenticate; always true for affiliate programs.'),
    enforceGdprCompliance: bool.describe('Store no IP address, fingerprint or mobile instance id.'),
    blockPaidAdsTraffic: bool.describe('Ignore referrals from visitors who arrived through paid ads.'),
    referralCookieWindowDays: z.literal(COOKIE_WINDOW_DAYS).describe('How long a browser remembers a referral click.'),
    referralCreditWindowDays: z.literal(CREDIT_WINDOW_DAYS).nullable().describe('Days a referred friend has to qualify; null = never expires.'),
    payoutThreshold: z.number().int().min(0).max(100_000_000).nullable().optional().describe('Affiliate programs only: minimum payout in minor units; 0 or null = none.'),
    attributionModel: z.enum(['LAST_CLICK', 'FIRST_CLICK']).describe('Which server-verified visit receives conversion credit.'),
    languages: z.strictObject({
      baseLanguage: z.enum(PROGRAM_LANGUAGES),
      additionalLanguages: z.array(z.enum(PROGRAM_LANGUAGES)).max(PROGRAM_LANGUAGES.length - 1),
    }),
    affiliateApplicationMode: z.enum(['OPEN_ENROLLMENT', 'MANUAL_REVIEW', 'AUTO_APPROVE']).optional().describe('Affiliate programs only.'),
    affiliateReapplicationPolicy: z.enum(['AFTER_COOLDOWN', 'DISABLED']).optional().describe('Affiliate programs only.'),
    affiliateReapplicationCooldownDays: intIn(1, 365).optional().describe('Affiliate programs only.'),
    affiliateApplicationReviewEstimateBusinessDays: intIn(1, 60).nullable().optional().describe('Affiliate programs only.'),
    affiliateApplicationForm: z
      .strictObject({ questions: z.array(applicationQuestion).max(20), termsUrl: nUrl(2048).describe('When set, applicants must accept these terms.') })
      .optional()
      .describe('refloop, affiliate programs only: the public application form (MANUAL_REVIEW and AUTO_APPROVE collect answers; OPEN_ENROLLMENT asks them too).'),
    payoutSettings: z
      .strictObject({
        enabledProviders: z.array(z.enum(PAYOUT_PROVIDERS)).max(PAYOUT_PROVIDERS.length).describe('Providers participants may confirm a payout destination for; WISECOM on affiliate programs only.'),
        requireTaxInfo: bool.describe('Participants must submit tax information (W-9 or W-8) before payouts.'),
      })
      .describe('refloop: payout destinations and tax information.'),
    fraud: z.strictObject({
      strictness: z
        .enum(['LENIENT', 'STANDARD', 'STRICT'])
        .describe('refloop: which risk levels the anti-fraud checks act on: LENIENT = HIGH with several signals, STANDARD = HIGH, STRICT = MEDIUM and HIGH.'),
      blockedEmails: z.array(z.email().max(254).toLowerCase()).max(LIST_MAX),
      blockedEmailDomains: z.array(hostname).max(LIST_MAX).describe('refloop: every address at these domains (and their subdomains) is blocked.'),
      blockedIps: z.array(ipOrCidr).max(LIST_MAX),
      blockedCountries: z.array(country).max(250),
      allowedEmails: z.array(z.email().max(254).toLowerCase()).max(LIST_MAX),
      allowedIps: z.array(ipOrCidr).max(LIST_MAX),
      allowedCountries: z.array(country).max(250),
      blockBurnerEmails: bool,
      blockDataCenterIps: bool,
      blockHighRiskReferrers: bool,
      autoBlockHighRiskIps: bool,
      maxSignupsPerIp2Min: intIn(1, 1000),
      maxSignupsPerIp10Min: intIn(1, 5000),
      recaptcha: z.strictObject({
        isEnabled: bool,
        siteKey: nText(100),
        secretKey: nText(100).optional().describe('Write-only: stored sealed and never returned.'),
      }),
    }),
    taxDocumentation: z
      .strictObject({
        companyName: nText(255),
        vatNumber: nText(32),
        addressLine1: nText(255),
        addressLine2: nText(255),
        city: nText(255),
        state: nText(255),
        postalCode: nText(32),
        country: nText(255),
        collectAffiliateVat: bool,
      })
      .optional()
      .describe('Affiliate programs only.'),
    notificationEmails: z.strictObject({
      recipients: z.array(z.email().max(254)).max(20).describe('Empty = the team owner.'),
      events: z
        .strictObject(Object.fromEntries(ALL_EVENTS.map((e) => [e, NOTIFICATION_EVENTS.REFERRAL.includes(e as never) && NOTIFICATION_EVENTS.AFFILIATE.includes(e as never) ? bool : bool.optional()])) as Record<string, z.ZodType<boolean | undefined>>)
        .describe('One switch per event; events of the other program type are absent.'),
    }),
    followUpReminder: z
      .strictObject({
        isEnabled: bool,
        delayDays: intIn(2, 30),
        enabledAt: z.number().int().nullable().describe('Read-only: when the reminder was last switched on; earlier invitations never qualify.'),
      })
      .describe('refloop: email the referrer once about invitees who have not signed up after `delayDays`.'),
    referralEmailPrivacy: z
      .strictObject({
        masking: z.enum(['PARTIAL', 'FULL']),
        allowInvitedEmailDisclosureAfterSignIn: bool,
      })
      .describe('refloop: referral emails are masked; a signed-in sender may see addresses they invited only when allowed here and masking is PARTIAL.'),
    allowClientSideReferralTrigger: bool
      .optional()
      .describe('refloop, referral programs only: honour triggerReferral from browsers and apps. Off by default because such calls can be forged.'),
  })
  .meta({ id: 'CampaignOptions' });

export type CampaignOptions = z.infer<typeof campaignOptions>;
