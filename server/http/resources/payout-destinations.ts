import { operation } from '../operation.ts';
import { payoutConfirmationRequest, payoutConfirmationRequested, payoutDestinationStatus } from '../../../shared/schemas/affiliate.ts';

// Payout destinations (rest-v2 §2.34, §3.8 P14/P15). Both program types: PayPal and Venmo pay either,
// Wise is for affiliate programs only (422 on referral programs).

/** P14 `GET /campaign/{id}/participant/{participantIdOrEmail}/payout-destination`. */
export const getPayoutDestination = operation({
  id: 'P14',
  name: 'payoutDestinations.get',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/payout-destination',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary: 'The participant’s payout destination for every provider the program enabled (status, confirmed claim email, legal entity type, repair reason) and activeProvider, the provider currently paid (null until one is confirmed).',
  response: payoutDestinationStatus,
  handler: ({ params, program, deps }) => deps.payoutDestinations.statusOf(program!, params.participantIdOrEmail!),
});

/** P15 `POST /campaign/{id}/participant/{participantIdOrEmail}/payout-destination/request-confirmation`. */
export const requestPayoutDestinationConfirmation = operation({
  id: 'P15',
  name: 'payoutDestinations.requestConfirmation',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail/payout-destination/request-confirmation',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary:
    'Email the participant a one-time link (24 hours) to confirm their destination for provider (PAYPAL, VENMO, WISECOM; enabled in options.payoutSettings, else 400). Earlier unused links for it stop working; one email a minute per participant and provider (429 PAYOUT_CONFIRMATION). Venmo needs a US recipient and Wise an affiliate (406 otherwise); Wise on a referral program is 422; team not VERIFIED 403.',
  body: payoutConfirmationRequest,
  response: payoutConfirmationRequested,
  audit: { maskAll: true },
  handler: ({ body, params, program, deps }) => deps.payoutDestinations.requestFor(program!, params.participantIdOrEmail!, body.provider),
});
