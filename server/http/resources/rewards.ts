import { operation } from '../operation.ts';
import { emptyBody, successResponse } from '../../../shared/schemas/common.ts';
import { approveRewardBody, participantRewardList, programRewardCounts, programRewardCountsQuery, participantRewardListQuery, programRewardList, programRewardListQuery } from '../../../shared/schemas/reward.ts';

// Issued rewards (rest-v2 §3.9 PR1–PR4). Referral programs issue rewards; affiliate programs earn
// commissions through their own endpoints, so these answer 422 there (§6.2 #15).

/** PR1 `GET /campaign/{id}/participant/{participantIdOrEmail}/rewards`. */
export const listParticipantRewards = operation({
  id: 'PR1',
  name: 'rewards.list',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/rewards',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'REFERRAL',
  summary: 'List a participant’s issued rewards, newest first (limit 1–100, default 20; nextId = the last reward id of the previous page).',
  query: participantRewardListQuery,
  response: participantRewardList,
  handler: ({ query, params, program, deps }) => deps.rewards.list(program!, params.participantIdOrEmail!, query),
});

/** PR2 `POST /campaign/{id}/reward/{rewardId}/approve`. */
export const approveParticipantReward = operation({
  id: 'PR2',
  name: 'rewards.approve',
  method: 'POST',
  path: '/campaign/:id/reward/:rewardId/approve',
  // Approving and fulfilling in one request needs both scopes (seed: scopes).
  access: { scopes: ['reward:write'], extraScopes: (body: { fulfill?: unknown }) => (body?.fulfill === true ? ['reward:fulfill'] : []) },
  programParam: 'id',
  programType: 'REFERRAL',
  summary: 'Approve a reward awaiting approval; with fulfill: true also mark it fulfilled (needs reward:fulfill too). Approving an approved reward changes nothing; a fulfilled reward answers 406.',
  body: approveRewardBody,
  response: successResponse,
  handler: ({ body, params, program, deps }) => deps.rewards.approve(program!, params.rewardId!, body.fulfill === true),
});

/** PR3 `POST /campaign/{id}/reward/{rewardId}/fulfill`. */
export const fulfillParticipantReward = operation({
  id: 'PR3',
  name: 'rewards.fulfill',
  method: 'POST',
  path: '/campaign/:id/reward/:rewardId/fulfill',
  access: { scopes: ['reward:fulfill'] },
  programParam: 'id',
  programType: 'REFERRAL',
  summary: 'Mark an approved reward fulfilled (sent). A fulfilled reward, or one still awaiting approval, answers 406.',
  body: emptyBody,
  response: successResponse,
  handler: ({ params, program, deps }) => deps.rewards.fulfill(program!, params.rewardId!),
});

/** PR4 `DELETE /campaign/{id}/reward/{rewardId}`. */
export const deleteParticipantReward = operation({
  id: 'PR4',
  name: 'rewards.delete',
  method: 'DELETE',
  path: '/campaign/:id/reward/:rewardId',
  access: { scopes: ['reward:delete'] },
  programParam: 'id',
  programType: 'REFERRAL',
  summary: 'Delete a reward that is still awaiting approval; an approved reward answers 406. The same occasion never issues it again.',
  body: emptyBody,
  response: successResponse,
  handler: ({ params, program, deps }) => deps.rewards.remove(program!, params.rewardId!),
});

/** PR5 `GET /campaign/{id}/rewards` (refloop extension): the program's rewards queue. */
export const listProgramRewards = operation({
  id: 'PR5',
  name: 'rewards.listProgram',
  method: 'GET',
  path: '/campaign/:id/rewards',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'REFERRAL',
  summary:
    'refloop extension. Every participant’s issued rewards in one list, newest first, by state: AWAITING_APPROVAL (the default; approve with PR2 or delete with PR4), APPROVED (not fulfilled yet; fulfil with PR3), FULFILLED or ALL. Deleted rewards are left out. limit 1–100 (default 20); nextId = the last reward id of the previous page. Each reward is the ParticipantReward of PR1 plus participantId, participantEmail and createdAt.',
  query: programRewardListQuery,
  response: programRewardList,
  handler: ({ query, program, deps }) => deps.rewards.queue.list(program!, query),
});

/** PR6 `GET /campaign/{id}/rewards/counts` (refloop extension): the rewards queue's count per state. */
export const countProgramRewards = operation({
  id: 'PR6',
  name: 'rewards.countProgram',
  method: 'GET',
  path: '/campaign/:id/rewards/counts',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'REFERRAL',
  summary:
    'refloop extension. How many of the program’s issued rewards are in each PR5 state (AWAITING_APPROVAL, APPROVED, FULFILLED) and in ALL; deleted rewards are left out. The same rows PR5 lists, counted; the console’s program home and the rewards filter read it.',
  query: programRewardCountsQuery,
  response: programRewardCounts,
  handler: ({ program, deps }) => deps.rewards.queue.counts(program!),
});
