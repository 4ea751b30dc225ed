// The design document (rest-v2 §2.18): `campaignDesign`, every section of the window, share page,
// landing page and theme with typed, capped leaves.
import { z } from 'zod';
import { SHARE_CHANNELS, text, label, nText, nUrl, color, cssLength, bool, intIn, iconSpec, labelled } from './program-config-fields.ts';

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

export type CampaignDesign = z.infer<typeof campaignDesign>;
