// The starting design document of a new program: English window, share page and landing page copy
// for its type, share channels chosen by its goal, and the default brand colour.
import type { z } from 'zod';
import type { programGoal, programType } from '../../../shared/schemas/campaign.ts';
import { SHARE_CHANNELS } from '../../../shared/schemas/program-config-fields.ts';
import type { CampaignDesign } from '../../../shared/schemas/program-config-design.ts';

type ProgramType = z.infer<typeof programType>;
type Goal = z.infer<typeof programGoal>;

/** Goals whose audience shares at work, so LinkedIn is offered; consumer goals get messaging apps instead. */
export const BUSINESS_GOALS: readonly Goal[] = ['CUSTOMERS', 'USERS', 'B2B_SAAS_SELF_SERVICE', 'B2B_SAAS_ENTERPRISE', 'HEALTHCARE_PROVIDERS'];

/** The default accent colour of the window, landing page and emails. */
export const BRAND = '#4f46e5';

function shareChannels(goal: Goal | null): CampaignDesign['share']['channels'] {
  const business = goal === null || BUSINESS_GOALS.includes(goal);
  const consumer = goal !== null && !BUSINESS_GOALS.includes(goal);
  const visible = new Set<string>(['email', 'facebook', 'twitter', 'whatsapp']);
  if (business) visible.add('linkedin');
  if (consumer) {
    visible.add('sms');
    visible.add('messenger');
  }
  return Object.fromEntries(SHARE_CHANNELS.map((c) => [c, { isVisible: visible.has(c) }])) as CampaignDesign['share']['channels'];
}

function breakdown(label: string) {
  return { isVisible: true, label, levels: {}, values: {} };
}

/** The complete design document a new program of this type and goal starts with. */
export function defaultDesign(type: ProgramType, goal: Goal | null): CampaignDesign {
  const affiliate = type === 'AFFILIATE';
  const design: CampaignDesign = {
    window: { navigationMode: 'TABS' },
    header: affiliate
      ? {
          preText: 'Become an affiliate. Earn a commission on every customer you send our way.',
          postText: 'Share your affiliate link. You earn a commission on every sale it brings in.',
        }
      : {
          preText: 'Refer friends and earn rewards. Sign up to get your personal referral link.',
          postText: 'Share your link with friends. When they sign up, you both win.',
        },
    stats: { title: affiliate ? 'Your performance' : 'Your referrals' },
    share: {
      title: affiliate ? 'Your affiliate link' : 'Share your link',
      description: affiliate ? 'Use this link wherever you recommend us.' : 'Copy your link or share it on your favourite channels.',
      linkLabel: affiliate ? 'Your affiliate link' : 'Your referral link',
      copyButtonText: 'Copy',
      copiedText: 'Copied!',
      message: 'I think you will like this. Check it out: {{shareUrl}}',
      emailSubject: 'You should check this out',
      channels: shareChannels(goal),
      invite: {
        isEnabled: true,
        title: 'Invite friends by email',
        placeholder: 'friend@example.com, another@example.com',
        buttonText: 'Send invites',
        successText: 'Your invites are on their way.',
        maxRecipients: 10,
      },
      buttonStyle: { shape: 'ROUNDED', isLabelShown: false, isBrandColored: true },
    },
    signup: {
      fields: [
        { key: 'email', type: 'EMAIL', label: 'Email', placeholder: 'you@example.com', isRequired: true },
        { key: 'firstName', type: 'TEXT', label: 'First name', placeholder: 'Jane', isRequired: false },
      ],
      buttonText: affiliate ? 'Join the affiliate program' : 'Get my referral link',
      loginText: 'Already signed up?',
      loginLinkText: 'Sign in',
      gdpr: { isEnabled: false, text: 'I agree to receive emails about this program. I can unsubscribe at any time.', isCheckboxRequired: true },
      termsText: null,
    },
    referralStatus: {
      title: affiliate ? 'Your referred customers' : 'Your referrals',
      emptyState: 'Nobody has signed up through your link yet. Share it to get started.',
      statusLabels: { CREDIT_PENDING: 'Pending', CREDIT_AWARDED: 'Completed', CREDIT_EXPIRED: 'Expired', INVITE_SENT: 'Invited' },
    },
    leaderboard: {
      isEnabled: false,
      title: 'Leaderboard',
      rankLabel: 'Rank',
      nameLabel: 'Name',
      scoreLabel: affiliate ? 'Sales' : 'Referrals',
      youLabel: 'You',
      emptyState: 'No rankings yet.',
      selectorLabels: { ALL_TIME: 'All time', CURRENT_MONTH: 'This month', PREV_MONTH: 'Last month' },
      defaultSelector: 'ALL_TIME',
      nameFormat: 'FIRST_LAST_INITIAL',
    },
    referredExperience: {
      isOfferPopupEnabled: false,
      offerPopupTitle: null,
      offerPopupDescription: null,
      offerPopupButtonText: null,
      offerPopupImageUrl: null,
      isOfferPopupReferrerImageShown: true,
      offerPopupPlacement: 'CENTER',
      offerPopupDelaySeconds: 3,
      offerPopupThankYouText: null,
      offerPopupThankYouButtonText: null,
      isOfferPopupConfettiEnabled: true,
      isOfferPopupShownOnAllPages: false,
      offerPopupSecondaryLinkText: null,
      offerPopupSecondaryLinkUrl: null,
      isOfferPopupOverlayDimmed: true,
      offerPopupEmailPlaceholder: null,
      offerPopupPromoCodeCopyLabel: null,
      offerPopupSubmitError: null,
      isBannerEnabled: true,
      bannerText: affiliate ? '{{referrerName}} recommends us. Welcome!' : '{{referrerName}} sent you a special offer. Sign up to claim it.',
      bannerPlacement: 'TOP',
      isBannerClickableToSignupUrl: false,
      isHeadingEnabled: false,
      headingText: null,
      headingTarget: 'H1',
      headingPlacement: 'PREPEND',
      isHeadingStyled: true,
      isHeadingClickableToSignupUrl: false,
      pageTitleReplacement: null,
      referrerNameFormat: 'FIRST',
      referrerNameFallback: 'A friend',
    },
    rewards: {
      title: affiliate ? 'Your commission' : 'Rewards',
      description: affiliate ? 'What you earn for every customer you refer.' : 'What you earn for referring friends.',
      emptyState: affiliate ? 'No commissions yet.' : 'You have not earned a reward yet. Keep sharing!',
      icon: { type: 'DEFAULT', imageUrl: null },
    },
    participantSettings: {
      title: 'Settings',
      isLogoutShown: true,
      logoutText: 'Sign out',
      paypalEmail: { isEnabled: affiliate, label: 'PayPal email', placeholder: 'you@example.com', helpText: 'We send your payouts to this PayPal account.' },
      taxDetails: { isEnabled: affiliate, label: 'Tax details', helpText: 'Needed before we can send payouts.' },
    },
    landingPages: {
      isEnabled: false,
      company: { name: null, websiteUrl: null, logoUrl: null },
      content: {
        headline: affiliate ? 'Join our affiliate program' : 'Refer friends, earn rewards',
        subheadline: affiliate ? 'Earn a commission on every customer you refer.' : 'Share your link. Get rewarded when friends sign up.',
        body: '',
        buttonText: affiliate ? 'Become an affiliate' : 'Get my link',
      },
      styles: { backgroundColor: '#ffffff', textColor: '#111827', accentColor: BRAND, backgroundImageUrl: null },
      scripts: { googleAnalyticsId: null, googleTagManagerId: null, metaPixelId: null },
      seo: { title: affiliate ? 'Affiliate program' : 'Referral program', description: '', imageUrl: null, isIndexed: false },
    },
    theme: {
      primaryColor: BRAND,
      textColor: '#111827',
      mutedTextColor: '#6b7280',
      backgroundColor: '#ffffff',
      buttonTextColor: '#ffffff',
      fontFamily: 'INHERIT',
      borderRadius: '8px',
      isShadowEnabled: true,
      widget: { color: '#ffffff', backgroundColor: BRAND, borderRadius: '24px' },
      referredExperienceOfferPopup: { color: '#111827', backgroundColor: '#ffffff' },
    },
    participantAvatarStyle: 'CHARACTERS',
    login: {
      heading: 'Sign in',
      description: 'Enter the email you signed up with and we will send you a sign-in link.',
      fieldLabel: 'Email',
      fieldPlaceholder: 'you@example.com',
      buttonText: 'Email me a sign-in link',
      successHeading: 'Check your inbox',
      successBody: 'We sent a sign-in link to {{email}}. It expires soon, so use it right away.',
      resendPrompt: 'Did not get it?',
      resend: 'Send it again',
      resent: 'Sent again.',
      invalidEmail: 'Enter a valid email address.',
      cooldown: 'Please wait a moment before asking for another link.',
      serverError: 'Something went wrong. Please try again.',
      invalidLink: 'This sign-in link is invalid or has expired. Ask for a new one.',
    },
    payoutDestinationConfirmation: {
      headline: null,
      description: null,
      emailLabel: null,
      emailPlaceholder: null,
      emailAgainLabel: null,
      emailAgainPlaceholder: null,
      legalNameLabel: null,
      legalNamePlaceholder: null,
      legalTypeLabel: null,
      legalTypeIndividual: null,
      legalTypeBusiness: null,
      button: null,
      success: null,
      claimPending: null,
      errorMessages: { invalidEmail: null, emailMismatch: null, tokenExpired: null, tokenUsed: null, alreadyConfirmed: null, generic: null },
    },
    countryLabels: {},
    widget: {
      isShownToNewVisitors: false,
      isShownToParticipants: false,
      appearance: 'BUTTON',
      isArtShown: true,
      artImageUrl: null,
      newVisitorText: affiliate ? 'Become an affiliate' : 'Refer a friend',
      participantText: affiliate ? 'Your affiliate link' : 'Your referral link',
      buttonText: affiliate ? 'Earn with us' : 'Refer & earn',
      newVisitorDescription: affiliate ? 'Earn a commission for every customer you send.' : 'Invite friends and earn rewards.',
      participantDescription: 'Share your link and track your progress.',
      markKey: affiliate ? 'CASH' : 'GIFT',
      icon: 'DEFAULT',
      iconImageUrl: null,
      placement: 'BOTTOM_RIGHT',
      offsetSide: 24,
      offsetEdge: 24,
      reveal: 'IMMEDIATE',
      revealDelaySeconds: 0,
      returnAfterDays: 7,
      isHiddenOnMobile: false,
      pageRules: { mode: 'ALL', patterns: [] },
    },
    trafficInsights: {
      isPublicDisplayed: affiliate,
      title: 'Traffic',
      trafficForLabel: 'Traffic for',
      allLinksLabel: 'All links',
      visitsOverTimeTitle: 'Visits over time',
      breakdownsTitle: 'Where visits come from',
      viewTrafficInsightsLinkText: 'View traffic',
      backLinkText: 'Back',
      notSetLabel: '(not set)',
      emptyState: 'No visits yet. Share your link to see traffic here.',
      messages: {
        error: 'Traffic could not be loaded. Please try again.',
        unavailable: 'Traffic is not available yet.',
        partial: 'Some traffic data is still being collected.',
        partialFrom: 'Traffic is complete from {{date}}.',
        breakdownPartial: 'This breakdown is incomplete.',
        breakdownEmpty: 'Nothing to show for this breakdown yet.',
      },
      dateRangeLabels: { LAST_7_DAYS: 'Last 7 days', LAST_30_DAYS: 'Last 30 days', LAST_90_DAYS: 'Last 90 days', ALL_TIME: 'All time' },
      defaultDateRange: 'LAST_30_DAYS',
      metrics: {
        visits: { isVisible: true, label: 'Visits', helperText: 'Every time someone opened your link.' },
        uniqueVisitors: { isVisible: true, label: 'Unique visitors', helperText: 'Different people who opened your link.' },
      },
      breakdowns: {
        utm: breakdown('Campaigns'),
        referrer: breakdown('Referring sites'),
        destination: breakdown('Landing pages'),
        geo: breakdown('Countries'),
        technology: breakdown('Devices'),
        trigger: breakdown('Sources'),
      },
    },
    resources: {
      isPublicDisplayed: false,
      title: 'Resources',
      viewResourcesLinkText: 'View resources',
      backLinkText: 'Back',
      copyButtonText: 'Copy',
      copiedText: 'Copied!',
      emptyState: 'No resources yet.',
      icon: { type: 'DEFAULT', imageUrl: null },
    },
  };
  if (affiliate) {
    design.affiliateSummary = {
      isEnabled: true,
      title: 'Summary',
      tiles: { clicks: { isVisible: true, label: 'Clicks' }, revenue: { isVisible: true, label: 'Revenue' }, payouts: { isVisible: true, label: 'Paid out' } },
    };
    design.commissions = {
      isEnabled: true,
      title: 'Commissions',
      emptyState: 'No commissions yet.',
      statusLabels: { PENDING: 'Pending', APPROVED: 'Approved', PAID: 'Paid', REVERSED: 'Reversed' },
    };
    design.payouts = {
      isEnabled: true,
      title: 'Payouts',
      emptyState: 'No payouts yet.',
      statusLabels: { UPCOMING: 'Upcoming', QUEUED: 'Queued', ISSUED: 'Sent', FAILED: 'Failed', REVERSED: 'Reversed' },
    };
    design.participantSettings.manualPayout = { isEnabled: false, label: 'Payout details', instructions: '' };
    design.participantSettings.wise = { isEnabled: false, label: 'Wise account' };
  } else {
    design.referralSummary = {
      isEnabled: false,
      title: 'Summary',
      tiles: {
        clicks: { isVisible: true, label: 'Clicks' },
        leads: { isVisible: true, label: 'Leads' },
        referrals: { isVisible: true, label: 'Referrals' },
        rewards: { isVisible: true, label: 'Rewards' },
      },
    };
  }
  return design;
}
