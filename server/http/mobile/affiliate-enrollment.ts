import { z } from 'zod';
import { signupEvidence } from '../../domain/participant-api/mobile-sign-ups.ts';
import type { MobileOperation } from './operation.ts';
import { mobileOperation } from './operation.ts';
import type { MobileProgram } from '../../domain/participant-api/mobile-programs.ts';
import type { Deps } from '../deps.ts';
import { effectivePlan } from '../../domain/platform/plans.ts';
import { PaymentMethodRequiredError } from '../../errors.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import {
  applicationForm,
  applicationSubmit,
  applicationSubmitted,
  mobilePayoutConfirmationRequested,
  payoutConfirmationRequest,
  payoutDestinationStatus,
  taxResidencySave,
  taxSaved,
  taxSession,
  taxSessionRequest,
  taxStatus,
  taxVatSave,
} from '../../../shared/schemas/affiliate.ts';

// The participant API's enrollment operations (issue #6): the public affiliate application form,
// payout destinations and tax information. Affiliate programs answer 402 here as on REST when the
// team has no payment method on file; affiliate-only operations answer 422 on referral programs.

/** 402 on an affiliate program whose team has no payment method on file (BILLING=on). */
function gate(view: MobileProgram, deps: Deps): void {
  if (view.program.type === 'AFFILIATE' && !effectivePlan(deps.config.billing, view.team, deps.clock.now()).hasPaymentMethod) throw new PaymentMethodRequiredError();
}

/** The signed-in participant's row (the router verified the token and that the participant exists). */
async function me(deps: Deps, view: MobileProgram, participantId: string) {
  return deps.participants.resolve(deps.db.knex, view.program, participantId);
}

/** MAF1 `GET /mobile/v2/affiliate-application-form`. */
export const getApplicationForm = mobileOperation({
  id: 'MAF1',
  name: 'affiliate.applicationForm',
  method: 'GET',
  path: '/affiliate-application-form',
  auth: 'session',
  summary: 'Affiliate programs (422 otherwise): the application mode, the form’s questions (answer types of rest-v2 §4), the terms URL and the review estimate.',
  response: applicationForm,
  handler: async ({ view, deps }) => {
    gate(view, deps);
    return deps.affiliateApplications.form(view.program);
  },
});

/** MAF2 `POST /mobile/v2/affiliate-applications`. */
export const submitApplication = mobileOperation({
  id: 'MAF2',
  name: 'affiliate.apply',
  method: 'POST',
  path: '/affiliate-applications',
  auth: 'session',
  summary:
    'Affiliate programs (422 otherwise): apply with email, names, answers keyed by fieldId (validated against the form; 400 per field) and acceptTerms when the form has terms. OPEN_ENROLLMENT enrolls at once; AUTO_APPROVE enrolls a low-risk applicant at once; otherwise the application waits for review. A new affiliate gets a participant token. An affiliate or a pending application with this email is 409; a denied applicant inside the reapplication policy 406.',
  body: applicationSubmit,
  response: applicationSubmitted,
  handler: async ({ body, view, ip, app, country, deps }) => {
    gate(view, deps);
    const evidence = await signupEvidence(deps, view, body.recaptchaToken, { ip, app, country });
    const result = await deps.affiliateApplications.submit(view.program, view.team, body, evidence);
    // A token only for a participant this call created: an existing address must sign in (mobile rule 5).
    const token = result.isNew && result.participantId ? await deps.participantTokens.mint(view.program.id, result.participantId) : null;
    return {
      status: result.status,
      applicationId: result.applicationId,
      participantId: result.participantId,
      ...(token ? { participantToken: token.participantToken } : {}),
      reviewEstimateBusinessDays: result.reviewEstimateBusinessDays,
    };
  },
});

/** MPD1 `GET /mobile/v2/participant/payout-destination`. */
export const getOwnPayoutDestination = mobileOperation({
  id: 'MPD1',
  name: 'participant.payoutDestination',
  method: 'GET',
  path: '/participant/payout-destination',
  auth: 'participant',
  summary: 'The signed-in participant’s payout destinations, as REST P14.',
  response: payoutDestinationStatus,
  handler: async ({ view, participantId, deps }) => {
    gate(view, deps);
    return deps.payoutDestinations.status(view.program, await me(deps, view, participantId!));
  },
});

/** MPD2 `POST /mobile/v2/participant/payout-destination/request-confirmation`. */
export const requestOwnPayoutConfirmation = mobileOperation({
  id: 'MPD2',
  name: 'participant.requestPayoutDestinationConfirmation',
  method: 'POST',
  path: '/participant/payout-destination/request-confirmation',
  auth: 'participant',
  summary:
    'requestPayoutDestinationConfirmation: email the signed-in participant a one-time link to confirm provider (PAYPAL, VENMO or WISECOM, enabled on the program). Rules and statuses as REST P15; the answer adds success.',
  body: payoutConfirmationRequest,
  response: mobilePayoutConfirmationRequested,
  handler: async ({ body, view, participantId, deps }) => {
    gate(view, deps);
    return { success: true as const, ...(await deps.payoutDestinations.request(view.program, participantId!, body.provider)) };
  },
});

/** MPD3 `POST /mobile/v2/participant/paypal-confirmation-email`. */
export const requestOwnPaypalConfirmation = mobileOperation({
  id: 'MPD3',
  name: 'participant.requestPaypalConfirmEmail',
  method: 'POST',
  path: '/participant/paypal-confirmation-email',
  auth: 'participant',
  summary: 'requestPaypalConfirmEmail: MPD2 for PAYPAL, answering only success.',
  body: emptyBody,
  response: z.object({ success: z.literal(true) }),
  handler: async ({ view, participantId, deps }) => {
    gate(view, deps);
    await deps.payoutDestinations.request(view.program, participantId!, 'PAYPAL');
    return { success: true as const };
  },
});

/** MTX1 `POST /mobile/v2/participant/tax-info/session`. */
export const requestTaxSession = mobileOperation({
  id: 'MTX1',
  name: 'participant.requestTaxInfoSession',
  method: 'POST',
  path: '/participant/tax-info/session',
  auth: 'participant',
  summary:
    'requestTaxInfoSession: a signed link to our hosted tax page (30 minutes; a new session ends the previous link) where the participant picks W-9 or W-8, residency and an optional VAT number, and the new tax status. residencyCountryCode (ISO 3166-1 alpha-2) is saved first when sent. Tax id numbers are never stored.',
  body: taxSessionRequest,
  response: taxSession,
  handler: async ({ body, view, participantId, deps }) => {
    gate(view, deps);
    return deps.taxInfo.startSession(view.program, participantId!, body.residencyCountryCode);
  },
});

/** MTX2 `GET /mobile/v2/participant/tax-info`. */
export const getTaxStatus = mobileOperation({
  id: 'MTX2',
  name: 'participant.taxInfoStatus',
  method: 'GET',
  path: '/participant/tax-info',
  auth: 'participant',
  summary: 'getTaxInfoStatus: the stored, sanitised tax status, without reconciling.',
  response: taxStatus,
  handler: async ({ view, participantId, deps }) => {
    gate(view, deps);
    return deps.taxInfo.read(view.program, participantId!);
  },
});

/** MTX3 `POST /mobile/v2/participant/tax-info/refresh`. */
export const refreshTaxStatus = mobileOperation({
  id: 'MTX3',
  name: 'participant.refreshTaxInfoStatus',
  method: 'POST',
  path: '/participant/tax-info/refresh',
  auth: 'participant',
  summary: 'refreshTaxInfoStatus: reconciles first (an open hosted session whose link expired is closed), then answers the status.',
  body: emptyBody,
  response: taxStatus,
  handler: async ({ view, participantId, deps }) => {
    gate(view, deps);
    return deps.taxInfo.refresh(view.program, participantId!);
  },
});

/** MTX4 `POST /mobile/v2/participant/tax-info/residency`. */
export const saveTaxResidency = mobileOperation({
  id: 'MTX4',
  name: 'participant.saveTaxResidency',
  method: 'POST',
  path: '/participant/tax-info/residency',
  auth: 'participant',
  summary: 'saveTaxResidency: stores the residency country (ISO 3166-1 alpha-2).',
  body: taxResidencySave,
  response: taxSaved,
  handler: async ({ body, view, participantId, deps }) => {
    gate(view, deps);
    return deps.taxInfo.saveResidency(view.program, participantId!, body.residencyCountryCode);
  },
});

/** MTX5 `POST /mobile/v2/participant/tax-info/vat`. */
export const saveTaxVat = mobileOperation({
  id: 'MTX5',
  name: 'participant.saveTaxVat',
  method: 'POST',
  path: '/participant/tax-info/vat',
  auth: 'participant',
  summary: 'saveTaxVat: stores the VAT number; an empty string clears it.',
  body: taxVatSave,
  response: taxSaved,
  handler: async ({ body, view, participantId, deps }) => {
    gate(view, deps);
    return deps.taxInfo.saveVat(view.program, participantId!, body.number);
  },
});

/** The enrollment operations, in the order docs/participant-api.md lists them. */
export const affiliateEnrollmentOperations: MobileOperation[] = [
  getApplicationForm,
  submitApplication,
  getOwnPayoutDestination,
  requestOwnPayoutConfirmation,
  requestOwnPaypalConfirmation,
  requestTaxSession,
  getTaxStatus,
  refreshTaxStatus,
  saveTaxResidency,
  saveTaxVat,
];
