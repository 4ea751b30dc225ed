// The design document (rest-v2 §2.18, shared/schemas/program-config-design.ts) as data for
// settings-spec.tsx: every field the API accepts, in sections an owner understands. The select values
// repeat the schema's enumerations (it brings zod, which the console does not load);
// test/console/settings-enums.test.ts fails when they drift or when a field of the schema is left out.
import type { Section, Spec } from './settings-spec-types.ts';

/** Share channels the window can offer (SHARE_CHANNELS). */
export const SHARE_CHANNELS = ['email', 'facebook', 'twitter', 'linkedin', 'pinterest', 'threads', 'bluesky', 'sms', 'messenger', 'whatsapp', 'wechat', 'telegram', 'reddit', 'tumblr', 'qrcode'] as const;
/** Kinds of answer a sign-up form field takes (signup.fields[].type). */
export const SIGNUP_FIELD_TYPES = ['EMAIL', 'TEXT', 'TEL', 'NUMBER', 'URL'] as const;
/** The traffic report's breakdowns, in the design's order (TRAFFIC_BREAKDOWNS). */
export const BREAKDOWNS = ['utm', 'referrer', 'destination', 'geo', 'technology', 'trigger'] as const;
const NAME_FORMATS = ['FIRST', 'FIRST_LAST_INITIAL', 'FIRST_LAST'] as const;
const BOARDS = ['ALL_TIME', 'CURRENT_MONTH', 'PREV_MONTH'] as const;
const RANGES = ['LAST_7_DAYS', 'LAST_30_DAYS', 'LAST_90_DAYS', 'ALL_TIME'] as const;
const ICONS = ['DEFAULT', 'IMAGE', 'NONE'] as const;

/** Theme colours and window headings the design form draws itself (DesignFields, also in the guided setup): path and label key. */
export const THEME_COLOURS = [
  ['theme.primaryColor', 'design.primary'],
  ['theme.buttonTextColor', 'design.buttonText'],
  ['theme.textColor', 'design.text'],
  ['theme.mutedTextColor', 'design.muted'],
  ['theme.backgroundColor', 'design.background'],
  ['theme.widget.backgroundColor', 'design.launcherBackground'],
  ['theme.widget.color', 'design.launcherText'],
] as const;
export const WINDOW_TEXTS = [
  ['header.preText', 'design.preText', true],
  ['header.postText', 'design.postText', true],
  ['widget.buttonText', 'design.launcher', false],
] as const;
/** Paths edited by controls of their own rather than a spec: the theme above and the sign-up form's field list. */
export const OWN_CONTROLS = [...THEME_COLOURS.map(([p]) => p), ...WINDOW_TEXTS.map(([p]) => p), 'theme.fontFamily', 'theme.borderRadius', 'signup.fields'];

type Flags = { n?: boolean; h?: boolean | string; l?: string; up?: boolean };
type Kind = 'text' | 'long' | 'url' | 'check' | 'color' | 'int' | 'lines' | 'map';
/** Fields of one kind: `keys` (space-separated) under `root`, each with `flags`. */
const of =
  (k: Kind) =>
  (root: string, keys: string, flags: Flags = {}): Spec[] =>
    keys.split(' ').map((key) => ({ k, p: root ? `${root}.${key}` : key, ...flags }) as Spec);
const text = of('text');
const long = of('long');
const url = of('url');
const check = of('check');
const color = of('color');
const int = of('int');
const lines = of('lines');
const map = of('map');
const select = (p: string, o: readonly (string | number)[], flags: Flags & { ol?: string } = {}): Spec => ({ k: 'select', p, o, ...flags }) as Spec;
/** A nested group titled by the message `l`, with the hint `h`. */
const set = (l: string, s: Spec[], grid?: boolean, h?: string): Spec => ({ k: 'set', l, s, grid, h });
/** Visible-and-label pairs (summary tiles). */
const labelled = (root: string, keys: string): Spec[] => keys.split(' ').flatMap((k) => [...check(`${root}.${k}`, 'isVisible'), ...text(`${root}.${k}`, 'label')]);

/** The design page's sections, in the order the form shows them. */
export const DESIGN_SECTIONS: Section[] = [
  {
    id: 'layout',
    title: 'ds.layout',
    fields: [select('window.navigationMode', ['TABS', 'LIST']), select('participantAvatarStyle', ['CHARACTERS', 'INITIALS', 'ANIMALS', 'GRADIENT']), ...text('stats', 'title'), ...check('theme', 'isShadowEnabled')],
  },
  {
    id: 'share',
    title: 'ds.share',
    fields: [
      ...text('share', 'title'),
      ...long('share', 'description'),
      ...long('share', 'message', { h: true }),
      set(
        'ds.share.channels',
        SHARE_CHANNELS.flatMap((c) => check(`share.channels.${c}`, 'isVisible', { l: `ds.channel.${c}` })),
        true,
      ),
    ],
    more: [
      ...text('share', 'linkLabel copyButtonText copiedText emailSubject'),
      select('share.buttonStyle.shape', ['SQUARE', 'ROUNDED', 'CIRCLE']),
      ...check('share.buttonStyle', 'isLabelShown isBrandColored'),
      set('ds.share.invite', [...check('share.invite', 'isEnabled'), ...text('share.invite', 'title placeholder buttonText successText'), ...int('share.invite', 'maxRecipients', { h: true })]),
    ],
  },
  {
    id: 'signup',
    title: 'ds.signup',
    fields: [...text('signup', 'buttonText'), ...check('signup.gdpr', 'isEnabled'), ...long('signup.gdpr', 'text'), ...check('signup.gdpr', 'isCheckboxRequired')],
    more: [...text('signup', 'loginText loginLinkText'), ...long('signup', 'termsText', { n: true })],
  },
  {
    id: 'login',
    title: 'ds.loginSection',
    hint: 'ds.loginSection.hint',
    fields: [...text('login', 'heading'), ...long('login', 'description'), ...text('login', 'fieldLabel fieldPlaceholder buttonText successHeading'), ...long('login', 'successBody', { h: true })],
    more: text('login', 'resendPrompt resend resent invalidEmail cooldown serverError invalidLink'),
    moreTitle: 'ds.loginSection.more',
  },
  {
    id: 'launcher',
    title: 'ds.launcher',
    fields: [
      ...check('widget', 'isShownToNewVisitors isShownToParticipants'),
      select('widget.appearance', ['BUTTON', 'CARD']),
      select('widget.placement', ['TOP_LEFT', 'TOP_CENTER', 'TOP_RIGHT', 'BOTTOM_LEFT', 'BOTTOM_CENTER', 'BOTTOM_RIGHT']),
      ...text('widget', 'newVisitorText participantText'),
    ],
    more: [
      ...long('widget', 'newVisitorDescription participantDescription'),
      select('widget.markKey', ['GIFT', 'TICKET', 'DISCOUNT', 'CASH', 'PERK', 'SHARE', 'LINK', 'INVITE', 'FRIENDS', 'THANKS'], { n: true }),
      ...check('widget', 'isArtShown'),
      ...url('widget', 'artImageUrl', { n: true }),
      select('widget.icon', ['CUSTOM', 'NONE', 'DEFAULT'], { h: true }),
      ...url('widget', 'iconImageUrl', { n: true }),
      ...int('widget', 'offsetSide offsetEdge', { h: true }),
      ...text('theme.widget', 'borderRadius', { h: true }),
      select('widget.reveal', ['IMMEDIATE', 'DELAY', 'SCROLL']),
      ...int('widget', 'revealDelaySeconds returnAfterDays', { h: true }),
      ...check('widget', 'isHiddenOnMobile'),
      select('widget.pageRules.mode', ['ALL', 'ONLY', 'EXCEPT']),
      ...lines('widget.pageRules', 'patterns', { h: true }),
    ],
  },
  {
    id: 'referred',
    title: 'ds.referred',
    fields: [
      ...check('referredExperience', 'isOfferPopupEnabled'),
      ...text('referredExperience', 'offerPopupTitle', { n: true }),
      ...long('referredExperience', 'offerPopupDescription', { n: true }),
      ...text('referredExperience', 'offerPopupButtonText', { n: true }),
      select('referredExperience.offerPopupPlacement', ['CENTER', 'BOTTOM', 'BOTTOM_RIGHT', 'BOTTOM_LEFT', 'TOP']),
      select('referredExperience.offerPopupDelaySeconds', [0, 3, 5, 10]),
      ...check('referredExperience', 'isBannerEnabled'),
      ...text('referredExperience', 'bannerText', { n: true }),
      select('referredExperience.bannerPlacement', ['TOP', 'BOTTOM']),
    ],
    more: [
      ...url('referredExperience', 'offerPopupImageUrl', { n: true }),
      ...check('referredExperience', 'isOfferPopupReferrerImageShown'),
      ...text('referredExperience', 'offerPopupThankYouText offerPopupThankYouButtonText', { n: true }),
      ...check('referredExperience', 'isOfferPopupConfettiEnabled isOfferPopupShownOnAllPages isOfferPopupOverlayDimmed'),
      ...text('referredExperience', 'offerPopupSecondaryLinkText', { n: true }),
      ...url('referredExperience', 'offerPopupSecondaryLinkUrl', { n: true }),
      ...text('referredExperience', 'offerPopupEmailPlaceholder offerPopupPromoCodeCopyLabel offerPopupSubmitError', { n: true }),
      ...color('theme.referredExperienceOfferPopup', 'color backgroundColor'),
      ...check('referredExperience', 'isBannerClickableToSignupUrl isHeadingEnabled'),
      ...text('referredExperience', 'headingText', { n: true }),
      select('referredExperience.headingTarget', ['H1', 'H2', 'H3', 'H4', 'H5']),
      select('referredExperience.headingPlacement', ['PREPEND', 'APPEND', 'REPLACE']),
      ...check('referredExperience', 'isHeadingStyled isHeadingClickableToSignupUrl'),
      ...text('referredExperience', 'pageTitleReplacement', { n: true }),
      select('referredExperience.referrerNameFormat', NAME_FORMATS),
      ...text('referredExperience', 'referrerNameFallback'),
    ],
  },
  {
    id: 'lists',
    title: 'ds.lists',
    fields: [
      ...text('referralStatus', 'title emptyState'),
      ...check('leaderboard', 'isEnabled'),
      ...text('leaderboard', 'title'),
      select('leaderboard.nameFormat', [...NAME_FORMATS, 'ANONYMOUS']),
      select('leaderboard.defaultSelector', BOARDS),
      ...text('rewards', 'title'),
      ...long('rewards', 'description'),
      ...text('rewards', 'emptyState'),
    ],
    more: [
      ...text('referralStatus.statusLabels', 'CREDIT_PENDING CREDIT_AWARDED CREDIT_EXPIRED INVITE_SENT'),
      ...text('leaderboard', 'rankLabel nameLabel scoreLabel youLabel emptyState'),
      ...text('leaderboard.selectorLabels', BOARDS.join(' ')),
      select('rewards.icon.type', ICONS),
      ...url('rewards.icon', 'imageUrl', { n: true }),
    ],
  },
  {
    id: 'summary',
    title: 'ds.summary',
    fields: [
      ...check('referralSummary', 'isEnabled'),
      ...text('referralSummary', 'title'),
      ...check('affiliateSummary', 'isEnabled'),
      ...text('affiliateSummary', 'title'),
      ...check('commissions', 'isEnabled'),
      ...text('commissions', 'title'),
      ...check('payouts', 'isEnabled'),
      ...text('payouts', 'title'),
    ],
    more: [
      ...labelled('referralSummary.tiles', 'clicks leads referrals rewards'),
      ...labelled('affiliateSummary.tiles', 'clicks revenue payouts'),
      ...text('commissions', 'emptyState'),
      ...text('commissions.statusLabels', 'PENDING APPROVED PAID REVERSED'),
      ...text('payouts', 'emptyState'),
      ...text('payouts.statusLabels', 'UPCOMING QUEUED ISSUED FAILED REVERSED'),
    ],
  },
  {
    id: 'traffic',
    title: 'ds.traffic',
    fields: [
      ...check('trafficInsights', 'isPublicDisplayed', { h: true }),
      ...text('trafficInsights', 'title'),
      select('trafficInsights.defaultDateRange', RANGES),
      set('ds.traffic.metrics', [...check('trafficInsights.metrics.visits', 'isVisible'), ...text('trafficInsights.metrics.visits', 'label helperText'), ...check('trafficInsights.metrics.uniqueVisitors', 'isVisible'), ...text('trafficInsights.metrics.uniqueVisitors', 'label helperText')]),
      set(
        'ds.traffic.breakdowns',
        BREAKDOWNS.flatMap((b) => check(`trafficInsights.breakdowns.${b}`, 'isVisible')),
        true,
      ),
    ],
    more: [
      ...text('trafficInsights', 'trafficForLabel allLinksLabel visitsOverTimeTitle breakdownsTitle viewTrafficInsightsLinkText backLinkText notSetLabel'),
      ...long('trafficInsights', 'emptyState'),
      set('ds.traffic.messages', [...text('trafficInsights.messages', 'error unavailable partial'), ...text('trafficInsights.messages', 'partialFrom', { h: true }), ...text('trafficInsights.messages', 'breakdownPartial breakdownEmpty')]),
      set('ds.traffic.ranges', text('trafficInsights.dateRangeLabels', RANGES.join(' '))),
      set(
        'ds.traffic.names',
        BREAKDOWNS.flatMap((b) => [...text(`trafficInsights.breakdowns.${b}`, 'label'), ...map(`trafficInsights.breakdowns.${b}`, 'values', { l: `ds.traffic.values.${b}` })]),
        false,
        'ds.traffic.names.hint',
      ),
      set(
        'ds.traffic.levels',
        BREAKDOWNS.flatMap((b) => map(`trafficInsights.breakdowns.${b}`, 'levels', { l: `ds.traffic.levels.${b}` })),
        false,
        'ds.traffic.levels.hint',
      ),
    ],
  },
  {
    id: 'resources',
    title: 'ds.resources',
    fields: [...check('resources', 'isPublicDisplayed', { h: true }), ...text('resources', 'title'), ...long('resources', 'emptyState')],
    more: [...text('resources', 'viewResourcesLinkText backLinkText copyButtonText copiedText'), select('resources.icon.type', ICONS, { ol: 'ds.rewards.icon.type' }), ...url('resources.icon', 'imageUrl', { n: true })],
  },
  {
    id: 'account',
    title: 'ds.account',
    fields: [
      ...text('participantSettings', 'title'),
      ...check('participantSettings', 'isLogoutShown'),
      ...text('participantSettings', 'logoutText'),
      ...check('participantSettings', 'paypalEmail.isEnabled taxDetails.isEnabled manualPayout.isEnabled wise.isEnabled'),
    ],
    more: [
      ...text('participantSettings', 'paypalEmail.label paypalEmail.placeholder paypalEmail.helpText taxDetails.label taxDetails.helpText manualPayout.label'),
      ...long('participantSettings', 'manualPayout.instructions'),
      ...text('participantSettings', 'wise.label'),
    ],
  },
  {
    id: 'payoutConfirm',
    title: 'ds.payoutConfirm',
    hint: 'ds.payoutConfirm.hint',
    fields: [...text('payoutDestinationConfirmation', 'headline', { n: true }), ...long('payoutDestinationConfirmation', 'description', { n: true }), ...text('payoutDestinationConfirmation', 'button success', { n: true })],
    more: [
      ...text('payoutDestinationConfirmation', 'emailLabel emailPlaceholder emailAgainLabel emailAgainPlaceholder legalNameLabel legalNamePlaceholder legalTypeLabel legalTypeIndividual legalTypeBusiness claimPending', { n: true }),
      set('ds.payoutConfirm.errors', text('payoutDestinationConfirmation.errorMessages', 'invalidEmail emailMismatch tokenExpired tokenUsed alreadyConfirmed generic', { n: true })),
    ],
  },
  {
    id: 'countries',
    title: 'ds.countries',
    fields: map('', 'countryLabels', { up: true, n: true, h: true }),
  },
  {
    id: 'landing',
    title: 'ds.landing',
    fields: [
      ...check('landingPages', 'isEnabled', { h: true }),
      ...text('landingPages.content', 'headline'),
      ...long('landingPages.content', 'subheadline body'),
      ...text('landingPages.content', 'buttonText'),
      ...text('landingPages.company', 'name', { n: true }),
      ...url('landingPages.company', 'websiteUrl logoUrl', { n: true }),
    ],
    more: [
      ...color('landingPages.styles', 'backgroundColor textColor accentColor'),
      ...url('landingPages.styles', 'backgroundImageUrl', { n: true }),
      ...text('landingPages.seo', 'title'),
      ...long('landingPages.seo', 'description'),
      ...url('landingPages.seo', 'imageUrl', { n: true }),
      ...check('landingPages.seo', 'isIndexed'),
      ...text('landingPages.scripts', 'googleAnalyticsId googleTagManagerId metaPixelId', { n: true }),
    ],
  },
];
