import { z } from 'zod';
import type { Readable } from 'node:stream';
import { operation, type OperationInput } from '../operation.ts';
import type { Program } from '../../domain/programs/programs.ts';
import { csvStream, type CsvExport } from '../../domain/platform/csv-stream.ts';
import { participantExport, referralExport } from '../../domain/participants/participant-export.ts';
import { importParticipants, MAX_IMPORT_BYTES } from '../../domain/participants/participant-import.ts';
import { rewardExport } from '../../domain/referral/reward-export.ts';
import { commissionExport } from '../../domain/affiliate/commission-export.ts';
import { withCommissionCodes, withParticipantCodes } from '../../domain/billing/code-export.ts';
import { exportQuery, importBody, importQuery, participantImportReport, type ExportTable } from '../../../shared/schemas/data.ts';
import type { Knex } from 'knex';

// Data (issue #23, refloop extensions; docs/decisions.md "Data export and import"): CSV exports of
// a program's tables, streamed in keyset pages so memory stays flat at any size, and the
// participants CSV import with a dry run.

/** The exports' answer: CSV text, streamed (typed once here as what the handler really returns). */
const csvFile = z.string().meta({ description: 'CSV (RFC 4180, UTF-8, CRLF, a header row; cells starting with = + - @ are prefixed with an apostrophe).' }) as unknown as z.ZodType<string | Readable>;

const EXPORT_NOTE =
  'refloop extension. Streamed as it is read (constant server memory at any size; rows added meanwhile may or may not appear), oldest first, as a download. Times are ISO 8601 UTC; money is integer minor units beside its currency column.';

/** One export operation over the table `table`. */
function exportOperation<R>(id: string, table: ExportTable, scope: 'participant:read' | 'reward:read', summary: string, build: (knex: Knex, program: Program) => CsvExport<R>, programType?: 'AFFILIATE') {
  return operation({
    id,
    name: `data.export${table[0]!.toUpperCase()}${table.slice(1)}`,
    method: 'GET',
    path: `/campaign/:id/export/${table}.csv`,
    access: { scopes: [scope] },
    programParam: 'id',
    ...(programType ? { programType } : {}),
    summary: `${summary} ${EXPORT_NOTE}`,
    query: exportQuery,
    response: csvFile,
    contentType: 'text/csv',
    download: (program) => `${table}-${program!.id}.csv`,
    audit: { reads: true, mode: 'after' },
    handler: ({ program, deps }: OperationInput<unknown, unknown>) => csvStream(build(deps.db.knex, program!)),
  });
}

/** DX1 `GET /campaign/{id}/export/participants.csv`. */
export const exportParticipants = exportOperation(
  'DX1',
  'participants',
  'participant:read',
  'Every participant: id, email, names, share and vanity keys, referrer id and email, referral status and source, counts, fraud level, affiliate state, unsubscribed, language, metadata (one JSON object), createdAt, and last codes (the participant’s coupon and promotion codes, oldest first, separated by spaces).',
  (knex, program) => withParticipantCodes(knex, program, participantExport(knex, program)),
);

/** DX2 `GET /campaign/{id}/export/referrals.csv`. */
export const exportReferrals = exportOperation(
  'DX2',
  'referrals',
  'participant:read',
  'One row per referred participant: referred and referrer ids and emails, status, source, referredAt, creditedAt, createdAt.',
  referralExport,
);

/** DX3 `GET /campaign/{id}/export/rewards.csv`. */
export const exportRewards = exportOperation(
  'DX3',
  'rewards',
  'reward:read',
  'Every issued reward (rejected ones left out, as PR5): recipient id and email, rewardId, status, approved, isReferrer, referrer and referred ids, amount with currencyISO, createdAt, approvedAt, fulfilledAt.',
  rewardExport,
);

/** DX4 `GET /campaign/{id}/export/commissions.csv` (affiliate programs). */
export const exportCommissions = exportOperation(
  'DX4',
  'commissions',
  'reward:read',
  'Every commission: affiliate id and email, referred id, transaction, rewardId, event, status, amount and saleAmount in currencyISO, amountInCampaignCurrency in campaignCurrencyISO, payoutId, createdAt, approvedAt, paidAt, reversedAt, and last affiliateCodes (the affiliate’s coupon and promotion codes, separated by spaces) and attributedCode (the code that attributed the sale, empty when none did).',
  (knex, program) => withCommissionCodes(knex, program, commissionExport(knex, program)),
  'AFFILIATE',
);

/** DI1 `POST /campaign/{id}/import/participants`. */
export const importParticipantsCsv = operation({
  id: 'DI1',
  name: 'data.importParticipants',
  method: 'POST',
  path: '/campaign/:id/import/participants',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary: `refloop extension. Adds the participants of a CSV file (Content-Type: text/csv up to ${MAX_IMPORT_BYTES / 1024 / 1024} MiB, or JSON {"csv": "…"}; at most 10,000 rows). Every row passes P3's checks, and the file as a whole is checked too (an email twice, a referrer neither in the program nor on an earlier row, a vanity key taken). ?dryRun=true answers the report of every problem by line and field and writes nothing. Otherwise the import is all or nothing: any problem is a 400 listing them all, and a clean file is added through P3 in one transaction (an existing email is left unchanged, as P3 does).`,
  query: importQuery,
  body: importBody,
  csvBody: { limit: MAX_IMPORT_BYTES },
  response: participantImportReport,
  handler: ({ body, query, program, auth, deps }) =>
    importParticipants({ knex: deps.db.knex, create: (p, b, i, o) => deps.participants.create(p, b, i, o) }, program!, auth!, body, query.dryRun),
});
