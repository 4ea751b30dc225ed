import { operation } from '../operation.ts';
import { emptyBody, successResponse } from '../../../shared/schemas/common.ts';
import { bulkDeleteBody, bulkDeleteResponse, participant, participantCreate, participantUpdate } from '../../../shared/schemas/participant.ts';
import { leaderboardQuery, participantList, participantListQuery } from '../../../shared/schemas/participant-list.ts';

/** P1 `GET /campaign/{id}/participants`. */
export const listParticipants = operation({
  id: 'P1',
  name: 'participants.list',
  method: 'GET',
  path: '/campaign/:id/participants',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary:
    'List participants, newest first (limit 1–100, default 10; nextId = the last id of the previous page); up to three metadata[key]=value exact-match filters. refloop extensions: search, referred, referralStatus, fraudRiskLevel, isAffiliate and sort (each optional; without them the answer is GrowSurf’s).',
  query: participantListQuery,
  response: participantList,
  handler: ({ query, program, deps }) => deps.participants.list(program!, query),
});

/** P2 `GET /campaign/{id}/leaderboard`. */
export const listLeaderboard = operation({
  id: 'P2',
  name: 'participants.leaderboard',
  method: 'GET',
  path: '/campaign/:id/leaderboard',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary: 'List participants by leaderboard score (default ALL_TIME), ties oldest first; each row’s rank is its position on that board (ties share a rank).',
  query: leaderboardQuery,
  response: participantList,
  handler: ({ query, program, deps }) => deps.participants.leaderboardPage(program!, query),
});

/** P3 `POST /campaign/{id}/participant`. */
export const addParticipant = operation({
  id: 'P3',
  name: 'participants.create',
  method: 'POST',
  path: '/campaign/:id/participant',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary: 'Add a participant, optionally referred by another (id, share key, vanity key or email). An existing email returns that participant unchanged with isNew false.',
  body: participantCreate,
  response: participant,
  audit: { mode: 'inline' },
  handler: ({ body, program, auth, deps, audit }) => deps.participants.create(program!, auth!, body, { audit }),
});

/** P4 `GET /campaign/{id}/participant/{participantIdOrEmail}`. */
export const getParticipant = operation({
  id: 'P4',
  name: 'participants.get',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary: 'Retrieve a participant by id or email; an unknown one answers 400.',
  response: participant,
  handler: ({ params, program, deps }) => deps.participants.get(program!, params.participantIdOrEmail!),
});

/** P5 `POST /campaign/{id}/participant/{participantIdOrEmail}`. */
export const updateParticipant = operation({
  id: 'P5',
  name: 'participants.update',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary: 'Update a participant: email, names, referrer and referral status, metadata (merged; null removes a key), vanity keys (replaced), unsubscribed, notes, affiliateStatus, language, and fraudRiskLevel as the owner’s anti-fraud override. Other read-only fields answer 400.',
  body: participantUpdate,
  response: participant,
  handler: ({ body, params, program, auth, deps }) => deps.participants.update(program!, params.participantIdOrEmail!, body, { actor: auth ? `key:${auth.id}` : null }),
});

/** P6 `DELETE /campaign/{id}/participant/{participantIdOrEmail}`. */
export const deleteParticipant = operation({
  id: 'P6',
  name: 'participants.delete',
  method: 'DELETE',
  path: '/campaign/:id/participant/:participantIdOrEmail',
  access: { scopes: ['participant:delete'] },
  programParam: 'id',
  summary: 'Delete a participant permanently; people they referred stay, unlinked.',
  body: emptyBody,
  response: successResponse,
  handler: ({ params, program, deps }) => deps.participants.remove(program!, params.participantIdOrEmail!),
});

/** P7 `POST /campaign/{id}/participants/bulk-delete`. */
export const bulkDeleteParticipants = operation({
  id: 'P7',
  name: 'participants.bulkDelete',
  method: 'POST',
  path: '/campaign/:id/participants/bulk-delete',
  access: { scopes: ['participant:delete'] },
  programParam: 'id',
  summary: 'Delete 1–200 participants by id or email (mixed), permanently; one result per identifier in request order (DELETED, NOT_FOUND, DUPLICATE, ERROR).',
  body: bulkDeleteBody,
  response: bulkDeleteResponse,
  handler: ({ body, program, deps }) => deps.participants.bulkRemove(program!, body.participants),
});
