import { z } from 'zod';
import { PAYOUT_PROVIDERS, applicationQuestion } from './affiliate.ts';

// The four program configuration documents (rest-v2 §2.18–§2.21) and the integrations list (§2.22).
// Each document is one typed, closed object: unknown keys at any depth are rejected, every string and
// array is capped. Fields that exist for one program type only are optional here and listed in
// TYPE_ONLY_FIELDS; `documentSchema(kind, type)` gives the exact schema for one program type.

// ── Shared enumerations (rest-v2 §4) ────────────────────────────────────────────────────────────

/** Cookie window days (options.referralCookieWindowDays). */
export const COOKIE_WINDOW_DAYS = [1, 3, 7, 14, 30, 60, 90, 180, 365, 400] as const;
/** Credit window days (options.referralCreditWindowDays); `null` = never expires. */
export const CREDIT_WINDOW_DAYS = [1, 3, 7, 14, 30, 60, 90, 180, 365] as const;
/** Program languages (options.languages, Participant.language). */
export const PROGRAM_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'pl', 'sv', 'tr', 'ja', 'ko', 'zh-CN', 'id'] as const;
/** Share channels the window can offer (the §4 "first share channel" values that are buttons). */
export const SHARE_CHANNELS = [
  'email',
  'facebook',
  'twitter',
  'linkedin',
  'pinterest',
  'threads',
  'bluesky',
  'sms',
  'messenger',
  'whatsapp',
  'wechat',
  'telegram',
  'reddit',
  'tumblr',
  'qrcode',
] as const;
/** Every email template key (rest-v2 §2.19, §4). */
export const EMAIL_TEMPLATE_KEYS = [
  'welcomeNonReferred',
  'welcomeReferred',
  'referralLinkViewedFirstTime',
  'referralLinkUsed',
  'referredSignup',
  'goalAchieved',
  'campaignEndedWinners',
  'campaignEndedNonWinners',
  'progressUpdateMonthly',
  'commissionGenerated',
  'commissionAdjusted',
  'payoutPending',
  'payoutSentSuccess',
  'invite',
  'loginLink',
  'paypalEmailConfirmation',
  'taxInfoMissing',
  'taxInfoReceived',
  'taxInfoApproved',
  'taxInfoRejected',
] as const;
/** Transactional templates: always sent when their event happens, so `isEnabled` is fixed at true. */
export const TRANSACTIONAL_TEMPLATES = ['loginLink', 'paypalEmailConfirmation', 'taxInfoMissing', 'taxInfoReceived', 'taxInfoApproved', 'taxInfoRejected'] as const;

/** The program types, repeated here so shared schemas need no import cycle. */
export type ConfigProgramType = 'REFERRAL' | 'AFFILIATE';
/** The four documents. */
export type DocumentKind = 'design' | 'emails' | 'options' | 'installation';

// ── Building blocks ─────────────────────────────────────────────────────────────────────────────

const text = (max: number) => z.string().max(max);
const label = (max = 100) => z.string().trim().min(1, 'Cannot be blank.').max(max);
const nText = (max: number) => z.string().max(max).nullable();
const httpUrl = (max: number) => z.url({ protocol: /^https?$/, message: 'Must be a URL starting with http:// or https://.' }).max(max);
const nUrl = (max: number) => httpUrl(max).nullable();
/** CSS colours the widget writes into a stylesheet: hex or rgb()/hsl() only, so no CSS can be injected. */
const color = z
  .string()
  .max(40)
  .regex(/^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|transparent)$/, 'Must be a hex colour such as #4f46e5, or rgb()/hsl().');
const cssLength = z
  .string()
  .max(12)
  .regex(/^(0|\d{1,3}(\.\d{1,2})?(px|rem|em|%))$/, 'Must be a CSS length such as 8px, 0.5rem or 50%.');
const bool = z.boolean();
const intIn = (min: number, max: number) => z.number().int().min(min).max(max);
const iconSpec = z.strictObject({
  type: z.enum(['DEFAULT', 'IMAGE', 'NONE']),
  imageUrl: nUrl(500),
});
const labelled = z.strictObject({ isVisible: bool, label: label() });

// ── Design (§2.18) ──────────────────────────────────────────────────────────────────────────────

const signupField = z.strictObject({
  key: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, 'Letters, digits and _; starts with a letter; at most 40 characters.')
    .refine((k) => k !== 'gdprAgreements', 'gdprAgreements is reserved.')
    .describe('`email`, `firstName`, `lastName`, or a metadata key the answer is stored under.'),
  type: z.enum(['EMAIL', 'TEXT', 'TEL', 'NUMBER', 'URL']),
  label: label(),
  placeholder: text(100),
  isRequired: bool,
});

const referredExperience = z.strictObject({
  isOfferPopupEnabled: bool,
  offerPopupTitle: nText(255),
  offerPopupDescription: nText(1000),
  offerPopupButtonText: nText(100),
  offerPopupImageUrl: nUrl(500),
  isOfferPopupReferrerImageShown: bool,
  offerPopupPlacement: z.enum(['CENTER', 'BOTTOM', 'BOTTOM_RIGHT', 'BOTTOM_LEFT', 'TOP']),
  offerPopupDelaySeconds: z.literal([0, 3, 5, 10]),
  offerPopupThankYouText: nText(255),
  offerPopupThankYouButtonText: nText(100),
  isOfferPopupConfettiEnabled: bool,
  isOfferPopupShownOnAllPages: bool,
  offerPopupSecondaryLinkText: nText(100),
  offerPopupSecondaryLinkUrl: nUrl(500),
  isOfferPopupOverlayDimmed: bool,
  offerPopupEmailPlaceholder: nText(100),
  offerPopupPromoCodeCopyLabel: nText(100),
  offerPopupSubmitError: nText(255),
  isBannerEnabled: bool,
  bannerText: nText(255),
  bannerPlacement: z.enum(['TOP', 'BOTTOM']),
  isBannerClickableToSignupUrl: bool,
  isHeadingEnabled: bool,
  headingText: nText(255),
  headingTarget: z.enum(['H1', 'H2', 'H3', 'H4', 'H5']),
  headingPlacement: z.enum(['PREPEND', 'APPEND', 'REPLACE']),
  isHeadingStyled: bool,
  isHeadingClickableToSignupUrl: bool,
  pageTitleReplacement: nText(255),
  referrerNameFormat: z.enum(['FIRST', 'FIRST_LAST_INITIAL', 'FIRST_LAST']),
  referrerNameFallback: label(),
});

const widget = z.strictObject({
  isShownToNewVisitors: bool,
  isShownToParticipants: bool,
  appearance: z.enum(['BUTTON', 'CARD']),
  isArtShown: bool,
  artImageUrl: nUrl(500),
  newVisitorText: text(100),
  participantText: text(100),
  buttonText: text(100),
  newVisitorDescription: text(255),
  participantDescription: text(255),
  markKey: z.enum(['GIFT', 'TICKET', 'DISCOUNT', 'CASH', 'PERK', 'SHARE', 'LINK', 'INVITE', 'FRIENDS', 'THANKS']).nullable(),
  icon: z.enum(['CUSTOM', 'NONE', 'DEFAULT']).describe('`DEFAULT` is readable but cannot be set; `CUSTOM` needs `iconImageUrl`.'),
  iconImageUrl: nUrl(500),
  placement: z.enum(['TOP_LEFT', 'TOP_CENTER', 'TOP_RIGHT', 'BOTTOM_LEFT', 'BOTTOM_CENTER', 'BOTTOM_RIGHT']),
  offsetSide: intIn(0, 400),
  offsetEdge: intIn(0, 400),
  reveal: z.enum(['IMMEDIATE', 'DELAY', 'SCROLL']).describe('`DELAY` is accepted and behaves as `IMMEDIATE`.'),
  revealDelaySeconds: intIn(0, 120),
  returnAfterDays: intIn(0, 365).describe('0 = never shown again after dismissal.'),
  isHiddenOnMobile: bool,
  pageRules: z.strictObject({
    mode: z.enum(['ALL', 'ONLY', 'EXCEPT']),
    patterns: z.array(text(500).min(1)).max(20).describe('`*` is a wildcard; matched against the URL without its query string.'),
  }),
});

const DATE_RANGES = ['LAST_7_DAYS', 'LAST_30_DAYS', 'LAST_90_DAYS', 'ALL_TIME'] as const;
const breakdown = z.strictObject({
  isVisible: bool,
  label: label(),
  levels: z.record(z.string().max(100), label()).refine((r) => Object.keys(r).length <= 50, 'At most 50 entries.'),
  values: z.record(z.string().max(100), label()).refine((r) => Object.keys(r).length <= 200, 'At most 200 entries.'),
});
const metric = z.strictObject({ isVisible: bool, label: label(), helperText: text(255) });
const trafficInsights = z.strictObject({
  isPublicDisplayed: bool.describe('Participants see their Traffic report (paid plans).'),
  title: label(),
  trafficForLabel: label(),
  allLinksLabel: label(),
  visitsOverTimeTitle: label(),
  breakdownsTitle: label(),
  viewTrafficInsightsLinkText: label(),
  backLinkText: label(),
  notSetLabel: label(),
  emptyState: text(255),
  messages: z.strictObject({
    error: label(255),
    unavailable: label(255),
    partial: label(255),
    partialFrom: label(255).describe('Supports the {{date}} token.'),
    breakdownPartial: label(255),
    breakdownEmpty: label(255),
  }),
  dateRangeLabels: z.strictObject({ LAST_7_DAYS: label(), LAST_30_DAYS: label(), LAST_90_DAYS: label(), ALL_TIME: label() }),
  defaultDateRange: z.enum(DATE_RANGES),
  metrics: z.strictObject({ visits: metric, uniqueVisitors: metric }),
  breakdowns: z.strictObject({ utm: breakdown, referrer: breakdown, destination: breakdown, geo: breakdown, technology: breakdown, trigger: breakdown }),
});

const resources = z.strictObject({
  isPublicDisplayed: bool.describe('The Resources destination stays hidden until at least one resource is published.'),
  title: label(),
  viewResourcesLinkText: label(),
  backLinkText: label(),
  copyButtonText: label(),
  copiedText: label(),
  emptyState: text(500),
  icon: iconSpec,
});

const LOGIN_KEYS = [
  'heading',
  'description',
  'fieldLabel',
  'fieldPlaceholder',
  'buttonText',
  'successHeading',
  'successBody',
  'resendPrompt',
  'resend',
  'resent',
  'invalidEmail',
  'cooldown',
  'serverError',
  'invalidLink',
] as const;
const login = z.strictObject(Object.fromEntries(LOGIN_KEYS.map((k) => [k, label(255)])) as Record<(typeof LOGIN_KEYS)[number], z.ZodString>);

const PAYOUT_CONFIRMATION_KEYS = [
  'headline',
  'description',
  'emailLabel',
  'emailPlaceholder',
  'emailAgainLabel',
  'emailAgainPlaceholder',
  'legalNameLabel',
  'legalNamePlaceholder',
  'legalTypeLabel',
  'legalTypeIndividual',
  'legalTypeBusiness',
  'button',
  'success',
  'claimPending',
] as const;
const PAYOUT_CONFIRMATION_ERRORS = ['invalidEmail', 'emailMismatch', 'tokenExpired', 'tokenUsed', 'alreadyConfirmed', 'generic'] as const;
const payoutDestinationConfirmation = z.strictObject({
  ...(Object.fromEntries(PAYOUT_CONFIRMATION_KEYS.map((k) => [k, nText(500)])) as Record<(typeof PAYOUT_CONFIRMATION_KEYS)[number], z.ZodNullable<z.ZodString>>),
  errorMessages: z.strictObject(
    Object.fromEntries(PAYOUT_CONFIRMATION_ERRORS.map((k) => [k, nText(255)])) as Record<(typeof PAYOUT_CONFIRMATION_ERRORS)[number], z.ZodNullable<z.ZodString>>,
  ),
});

const summaryTiles = <K extends string>(keys: readonly K[]) => z.strictObject(Object.fromEntries(keys.map((k) => [k, labelled])) as Record<K, typeof labelled>);

/** `CampaignDesign`: every section of §2.18/§4 with typed leaves; type-only sections are optional here. */
export const campaignDesign = z
  .strictObject({
    window: z.strictObject({ navigationMode: z.enum(['TABS', 'LIST']) }),
    header: z.strictObject({
      preText: text(500).describe('Shown to visitors who are not participants yet. Plain text.'),
      postText: text(500).describe('Shown to participants. Plain text.'),
    }),
    stats: z.strictObject({ title: label() }),
    share: z.strictObject({
      title: label(),
      description: text(500),
      linkLabel: label(),
      copyButtonText: label(),
      copiedText: label(),
      message: text(500).describe('Prefilled text for social shares; {{shareUrl}} is replaced by the participant’s link.'),
      emailSubject: text(255),
      channels: z.strictObject(Object.fromEntries(SHARE_CHANNELS.map((c) => [c, z.strictObject({ isVisible: bool })])) as Record<(typeof SHARE_CHANNELS)[number], z.ZodObject<{ isVisible: z.ZodBoolean }>>),
      invite: z.strictObject({
        isEnabled: bool,
        title: label(),
        placeholder: text(100),
        buttonText: label(),
        successText: label(255),
        maxRecipients: intIn(1, 50),
      }),
      buttonStyle: z.strictObject({ shape: z.enum(['SQUARE', 'ROUNDED', 'CIRCLE']), isLabelShown: bool, isBrandColored: bool }),
    }),
    signup: z.strictObject({
      fields: z.array(signupField).min(1).max(10).describe('Replaced wholesale; must hold one required EMAIL field with key `email`.'),
      buttonText: label(),
      loginText: text(255),
      loginLinkText: label(),
      gdpr: z.strictObject({ isEnabled: bool, text: label(1000), isCheckboxRequired: bool }),
      termsText: nText(1000),
    }),
    referralStatus: z.strictObject({
      title: label(),
      emptyState: text(255),
      statusLabels: z.strictObject({ CREDIT_PENDING: label(), CREDIT_AWARDED: label(), CREDIT_EXPIRED: label(), INVITE_SENT: label() }),
    }),
    leaderboard: z.strictObject({
      isEnabled: bool,
      title: label(),
      rankLabel: label(),
      nameLabel: label(),
      scoreLabel: label(),
      youLabel: label(),
      emptyState: text(255),
      selectorLabels: z.strictObject({ ALL_TIME: label(), CURRENT_MONTH: label(), PREV_MONTH: label() }),
      defaultSelector: z.enum(['ALL_TIME', 'CURRENT_MONTH', 'PREV_MONTH']),
      nameFormat: z.enum(['FIRST', 'FIRST_LAST_INITIAL', 'FIRST_LAST', 'ANONYMOUS']).describe('How other participants’ names are masked.'),
    }),
    referredExperience,
    referralSummary: z
      .strictObject({ isEnabled: bool, title: label(), tiles: summaryTiles(['clicks', 'leads', 'referrals', 'rewards'] as const) })
      .optional()
      .describe('Referral programs only.'),
    affiliateSummary: z
      .strictObject({ isEnabled: bool, title: label(), tiles: summaryTiles(['clicks', 'revenue', 'payouts'] as const) })
      .optional()
      .describe('Affiliate programs only.'),
    commissions: z
      .strictObject({
        isEnabled: bool,
        title: label(),
        emptyState: text(255),
        statusLabels: z.strictObject({ PENDING: label(), APPROVED: label(), PAID: label(), REVERSED: label() }),
      })
      .optional()
      .describe('Affiliate programs only.'),
    payouts: z
      .strictObject({
        isEnabled: bool,
        title: label(),
        emptyState: text(255),
        statusLabels: z.strictObject({ UPCOMING: label(), QUEUED: label(), ISSUED: label(), FAILED: label(), REVERSED: label() }),
      })
      .optional()
      .describe('Affiliate programs only.'),
    rewards: z.strictObject({ title: label(), description: text(500), emptyState: text(255), icon: iconSpec }),
    participantSettings: z.strictObject({
      title: label(),
      isLogoutShown: bool,
      logoutText: label(),
      paypalEmail: z.strictObject({ isEnabled: bool, label: label(), placeholder: text(100), helpText: text(255) }),
      taxDetails: z.strictObject({ isEnabled: bool, label: label(), helpText: text(255) }),
      manualPayout: z.strictObject({ isEnabled: bool, label: label(), instructions: text(1000) }).optional().describe('Affiliate programs only.'),
      wise: z.strictObject({ isEnabled: bool, label: label() }).optional().describe('Affiliate programs only.'),
    }),
    landingPages: z.strictObject({
      isEnabled: bool,
      company: z.strictObject({ name: nText(255), websiteUrl: nUrl(500), logoUrl: nUrl(500) }),
      content: z.strictObject({ headline: text(255), subheadline: text(500), body: text(5000), buttonText: label() }),
      styles: z.strictObject({ backgroundColor: color, textColor: color, accentColor: color, backgroundImageUrl: nUrl(500) }),
      scripts: z
        .strictObject({
          googleAnalyticsId: z.string().regex(/^(G-[A-Z0-9]{4,20}|UA-\d{4,12}-\d{1,4})$/, 'Must look like G-XXXXXXX.').nullable(),
          googleTagManagerId: z.string().regex(/^GTM-[A-Z0-9]{4,12}$/, 'Must look like GTM-XXXXXX.').nullable(),
          metaPixelId: z.string().regex(/^\d{5,20}$/, 'Must be the numeric pixel id.').nullable(),
        })
        .describe('Third-party script ids only; custom code and JavaScript are not editable through the API.'),
      seo: z.strictObject({ title: text(255), description: text(500), imageUrl: nUrl(500), isIndexed: bool }),
    }),
    theme: z.strictObject({
      primaryColor: color,
      textColor: color,
      mutedTextColor: color,
      backgroundColor: color,
      buttonTextColor: color,
      fontFamily: z.enum(['INHERIT', 'SYSTEM', 'SERIF', 'MONOSPACE']).describe('`INHERIT` uses the host page’s font.'),
      borderRadius: cssLength,
      isShadowEnabled: bool,
      widget: z.strictObject({ color, backgroundColor: color, borderRadius: cssLength }),
      referredExperienceOfferPopup: z.strictObject({ color, backgroundColor: color }),
    }),
    participantAvatarStyle: z.enum(['CHARACTERS', 'INITIALS', 'ANIMALS', 'GRADIENT']),
    login,
    payoutDestinationConfirmation: payoutDestinationConfirmation.describe('`null` falls back to the localized default; supports {{payoutProvider}}.'),
    countryLabels: z
      .record(z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 code.'), nText(100))
      .refine((r) => Object.keys(r).length <= 300, 'At most 300 entries.')
      .describe('Country name overrides keyed by ISO code; `null` = the localized default.'),
    widget,
    trafficInsights,
    resources,
  })
  .meta({ id: 'CampaignDesign' });

// ── Emails (§2.19) ──────────────────────────────────────────────────────────────────────────────

const templateFields = {
  subject: label(255).describe('Supports {{…}} merge tags.'),
  preheader: text(255),
  body: label(50_000).describe('HTML; supports {{…}} merge tags such as {{firstName}} and {{shareUrl}}.'),
  isEnabled: bool.describe('Controls automatic sending only.'),
};
const emailTemplate = z.strictObject(templateFields);
const inviteTemplate = z.strictObject({ ...templateFields, useCompanyReplyTo: bool.describe('Replies go to the company (true) or to the inviting participant (false).') });
const transactionalTemplate = z.strictObject({ ...templateFields, isEnabled: bool.describe('Always true: transactional emails cannot be switched off.') });

/** `CampaignEmails`: one property per template plus `settings`; type-only templates are optional here. */
export const campaignEmails = z
  .strictObject({
    welcomeNonReferred: emailTemplate,
    welcomeReferred: emailTemplate.optional().describe('Referral programs only.'),
    referralLinkViewedFirstTime: emailTemplate,
    referralLinkUsed: emailTemplate.optional().describe('Referral programs only.'),
    referredSignup: emailTemplate,
    goalAchieved: emailTemplate.optional().describe('Referral programs only.'),
    campaignEndedWinners: emailTemplate.optional().describe('Referral programs only.'),
    campaignEndedNonWinners: emailTemplate.optional().describe('Referral programs only.'),
    progressUpdateMonthly: emailTemplate,
    commissionGenerated: emailTemplate.optional().describe('Affiliate programs only.'),
    commissionAdjusted: emailTemplate.optional().describe('Affiliate programs only.'),
    payoutPending: emailTemplate.optional().describe('Affiliate programs only.'),
    payoutSentSuccess: emailTemplate.optional().describe('Affiliate programs only.'),
    invite: inviteTemplate,
    loginLink: transactionalTemplate,
    paypalEmailConfirmation: transactionalTemplate,
    taxInfoMissing: transactionalTemplate,
    taxInfoReceived: transactionalTemplate,
    taxInfoApproved: transactionalTemplate,
    taxInfoRejected: transactionalTemplate,
    settings: z.strictObject({
      sender: z.strictObject({
        fromName: nText(100).describe('`null` = the company name, else the program name.'),
        fromEmail: z.string().max(254).describe('Read-only: the address this installation sends from.'),
        replyToEmail: z.email().max(254).nullable(),
      }),
      contact: z
        .strictObject({
          companyName: nText(255),
          addressLine1: nText(255),
          addressLine2: nText(255),
          city: nText(255),
          state: nText(255),
          postalCode: nText(32),
          country: nText(255),
        })
        .describe('Postal address printed in the footer (anti-spam laws).'),
      design: z.strictObject({ logoUrl: nUrl(500), primaryColor: color, backgroundColor: color, textColor: color, footerText: nText(1000) }),
    }),
  })
  .meta({ id: 'CampaignEmails' });

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
const hostname = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'Must be a host name such as example.com or *.example.com.');
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
const REFERRAL_ONLY_EVENTS = ALL_EVENTS.filter((e) => !(NOTIFICATION_EVENTS.AFFILIATE as readonly string[]).includes(e));
const AFFILIATE_ONLY_EVENTS = ALL_EVENTS.filter((e) => !(NOTIFICATION_EVENTS.REFERRAL as readonly string[]).includes(e));

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

// ── Installation (§2.21) ────────────────────────────────────────────────────────────────────────

/**
 * The installation document as stored and validated: unset `shareUrl` and `mobile.publicKey` are
 * null here. The wire shape (`campaignInstallationResponse`) omits them instead.
 */
export const campaignInstallation = z
  .strictObject({
    referralTrigger: z.enum(['ON_SIGNUP', 'CUSTOM']).optional().describe('Referral programs only.'),
    signupEvent: z.enum(['FORM_DETECTION', 'PROGRAMMATIC']),
    shareUrl: nUrl(2048).describe('Landing page for referral links; null = the hosted share page.'),
    useGrowSurfHostedLinks: bool,
    allowedUrls: z.array(httpUrl(2048)).max(50).describe('Extra sites where the window and SDK may run.'),
    allowedDomains: z
      .array(hostname)
      .max(50)
      .describe('refloop: host names allowed to embed the window; empty (with empty allowedUrls) = any site.'),
    signup: z.strictObject({
      isCustomForm: bool,
      url: nUrl(2048),
      redirectAfterSignup: bool,
      redirectUrl: nUrl(2048),
      trackInputFields: bool,
    }),
    mobile: z.strictObject({
      isEnabled: bool,
      publicKey: z.string().max(64).nullable().describe('Read-only publishable Mobile SDK key, created when the mobile SDK is first enabled.'),
      iosAttributionUrl: nUrl(2048),
      iosAppStoreUrl: nUrl(2048),
      androidPackageName: z
        .string()
        .max(255)
        .regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'Must be a package name such as com.example.app.')
        .nullable(),
      androidAppStoreUrl: nUrl(2048),
    }),
  })
  .meta({ description: 'The installation document: shareUrl null = the hosted share page; mobile.publicKey null until the mobile SDK is first enabled.' });

/**
 * `CampaignInstallation` as GET and PATCH answer it (rest-v2 §2.21): `shareUrl` and
 * `mobile.publicKey` are plain strings in the official schemas, so they are omitted while unset
 * rather than sent as null. A PATCH may still send `shareUrl: null` to clear it.
 */
export const campaignInstallationResponse = campaignInstallation
  .extend({
    shareUrl: z.string().max(2048).optional().describe('Landing page for referral links; omitted while unset (the hosted share page is used). PATCH null to clear it.'),
    mobile: campaignInstallation.shape.mobile.extend({
      publicKey: z.string().max(64).optional().describe('Read-only publishable Mobile SDK key; omitted until the mobile SDK is first enabled, kept when it is switched off.'),
    }),
  })
  .meta({ id: 'CampaignInstallation', description: 'The installation tab. shareUrl and mobile.publicKey are omitted while unset, never null.' });

export type CampaignDesign = z.infer<typeof campaignDesign>;
export type CampaignEmails = z.infer<typeof campaignEmails>;
export type CampaignOptions = z.infer<typeof campaignOptions>;
export type CampaignInstallation = z.infer<typeof campaignInstallation>;
/** One email template. */
export type EmailTemplate = z.infer<typeof emailTemplate>;

/** Fields that exist for one program type only, per document, as dotted paths (§3.0 "per type"). */
export const TYPE_ONLY_FIELDS: Record<DocumentKind, Record<string, ConfigProgramType>> = {
  design: {
    referralSummary: 'REFERRAL',
    affiliateSummary: 'AFFILIATE',
    commissions: 'AFFILIATE',
    payouts: 'AFFILIATE',
    'participantSettings.manualPayout': 'AFFILIATE',
    'participantSettings.wise': 'AFFILIATE',
  },
  emails: {
    welcomeReferred: 'REFERRAL',
    referralLinkUsed: 'REFERRAL',
    goalAchieved: 'REFERRAL',
    campaignEndedWinners: 'REFERRAL',
    campaignEndedNonWinners: 'REFERRAL',
    commissionGenerated: 'AFFILIATE',
    commissionAdjusted: 'AFFILIATE',
    payoutPending: 'AFFILIATE',
    payoutSentSuccess: 'AFFILIATE',
  },
  options: {
    requireManualRewardApproval: 'REFERRAL',
    autoFulfillRewards: 'REFERRAL',
    allowClientSideReferralTrigger: 'REFERRAL',
    payoutThreshold: 'AFFILIATE',
    taxDocumentation: 'AFFILIATE',
    affiliateApplicationMode: 'AFFILIATE',
    affiliateReapplicationPolicy: 'AFFILIATE',
    affiliateReapplicationCooldownDays: 'AFFILIATE',
    affiliateApplicationReviewEstimateBusinessDays: 'AFFILIATE',
    affiliateApplicationForm: 'AFFILIATE',
    ...Object.fromEntries(REFERRAL_ONLY_EVENTS.map((e) => [`notificationEmails.events.${e}`, 'REFERRAL' as const])),
    ...Object.fromEntries(AFFILIATE_ONLY_EVENTS.map((e) => [`notificationEmails.events.${e}`, 'AFFILIATE' as const])),
  },
  installation: { referralTrigger: 'REFERRAL' },
};

/** Fields the server owns: a PATCH may send them back unchanged but never change them. */
export const READ_ONLY_FIELDS: Record<DocumentKind, string[]> = {
  design: [],
  emails: ['settings.sender.fromEmail', ...TRANSACTIONAL_TEMPLATES.map((t) => `${t}.isEnabled`)],
  options: ['followUpReminder.enabledAt'],
  installation: ['mobile.publicKey'],
};

/** The wire schema of each document (optional type-only fields), as returned by GET. */
export const DOCUMENT_SCHEMAS = {
  design: campaignDesign,
  emails: campaignEmails,
  options: campaignOptions,
  installation: campaignInstallation,
} as const;

// ── Schema reshaping ────────────────────────────────────────────────────────────────────────────

/** Rebuilds an object schema with new fields, keeping its description (never its `id`). */
function rebuild(schema: z.ZodObject, shape: Record<string, z.ZodType>): z.ZodType {
  const { id: _id, ...meta } = (schema.meta() ?? {}) as Record<string, unknown>;
  const out = z.strictObject(shape);
  return Object.keys(meta).length ? out.meta(meta) : out;
}

/** Every field optional at every depth (objects stay closed): the PATCH body of a document. */
export function deepPartial(schema: z.ZodType): z.ZodType {
  let inner = schema;
  if (inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  if (inner instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodType>)) shape[k] = deepPartial(v).optional();
    return rebuild(inner, shape);
  }
  return inner;
}

/** The wire schema narrowed to one program type: the other type's fields removed, its own required. */
function forType(schema: z.ZodType, restricted: Record<string, ConfigProgramType>, type: ConfigProgramType, prefix = ''): z.ZodType {
  let inner = schema;
  let optional = false;
  if (inner instanceof z.ZodOptional) {
    optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  if (!(inner instanceof z.ZodObject)) return optional && !restricted[prefix.slice(0, -1)] ? schema : inner;
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
    const path = prefix + k;
    const only = restricted[path];
    if (only && only !== type) continue;
    shape[k] = forType(v, restricted, type, `${path}.`);
  }
  const out = rebuild(inner, shape);
  return optional && !restricted[prefix.slice(0, -1)] ? out.optional() : out;
}

const cache = new Map<string, z.ZodType>();
/** The exact, complete schema of one document for one program type (every field required). */
export function documentSchema(kind: DocumentKind, type: ConfigProgramType): z.ZodType {
  const key = `${kind}:${type}`;
  let s = cache.get(key);
  if (!s) {
    s = forType(DOCUMENT_SCHEMAS[kind], TYPE_ONLY_FIELDS[kind], type);
    cache.set(key, s);
  }
  return s;
}

/** PATCH bodies: deep partials of the wire schemas (type rules are checked against the program). */
export const campaignDesignUpdate = (deepPartial(campaignDesign) as z.ZodObject).meta({ id: 'CampaignDesignUpdate' }) as unknown as z.ZodType<DeepPartial<CampaignDesign>>;
/** `PATCH /campaign/{id}/emails` body. */
export const campaignEmailsUpdate = (deepPartial(campaignEmails) as z.ZodObject).meta({ id: 'CampaignEmailsUpdate' }) as unknown as z.ZodType<DeepPartial<CampaignEmails>>;
/** `PATCH /campaign/{id}/options` body. */
export const campaignOptionsUpdate = (deepPartial(campaignOptions) as z.ZodObject).meta({ id: 'CampaignOptionsUpdate' }) as unknown as z.ZodType<DeepPartial<CampaignOptions>>;
/** `PATCH /campaign/{id}/installation` body. */
export const campaignInstallationUpdate = (deepPartial(campaignInstallation) as z.ZodObject).meta({ id: 'CampaignInstallationUpdate' }) as unknown as z.ZodType<
  DeepPartial<CampaignInstallation>
>;

/** A partial at every depth; arrays are whole values. */
export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

// ── Integrations (§2.22) ────────────────────────────────────────────────────────────────────────

/** Integration keys in dashboard order with display names; `only` marks type-specific ones (§4, §3.6). */
export const INTEGRATIONS: ReadonlyArray<{ id: string; name: string; only?: ConfigProgramType }> = [
  { id: 'stripe', name: 'Stripe' },
  { id: 'chargebee', name: 'Chargebee', only: 'REFERRAL' },
  { id: 'recurly', name: 'Recurly', only: 'REFERRAL' },
  { id: 'paypal', name: 'PayPal' },
  { id: 'wisecom', name: 'Wise', only: 'AFFILIATE' },
  { id: 'tangocard', name: 'Tango Card', only: 'REFERRAL' },
  { id: 'hubspot', name: 'HubSpot' },
  { id: 'salesforce', name: 'Salesforce' },
  { id: 'marketo', name: 'Marketo' },
  { id: 'mailchimp', name: 'Mailchimp' },
  { id: 'activecampaign', name: 'ActiveCampaign' },
  { id: 'bentonow', name: 'Bento' },
  { id: 'mailerlite', name: 'MailerLite' },
  { id: 'resenddotcom', name: 'Resend' },
  { id: 'loopsdotso', name: 'Loops' },
  { id: 'convertkit', name: 'Kit (ConvertKit)' },
  { id: 'constantContact', name: 'Constant Contact' },
  { id: 'campaignMonitor', name: 'Campaign Monitor' },
  { id: 'aweber', name: 'AWeber' },
  { id: 'klaviyo', name: 'Klaviyo' },
  { id: 'mailjet', name: 'Mailjet' },
  { id: 'sendgrid', name: 'SendGrid' },
  { id: 'sendinblue', name: 'Brevo (Sendinblue)' },
  { id: 'emailoctopus', name: 'EmailOctopus' },
  { id: 'customerio', name: 'Customer.io' },
  { id: 'getresponse', name: 'GetResponse' },
  { id: 'drip', name: 'Drip' },
  { id: 'googleanalytics', name: 'Google Analytics' },
  { id: 'segmentanalytics', name: 'Segment' },
  { id: 'posthoganalytics', name: 'PostHog' },
  { id: 'mixpanelanalytics', name: 'Mixpanel' },
  { id: 'pendo', name: 'Pendo' },
  { id: 'fullstory', name: 'FullStory' },
  { id: 'heapanalytics', name: 'Heap' },
  { id: 'amplitude', name: 'Amplitude' },
  { id: 'googleads', name: 'Google Ads' },
  { id: 'metaads', name: 'Meta Ads' },
  { id: 'linkedinads', name: 'LinkedIn Ads' },
  { id: 'twitterads', name: 'X (Twitter) Ads' },
  { id: 'slack', name: 'Slack' },
  { id: 'intercom', name: 'Intercom' },
  { id: 'helpScout', name: 'Help Scout' },
  { id: 'zapier', name: 'Zapier' },
  { id: 'integromat', name: 'Make (Integromat)' },
  { id: 'pabblyConnect', name: 'Pabbly Connect' },
  { id: 'webhook', name: 'Webhooks' },
  { id: 'baskHealth', name: 'Bask Health' },
];

/** `Integration` (§2.22). */
export const integration = z
  .object({
    id: z.string().describe('Stable integration key, identical to the dashboard’s key.'),
    name: z.string(),
    connected: z.boolean(),
    enabled: z.boolean(),
    autoDisabled: z.boolean(),
    connectUrl: z.string(),
  })
  .meta({ id: 'Integration' });

/** `GET /campaign/{id}/integrations` response. */
export const integrationList = z.object({ integrations: z.array(integration) }).meta({ id: 'IntegrationListResponse' });

export type Integration = z.infer<typeof integration>;
