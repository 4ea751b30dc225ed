import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Deps } from './deps.ts';
import { AppError, NotFoundError } from './errors.ts';
import { toProgram } from './domain/programs/programs.ts';
import { teamBilling } from './domain/affiliate/affiliate-invites.ts';
import { importCsvExports, type CsvFile } from './domain/imports/csv-import.ts';
import { CSV_FORMATS, FILE_KINDS, type CsvFormat, type FileKind } from './domain/imports/csv-formats.ts';

// `refloop import csv`: the affiliates, referrals and commissions exports of Rewardful,
// FirstPromoter and Tolt (or any CSV through a column map) through the domain code of
// server/domain/imports/csv-import.ts.

type Out = { log(s: string): void; error(s: string): void };

const OPTIONS = {
  format: { type: 'string' },
  program: { type: 'string' },
  file: { type: 'string', multiple: true },
  map: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** Exit code 2 with the usage: the arguments were wrong. */
function usage(out: Out, message: string, help: string): number {
  out.error(`${message}\n\n${help}`);
  return 2;
}

/** `--file [KIND=]PATH`: the kind when the argument names one before `=`. */
function fileArgument(arg: string): { kind?: FileKind; path: string } {
  const m = /^([a-z]+)=(.+)$/.exec(arg);
  if (m && (FILE_KINDS as readonly string[]).includes(m[1]!)) return { kind: m[1] as FileKind, path: m[2]! };
  return { path: arg };
}

/** `refloop import csv --format F --program ID --file [KIND=]PATH ... [--map JSON|FILE] [--dry-run] [--json]`. */
export async function importCsvCommand(argv: string[], deps: Deps, out: Out, help: string): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
  } catch (err) {
    return usage(out, (err as Error).message, help);
  }
  const format = values.format as CsvFormat | undefined;
  if (!format || !(CSV_FORMATS as readonly string[]).includes(format)) return usage(out, `--format takes ${CSV_FORMATS.join(', ')}.`, help);
  if (!values.program) return usage(out, 'Missing --program.', help);
  if (!values.file?.length) return usage(out, 'Missing --file.', help);
  if (format === 'generic' && !values.map) return usage(out, '--format generic needs --map (a JSON object or a JSON file).', help);
  if (format !== 'generic' && values.map) return usage(out, '--map is for --format generic; the other formats know their columns.', help);
  let map: unknown;
  if (values.map !== undefined) {
    const text = values.map.trim().startsWith('{') ? values.map : await fs.promises.readFile(values.map, 'utf8').catch(() => null);
    if (text === null) return usage(out, `--map ${values.map} is neither a JSON object nor a readable file.`, help);
    try {
      map = JSON.parse(text);
    } catch {
      return usage(out, '--map is not valid JSON.', help);
    }
  }
  const files: CsvFile[] = [];
  for (const arg of values.file) {
    const { kind, path } = fileArgument(arg);
    let text;
    try {
      text = await fs.promises.readFile(path, 'utf8');
    } catch (e) {
      out.error(`Cannot read ${path}: ${(e as Error).message}`);
      return 1;
    }
    files.push({ name: path, text, ...(kind ? { kind } : {}) });
  }
  const row = await deps.db.knex('programs').where({ id: values.program }).first();
  if (!row || row.status === 'DELETED') throw new NotFoundError(`No program ${values.program.slice(0, 64)}.`);
  const program = toProgram(row);
  const dryRun = values['dry-run'] === true;
  let report;
  try {
    report = await importCsvExports(
      {
        knex: deps.db.knex,
        billing: await teamBilling(deps.db.knex, program.teamId),
        now: () => deps.clock.now(),
        create: (p, b, i, o) => deps.participants.create(p, b, i, o),
        recordImported: (trx, p, c, i, cs) => deps.transactions.recordImported(trx, p, c, i, cs),
      },
      program,
      format,
      files,
      { dryRun, map },
    );
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    out.error(`${e.message}\nNothing was imported.`);
    return 1;
  }
  if (values.json) out.log(JSON.stringify(report, null, 2));
  else {
    for (const r of report.refused) out.error(`${r.file} line ${r.line}  ${r.reason}`);
    const c = report.created;
    const would = dryRun ? 'Dry run, nothing written: would add' : 'Added';
    out.log(`${report.files.map((f) => `${f.file}: ${f.kind}, ${f.rows} row${f.rows === 1 ? '' : 's'}`).join('\n')}`);
    out.log(
      `${would} ${c.affiliates} affiliate${c.affiliates === 1 ? '' : 's'}, ${c.referrals} referred customer${c.referrals === 1 ? '' : 's'}, ${c.sales} sale${c.sales === 1 ? '' : 's'} and ${c.commissions} commission${c.commissions === 1 ? '' : 's'}; ${report.unchanged.participants} participant${report.unchanged.participants === 1 ? '' : 's'} and ${report.unchanged.sales} sale${report.unchanged.sales === 1 ? '' : 's'} already here left unchanged; ${report.refused.length} row${report.refused.length === 1 ? '' : 's'} refused.`,
    );
  }
  return report.refused.length ? 1 : 0;
}
