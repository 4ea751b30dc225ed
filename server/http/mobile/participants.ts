// The participant API's operations on participants: creation and referrer checks, then the signed-in
// participant's own record, shares, referral trigger, referrals, invites, rewards, summary and vanity links.
import type { MobileOperation } from './operation.ts';
import { mobileOperation } from './operation.ts';
import {
  mobileParticipantCreate,
  mobileParticipantCreated,
  mobileParticipantUpdate,
  mobileReferredParticipantCreate,
  mobileReferredParticipantCreated,
  mobileReferrerValidate,
  mobileReferrerValidation,
  mobileShareTrack,
  mobileShareTracked,
} from '../../../shared/schemas/mobile-participants.ts';
import { mobileParticipant } from '../../../shared/schemas/mobile.ts';
import {
  mobileReferralQuery,
  mobileInvitesSend,
  mobileRewardQuery,
  mobileRewardsRead,
  mobileRewardsReadResult,
  mobileReferralSummary,
  mobileVanityLinks,
  mobileVanityLinksSet,
} from '../../../shared/schemas/mobile-campaign.ts';
import { MobileParticipants } from '../../domain/participant-api/mobile-participants.ts';
import type { Deps } from '../deps.ts';
import { triggerReferralResponse } from '../../../shared/schemas/reward.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { referralList, sendInvitesResponse } from '../../../shared/schemas/referral.ts';
import { participantRewardList } from '../../../shared/schemas/reward.ts';

// One service per Deps (tests run several apps in one process).
const services = new WeakMap<Deps, MobileParticipants>();
/** The participant facade of these operations and of program-data.ts. */
export function svc(deps: Deps): MobileParticipants {
  let s = services.get(deps);
  if (!s) services.set(deps, (s = new MobileParticipants(deps)));
  return s;
}

/** MR1 `POST /mobile/v2/referrer/validate`. */
export const validateReferrer = mobileOperation({
  id: 'MR1',
  name: 'referrer.validate',
  method: 'POST',
  path: '/referrer/validate',
  auth: 'session',
  summary:
    'Whether a referrer exists in the program (explicit referredBy, else the visit receipts under the attribution model). Answers valid and, only when the client named the referrer by participant id or receipt, referredBy; nothing else about the referrer, except (refloop extension, `name: true`) the name the design greets a referred friend with.',
  body: mobileReferrerValidate,
  response: mobileReferrerValidation,
  handler: ({ body, view, deps }) => svc(deps).validateReferrer(view, body.referredBy, body.receipts, body.name === true),
});

/** MP2 `POST /mobile/v2/participants`. */
export const addParticipant = mobileOperation({
  id: 'MP2',
  name: 'participants.add',
  method: 'POST',
  path: '/participants',
  auth: 'session',
  summary:
    'Add a participant (receipts applied by the attribution model; fraud checks see the IP, mobileInstanceId and fingerprint) and return a participant token. An email that already has a participant answers requiresParticipantToken: true and nothing else.',
  body: mobileParticipantCreate,
  response: mobileParticipantCreated,
  handler: ({ body, view, ip, app, country, acceptLanguage, deps }) => svc(deps).add(view, body, { ip, app, country, acceptLanguage }),
});

/** MP3 `POST /mobile/v2/referred-participants`. */
export const addReferredParticipant = mobileOperation({
  id: 'MP3',
  name: 'participants.addReferred',
  method: 'POST',
  path: '/referred-participants',
  auth: 'session',
  summary:
    'Add a participant only when the referral verifies (explicit referredBy, else receipts). notAddedReason: no_referrer, invalid_referrer, participant_already_exists. New participants get a token, except referred customers of affiliate programs (added: true without one).',
  body: mobileReferredParticipantCreate,
  response: mobileReferredParticipantCreated,
  handler: ({ body, view, ip, app, country, acceptLanguage, deps }) => svc(deps).addReferred(view, body, { ip, app, country, acceptLanguage }),
});

/** MP4 `PATCH /mobile/v2/participant`. */
export const updateOwnParticipant = mobileOperation({
  id: 'MP4',
  name: 'participant.update',
  method: 'PATCH',
  path: '/participant',
  auth: 'participant',
  summary: 'Change the signed-in participant’s firstName, lastName or metadata (a null metadata value removes the key). Any other field is 400.',
  body: mobileParticipantUpdate,
  response: mobileParticipant,
  handler: ({ body, view, participantId, deps }) => svc(deps).update(view, participantId!, body),
});

/** MSH1 `POST /mobile/v2/participant/shares`. */
export const trackShare = mobileOperation({
  id: 'MSH1',
  name: 'participant.trackShare',
  method: 'POST',
  path: '/participant/shares',
  auth: 'participant',
  summary: 'Count one share on a channel (copyRefLink, copy, or a design share channel: email, sms, facebook …); any other type is 400. Adds to shareCount and the activity log.',
  body: mobileShareTrack,
  response: mobileShareTracked,
  handler: ({ body, view, participantId, deps }) => svc(deps).trackShare(view, participantId!, body.type),
});

/** MT1 `POST /mobile/v2/participant/referral-trigger`. */
export const triggerOwnReferral = mobileOperation({
  id: 'MT1',
  name: 'participant.triggerReferral',
  method: 'POST',
  path: '/participant/referral-trigger',
  auth: 'participant',
  summary:
    'Award the signed-in participant’s referrer credit now (referral programs only, 422 otherwise). Only when options.allowClientSideReferralTrigger is true (403 otherwise): server-verified purchases are triggered through REST.',
  body: emptyBody,
  response: triggerReferralResponse,
  handler: ({ view, participantId, deps }) => svc(deps).trigger(view, participantId!),
});

/** MVL1 `GET /mobile/v2/participant/vanity-links`. */
export const getOwnVanityLinks = mobileOperation({
  id: 'MVL1',
  name: 'participant.vanityLinks',
  method: 'GET',
  path: '/participant/vanity-links',
  auth: 'participant',
  summary: 'The signed-in participant’s vanity keys and the share link each one makes.',
  response: mobileVanityLinks,
  handler: ({ view, participantId, deps }) => svc(deps).vanityLinks(view, participantId!),
});

/** MVL2 `POST /mobile/v2/participant/vanity-links`. */
export const setOwnVanityLinks = mobileOperation({
  id: 'MVL2',
  name: 'participant.setVanityLinks',
  method: 'POST',
  path: '/participant/vanity-links',
  auth: 'participant',
  summary: 'Replace the signed-in participant’s vanity keys (up to 5; [] removes them). A key another participant of the program holds is 409.',
  body: mobileVanityLinksSet,
  response: mobileVanityLinks,
  handler: ({ body, view, participantId, deps }) => svc(deps).vanityLinks(view, participantId!, body.vanityKeys),
});

/** MRF1 `GET /mobile/v2/participant/referrals`. */
export const listOwnReferrals = mobileOperation({
  id: 'MRF1',
  name: 'participant.referrals',
  method: 'GET',
  path: '/participant/referrals',
  auth: 'participant',
  summary:
    'The signed-in participant’s referrals and pending invitations (limit, offset, sortBy, desc). Emails are masked unless the program allows disclosure after sign-in (PARTIAL masking) and the participant’s own non-private invitation to that address recorded permission.',
  query: mobileReferralQuery,
  response: referralList,
  handler: ({ query, view, participantId, deps }) => svc(deps).referrals(view, participantId!, query),
});

/** MI1 `POST /mobile/v2/participant/invites`. */
export const sendOwnInvites = mobileOperation({
  id: 'MI1',
  name: 'participant.sendInvites',
  method: 'POST',
  path: '/participant/invites',
  auth: 'participant',
  summary: 'Email invitations from the signed-in participant, exactly as REST RF3 (same skips, budgets, and 403 TEAM_NOT_VERIFIED_ERROR); private: true never discloses the address back.',
  body: mobileInvitesSend,
  response: sendInvitesResponse,
  handler: ({ body, view, participantId, deps }) => svc(deps).send(view, participantId!, body),
});

/** MRW1 `GET /mobile/v2/participant/rewards`. */
export const listOwnRewards = mobileOperation({
  id: 'MRW1',
  name: 'participant.rewards',
  method: 'GET',
  path: '/participant/rewards',
  auth: 'participant',
  summary: 'The signed-in participant’s rewards, newest first (limit, nextId), as REST PR1.',
  query: mobileRewardQuery,
  response: participantRewardList,
  handler: ({ query, view, participantId, deps }) => svc(deps).rewards(view, participantId!, query),
});

/** MRW2 `POST /mobile/v2/participant/rewards/read`. */
export const markOwnRewardsRead = mobileOperation({
  id: 'MRW2',
  name: 'participant.rewardsRead',
  method: 'POST',
  path: '/participant/rewards/read',
  auth: 'participant',
  summary: 'Mark the given rewards (or, without rewardIds, all) of the signed-in participant read (unread: false). Ids of other participants’ rewards change nothing.',
  body: mobileRewardsRead,
  response: mobileRewardsReadResult,
  handler: ({ body, participantId, deps }) => svc(deps).markRewardsRead(participantId!, body.rewardIds),
});

/** MSM1 `GET /mobile/v2/participant/referral-summary`. */
export const getOwnReferralSummary = mobileOperation({
  id: 'MSM1',
  name: 'participant.referralSummary',
  method: 'GET',
  path: '/participant/referral-summary',
  auth: 'participant',
  summary: 'Referral programs (422 otherwise): referrals, leads, expired referrals, clicks, rewards earned, pending rewards and invites sent of the signed-in participant.',
  response: mobileReferralSummary,
  handler: ({ view, participantId, deps }) => svc(deps).summary(view, participantId!),
});

/** The operations on participants, in the order of the table in routes.ts. */
export const participantOperations: MobileOperation[] = [
  // Participant creation and referrer checks
  validateReferrer,
  addParticipant,
  addReferredParticipant,
  // The signed-in participant
  updateOwnParticipant,
  trackShare,
  triggerOwnReferral,
  listOwnReferrals,
  sendOwnInvites,
  listOwnRewards,
  markOwnRewardsRead,
  getOwnReferralSummary,
  getOwnVanityLinks,
  setOwnVanityLinks,
];
