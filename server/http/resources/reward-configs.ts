import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import {
  campaignReward,
  campaignRewardList,
  deleteWithIdResponse,
  rewardConfigCreate,
  rewardConfigUpdate,
} from '../../../shared/schemas/reward-config.ts';

/** RC1 `GET /campaign/{id}/reward-configs`. */
export const listRewardConfigs = operation({
  id: 'RC1',
  name: 'rewardConfigs.list',
  method: 'GET',
  path: '/campaign/:id/reward-configs',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: 'List the program’s reward configurations (hidden ones included, with isVisible), by order then creation: the same items as Campaign.rewards.',
  response: campaignRewardList,
  handler: async ({ program, deps }) => ({ rewards: await deps.rewardConfigs.list(program!.id) }),
});

/** RC2 `POST /campaign/{id}/reward-configs`. */
export const createRewardConfig = operation({
  id: 'RC2',
  name: 'rewardConfigs.create',
  method: 'POST',
  path: '/campaign/:id/reward-configs',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Create a reward configuration. Referral programs take SINGLE_SIDED, DOUBLE_SIDED, MILESTONE or LEADERBOARD; affiliate programs AFFILIATE (with a commissionStructure). A type that does not fit the program is a 400 on `type`.',
  body: rewardConfigCreate,
  response: campaignReward,
  handler: ({ body, program, deps }) => deps.rewardConfigs.create(program!, body),
});

/** RC3 `PATCH /campaign/{id}/reward-configs/{campaignRewardId}`. */
export const updateRewardConfig = operation({
  id: 'RC3',
  name: 'rewardConfigs.update',
  method: 'PATCH',
  path: '/campaign/:id/reward-configs/:campaignRewardId',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'Update a reward configuration. Only sent fields change; null clears a field or restores its default. commissionStructure, value and referredValue merge into the stored object key by key (keys not sent keep their values; stored commission keys the new type, duration, cap or intro no longer use are dropped); metadata is replaced whole (keys not sent are removed). `type` cannot change.',
  body: rewardConfigUpdate,
  response: campaignReward,
  handler: ({ body, params, program, deps }) => deps.rewardConfigs.update(program!, params.campaignRewardId ?? '', body),
});

/** RC4 `DELETE /campaign/{id}/reward-configs/{campaignRewardId}`. */
export const deleteRewardConfig = operation({
  id: 'RC4',
  name: 'rewardConfigs.delete',
  method: 'DELETE',
  path: '/campaign/:id/reward-configs/:campaignRewardId',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Delete a reward configuration: it stops being awarded and leaves the list and Campaign.rewards; rewards already issued keep referring to it.',
  body: emptyBody,
  response: deleteWithIdResponse,
  handler: ({ params, program, deps }) => deps.rewardConfigs.remove(program!, params.campaignRewardId ?? ''),
});
