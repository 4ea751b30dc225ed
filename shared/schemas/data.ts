import { z } from 'zod';

// The Data extensions (issue #23, refloop only): CSV exports of a program's participants, referrals,
// rewards and commissions, and the participants CSV import with its dry run.

/** Tables a program exports as CSV. */
export const EXPORT_TABLES = ['participants', 'referrals', 'rewards', 'commissions'] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];

/** Export query: none (the whole table, oldest first). Unknown parameters are refused. */
export const exportQuery = z.strictObject({}).meta({ id: 'DataExportQuery' });

/** Import query: `dryRun=true` checks the file and reports, writing nothing. */
export const importQuery = z.strictObject({
  dryRun: z
    .enum(['true', 'false'], { error: 'dryRun is true or false.' })
    .default('false')
    .transform((v) => v === 'true')
    .meta({ description: 'true: check every row and answer the report; nothing is written.' }),
});

/**
 * Import body: the CSV text itself (`Content-Type: text/csv`, up to 5 MiB) or JSON `{ "csv": "…" }`
 * (JSON bodies are capped at 1 MiB like every other request).
 */
export const importBody = z
  .union([z.string(), z.strictObject({ csv: z.string().max(5 * 1024 * 1024) })])
  .transform((b) => (typeof b === 'string' ? b : b.csv))
  .meta({
    id: 'ParticipantImportBody',
    description:
      'A CSV file with a header row. Columns: email (required), firstName, lastName, referredBy (id, share key, vanity key or email of a participant already in the program or on an earlier row), referralStatus, language, isAffiliate, vanityKeys (space-separated), metadata (a JSON object) and metadata.<key> (one metadata key each). Columns of our participants export that the API owns (id, shareKey, referrerId, …) are read past; referrerEmail stands in for referredBy.',
  });

/** One problem of an import file: the file's line (1 is the header), the column, and what is wrong. */
export const importProblem = z
  .object({ line: z.number().int(), field: z.string(), code: z.string(), message: z.string() })
  .meta({ id: 'ParticipantImportProblem' });
export type ImportProblem = z.infer<typeof importProblem>;

/** What an import did, or (dry run) would do. */
export const participantImportReport = z
  .object({
    dryRun: z.boolean(),
    rows: z.number().int().meta({ description: 'Data rows read (the header not counted).' }),
    created: z.number().int().meta({ description: 'Participants added (dry run: that would be added; 0 when the file has problems).' }),
    unchanged: z.number().int().meta({ description: 'Rows whose email is already a participant of the program: left unchanged, as P3 does.' }),
    invalidRows: z.number().int(),
    errors: z.array(importProblem).meta({ description: 'Every problem, by line; empty when the file can be imported.' }),
  })
  .meta({ id: 'ParticipantImportReport' });
export type ParticipantImportReport = z.infer<typeof participantImportReport>;
