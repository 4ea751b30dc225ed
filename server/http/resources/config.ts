import type { z } from 'zod';
import { operation } from '../operation.ts';
import {
  campaignDesign,
  campaignDesignUpdate,
  campaignEmails,
  campaignEmailsUpdate,
  campaignInstallationResponse,
  campaignInstallationUpdate,
  campaignOptions,
  campaignOptionsUpdate,
  integrationList,
  type DocumentKind,
} from '../../../shared/schemas/program-config.ts';

const TITLES: Record<DocumentKind, string> = { design: 'design', emails: 'emails', options: 'options', installation: 'installation' };

/** A GET and a PATCH for one Program Editor document; both load the program by `:id` with its grant check. */
function documentOperations<K extends DocumentKind>(kind: K, ids: [string, string], response: z.ZodType, body: z.ZodType, patchRule: string) {
  const get = operation({
    id: ids[0],
    name: `campaigns.${kind}.get`,
    method: 'GET',
    path: `/campaign/:id/${kind}`,
    access: { scopes: ['program:read'] },
    programParam: 'id',
    summary: `Retrieve the program's ${TITLES[kind]}: the complete document, every field with its current value.`,
    response,
    handler: async ({ program, deps }) => deps.programConfig.read(program!, kind),
  });
  const patch = operation({
    id: ids[1],
    name: `campaigns.${kind}.update`,
    method: 'PATCH',
    path: `/campaign/:id/${kind}`,
    access: { scopes: ['program:write'] },
    programParam: 'id',
    summary: `Update the program's ${TITLES[kind]} by deep partial merge (objects merge, arrays replace, null clears where allowed); answers the full updated document. ${patchRule}`,
    body,
    response,
    handler: ({ body, program, deps }) => deps.programConfig.update(program!, kind, body as Record<string, unknown>),
  });
  return [get, patch] as const;
}

/** CF1 `GET /campaign/{id}/design` and CF2 `PATCH /campaign/{id}/design`. */
export const [getDesign, updateDesign] = documentOperations(
  'design',
  ['CF1', 'CF2'],
  campaignDesign,
  campaignDesignUpdate,
  'Sections of the other program type (referralSummary; affiliateSummary, commissions, payouts) answer 400.',
);

/** CF3 `GET /campaign/{id}/emails` and CF4 `PATCH /campaign/{id}/emails`. */
export const [getEmails, updateEmails] = documentOperations(
  'emails',
  ['CF3', 'CF4'],
  campaignEmails,
  campaignEmailsUpdate,
  'Templates of the other program type answer 400; settings.sender.fromEmail and transactional isEnabled are read-only.',
);

/** CF5 `GET /campaign/{id}/options` and CF6 `PATCH /campaign/{id}/options`. */
export const [getOptions, updateOptions] = documentOperations(
  'options',
  ['CF5', 'CF6'],
  campaignOptions,
  campaignOptionsUpdate,
  'Fields of the other program type answer 400; fraud.recaptcha.secretKey is write-only.',
);

/** CF7 `GET /campaign/{id}/installation` and CF8 `PATCH /campaign/{id}/installation`. */
export const [getInstallation, updateInstallation] = documentOperations(
  'installation',
  ['CF7', 'CF8'],
  campaignInstallationResponse,
  campaignInstallationUpdate,
  'referralTrigger is for referral programs only; mobile.publicKey is read-only and created when mobile.isEnabled turns on. shareUrl and mobile.publicKey are omitted while unset (never null); shareUrl: null clears it.',
);

/** I1 `GET /campaign/{id}/integrations`: the spec names no scope; reading program configuration is `program:read`. */
export const listIntegrations = operation({
  id: 'I1',
  name: 'campaigns.integrations.list',
  method: 'GET',
  path: '/campaign/:id/integrations',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: 'List every integration the program can connect, in dashboard order, with its state. Read-only: connecting happens in the dashboard.',
  response: integrationList,
  handler: async ({ program, deps }) => ({ integrations: deps.programConfig.integrations(program!) }),
});
