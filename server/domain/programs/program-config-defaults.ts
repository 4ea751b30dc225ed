import type { z } from 'zod';
import type { programGoal, programType } from '../../../shared/schemas/campaign.ts';
import type { CampaignDesign } from '../../../shared/schemas/program-config-design.ts';
import type { CampaignEmails } from '../../../shared/schemas/program-config-emails.ts';
import { storedDefault, type TemplateCopyKey } from './email-copy/index.ts';
import type { CampaignInstallation } from '../../../shared/schemas/program-config-installation.ts';
import { NOTIFICATION_EVENTS, type CampaignOptions } from '../../../shared/schemas/program-config-options.ts';
import { BRAND, defaultDesign } from './program-config-default-design.ts';

type ProgramType = z.infer<typeof programType>;
type Goal = z.infer<typeof programGoal>;

/** The four configuration documents every program carries, complete (every field present). */
export interface ProgramDocuments {
  design: CampaignDesign;
  emails: CampaignEmails;
  options: CampaignOptions;
  installation: CampaignInstallation;
}

/**
 * Complete starting documents for a new program of this type and goal: English copy a widget can
 * render as is, every email template written, safe option defaults. Stored at creation and
 * validated against `documentSchema` in the tests for both types and every goal.
 */
export function defaultDocuments(type: ProgramType, goal: Goal | null): ProgramDocuments {
  return { design: defaultDesign(type, goal), emails: defaultEmails(type), options: defaultOptions(type), installation: defaultInstallation(type) };
}

// Email copy: the English of ./email-copy (issue #27 keeps every program language there; an
// unedited default is sent in the participant's language). Bodies are small HTML fragments the
// mail layout wraps.
function defaultEmails(type: ProgramType): CampaignEmails {
  const t = (key: TemplateCopyKey, isEnabled = true) => storedDefault(type, key, isEnabled);
  const emails: CampaignEmails = {
    welcomeNonReferred: t('welcomeNonReferred'),
    referralLinkViewedFirstTime: t('referralLinkViewedFirstTime', false),
    referredSignup: t('referredSignup'),
    progressUpdateMonthly: t('progressUpdateMonthly', false),
    invite: { ...t('invite'), useCompanyReplyTo: false },
    loginLink: t('loginLink'),
    paypalEmailConfirmation: t('paypalEmailConfirmation'),
    taxInfoMissing: t('taxInfoMissing'),
    taxInfoReceived: t('taxInfoReceived'),
    taxInfoApproved: t('taxInfoApproved'),
    taxInfoRejected: t('taxInfoRejected'),
    settings: {
      sender: { fromName: null, fromEmail: '', replyToEmail: null },
      contact: { companyName: null, addressLine1: null, addressLine2: null, city: null, state: null, postalCode: null, country: null },
      design: { logoUrl: null, primaryColor: BRAND, backgroundColor: '#f9fafb', textColor: '#111827', footerText: null },
    },
  };
  if (type === 'AFFILIATE') {
    emails.commissionGenerated = t('commissionGenerated');
    emails.commissionAdjusted = t('commissionAdjusted');
    emails.payoutPending = t('payoutPending');
    emails.payoutSentSuccess = t('payoutSentSuccess');
  } else {
    emails.welcomeReferred = t('welcomeReferred');
    emails.referralLinkUsed = t('referralLinkUsed');
    // The reward's description is the owner's free text (a phrase or a whole sentence), so it stands in its own paragraph.
    emails.goalAchieved = t('goalAchieved');
    emails.campaignEndedWinners = t('campaignEndedWinners');
    emails.campaignEndedNonWinners = t('campaignEndedNonWinners');
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
    signup: {
      isCustomForm: false,
      url: null,
      redirectAfterSignup: false,
      redirectUrl: null,
      trackInputFields: false,
      formFields: { form: null, email: null, firstName: null, lastName: null },
    },
    mobile: { isEnabled: false, publicKey: null, iosAttributionUrl: null, iosAppStoreUrl: null, androidPackageName: null, androidAppStoreUrl: null },
    stripe: { clientReferenceId: 'AUTO' },
  };
  if (type === 'REFERRAL') installation.referralTrigger = 'ON_SIGNUP';
  return installation;
}
