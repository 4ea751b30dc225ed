import type { MobileOperation } from './operation.ts';
import { fastVisitBody } from './fast-visit.ts';
import { mobileOperation } from './operation.ts';
import {
  mobileParticipant,
  mobileParticipantToken,
  mobileSession,
  mobileSessionCreate,
  participantAutoAuth,
  toMobileParticipant,
  visitCreate,
  visitResponse,
} from '../../../shared/schemas/mobile.ts';
import { mobileLoginLinkRequest, mobileLoginLinkSent, mobileLoginLinkRedeem } from '../../../shared/schemas/mobile-participants.ts';
import { NotAuthorizedError } from '../../errors.ts';
import { sha256 } from '../../crypto.ts';
import { emailKey } from '../../domain/participants/model.ts';
import { deviceOf } from '../../domain/participant-api/visits.ts';
import { participantOperations } from './participants.ts';
import { programDataOperations } from './program-data.ts';
import { affiliateEnrollmentOperations } from './affiliate-enrollment.ts';
import { affiliateMoneyOperations } from './affiliate-money.ts';

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
  // Participant creation, referrer checks and the signed-in participant (participants.ts)
  ...participantOperations,
  // Program data (program-data.ts)
  ...programDataOperations,
  // Affiliate enrollment, payout destinations and tax information (affiliate-enrollment.ts)
  ...affiliateEnrollmentOperations,
  // The signed-in affiliate's commissions, payouts and summary (affiliate-money.ts)
  ...affiliateMoneyOperations,
];
