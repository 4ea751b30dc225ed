import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { triggerReferralBody, triggerReferralResponse } from '../../../shared/schemas/reward.ts';

/** P8 `POST /campaign/{id}/participant/{participantIdOrEmail}/ref`. */
export const triggerReferral = operation({
  id: 'P8',
  name: 'participants.triggerReferral',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail/ref',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  programType: 'REFERRAL',
  summary:
    'Award referral credit for a referred participant now, or after delayInDays (1–90) unless cancelled. Rewards follow. Already credited: success with a message, nothing issued again. A participant who was not referred answers 400.',
  body: triggerReferralBody,
  response: triggerReferralResponse,
  audit: { mode: 'inline' },
  handler: ({ body, params, program, auth, deps, audit }) => deps.referralTriggers.trigger(program!, params.participantIdOrEmail!, body.delayInDays, auth?.verificationStatus, audit),
});

/** P9 `DELETE /campaign/{id}/participant/{participantIdOrEmail}/ref`. */
export const cancelReferralTrigger = operation({
  id: 'P9',
  name: 'participants.cancelReferralTrigger',
  method: 'DELETE',
  path: '/campaign/:id/participant/:participantIdOrEmail/ref',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  programType: 'REFERRAL',
  summary: 'Cancel the participant’s pending delayed referral trigger; success false with a message when none is pending.',
  body: emptyBody,
  response: triggerReferralResponse,
  handler: ({ params, program, deps }) => deps.referralTriggers.cancel(program!, params.participantIdOrEmail!),
});
