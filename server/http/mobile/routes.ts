import type { MobileOperation } from './operation.ts';
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
import { NotAuthorizedError } from '../../errors.ts';

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
  handler: async ({ body, view, deps }) => ({ ...deps.mobileSessions.issue(view.program.id, body.instanceId), programId: view.program.id }),
});

/** MV1 `POST /mobile/v2/visits`. */
export const recordVisit = mobileOperation({
  id: 'MV1',
  name: 'visits.record',
  method: 'POST',
  path: '/visits',
  auth: 'session',
  summary:
    'Record a visit (idempotent per visitId): RECORDED once it is durable, with signed first- and last-visit receipts when the referral code names a participant; PROCESSING when the write takes longer than MOBILE_VISIT_WAIT_MS (keep it queued, resend the same visitId).',
  body: visitCreate,
  response: visitResponse,
  handler: ({ body, view, session, deps }) =>
    deps.visits.record(view, { visitId: body.visitId, instanceId: session!.instanceId, attribution: body.attribution, provider: body.provider ?? null, firstVisit: body.firstVisit ?? null }),
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
  getOwnParticipant,
];
