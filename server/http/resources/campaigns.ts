import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { campaign, campaignCreate, campaignList, campaignUpdate } from '../../../shared/schemas/campaign.ts';

/** C1 `GET /campaigns`. */
export const listCampaigns = operation({
  id: 'C1',
  name: 'campaigns.list',
  method: 'GET',
  path: '/campaigns',
  access: { scopes: ['program:read'] },
  summary: 'List the team’s programs (deleted ones omitted; a program-limited key sees only its programs).',
  response: campaignList,
  handler: async ({ auth, deps }) => ({ campaigns: await deps.programs.list(auth!.teamId, auth!.programIds) }),
});

/** C2 `GET /campaign/{id}`. */
export const getCampaign = operation({
  id: 'C2',
  name: 'campaigns.get',
  method: 'GET',
  path: '/campaign/:id',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: 'Retrieve a program.',
  response: campaign,
  handler: ({ program, deps }) => deps.programs.toCampaign(program!),
});

/** C3 `POST /campaigns`: every new program starts DRAFT. */
export const createCampaign = operation({
  id: 'C3',
  name: 'campaigns.create',
  method: 'POST',
  path: '/campaigns',
  access: { scopes: ['program:write'] },
  allProgramsKey: true,
  summary:
    'Create a program. It starts DRAFT with complete default design, emails, options and installation; launching is a separate decision. Needs a key for all of the team’s programs: a key limited to some programs (programIds) gets 403 NOT_AUTHORIZED_ERROR, since it could not use the program it created.',
  body: campaignCreate,
  response: campaign,
  handler: ({ body, auth, deps }) => deps.programs.create(auth!.teamId, auth!, body),
});

/** C4 `PATCH /campaign/{id}`. */
export const updateCampaign = operation({
  id: 'C4',
  name: 'campaigns.update',
  method: 'PATCH',
  path: '/campaign/:id',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Update name or company fields, launch (status IN_PROGRESS) or end (status COMPLETE) a program. Currency and type are immutable.',
  body: campaignUpdate,
  response: campaign,
  // The audit entry's before values: the program row the pipeline already loaded.
  audit: { before: async ({ program }) => program as unknown as Record<string, unknown> },
  handler: ({ body, program, deps }) => deps.programs.update(program!, body),
});

/** C5 `POST /campaign/{id}/clone`. */
export const cloneCampaign = operation({
  id: 'C5',
  name: 'campaigns.clone',
  method: 'POST',
  path: '/campaign/:id/clone',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  allProgramsKey: true,
  summary:
    'Clone a program into a new DRAFT with the same configuration and reward configurations; participants and money are never copied. Needs a key for all of the team’s programs: a key limited to some programs (programIds) gets 403 NOT_AUTHORIZED_ERROR even when the source program is in its grant, since it could not use the copy.',
  body: emptyBody,
  response: campaign,
  handler: ({ program, auth, deps }) => deps.programs.clone(auth!.teamId, auth!, program!),
});
