import type { z } from 'zod';
import { operation } from '../operation.ts';
import { campaignDesign } from '../../../shared/schemas/program-config-design.ts';
import { campaignDesignUpdate, campaignEmailsUpdate, campaignInstallationUpdate, campaignOptionsUpdate } from '../../../shared/schemas/program-config.ts';
import { campaignEmails } from '../../../shared/schemas/program-config-emails.ts';
import { campaignInstallationResponse } from '../../../shared/schemas/program-config-installation.ts';
import { campaignOptions } from '../../../shared/schemas/program-config-options.ts';
import { integrationList } from '../../../shared/schemas/program-config-integrations.ts';
import type { DocumentKind } from '../../../shared/schemas/program-config-fields.ts';
import { emailsQuery } from '../../../shared/schemas/program-previews.ts';
import { assertProgramLanguage } from '../../domain/participants/model.ts';

const TITLES: Record<DocumentKind, string> = { design: 'design', emails: 'emails', options: 'options', installation: 'installation' };

/**
 * A GET and a PATCH for one Program Editor document; both load the program by `:id` with its grant
 * check. `note` ends both summaries.
 */
function documentOperations<K extends DocumentKind>(kind: K, ids: [string, string], response: z.ZodType, body: z.ZodType, patchRule: string, note = '', query?: z.ZodType<{ language?: string }>) {
  const get = operation({
    id: ids[0],
    name: `campaigns.${kind}.get`,
    method: 'GET',
    path: `/campaign/:id/${kind}`,
    access: { scopes: ['program:read'] },
    programParam: 'id',
    summary: `Retrieve the program's ${TITLES[kind]}: the complete document, every field with its current value.${note}`,
    response,
    ...(query ? { query } : {}),
    handler: async ({ program, query: q, deps }) => {
      const language = (q as { language?: string } | undefined)?.language;
      if (language) assertProgramLanguage(program!, language);
      return deps.programConfig.read(program!, kind, language);
    },
  });
  const patch = operation({
    id: ids[1],
    name: `campaigns.${kind}.update`,
    method: 'PATCH',
    path: `/campaign/:id/${kind}`,
    access: { scopes: ['program:write'] },
    programParam: 'id',
    summary: `Update the program's ${TITLES[kind]} by deep partial merge (objects merge, arrays replace, null clears where allowed); answers the full updated document. ${patchRule}${note}`,
    body,
    response,
    // The audit entry's before values: the stored document, already loaded with the program.
    audit: { before: async ({ program }) => program!.documents[kind] as unknown as Record<string, unknown> },
    handler: ({ body, program, deps }) => deps.programConfig.update(program!, kind, body as Record<string, unknown>),
  });
  return [get, patch] as const;
}

/** What the design and emails documents show of their default texts (issue #27). */
const BASE_LANGUAGE_NOTE =
  ' Texts still at their default are shown in the program’s base language (options `languages.baseLanguage`), as its readers get them; the owner’s own texts as written (refloop extension). A default sent back stays a default: each reader still gets it in their own language.';

/** CF1 `GET /campaign/{id}/design` and CF2 `PATCH /campaign/{id}/design`. */
export const [getDesign, updateDesign] = documentOperations(
  'design',
  ['CF1', 'CF2'],
  campaignDesign,
  campaignDesignUpdate,
  'Sections of the other program type (referralSummary; affiliateSummary, commissions, payouts) answer 400.',
  BASE_LANGUAGE_NOTE,
);

/** CF3 `GET /campaign/{id}/emails` and CF4 `PATCH /campaign/{id}/emails`. */
export const [getEmails, updateEmails] = documentOperations(
  'emails',
  ['CF3', 'CF4'],
  campaignEmails,
  campaignEmailsUpdate,
  'Templates of the other program type answer 400; settings.sender.fromEmail and transactional isEnabled are read-only.',
  `${BASE_LANGUAGE_NOTE} With \`?language=\`, the unedited defaults in that program language instead (refloop extension).`,
  emailsQuery,
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

/**
 * I1 `GET /campaign/{id}/integrations`: the spec names no scope; reading program configuration is
 * `program:read`. Lists what refloop integrates with (issue #25), each with its real state.
 */
export const listIntegrations = operation({
  id: 'I1',
  name: 'campaigns.integrations.list',
  method: 'GET',
  path: '/campaign/:id/integrations',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary:
    'List the integrations refloop provides for the program (Stripe, Paddle Billing), with each one’s connection state. Read-only; connectUrl is the console page where a person connects it (the REST extensions BI1–BI5 for Stripe and BI6–BI10 for Paddle do the same; docs/integrations.md).',
  response: integrationList,
  handler: async ({ program, deps }) => ({ integrations: await deps.billing.integrations(program!) }),
});
