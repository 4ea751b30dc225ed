import type { z } from 'zod';
import type { programGoal, programType } from '../../shared/schemas/campaign.ts';
import {
  SHARE_CHANNELS,
  type CampaignDesign,
  type CampaignEmails,
  type CampaignInstallation,
  type CampaignOptions,
  type EmailTemplate,
  NOTIFICATION_EVENTS,
} from '../../shared/schemas/program-config.ts';

type ProgramType = z.infer<typeof programType>;
type Goal = z.infer<typeof programGoal>;

/** The four configuration documents every program carries, complete (every field present). */
export interface ProgramDocuments {
  design: CampaignDesign;
  emails: CampaignEmails;
  options: CampaignOptions;
  installation: CampaignInstallation;
}

/** Goals whose audience shares at work, so LinkedIn is offered; consumer goals get messaging apps instead. */
export const BUSINESS_GOALS: readonly Goal[] = ['CUSTOMERS', 'USERS', 'B2B_SAAS_SELF_SERVICE', 'B2B_SAAS_ENTERPRISE', 'HEALTHCARE_PROVIDERS'];

const BRAND = '#4f46e5';

/**
 * Complete starting documents for a new program of this type and goal: English copy a widget can
 * render as is, every email template written, safe option defaults. Stored at creation and
 * validated against `documentSchema` in the tests for both types and every goal.
 */
export function defaultDocuments(type: ProgramType, goal: Goal | null): ProgramDocuments {
  return { design: defaultDesign(type, goal), emails: defaultEmails(type), options: defaultOptions(type), installation: defaultInstallation(type) };
}

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

function defaultDesign(type: ProgramType, goal: Goal | null): CampaignDesign {
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

// Email copy. Merge tags: {{firstName}}, {{shareUrl}}, {{companyName}} everywhere; the per-template
// ones are named next to each template. Bodies are small HTML fragments the mail layout wraps.
const p = (...lines: string[]) => lines.map((l) => `<p>${l}</p>`).join('\n');
const t = (subject: string, preheader: string, body: string, isEnabled = true): EmailTemplate => ({ subject, preheader, body, isEnabled });
const linkButton = '<p><a href="{{shareUrl}}">{{shareUrl}}</a></p>';

function defaultEmails(type: ProgramType): CampaignEmails {
  const affiliate = type === 'AFFILIATE';
  const emails: CampaignEmails = {
    welcomeNonReferred: affiliate
      ? t(
          'Welcome to the {{companyName}} affiliate program',
          'Your affiliate link is ready.',
          p('Hi {{firstName}},', "Welcome aboard! Here's your affiliate link. Share it wherever you recommend us, and you'll earn a commission on every sale it brings in:") + linkButton,
        )
      : t(
          'Your {{companyName}} referral link',
          'Share it with friends and earn rewards.',
          p('Hi {{firstName}},', "Thanks for joining! Here's your personal referral link. Share it with friends, and you'll earn rewards when they sign up:") + linkButton,
        ),
    referralLinkViewedFirstTime: t(
      'Someone just opened your link',
      'Your link got its first visit.',
      p('Hi {{firstName}},', 'Good news: someone just opened your link for the first time. Keep sharing it:') + linkButton,
      false,
    ),
    referredSignup: affiliate
      ? t('A new customer signed up through your link', 'You referred someone new.', p('Hi {{firstName}},', "{{referredFirstName}} signed up through your affiliate link. You'll earn a commission when they buy."))
      : t('{{referredFirstName}} signed up with your link', 'You referred a friend.', p('Hi {{firstName}},', '{{referredFirstName}} just signed up through your referral link. Thanks for spreading the word!')),
    progressUpdateMonthly: t(
      'Your monthly update',
      'How your link did this month.',
      affiliate
        ? p('Hi {{firstName}},', 'Here is how your affiliate link is doing.', 'Customers referred so far: {{referralCount}}', 'Keep sharing it:') + linkButton
        : p('Hi {{firstName}},', 'Here is how your referral link is doing.', 'Friends referred so far: {{referralCount}}', 'Keep sharing it:') + linkButton,
      false,
    ),
    invite: {
      ...t(
        '{{referrerFirstName}} invited you to {{companyName}}',
        'A personal invitation from {{referrerFirstName}}.',
        p('Hi,', "{{referrerFirstName}} thinks you'll like {{companyName}} and sent you this message:", '{{messageText}}', 'Sign up with their link:') + linkButton,
      ),
      useCompanyReplyTo: false,
    },
    loginLink: t('Your sign-in link', 'Sign in with one click.', p('Hi {{firstName}},', 'Use this link to sign in. It works once and expires in 15 minutes:', '<a href="{{loginUrl}}">Sign in</a>')),
    paypalEmailConfirmation: t(
      'Confirm your PayPal email',
      'One click to confirm where we send your payouts.',
      p('Hi {{firstName}},', 'Please confirm that payouts should go to the PayPal account {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Confirm my PayPal email</a>'),
    ),
    taxInfoMissing: t(
      'We need your tax information',
      'Required before we can pay you.',
      p('Hi {{firstName}},', 'Before we can send your payouts, we need your tax information. It only takes a few minutes:', '<a href="{{taxInfoUrl}}">Add my tax information</a>'),
    ),
    taxInfoReceived: t('We received your tax information', 'We are reviewing it.', p('Hi {{firstName}},', 'Thanks, we received your tax information and will review it shortly.')),
    taxInfoApproved: t('Your tax information was approved', 'You are all set for payouts.', p('Hi {{firstName}},', 'Your tax information was approved. You are all set to receive payouts.')),
    taxInfoRejected: t(
      'Your tax information needs another look',
      'Please update your tax information.',
      p('Hi {{firstName}},', 'We could not accept your tax information. The reason we were given:', '{{reason}}', '<a href="{{taxInfoUrl}}">Update my tax information</a>'),
    ),
    settings: {
      sender: { fromName: null, fromEmail: '', replyToEmail: null },
      contact: { companyName: null, addressLine1: null, addressLine2: null, city: null, state: null, postalCode: null, country: null },
      design: { logoUrl: null, primaryColor: BRAND, backgroundColor: '#f9fafb', textColor: '#111827', footerText: null },
    },
  };
  if (affiliate) {
    emails.commissionGenerated = t(
      'You earned a {{commissionAmount}} commission',
      'A sale through your link.',
      p('Hi {{firstName}},', 'A customer you referred just made a purchase, and you earned a commission of {{commissionAmount}}.'),
    );
    emails.commissionAdjusted = t(
      'A commission was adjusted',
      'A refund or chargeback changed a commission.',
      p('Hi {{firstName}},', 'A refund or chargeback changed one of your commissions. It is now {{commissionAmount}}.'),
    );
    emails.payoutPending = t('A payout of {{payoutAmount}} is on its way', 'Your next payout is scheduled.', p('Hi {{firstName}},', 'Your payout of {{payoutAmount}} is scheduled and will be sent soon.'));
    emails.payoutSentSuccess = t('We sent you {{payoutAmount}}', 'Your payout was sent.', p('Hi {{firstName}},', 'We just sent your payout of {{payoutAmount}}. Thanks for being a great partner!'));
  } else {
    emails.welcomeReferred = t(
      'Welcome! {{referrerFirstName}} referred you',
      'Your referral link is ready too.',
      p('Hi {{firstName}},', 'Thanks for joining! {{referrerFirstName}} referred you, and you can earn rewards too by sharing your own link with friends:') + linkButton,
    );
    emails.referralLinkUsed = t(
      'Your referral counts',
      'A friend you referred completed their referral.',
      p('Hi {{firstName}},', 'Good news: {{referredFirstName}} joined through your link, and the referral now counts for you.', 'Friends referred so far: {{referralCount}}', 'Keep sharing your link:') + linkButton,
    );
    // The reward's description is the owner's free text (a phrase or a whole sentence), so it stands in its own paragraph.
    emails.goalAchieved = t(
      'You earned a reward!',
      'Congratulations, a reward is yours.',
      p('Hi {{firstName}},', 'Congratulations, you earned a reward:', '<strong>{{rewardDescription}}</strong>', 'Thank you for spreading the word about {{companyName}}!'),
    );
    emails.campaignEndedWinners = t('The program has ended: you won!', 'Thanks for taking part.', p('Hi {{firstName}},', 'Our referral program has ended, and you are one of the winners. We will be in touch about your reward.'));
    emails.campaignEndedNonWinners = t('The program has ended', 'Thanks for taking part.', p('Hi {{firstName}},', 'Our referral program has ended. Thank you for taking part and for spreading the word!'));
  }
  return emails;
}

function defaultOptions(type: ProgramType): CampaignOptions {
  const affiliate = type === 'AFFILIATE';
  const events = Object.fromEntries(
    NOTIFICATION_EVENTS[type].map((e) => [e, !['WEEKLY_PERFORMANCE_REPORT', 'NEW_PARTICIPANT_ADDED_NON_REFERRED', 'MONTHLY_PAYOUT_REMINDER'].includes(e)]),
  );
  const options: CampaignOptions = {
    requireManualFraudApproval: false,
    autoBlockFraud: true,
    requireParticipantAuth: affiliate,
    enforceGdprCompliance: false,
    blockPaidAdsTraffic: false,
    referralCookieWindowDays: 90,
    referralCreditWindowDays: null,
    attributionModel: 'LAST_CLICK',
    languages: { baseLanguage: 'en', additionalLanguages: [] },
    fraud: {
      strictness: 'STANDARD',
      blockedEmails: [],
      blockedEmailDomains: [],
      blockedIps: [],
      blockedCountries: [],
      allowedEmails: [],
      allowedIps: [],
      allowedCountries: [],
      blockBurnerEmails: true,
      blockDataCenterIps: false,
      blockHighRiskReferrers: true,
      autoBlockHighRiskIps: false,
      maxSignupsPerIp2Min: 5,
      maxSignupsPerIp10Min: 15,
      recaptcha: { isEnabled: false, siteKey: null },
    },
    notificationEmails: { recipients: [], events },
    followUpReminder: { isEnabled: false, delayDays: 3, enabledAt: null },
    referralEmailPrivacy: { masking: 'PARTIAL', allowInvitedEmailDisclosureAfterSignIn: false },
    payoutSettings: { enabledProviders: affiliate ? ['PAYPAL'] : [], requireTaxInfo: false },
  };
  if (affiliate) {
    options.payoutThreshold = null;
    options.affiliateApplicationMode = 'OPEN_ENROLLMENT';
    options.affiliateReapplicationPolicy = 'AFTER_COOLDOWN';
    options.affiliateReapplicationCooldownDays = 30;
    options.affiliateApplicationReviewEstimateBusinessDays = 3;
    options.affiliateApplicationForm = { questions: [], termsUrl: null };
    options.taxDocumentation = {
      companyName: null,
      vatNumber: null,
      addressLine1: null,
      addressLine2: null,
      city: null,
      state: null,
      postalCode: null,
      country: null,
      collectAffiliateVat: false,
    };
  } else {
    options.requireManualRewardApproval = false;
    options.autoFulfillRewards = false;
    options.allowClientSideReferralTrigger = false;
  }
  return options;
}

function defaultInstallation(type: ProgramType): CampaignInstallation {
  const installation: CampaignInstallation = {
    signupEvent: 'PROGRAMMATIC',
    shareUrl: null,
    useGrowSurfHostedLinks: false,
    allowedUrls: [],
    allowedDomains: [],
    signup: { isCustomForm: false, url: null, redirectAfterSignup: false, redirectUrl: null, trackInputFields: false },
    mobile: { isEnabled: false, publicKey: null, iosAttributionUrl: null, iosAppStoreUrl: null, androidPackageName: null, androidAppStoreUrl: null },
  };
  if (type === 'REFERRAL') installation.referralTrigger = 'ON_SIGNUP';
  return installation;
}
