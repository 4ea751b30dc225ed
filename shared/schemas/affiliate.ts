import { z } from 'zod';
import { epochMs } from './common.ts';

// Affiliate enrollment (rest-v2 §2.32–§2.34, §3.8 P14/P15, §3.12 AF1–AF7) and the participant API's
// application form, payout destination and tax operations (issue #6, docs/participant-api.md).

/** Answer types of the application form (rest-v2 §4, lower-case on the wire). */
export const ANSWER_TYPES = ['text', 'textarea', 'url', 'country', 'number', 'dropdown', 'radio', 'checkbox'] as const;
/** Payout providers a program can enable (mobile API, rest-v2 §4). */
export const PAYOUT_PROVIDERS = ['PAYPAL', 'VENMO', 'WISECOM'] as const;
/** Customer-facing provider names (§2.34 `providerDisplayName`). */
export const PROVIDER_DISPLAY_NAMES: Record<(typeof PAYOUT_PROVIDERS)[number], string> = { PAYPAL: 'PayPal', VENMO: 'Venmo', WISECOM: 'Wise' };
/** Payout destination statuses (rest-v2 §4, an open string on the wire). */
export const PAYOUT_DESTINATION_STATUSES = ['NONE', 'PENDING_CONFIRMATION', 'CONFIRMED', 'ACTIVE', 'NEEDS_REPAIR', 'EXPIRED'] as const;
/** refloop's tax information statuses (the references leave them open; docs/decisions.md). */
export const TAX_STATUSES = ['NOT_STARTED', 'SESSION_STARTED', 'SUBMITTED'] as const;

/** Codes Intl names that are not countries (unknown, groupings, organisations). */
const NOT_COUNTRIES = new Set(['ZZ', 'EU', 'EZ', 'UN', 'QO']);
let regionNames: Intl.DisplayNames | null | undefined;

/**
 * True for an upper-case ISO 3166-1 alpha-2 code of a real country or territory (XK for Kosovo
 * included). Built lazily: this module also ships in the widget, which must never throw on load.
 */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return false;
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
    return regionNames.of(code) !== code;
  } catch {
    // Without Intl region names only the shape can be checked.
    regionNames = null;
    return true;
  }
}

const isoCountry = z.string().refine(isCountryCode, 'ISO 3166-1 alpha-2 country code such as US.');
const name255 = z.string().trim().max(255);

/** One question of the saved application form (options.affiliateApplicationForm.questions[]). */
export const applicationQuestion = z.strictObject({
  fieldId: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, '1–40 letters, digits, _ or -.'),
  label: z.string().trim().min(1).max(255),
  type: z.enum(ANSWER_TYPES),
  isRequired: z.boolean(),
  options: z.array(z.string().trim().min(1).max(255)).max(50).optional().describe('The choices of a dropdown or radio question.'),
});

/** One answer as stored and returned (§2.32 Answer). */
export const applicationAnswer = z
  .object({ fieldId: z.string(), label: z.string(), type: z.enum(ANSWER_TYPES), value: z.union([z.string(), z.number(), z.boolean()]) })
  .meta({ id: 'AffiliateApplicationAnswer' });

/** AffiliateApplication (§2.32): every key present, nullable ones null. */
export const affiliateApplication = z
  .object({
    id: z.string(),
    answers: z.array(applicationAnswer),
    createdAt: epochMs,
    decidedAt: epochMs.nullable(),
    reviewedAt: epochMs.nullable(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    participantId: z.string().nullable(),
    reapplyAllowedAt: epochMs.nullable(),
    rejectionReason: z.string().nullable(),
    riskLevel: z.enum(['LOW', 'MEDIUM', 'HIGH']).nullable(),
    status: z.enum(['PENDING', 'APPROVED', 'DENIED']),
    termsAcceptedAt: epochMs.nullable(),
  })
  .meta({ id: 'AffiliateApplication' });

const offsetPage = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
};

/** AF1 query. */
export const applicationListQuery = z.object({ ...offsetPage, status: z.enum(['PENDING', 'APPROVED', 'DENIED']).optional() });
/** AF1 response. */
export const applicationList = z
  .object({ applications: z.array(affiliateApplication), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'AffiliateApplicationListResponse' });

/** AF18 query (refloop extension): no parameters; an unknown one is refused so a typo is not silently ignored. */
export const applicationCountsQuery = z.strictObject({});

/** `AffiliateApplicationCounts` (AF18, refloop extension): how many of the program's applications AF1 lists in each status, and without one (ALL). */
export const applicationCounts = z
  .object({
    PENDING: z.number().int(),
    APPROVED: z.number().int(),
    DENIED: z.number().int(),
    ALL: z.number().int(),
  })
  .meta({ id: 'AffiliateApplicationCounts' });

/** AF3 body: exactly one of `status` or `reapplyAllowedAt` (checked in the domain for a per-field answer). */
export const applicationReview = z
  .strictObject({
    status: z.enum(['APPROVED', 'DENIED']).optional(),
    rejectionReason: z.string().trim().min(1).max(255).optional(),
    reviewNote: z.string().trim().min(1).max(500).optional(),
    allowImmediateReapply: z.boolean().optional(),
    reapplyAllowedAt: epochMs.optional(),
  })
  .meta({ id: 'ReviewAffiliateApplication' });

/** AffiliateInvite (§2.33). */
export const affiliateInvite = z
  .object({
    id: z.string(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    status: z.enum(['PENDING', 'ACCEPTED', 'EXPIRED', 'REVOKED']),
    createdAt: epochMs,
    expiresAt: epochMs,
    lastSentAt: epochMs,
    acceptedAt: epochMs.nullable(),
    revokedAt: epochMs.nullable(),
  })
  .meta({ id: 'AffiliateInvite' });

/** AF4 query. */
export const inviteListQuery = z.object({ ...offsetPage, status: z.enum(['PENDING', 'ACCEPTED', 'EXPIRED', 'REVOKED']).optional() });
/** AF4 response. */
export const inviteList = z
  .object({ invites: z.array(affiliateInvite), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'AffiliateInviteListResponse' });
/** AF5 body. */
export const inviteCreate = z
  .strictObject({ email: z.email().max(254).describe('rest-v2 says ≤ 255; an address is at most 254 characters (RFC 5321).'), firstName: name255.optional(), lastName: name255.optional() })
  .meta({ id: 'CreateAffiliateInvite' });

/** P14 destination entry (§2.34). */
export const payoutDestination = z.object({
  provider: z.string(),
  providerDisplayName: z.string(),
  status: z.string(),
  claimEmail: z.string().nullable(),
  confirmedAt: epochMs.nullable(),
  legalEntityType: z.enum(['INDIVIDUAL', 'BUSINESS']).nullable(),
  needsRepairReason: z.string().nullable(),
});
/** P14 response. */
export const payoutDestinationStatus = z
  .object({ activeProvider: z.string().nullable(), enabledProviders: z.array(z.string()), destinations: z.array(payoutDestination) })
  .meta({ id: 'ParticipantGetPayoutDestinationResponse' });
/** P15 body (REST lists PAYPAL and WISECOM; a later SDK and the mobile API add VENMO). */
export const payoutConfirmationRequest = z.strictObject({ provider: z.enum(PAYOUT_PROVIDERS) }).meta({ id: 'RequestPayoutDestinationConfirmation' });
/** P15 response. */
export const payoutConfirmationRequested = z
  .object({ status: z.literal('CONFIRMATION_REQUESTED'), provider: z.string(), providerDisplayName: z.string(), expiresAt: epochMs.nullable() })
  .meta({ id: 'ParticipantRequestPayoutDestinationConfirmationResponse' });
/** Participant API confirmation response: P15's plus `success` (seed: Mobile SDK table). */
export const mobilePayoutConfirmationRequested = payoutConfirmationRequested.extend({ success: z.literal(true) }).meta({ id: 'MobilePayoutConfirmationResponse' });

/** The sanitised tax status: what is stored, never a tax id number. */
export const taxStatus = z
  .object({
    status: z.enum(TAX_STATUSES),
    required: z.boolean().describe('options.payoutSettings.requireTaxInfo for this participant.'),
    formType: z.enum(['W9', 'W8']).nullable(),
    residencyCountryCode: z.string().nullable(),
    vatNumber: z.string().nullable(),
    submittedAt: epochMs.nullable(),
    sessionExpiresAt: epochMs.nullable(),
  })
  .meta({ id: 'TaxInfoStatus' });
/** requestTaxInfoSession body. */
export const taxSessionRequest = z.strictObject({ residencyCountryCode: isoCountry.optional() }).meta({ id: 'TaxInfoSessionRequest' });
/** requestTaxInfoSession response: the hosted page and the new status. */
export const taxSession = z.object({ hostedUrl: z.string(), expiresAt: epochMs, taxStatus }).meta({ id: 'TaxInfoSession' });
/** saveTaxResidency body. */
export const taxResidencySave = z.strictObject({ residencyCountryCode: isoCountry }).meta({ id: 'TaxResidencySave' });
/** saveTaxVat body: an empty string clears the number. */
export const taxVatSave = z
  .strictObject({ number: z.string().trim().max(32).regex(/^$|^[A-Za-z0-9 .-]{2,32}$/, 'Letters, digits, spaces, dots and dashes.') })
  .meta({ id: 'TaxVatSave' });
/** Save responses of the tax operations. */
export const taxSaved = z.object({ success: z.literal(true), taxStatus }).meta({ id: 'TaxInfoSaveResponse' });

/** The public application form the window shows (participant API). */
export const applicationForm = z
  .object({
    mode: z.enum(['OPEN_ENROLLMENT', 'MANUAL_REVIEW', 'AUTO_APPROVE']),
    questions: z.array(applicationQuestion),
    termsUrl: z.string().nullable(),
    reviewEstimateBusinessDays: z.number().int().nullable(),
  })
  .meta({ id: 'AffiliateApplicationForm' });
/** The participant API's application submission. */
export const applicationSubmit = z
  .strictObject({
    email: z.email().max(254),
    firstName: name255.optional(),
    lastName: name255.optional(),
    answers: z.record(z.string().max(40), z.union([z.string().max(5000), z.number(), z.boolean()])).default({}),
    acceptTerms: z.boolean().optional(),
    recaptchaToken: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .meta({ description: 'Pages of a program with options.fraud.recaptcha on: a reCAPTCHA token (action `signup`), as for MP2.' }),
  })
  .meta({ id: 'AffiliateApplicationSubmit' });
/** What a submission did: enrolled (OPEN_ENROLLMENT, or AUTO_APPROVE at low risk) or waiting for review. */
export const applicationSubmitted = z
  .object({
    status: z.enum(['PENDING', 'APPROVED']),
    applicationId: z.string().nullable(),
    participantId: z.string().nullable(),
    participantToken: z.string().optional().describe('Only when the submission created a new affiliate.'),
    reviewEstimateBusinessDays: z.number().int().nullable(),
  })
  .meta({ id: 'AffiliateApplicationSubmitted' });

/** AffiliateApplication as the wire shows it. */
export type AffiliateApplication = z.infer<typeof affiliateApplication>;
/** AF18 response. */
export type ApplicationCounts = z.infer<typeof applicationCounts>;
/** AF3 body. */
export type ApplicationReview = z.infer<typeof applicationReview>;
/** One question of the saved application form. */
export type ApplicationQuestion = z.infer<typeof applicationQuestion>;
/** AffiliateInvite as the wire shows it. */
export type AffiliateInvite = z.infer<typeof affiliateInvite>;
/** A payout provider a program can enable. */
export type PayoutProvider = (typeof PAYOUT_PROVIDERS)[number];
/** The sanitised tax status. */
export type TaxStatus = z.infer<typeof taxStatus>;
/** The participant API's application submission. */
export type ApplicationSubmit = z.infer<typeof applicationSubmit>;
