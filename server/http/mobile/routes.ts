import type { MobileOperation } from './operation.ts';
import { fastVisitBody } from './fast-visit.ts';
import { mobileOperation } from './operation.ts';
import {
  mobileParticipant,
  mobileParticipantToken,
  mobileLoginLinkRequest,
  mobileLoginLinkSent,
  mobileLoginLinkRedeem,
  mobileParticipantCreate,
  mobileParticipantCreated,
  mobileParticipantUpdate,
  mobileReferredParticipantCreate,
  mobileReferredParticipantCreated,
  mobileReferrerValidate,
  mobileReferrerValidation,
  mobileSession,
  mobileSessionCreate,
  mobileShareTrack,
  mobileShareTracked,
  mobileCampaign,
  mobileLeaderboard,
  mobileLeaderboardQuery,
  mobileReferralQuery,
  mobileInvitesSend,
  mobileRewardQuery,
  mobileRewardsRead,
  mobileRewardsReadResult,
  mobileReferralSummary,
  mobileDownloadUrl,
  mobileResourceList,
  toMobileResource,
  mobileVanityLinks,
  mobileVanityLinksSet,
  mobileWindow,
  mobileTrafficQuery,
  mobileTrafficReport,
  participantAutoAuth,
  toMobileParticipant,
  visitCreate,
  visitResponse,
} from '../../../shared/schemas/mobile.ts';
import { NotAuthorizedError } from '../../errors.ts';
import { sha256 } from '../../crypto.ts';
import { emailKey } from '../../domain/participants/model.ts';
import { MobileParticipants } from '../../domain/mobile-participants.ts';
import { deviceOf } from '../../domain/visits.ts';
import { affiliateEnrollmentOperations } from './affiliate-enrollment.ts';
import type { Deps } from '../../deps.ts';
import { triggerReferralResponse } from '../../../shared/schemas/reward.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { referralList, sendInvitesResponse } from '../../../shared/schemas/referral.ts';
import { participantRewardList } from '../../../shared/schemas/reward.ts';
import { affiliateMoneyOperations } from './affiliate-money.ts';

// One service per Deps (tests run several apps in one process).
const services = new WeakMap<Deps, MobileParticipants>();
function svc(deps: Deps): MobileParticipants {
  let s = services.get(deps);
  if (!s) services.set(deps, (s = new MobileParticipants(deps)));
  return s;
}

/** MS1 `POST /mobile/v2/sessions`. */
export const createSession = mobileOperation({
  id: 'MS1',
  name: 'sessions.create',
  method: 'POST',
  path: '/sessions',
  auth: 'program',
  summary: 'Start a one-hour session for one client instance of a program (native apps send X-Public-Key; pages are accepted from the program’s allowed sites).',
  body: mobileSessionCreate,
  response: mobileSession,
  handler: async ({ body, view, app, deps }) => ({ ...deps.mobileSessions.issue(view.program.id, body.instanceId, app), programId: view.program.id }),
});

/** MV1 `POST /mobile/v2/visits`. */
export const recordVisit = mobileOperation({
  id: 'MV1',
  name: 'visits.record',
  method: 'POST',
  path: '/visits',
  auth: 'session',
  visitBudget: true,
  summary:
    'Record a visit (idempotent per visitId): RECORDED once it is durable, with signed first- and last-visit receipts when the referral code names a participant; PROCESSING when the write takes longer than MOBILE_VISIT_WAIT_MS (keep it queued, resend the same visitId).',
  body: visitCreate,
  fastBody: fastVisitBody,
  response: visitResponse,
  handler: ({ body, view, session, country, userAgent, app, deps }) =>
    deps.visits.record(view, {
      visitId: body.visitId,
      instanceId: session!.instanceId,
      attribution: body.attribution,
      provider: body.provider ?? null,
      firstVisit: body.firstVisit ?? null,
      country,
      device: deviceOf(userAgent, app),
    }),
});

/** MA1 `POST /mobile/v2/participant-token`. */
export const autoAuthenticate = mobileOperation({
  id: 'MA1',
  name: 'participantToken.autoAuth',
  method: 'POST',
  path: '/participant-token',
  auth: 'session',
  summary:
    'Auto-authentication: exchange an email and its hash (lower-case hex HMAC-SHA256 with the participant auth secret, computed on the site’s server) for a participant token. A wrong hash is 403; an email with no participant is 400.',
  body: participantAutoAuth,
  response: mobileParticipantToken,
  handler: async ({ body, view, deps }) => {
    if (!(await deps.participantTokens.checkAutoAuth(view.program.id, body.email, body.hash))) {
      throw new NotAuthorizedError('The hash does not match this email under the program’s participant auth secret.');
    }
    const participant = await deps.participants.get(view.program, body.email);
    return { ...(await deps.participantTokens.mint(view.program.id, participant.id)), participant: toMobileParticipant(participant) };
  },
});

/** MA2 `POST /mobile/v2/participant/login-link`. */
export const requestLoginLink = mobileOperation({
  id: 'MA2',
  name: 'loginLink.request',
  method: 'POST',
  path: '/participant/login-link',
  auth: 'session',
  summary:
    'Email a one-time sign-in link (the transactional loginLink template; valid 15 minutes, works once) when the email belongs to a participant. Always answers sent: true, so the answer never reveals membership. returnUrl must be on one of the program’s allowed sites, else the installation shareUrl is used. Limited per email and per IP address (429).',
  body: mobileLoginLinkRequest,
  response: mobileLoginLinkSent,
  handler: async ({ body, view, ip, deps }) => {
    // Hashed: the rate_limits table never holds an address.
    await deps.mobileLimits.loginLink(ip, view.program.id, sha256(emailKey(body.email)));
    await deps.loginLinks.request(view, body.email, body.returnUrl);
    return { sent: true as const };
  },
});

/** MA3 `POST /mobile/v2/participant/login-link/redeem`. */
export const redeemLoginLink = mobileOperation({
  id: 'MA3',
  name: 'loginLink.redeem',
  method: 'POST',
  path: '/participant/login-link/redeem',
  auth: 'session',
  summary: 'Exchange a sign-in link’s token (grsfLogin) for a participant token, once. An unknown, expired, used or other program’s token is 403.',
  body: mobileLoginLinkRedeem,
  response: mobileParticipantToken,
  handler: async ({ body, view, deps }) => {
    const redeemed = await deps.loginLinks.redeem(view, body.token);
    if (!redeemed) throw new NotAuthorizedError('This sign-in link is invalid, expired or already used. Ask for a new one.');
    const participant = await deps.participants.get(view.program, redeemed.participantId);
    return { participantToken: redeemed.participantToken, expiresIn: redeemed.expiresIn, participant: toMobileParticipant(participant) };
  },
});

/** MP1 `GET /mobile/v2/participant`. */
export const getOwnParticipant = mobileOperation({
  id: 'MP1',
  name: 'participant.get',
  method: 'GET',
  path: '/participant',
  auth: 'participant',
  summary: 'The signed-in participant’s own record (participant-facing fields only).',
  response: mobileParticipant,
  handler: async ({ view, participantId, deps }) => toMobileParticipant(await deps.participants.get(view.program, participantId!)),
});

/** MR1 `POST /mobile/v2/referrer/validate`. */
export const validateReferrer = mobileOperation({
  id: 'MR1',
  name: 'referrer.validate',
  method: 'POST',
  path: '/referrer/validate',
  auth: 'session',
  summary:
    'Whether a referrer exists in the program (explicit referredBy, else the visit receipts under the attribution model). Answers valid and, only when the client named the referrer by participant id or receipt, referredBy; nothing else about the referrer.',
  body: mobileReferrerValidate,
  response: mobileReferrerValidation,
  handler: ({ body, view, deps }) => svc(deps).validateReferrer(view, body.referredBy, body.receipts),
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
  handler: ({ body, view, ip, app, country, deps }) => svc(deps).add(view, body, { ip, app, country }),
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
  handler: ({ body, view, ip, app, country, deps }) => svc(deps).addReferred(view, body, { ip, app, country }),
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

/** MW1 `GET /mobile/v2/window`. */
export const getWindow = mobileOperation({
  id: 'MW1',
  name: 'window.get',
  method: 'GET',
  path: '/window',
  auth: 'session',
  optionalParticipant: true,
  summary:
    'The window payload: participant (with a participant token), share URLs and channels, rewards, the leaderboard’s first page, payout providers and, for a signed-in participant on a paid plan with the design’s Traffic section on, the traffic report.',
  response: mobileWindow,
  handler: ({ view, participantId, deps }) => svc(deps).window(view, participantId),
});

/** MT1 `GET /mobile/v2/participant/traffic`. */
export const getOwnTraffic = mobileOperation({
  id: 'MT1',
  name: 'participant.traffic',
  method: 'GET',
  path: '/participant/traffic',
  auth: 'participant',
  summary:
    'The signed-in participant’s traffic report for a date range (LAST_7_DAYS, LAST_30_DAYS, LAST_90_DAYS, ALL_TIME; default design.trafficInsights.defaultDateRange), as the window’s traffic. 403 where the window shows none (design off or unpaid plan).',
  query: mobileTrafficQuery,
  response: mobileTrafficReport,
  handler: ({ query, view, participantId, deps }) => svc(deps).trafficReport(view, participantId!, query.range),
});

/** MC1 `GET /mobile/v2/campaign`. */
export const getCampaign = mobileOperation({
  id: 'MC1',
  name: 'campaign.get',
  method: 'GET',
  path: '/campaign',
  auth: 'session',
  summary: 'The program’s public details (name, type, status, currency, company) and its visible rewards, without coupon codes, metadata or tax valuations.',
  response: mobileCampaign,
  handler: ({ view, deps }) => svc(deps).campaign(view),
});

/** ML1 `GET /mobile/v2/leaderboard`. */
export const getLeaderboard = mobileOperation({
  id: 'ML1',
  name: 'leaderboard.get',
  method: 'GET',
  path: '/leaderboard',
  auth: 'session',
  optionalParticipant: true,
  summary:
    'A leaderboard page: rank, the name as design.leaderboard.nameFormat shows it, a masked email, the score and isYou (with a participant token, true on the caller’s own row). Page with page (1-based, up to row 500) or offsetKey (the previous nextOffsetKey).',
  query: mobileLeaderboardQuery,
  response: mobileLeaderboard,
  handler: ({ query, view, participantId, deps }) => svc(deps).leaderboard(view, query, participantId),
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

/** MRS1 `POST /mobile/v2/resources/:resourceId/download-url`. */
export const resourceDownloadUrl = mobileOperation({
  id: 'MRS1',
  name: 'resources.downloadUrl',
  method: 'POST',
  path: '/resources/:resourceId/download-url',
  auth: 'participant',
  summary: 'A new short-lived signed link to a published FILE resource of the program (404 for anything else).',
  body: emptyBody,
  response: mobileDownloadUrl,
  handler: ({ params, view, deps }) => svc(deps).downloadUrl(view, params.resourceId!),
});

/** MRS2 `GET /mobile/v2/resources`. */
export const listResources = mobileOperation({
  id: 'MRS2',
  name: 'resources.list',
  method: 'GET',
  path: '/resources',
  auth: 'participant',
  summary:
    'The program’s published resources in list order, as participants see them (rest-v2 §2.23 without publishing, moderation or storage data): LINK with its url, TEXT with its text, FILE without a link (ask MRS1 for a fresh one each time it is opened). Files not yet approved are left out.',
  response: mobileResourceList,
  handler: async ({ view, deps }) => ({
    resources: (await deps.resources.list(view.program.id)).flatMap((r) => toMobileResource(r) ?? []),
  }),
});

/**
 * Every participant-API operation. The router, the credential checks and /openapi/mobile-v2.json
 * are built from this one list.
 */
export const mobileOperations: MobileOperation[] = [
  // Sessions and visits
  createSession,
  recordVisit,
  // Participant authentication and the signed-in participant
  autoAuthenticate,
  requestLoginLink,
  redeemLoginLink,
  getOwnParticipant,
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
  // Program data
  getWindow,
  getOwnTraffic,
  getCampaign,
  getLeaderboard,
  listResources,
  resourceDownloadUrl,
  // Affiliate enrollment, payout destinations and tax information (affiliate-enrollment.ts)
  ...affiliateEnrollmentOperations,
  // The signed-in affiliate's commissions, payouts and summary (affiliate-money.ts)
  ...affiliateMoneyOperations,
];
