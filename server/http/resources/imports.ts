import { z } from 'zod';
import { operation } from '../operation.ts';
import type { KeyRecord } from '../../domain/platform/keys.ts';
import type { ImportCaller } from '../../domain/imports/console-imports.ts';
import { importProgress, importRefusalsQuery, importSourceBody, importSourcePrograms, importStartBody } from '../../../shared/schemas/imports.ts';

// Moving a program in from a GrowSurf v2 API source (issue #33 part 5, refloop extensions; the
// console's "Move a program in" page and `refloop import growsurf` run the same import).

/** The caller as the import knows it: the team, and the signed-in person (else the key). */
const caller = (auth: KeyRecord | null): ImportCaller => ({ teamId: auth!.teamId, who: auth!.owner ? auth!.owner.userId : `key:${auth!.id}` });

const NOTE = 'refloop extension (issue #33).';

/** IM1 `POST /imports/growsurf/programs`. */
export const listImportSourcePrograms = operation({
  id: 'IM1',
  outbound: true,
  name: 'imports.listSourcePrograms',
  method: 'POST',
  path: '/imports/growsurf/programs',
  access: { scopes: ['program:read'] },
  allProgramsKey: true,
  summary: `${NOTE} Lists the programs of a server that speaks the GrowSurf v2 API (its GET /campaigns, read with the key given; deleted ones left out), each marked when its id is already a program here. POST so the key travels in the body. A source URL that is not an http(s) URL, reaches a private address, does not answer, or refuses the key is a 400 on the field to fix.`,
  body: importSourceBody,
  response: importSourcePrograms,
  handler: ({ body, deps }) => deps.consoleImports.sourcePrograms(body),
});

/** IM2 `POST /imports/growsurf`. */
export const startImport = operation({
  id: 'IM2',
  outbound: true,
  name: 'imports.start',
  method: 'POST',
  path: '/imports/growsurf',
  access: { scopes: ['program:write'] },
  allProgramsKey: true,
  summary: `${NOTE} Starts moving one program of the source into this team (or, with dryRun, checking it), as a background job that survives a restart; answers its progress (IM3). The program keeps its id. The key is stored sealed until the run ends and never returned. 409 when a program with this id is already here, or its import is already running.`,
  body: importStartBody,
  response: importProgress,
  handler: ({ body, auth, deps }) => deps.consoleImports.start(caller(auth), body),
});

/** IM3 `GET /imports/{programId}`. */
export const getImport = operation({
  id: 'IM3',
  name: 'imports.get',
  method: 'GET',
  path: '/imports/:programId',
  access: { scopes: ['program:read'] },
  allProgramsKey: true,
  summary: `${NOTE} The import's progress: status, stage, done/total, counts per record kind, refusals. Once it has ended, the first read by whoever started it also answers the new signing secrets of the webhooks it brought in, then deletes them.`,
  query: z.strictObject({}).meta({ id: 'ImportGetQuery' }),
  response: importProgress,
  handler: ({ params, auth, deps }) => deps.consoleImports.progress(caller(auth), params.programId!),
});

/** IM4 `GET /imports/{programId}/refusals.csv`. */
export const exportImportRefusals = operation({
  id: 'IM4',
  name: 'imports.exportRefusals',
  method: 'GET',
  path: '/imports/:programId/refusals.csv',
  access: { scopes: ['program:read'] },
  allProgramsKey: true,
  summary: `${NOTE} The records the import (or its dry run) refused, as CSV: kind, sourceId, reason.`,
  query: importRefusalsQuery,
  response: z.string().meta({ description: 'CSV (RFC 4180, UTF-8, CRLF, a header row).' }),
  contentType: 'text/csv',
  download: (_program, params) => `import-refusals-${params.programId}.csv`,
  handler: ({ params, auth, deps }) => deps.consoleImports.refusalsCsv(caller(auth), params.programId!),
});
