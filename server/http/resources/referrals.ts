import { operation } from '../operation.ts';
import { referralList, referralListQuery, sendInvitesBody, sendInvitesResponse } from '../../../shared/schemas/referral.ts';

/** RF1 `GET /campaign/{id}/referrals`. */
export const listReferrals = operation({
  id: 'RF1',
  name: 'referrals.list',
  method: 'GET',
  path: '/campaign/:id/referrals',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary:
    'List referred participants (CREDIT_*) and email invitations not yet joined (INVITE_SENT). Filters email, firstName, lastName (exact, case-insensitive) and referralStatus; sortBy (default createdAt, newest first) and desc; limit 1–100 (default 20); page with nextId (inclusive, wins over offset) or offset.',
  query: referralListQuery,
  response: referralList,
  handler: ({ query, program, deps }) => deps.invites.listReferrals(program!, query),
});

/** RF2 `GET /campaign/{id}/participant/{participantIdOrEmail}/referrals`. */
export const listParticipantReferrals = operation({
  id: 'RF2',
  name: 'referrals.listForParticipant',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/referrals',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary: 'The same list as RF1 for one referrer: the participants they referred and their invitations not yet joined. An unknown participant answers 400.',
  query: referralListQuery,
  response: referralList,
  handler: ({ query, params, program, deps }) => deps.invites.listReferrals(program!, query, { referrer: params.participantIdOrEmail! }),
});

/** RF3 `POST /campaign/{id}/participant/{participantIdOrEmail}/invites`. */
export const sendInvites = operation({
  id: 'RF3',
  name: 'referrals.sendInvites',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail/invites',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary:
    'Email 1–50 contacts the program’s invite template from this participant, recording one INVITE_SENT invitation per contact. Needs a VERIFIED team (403 TEAM_NOT_VERIFIED_ERROR); has its own per-participant and per-team limits (429).',
  body: sendInvitesBody,
  response: sendInvitesResponse,
  handler: ({ body, params, program, deps }) => deps.invites.send(program!, params.participantIdOrEmail!, body),
});
