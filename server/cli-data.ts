import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Deps } from './deps.ts';
import { toProgram, type Program } from './domain/programs/programs.ts';
import { AppError, NotFoundError, WrongProgramTypeError } from './errors.ts';
import { csvStream, type CsvExport } from './domain/platform/csv-stream.ts';
import { participantExport, referralExport } from './domain/participants/participant-export.ts';
import { importParticipants } from './domain/participants/participant-import.ts';
import { rewardExport } from './domain/referral/reward-export.ts';
import { commissionExport } from './domain/affiliate/commission-export.ts';
import { withCommissionCodes, withParticipantCodes } from './domain/billing/code-export.ts';
import { teamBilling } from './domain/affiliate/affiliate-invites.ts';
import { EXPORT_TABLES, type ExportTable } from '../shared/schemas/data.ts';

// `refloop export …` and `refloop import participants …`: the Data extensions (DX1–DX4, DI1) from a
// shell, through the same domain code, so the files and the checks are the REST API's.

type Out = { log(s: string): void; error(s: string): void };
type Values = Record<string, string | boolean | undefined>;

/** Exit code 2 with the command's usage: the arguments were wrong. */
function usage(out: Out, message: string, help: string): number {
  out.error(`${message}\n\n${help}`);
  return 2;
}

/** The live program `id` (404 as exit code 1). */
async function liveProgram(deps: Deps, id: string): Promise<Program> {
  const row = await deps.db.knex('programs').where({ id }).first();
  if (!row || row.status === 'DELETED') throw new NotFoundError(`No program ${id.slice(0, 64)}.`);
  return toProgram(row);
}

const EXPORTS: Record<ExportTable, (deps: Deps, program: Program) => CsvExport<unknown>> = {
  participants: (deps, p) => withParticipantCodes(deps.db.knex, p, participantExport(deps.db.knex, p)) as CsvExport<unknown>,
  referrals: (deps, p) => referralExport(deps.db.knex, p) as CsvExport<unknown>,
  rewards: (deps, p) => rewardExport(deps.db.knex, p) as CsvExport<unknown>,
  commissions: (deps, p) => withCommissionCodes(deps.db.knex, p, commissionExport(deps.db.knex, p)) as CsvExport<unknown>,
};

/** `refloop export TABLE --program ID [--out FILE]`: streams the CSV to the file (owner-only mode) or `stdout` (else `out.log`, for tests). */
export async function exportCommand(table: string | undefined, values: Values, deps: Deps, out: Out, help: string, stdout?: NodeJS.WritableStream): Promise<number> {
  if (!table || !(EXPORT_TABLES as readonly string[]).includes(table)) return usage(out, `Name what to export: ${EXPORT_TABLES.join(', ')}.`, help);
  if (typeof values.program !== 'string' || !values.program) return usage(out, 'Missing --program.', help);
  const program = await liveProgram(deps, values.program);
  if (table === 'commissions' && program.type !== 'AFFILIATE') throw new WrongProgramTypeError(`Program ${program.id} is a referral program; commissions are for affiliate programs.`);
  const stream = await csvStream(EXPORTS[table as ExportTable](deps, program));
  if (typeof values.out === 'string') {
    // Exports carry participants' emails: written readable by the owner only.
    await pipeline(stream, fs.createWriteStream(values.out, { mode: 0o600 }));
    out.error(`Wrote ${stream.rowsRead().toLocaleString('en')} ${table} to ${values.out}.`);
  } else if (stdout) {
    await pipeline(stream, stdout, { end: false });
  } else {
    let text = '';
    for await (const chunk of stream) text += (chunk as Buffer).toString('utf8');
    out.log(text.replace(/\r\n$/, ''));
  }
  return 0;
}

/** `refloop import participants --program ID --file FILE [--dry-run] [--json]`. */
export async function importCommand(what: string | undefined, values: Values, deps: Deps, out: Out, help: string): Promise<number> {
  if (what !== 'participants') return usage(out, 'Only participants can be imported.', help);
  if (typeof values.program !== 'string' || !values.program) return usage(out, 'Missing --program.', help);
  if (typeof values.file !== 'string' || !values.file) return usage(out, 'Missing --file.', help);
  const program = await liveProgram(deps, values.program);
  const csv = await fs.promises.readFile(values.file, 'utf8');
  const billing = await teamBilling(deps.db.knex, program.teamId);
  const dryRun = values['dry-run'] === true;
  let report;
  try {
    report = await importParticipants({ knex: deps.db.knex, create: (p, b, i, o) => deps.participants.create(p, b, i, o) }, program, billing, csv, dryRun);
  } catch (e) {
    // A file with problems: every one of them, then the summary (exit 1).
    if (!(e instanceof AppError) || !e.errors?.length) throw e;
    for (const f of e.errors) out.error(`${f.field}  ${f.message}`);
    out.error(e.message);
    return 1;
  }
  if (values.json) out.log(JSON.stringify(report, null, 2));
  else {
    for (const e of report.errors) out.error(`line ${e.line}  ${e.field}  ${e.message}`);
    if (report.errors.length) out.log(`${report.invalidRows} of ${report.rows} rows are invalid; nothing ${dryRun ? 'would be' : 'was'} imported.`);
    else out.log(`${dryRun ? 'Dry run: would add' : 'Added'} ${report.created} participant${report.created === 1 ? '' : 's'}; ${report.unchanged} already in the program left unchanged.`);
  }
  return report.errors.length ? 1 : 0;
}
