import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import type { TeamBilling } from '../platform/plans.ts';
import { AppError, ValidationError } from '../../errors.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { CsvSyntaxError, parseCsv } from '../../../shared/csv.ts';
import { fieldErrors } from '../../../shared/field-errors.ts';
import { participantCreate, VANITY_KEY_PATTERN, type ParticipantCreate } from '../../../shared/schemas/participant.ts';
import type { ImportProblem, ParticipantImportReport } from '../../../shared/schemas/data.ts';
import { emailKey, programLanguages } from './model.ts';
import { findReferrer } from './referrals.ts';
import { replaceVanityKeys } from './keys.ts';
import type { AddOptions } from './sign-ups.ts';
import type { Participant } from '../../../shared/schemas/participant.ts';

// The participants CSV import (issue #23, docs/decisions.md "Data export and import"). Every row
// passes P3's own body schema; then the file as a whole is checked (an email twice, a referrer that
// is neither in the program nor on an earlier line, a vanity key taken or listed twice). A dry run
// reports every problem by line and field; an import with any problem writes nothing, and one
// without runs every row through P3's code in ONE transaction, so a failure on row 9,000 (a fraud
// block, the plan's limit) also leaves nothing behind.

/** The most data rows one file may hold. */
export const MAX_IMPORT_ROWS = 10_000;
/** The largest CSV body the import reads (also the JSON `csv` text's cap). */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

/** Columns taken from the file, by their lower-cased header; `metadata.<key>` columns add metadata keys. */
const COLUMNS: Record<string, string> = {
  email: 'email',
  firstname: 'firstName',
  lastname: 'lastName',
  referredby: 'referredBy',
  referreremail: 'referrerEmail',
  referralstatus: 'referralStatus',
  language: 'language',
  isaffiliate: 'isAffiliate',
  vanitykeys: 'vanityKeys',
  metadata: 'metadata',
};

/** Columns of our own participants export that describe state the API owns: read past, so an export imports again. */
const EXPORT_ONLY = new Set(['id', 'sharekey', 'referrerid', 'referralsource', 'referralcount', 'monthlyreferralcount', 'fraudrisklevel', 'affiliatestatus', 'unsubscribed', 'createdat', 'codes']);

/** One valid row, ready for P3. */
interface ImportRow {
  line: number;
  input: ParticipantCreate;
  vanityKeys: string[];
}

/** What the checks found: the rows to add and every problem. */
interface Checked {
  rows: number;
  valid: ImportRow[];
  existing: Set<string>;
  errors: ImportProblem[];
}

/** What the add step needs from the participants service (P3 with the caller's transaction). */
export interface ImportTarget {
  knex: Knex;
  create(program: Program, billing: TeamBilling, input: ParticipantCreate, opts: AddOptions): Promise<Participant>;
}

/** 400 naming the limit a file passed. */
function tooLarge(what: string): ValidationError {
  return new ValidationError(`${what} An import takes at most ${MAX_IMPORT_ROWS.toLocaleString('en')} rows and ${MAX_IMPORT_BYTES / 1024 / 1024} MiB; split the file.`, undefined, ERROR_CODES.BODY_TOO_LARGE);
}

/** Text of a truthy/falsy cell as a boolean, else the text itself (the schema then says what is wrong). */
function booleanCell(s: string): boolean | string {
  const v = s.toLowerCase();
  if (['true', 'yes', '1'].includes(v)) return true;
  if (['false', 'no', '0'].includes(v)) return false;
  return s;
}

/** Reads the header row: which column is which field, and the header's own problems. */
function readHeader(cells: string[], errors: ImportProblem[], line: number): Array<{ field: string; metadataKey?: string } | null> {
  const seen = new Set<string>();
  const out = cells.map((raw) => {
    const name = raw.trim();
    const m = /^metadata\.(.+)$/i.exec(name);
    const column = m ? { field: 'metadata.', metadataKey: m[1]! } : COLUMNS[name.toLowerCase()] ? { field: COLUMNS[name.toLowerCase()]! } : null;
    const id = m ? `metadata.${m[1]}` : (column?.field ?? name);
    if (seen.has(id)) errors.push({ line, field: name, code: 'DUPLICATE_COLUMN', message: `The column ${name} appears twice.` });
    seen.add(id);
    if (!column && !EXPORT_ONLY.has(name.toLowerCase())) {
      errors.push({ line, field: name || `column ${seen.size}`, code: 'UNKNOWN_FIELD', message: `Unknown column ${JSON.stringify(name)}: use email, firstName, lastName, referredBy, referralStatus, language, isAffiliate, vanityKeys, metadata or metadata.<key>.` });
    }
    return column;
  });
  if (!out.some((c) => c?.field === 'email')) errors.push({ line, field: 'email', code: 'REQUIRED', message: 'The header row needs an email column.' });
  return out;
}

/** One record as P3's body (empty cells left out), or its problems. */
function readRow(line: number, cells: string[], header: ReturnType<typeof readHeader>, errors: ImportProblem[]): ImportRow | null {
  if (cells.length !== header.length) {
    errors.push({ line, field: 'row', code: 'WRONG_CELL_COUNT', message: `This row has ${cells.length} cells; the header has ${header.length}.` });
    return null;
  }
  const body: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  let vanity = '';
  let referrerEmail = '';
  let bad = false;
  header.forEach((col, i) => {
    const value = cells[i]!.trim();
    if (!col || value === '') return;
    if (col.metadataKey !== undefined) metadata[col.metadataKey] = value;
    else if (col.field === 'metadata') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = null;
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
        errors.push({ line, field: 'metadata', code: 'INVALID_JSON', message: 'The metadata column holds a JSON object of keys and values, like {"plan":"pro"}.' });
        bad = true;
      } else Object.assign(metadata, parsed, metadata);
    } else if (col.field === 'vanityKeys') vanity = value;
    else if (col.field === 'referrerEmail') referrerEmail = value;
    else body[col.field] = col.field === 'isAffiliate' ? booleanCell(value) : value;
  });
  if (referrerEmail && body.referredBy === undefined) body.referredBy = referrerEmail;
  if (Object.keys(metadata).length) body.metadata = metadata;
  const r = participantCreate.safeParse(body);
  if (!r.success) for (const e of fieldErrors(r.error, undefined, body)) errors.push({ line, ...e });
  const vanityKeys = vanity ? vanity.split(/[\s,;|]+/).filter(Boolean) : [];
  const wrongKey = vanityKeys.find((k) => !VANITY_KEY_PATTERN.test(k));
  if (wrongKey !== undefined) errors.push({ line, field: 'vanityKeys', code: 'INVALID_VALUE', message: `Vanity key ${JSON.stringify(wrongKey)}: each is 1–20 characters of A–Z, a–z, 0–9, _ and -, separated by spaces.` });
  else if (vanityKeys.length > 5) errors.push({ line, field: 'vanityKeys', code: 'TOO_LONG', message: 'At most 5 vanity keys.' });
  if (!r.success || bad || wrongKey !== undefined || vanityKeys.length > 5) return null;
  return { line, input: r.data, vanityKeys };
}

/** Looks up many values in chunks of 500 (bound-parameter limits). */
async function inChunks<T>(values: string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < values.length; i += 500) out.push(...(await read(values.slice(i, i + 500))));
  return out;
}

/** Parses and checks a file against the program without writing anything. */
export async function checkImport(knex: Knex, program: Program, csv: string): Promise<Checked> {
  if (Buffer.byteLength(csv, 'utf8') > MAX_IMPORT_BYTES) throw tooLarge('The file is too large.');
  let records;
  try {
    records = parseCsv(csv, MAX_IMPORT_ROWS + 1);
  } catch (e) {
    if (!(e instanceof CsvSyntaxError)) throw e;
    return { rows: 0, valid: [], existing: new Set(), errors: [{ line: e.line, field: 'row', code: 'INVALID_CSV', message: e.message }] };
  }
  if (records.length > MAX_IMPORT_ROWS + 1) throw tooLarge(`The file has more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows.`);
  const errors: ImportProblem[] = [];
  if (records.length === 0) return { rows: 0, valid: [], existing: new Set(), errors: [{ line: 1, field: 'row', code: 'REQUIRED', message: 'The file is empty: it needs a header row and at least one participant.' }] };
  const header = readHeader(records[0]!.cells, errors, records[0]!.line);
  if (errors.length) return { rows: records.length - 1, valid: [], existing: new Set(), errors };
  const rows = records.slice(1).map((r) => readRow(r.line, r.cells, header, errors));
  // P3's rules that need the program, before any row is written.
  const valid = rows.filter((r): r is ImportRow => {
    if (!r) return false;
    if (r.input.isAffiliate !== undefined && program.type !== 'AFFILIATE') {
      errors.push({ line: r.line, field: 'isAffiliate', code: 'INVALID', message: 'isAffiliate applies only to affiliate programs.' });
      return false;
    }
    if (r.input.language && !programLanguages(program).all.includes(r.input.language)) {
      errors.push({ line: r.line, field: 'language', code: 'INVALID_VALUE', message: `Must be one of ${programLanguages(program).all.join(', ')}.` });
      return false;
    }
    return true;
  });

  // The file as a whole: emails once, referrers earlier or already in the program, vanity keys free.
  const firstLine = new Map<string, number>();
  const keyLine = new Map<string, number>();
  for (const r of valid) {
    const key = emailKey(r.input.email);
    const first = firstLine.get(key);
    if (first !== undefined) errors.push({ line: r.line, field: 'email', code: 'DUPLICATE_EMAIL', message: `${r.input.email} is already on line ${first}.` });
    else firstLine.set(key, r.line);
    for (const k of r.vanityKeys) {
      const kl = k.toLowerCase();
      const at = keyLine.get(kl);
      if (at !== undefined) errors.push({ line: r.line, field: 'vanityKeys', code: 'DUPLICATE_VANITY_KEY', message: `Vanity key ${k} is already on line ${at} (keys compare case-insensitively).` });
      else keyLine.set(kl, r.line);
    }
  }
  const existingRows = await inChunks([...firstLine.keys()], (c) => knex('participants').where('program_id', program.id).whereIn('email_key', c).pluck('email_key') as Promise<string[]>);
  const existing = new Set(existingRows);
  const takenKeys = new Set([
    ...(await inChunks([...keyLine.keys()], (c) => knex('participant_vanity_keys').where('program_id', program.id).whereIn('key_lower', c).pluck('key_lower') as Promise<string[]>)),
    ...(await inChunks([...keyLine.keys()], (c) => knex('participants').where('program_id', program.id).whereIn('share_key', c).pluck('share_key') as Promise<string[]>)),
  ]);
  const found = new Map<string, boolean>();
  for (const r of valid) {
    if (existing.has(emailKey(r.input.email))) continue;
    for (const k of r.vanityKeys) {
      if (takenKeys.has(k.toLowerCase())) errors.push({ line: r.line, field: 'vanityKeys', code: 'VANITY_KEY_TAKEN', message: `Vanity key ${k} is already taken in this program.` });
    }
    const ref = r.input.referredBy;
    if (!ref) continue;
    const inFile = firstLine.get(emailKey(ref)) ?? keyLine.get(ref.toLowerCase());
    if (inFile !== undefined && inFile < r.line) continue;
    if (!found.has(ref)) found.set(ref, (await findReferrer(knex, program.id, ref)) !== null);
    if (found.get(ref)) continue;
    if (inFile !== undefined) errors.push({ line: r.line, field: 'referredBy', code: 'REFERRER_LATER', message: `The referrer ${ref} is on line ${inFile}, after this row: list referrers before the people they referred.` });
    else errors.push({ line: r.line, field: 'referredBy', code: 'REFERRER_NOT_FOUND', message: `No participant of this program, and no earlier row, has the id, share key, vanity key or email ${ref}.` });
  }
  errors.sort((a, b) => a.line - b.line);
  return { rows: rows.length, valid, existing, errors };
}

/** The report of a check: what an import would do, and every problem. */
function report(c: Checked, dryRun: boolean, created: number, unchanged: number): ParticipantImportReport {
  return { dryRun, rows: c.rows, created, unchanged, invalidRows: new Set(c.errors.map((e) => e.line)).size, errors: c.errors };
}

/**
 * The import: a dry run answers the report; otherwise a file with problems is a 400 carrying every
 * one of them (nothing written), and a clean file is added row by row through P3 in one transaction.
 */
export async function importParticipants(target: ImportTarget, program: Program, billing: TeamBilling, csv: string, dryRun: boolean): Promise<ParticipantImportReport> {
  const checked = await checkImport(target.knex, program, csv);
  const fresh = checked.valid.filter((r) => !checked.existing.has(emailKey(r.input.email)));
  if (dryRun) return report(checked, true, checked.errors.length ? 0 : fresh.length, checked.valid.length - fresh.length);
  if (checked.errors.length) {
    const n = report(checked, false, 0, 0).invalidRows;
    throw new ValidationError(
      `${n} row${n === 1 ? ' is' : 's are'} invalid, so nothing was imported. ${checked.errors[0]!.message.replace(/\.?$/, '')} (line ${checked.errors[0]!.line}).`,
      checked.errors.map((e) => ({ field: `line ${e.line}: ${e.field}`, code: e.code, message: e.message })),
    );
  }
  let created = 0;
  let unchanged = 0;
  await target.knex.transaction(async (trx) => {
    for (const r of checked.valid) {
      try {
        const p = await target.create(program, billing, r.input, { trx });
        if (!p.isNew) {
          unchanged++;
          continue;
        }
        if (r.vanityKeys.length) {
          const keys = await replaceVanityKeys(trx, program.id, p.id, r.vanityKeys);
          await trx('participants').where({ id: p.id }).update({ vanity_keys: JSON.stringify(keys) });
        }
        created++;
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        // The same status and code as P3 would answer (a fraud block, the plan's limit), naming the line.
        const field = e.errors?.[0]?.field ?? 'row';
        throw new AppError(e.status, e.code, e.errorName, `Line ${r.line}: ${e.message} Nothing was imported.`, {
          errors: [{ field: `line ${r.line}: ${field}`, code: e.errors?.[0]?.code ?? e.code, message: e.message }],
          ...(e.headers ? { headers: e.headers } : {}),
        });
      }
    }
  });
  return report(checked, false, created, unchanged);
}
