// The options document's enumerations and its longer sections (rest-v2 §2.20,
// shared/schemas/program-config-options.ts) as data for settings-spec.tsx. The lists repeat the
// schemas' (which bring zod, not loaded by the console); test/console/settings-enums.test.ts fails
// when they drift.
import type { Section } from './settings-spec-types.ts';

/** Cookie window days (COOKIE_WINDOW_DAYS). */
export const COOKIE_WINDOW_DAYS = [1, 3, 7, 14, 30, 60, 90, 180, 365, 400] as const;
/** Credit window days (CREDIT_WINDOW_DAYS); null = never expires. */
export const CREDIT_WINDOW_DAYS = [1, 3, 7, 14, 30, 60, 90, 180, 365] as const;
/** Program languages (PROGRAM_LANGUAGES). */
export const PROGRAM_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'pl', 'sv', 'tr', 'ja', 'ko', 'zh-CN', 'id'] as const;
/** Payout providers (PAYOUT_PROVIDERS); WISECOM on affiliate programs only. */
export const PAYOUT_PROVIDERS = ['PAYPAL', 'VENMO', 'WISECOM'] as const;
/** Application question types (ANSWER_TYPES). */
export const ANSWER_TYPES = ['text', 'textarea', 'url', 'country', 'number', 'dropdown', 'radio', 'checkbox'] as const;
/** Question types that list choices. */
export const CHOICE_TYPES: readonly string[] = ['dropdown', 'radio'];
/** Affiliate application modes. */
export const APPLICATION_MODES = ['OPEN_ENROLLMENT', 'MANUAL_REVIEW', 'AUTO_APPROVE'] as const;
/** Fraud strictness levels. */
export const STRICTNESS = ['LENIENT', 'STANDARD', 'STRICT'] as const;

/** Affiliate applications beyond the mode (affiliate programs only: `root` hides them otherwise). */
export const APPLICATION_SECTION: Section = {
  id: 'applications',
  title: 'op.applications',
  root: 'affiliateApplicationMode',
  fields: [
    { k: 'select', p: 'affiliateApplicationMode', o: APPLICATION_MODES, l: 'options.applicationMode', ol: 'options.mode' },
    { k: 'int', p: 'affiliateApplicationReviewEstimateBusinessDays', n: true, h: true },
    { k: 'select', p: 'affiliateReapplicationPolicy', o: ['AFTER_COOLDOWN', 'DISABLED'] },
    { k: 'int', p: 'affiliateReapplicationCooldownDays', h: true },
    { k: 'url', p: 'affiliateApplicationForm.termsUrl', n: true, h: true },
  ],
};

/** Company details for payout invoices and VAT (affiliate programs only). */
export const TAX_SECTION: Section = {
  id: 'tax',
  title: 'op.tax',
  root: 'taxDocumentation',
  fields: [
    { k: 'text', p: 'taxDocumentation.companyName', n: true },
    { k: 'text', p: 'taxDocumentation.vatNumber', n: true },
    { k: 'check', p: 'taxDocumentation.collectAffiliateVat', h: true },
  ],
  more: [
    { k: 'text', p: 'taxDocumentation.addressLine1', n: true },
    { k: 'text', p: 'taxDocumentation.addressLine2', n: true },
    { k: 'text', p: 'taxDocumentation.city', n: true },
    { k: 'text', p: 'taxDocumentation.state', n: true },
    { k: 'text', p: 'taxDocumentation.postalCode', n: true },
    { k: 'text', p: 'taxDocumentation.country', n: true },
  ],
  moreTitle: 'op.tax.address',
};

/** Fraud protection: switches and limits, then the allow and block lists folded away. */
export const FRAUD_SECTION: Section = {
  id: 'fraud',
  title: 'options.fraud',
  fields: [
    { k: 'check', p: 'requireManualFraudApproval', l: 'options.manualFraud', h: 'options.manualFraudHint' },
    { k: 'check', p: 'autoBlockFraud', l: 'options.autoBlock', h: 'options.autoBlockHint' },
    { k: 'select', p: 'fraud.strictness', o: STRICTNESS, l: 'options.strictness', ol: 'options.strict' },
    { k: 'check', p: 'fraud.blockBurnerEmails', l: 'options.burner' },
    { k: 'check', p: 'fraud.blockDataCenterIps', l: 'options.dataCenter' },
    { k: 'check', p: 'fraud.blockHighRiskReferrers', h: true },
    { k: 'check', p: 'fraud.autoBlockHighRiskIps', h: true },
    { k: 'int', p: 'fraud.maxSignupsPerIp2Min', l: 'options.max2', h: 'options.max2Hint' },
    { k: 'int', p: 'fraud.maxSignupsPerIp10Min', l: 'options.max10', h: 'options.max10Hint' },
  ],
  moreTitle: 'op.lists',
  more: [
    {
      k: 'set',
      l: 'op.blocked',
      s: [
        { k: 'lines', p: 'fraud.blockedEmails', h: true },
        { k: 'lines', p: 'fraud.blockedEmailDomains', l: 'options.blockedDomains', h: true },
        { k: 'lines', p: 'fraud.blockedIps', h: true },
        { k: 'lines', p: 'fraud.blockedCountries', up: true, h: true },
      ],
    },
    {
      k: 'set',
      l: 'op.allowed',
      s: [
        { k: 'lines', p: 'fraud.allowedEmails', h: true },
        { k: 'lines', p: 'fraud.allowedIps', h: true },
        { k: 'lines', p: 'fraud.allowedCountries', up: true, h: true },
      ],
    },
  ],
};

/** reCAPTCHA on the sign-up form (the secret key is write-only: the page sends it only when typed). */
export const RECAPTCHA_SECTION: Section = {
  id: 'recaptcha',
  title: 'op.recaptcha',
  fields: [
    { k: 'check', p: 'fraud.recaptcha.isEnabled', h: true },
    { k: 'text', p: 'fraud.recaptcha.siteKey', n: true },
  ],
};
