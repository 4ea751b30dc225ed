import { operation } from '../operation.ts';
import { emptyBody, successResponse } from '../../../shared/schemas/common.ts';
import { commissionCounts, commissionCountsQuery, commissionList, commissionListQuery } from '../../../shared/schemas/commission.ts';

// Commissions (rest-v2 §3.12 AF10–AF13): affiliate programs only (422 on referral programs).

/** AF10 `GET /campaign/{id}/commissions`. */
export const listCommissions = operation({
  id: 'AF10',
  name: 'commissions.list',
  method: 'GET',
  path: '/campaign/:id/commissions',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'The program’s commissions, newest first (limit 1–100, default 20; nextId = the last id of the previous page; status filter).',
  query: commissionListQuery,
  response: commissionList,
  handler: ({ query, program, deps }) => deps.commissions.list(program!, query),
});

/** AF16 `GET /campaign/{id}/commissions/counts` (refloop extension): AF10's count per status. */
export const countCommissions = operation({
  id: 'AF16',
  name: 'commissions.count',
  method: 'GET',
  path: '/campaign/:id/commissions/counts',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'refloop extension. How many of the program’s commissions AF10 lists with each status filter (PENDING, APPROVED, PAID, REVERSED, DELETED) and without one (ALL, deleted commissions included as AF10 includes them). Commissions whose hold has ended are approved first, as AF10 does. The console’s commissions filter reads it.',
  query: commissionCountsQuery,
  response: commissionCounts,
  handler: ({ program, deps }) => deps.commissions.counts(program!),
});

/** AF11 `GET /campaign/{id}/participant/{participantIdOrEmail}/commissions`. */
export const listParticipantCommissions = operation({
  id: 'AF11',
  name: 'commissions.listForParticipant',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/commissions',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'The commissions an affiliate earned, newest first (limit, nextId, status).',
  query: commissionListQuery,
  response: commissionList,
  handler: ({ query, params, program, deps }) => deps.commissions.list(program!, query, params.participantIdOrEmail!),
});

/** AF12 `POST /campaign/{id}/commission/{commissionId}/approve`. */
export const approveCommission = operation({
  id: 'AF12',
  name: 'commissions.approve',
  method: 'POST',
  path: '/campaign/:id/commission/:commissionId/approve',
  access: { scopes: ['reward:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'Approve a PENDING commission (payable once its hold has passed). An approved one changes nothing; a paid, reversed or deleted one answers 406.',
  body: emptyBody,
  response: successResponse,
  handler: ({ params, program, deps }) => deps.commissions.approve(program!, params.commissionId!),
});

/** AF13 `DELETE /campaign/{id}/commission/{commissionId}`. */
export const deleteCommission = operation({
  id: 'AF13',
  name: 'commissions.delete',
  method: 'DELETE',
  path: '/campaign/:id/commission/:commissionId',
  access: { scopes: ['reward:delete'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'Delete a PENDING commission (status DELETED); any other state answers 406.',
  body: emptyBody,
  response: successResponse,
  handler: ({ params, program, deps }) => deps.commissions.remove(program!, params.commissionId!),
});
