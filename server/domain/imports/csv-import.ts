import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import type { TeamBilling } from '../platform/plans.ts';
import type { ParticipantRow } from '../participants/model.ts';
import { emailKey, historyWrites } from '../participants/model.ts';
import { findParticipant } from '../participants/referrals.ts';
import type { AddOptions } from '../participants/sign-ups.ts';
import { earningAffiliate, type ImportedCommission } from '../affiliate/transactions.ts';
import { AppError, ValidationError } from '../../errors.ts';
import { CsvSyntaxError, parseCsv } from '../../../shared/csv.ts';
import { participantCreate, type Participant, type ParticipantCreate } from '../../../shared/schemas/participant.ts';
import type { TransactionRecorded } from '../../../shared/schemas/transaction.ts';
import { CellError, currencyCode, dateCell, moneyCell } from './csv-values.ts';
import { COLUMNS, DETECT_ORDER, FILE_KINDS, GENERIC_KEYS, IMPORT_ORDER, REQUIRED, STATES, headerKey, type CsvFormat, type Field, type FileKind } from './csv-formats.ts';

// `refloop import csv` (issue #33 part 4, docs/migrating.md): the affiliates, referrals and
// commissions exports of Rewardful, FirstPromoter and Tolt, or any CSV through a column map, come
// in as affiliates (P3, enrolled), their referred customers (P3 with the affiliate as referrer) and
// sales through AF8's own record (`Transactions.recordImported`), keeping the source's commission
// amounts and states. Unlike `import participants` (all or nothing), every row stands alone: a row
// that cannot come in is refused with its file, line and reason, in its own transaction so it never
// leaves half a sale, and the rest goes on (docs/decisions.md). Running the same files again changes
// nothing: people match by email, sales by the product's own id stored as AF8's `externalId`.

/** The most data rows one file may hold. */
export const MAX_CSV_ROWS = 50_000;

/** One file given to the import; `kind` when the caller named it, else recognised by its header. */
export interface CsvFile {
  name: string;
  text: string;
  kind?: FileKind;
}

/** A row the import did not take: where, and why. */
export interface CsvRefusal {
  file: string;
  line: number;
  reason: string;
}

/** What an import did (or, in a dry run, would do). */
export interface CsvImportReport {
  dryRun: boolean;
  format: CsvFormat;
  files: Array<{ file: string; kind: FileKind; rows: number }>;
  created: { affiliates: number; referrals: number; sales: number; commissions: number };
  unchanged: { participants: number; sales: number };
  refused: CsvRefusal[];
}

/** What the import writes through: P3 and AF8 with the caller's transaction. */
export interface CsvImportTarget {
  knex: Knex;
  billing: TeamBilling;
  /** The injected clock: when a commission row has no date. */
  now(): number;
  create(program: Program, billing: TeamBilling, input: ParticipantCreate, opts: AddOptions): Promise<Participant>;
  recordImported(trx: Knex.Transaction, program: Program, customerId: string, input: unknown, commissions: ImportedCommission[] | null): Promise<TransactionRecorded>;
}

/** One data row: its cells by field. */
interface Row {
  file: string;
  line: number;
  get(field: Field): string;
}

/** A file read: its kind and its rows. */
interface ReadFile {
  name: string;
  kind: FileKind;
  rows: Row[];
}

/** A refusal of one row, thrown inside its transaction (which then rolls back). */
class Refused extends Error {}

/** A file-level problem: nothing is imported (exit 1 before any write). */
function fileError(file: string, message: string): ValidationError {
  return new ValidationError(`${file}: ${message}`, [{ field: file, code: 'INVALID_FILE', message }]);
}

/** Column index of each field in `header`, by the kind's accepted names (or the generic map). */
function columnsOf(header: string[], kind: FileKind, map: Record<string, string> | null): Map<Field, number> {
  const keys = header.map(headerKey);
  const out = new Map<Field, number>();
  if (map) {
    for (const [k, column] of Object.entries(map)) {
      const i = keys.indexOf(headerKey(column));
      if (i >= 0) out.set(GENERIC_KEYS[k]!, i);
    }
    return out;
  }
  for (const [field, names] of Object.entries(COLUMNS[kind]) as Array<[Field, string[]]>) {
    for (const n of names) {
      const i = keys.indexOf(n);
      if (i >= 0 && ![...out.values()].includes(i)) {
        out.set(field, i);
        break;
      }
    }
  }
  return out;
}

/** Whether the columns carry every field a kind requires. */
function fits(columns: Map<Field, number>, kind: FileKind): boolean {
  return REQUIRED[kind].every((any) => any.some((f) => columns.has(f)));
}

/** The generic map, checked: known keys, string column names, an email column. */
export function checkedMap(map: unknown): Record<string, string> {
  if (!map || typeof map !== 'object' || Array.isArray(map)) throw new ValidationError('The --map is a JSON object of refloop field to column name, like {"email":"Email Address","referredBy":"Affiliate Email"}.');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    if (!GENERIC_KEYS[k]) throw new ValidationError(`Unknown --map key ${JSON.stringify(k)}: use ${Object.keys(GENERIC_KEYS).join(', ')}.`);
    if (typeof v !== 'string' || !v.trim()) throw new ValidationError(`--map ${k} names a column by its header text.`);
    out[k] = v;
  }
  if (!out.email) throw new ValidationError('The --map needs an email column.');
  return out;
}

/** Parses one file and decides its kind (named, or recognised by its header). */
function readFile(f: CsvFile, map: Record<string, string> | null): ReadFile[] {
  let records;
  try {
    records = parseCsv(f.text, MAX_CSV_ROWS + 1);
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw fileError(f.name, e.message);
    throw e;
  }
  if (records.length === 0) throw fileError(f.name, 'the file is empty.');
  if (records.length > MAX_CSV_ROWS + 1) throw fileError(f.name, `more than ${MAX_CSV_ROWS.toLocaleString('en')} rows; split the file.`);
  const header = records[0]!.cells;
  const rowsOf = (columns: Map<Field, number>): Row[] =>
    records.slice(1).map((r) => ({ file: f.name, line: r.line, get: (field: Field) => (columns.has(field) ? (r.cells[columns.get(field)!] ?? '').trim() : '') }));
  if (map) {
    // Generic: a row without a referrer is an affiliate; with one, a referred customer, and a sale when it has an amount.
    const columns = columnsOf(header, 'affiliates', map);
    for (const [k, column] of Object.entries(map)) if (!header.some((h) => headerKey(h) === headerKey(column))) throw fileError(f.name, `no column ${JSON.stringify(column)} (--map ${k}).`);
    const rows = rowsOf(columns);
    const ofKind = (kind: FileKind, keep: (r: Row) => boolean): ReadFile => ({ name: f.name, kind, rows: rows.filter(keep) });
    return [
      ofKind('affiliates', (r) => !r.get('affiliateEmail')),
      ofKind('referrals', (r) => !!r.get('affiliateEmail') && !r.get('saleAmount')),
      ofKind('commissions', (r) => !!r.get('affiliateEmail') && !!r.get('saleAmount')),
    ];
  }
  const kind = f.kind ?? DETECT_ORDER.find((k) => fits(columnsOf(header, k, null), k));
  if (!kind) throw fileError(f.name, `its header (${header.slice(0, 8).join(', ')}) is not an affiliates, referrals, commissions or sales export this import knows; name the kind (--file KIND=${f.name}) or use --format generic with --map.`);
  const columns = columnsOf(header, kind, null);
  if (!fits(columns, kind)) {
    const missing = REQUIRED[kind].filter((any) => !any.some((x) => columns.has(x))).map((any) => any.map((x) => COLUMNS[kind][x]![0]).join(' or '));
    throw fileError(f.name, `a ${kind} file needs the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`);
  }
  return [{ name: f.name, kind, rows: rowsOf(columns) }];
}

/** First and last name of a row (a single name column splits at its first space). */
function namesOf(r: Row): { firstName?: string; lastName?: string } {
  let first = r.get('firstName');
  let last = r.get('lastName');
  const full = r.get('name');
  if (!first && !last && full) [first = '', last = ''] = [full.split(' ')[0], full.split(' ').slice(1).join(' ')];
  return { ...(first ? { firstName: first.slice(0, 255) } : {}), ...(last ? { lastName: last.slice(0, 255) } : {}) };
}

/** P3's body for a person, or a refusal naming what is wrong with the email or a name. */
function personInput(email: string, names: { firstName?: string; lastName?: string }, extra: Partial<ParticipantCreate> = {}): ParticipantCreate {
  if (!email) throw new Refused('No email address.');
  const r = participantCreate.safeParse({ email, ...names, ...extra });
  if (!r.success) throw new Refused(`${JSON.stringify(email.slice(0, 80))}: ${r.error.issues.map((i) => `${i.path.join('.') || 'email'} ${i.message.replace(/\.$/, '')}`.trim()).join('; ')}.`);
  return r.data;
}

/** A commission row's state in ours: its state column, a paid flag, or APPROVED (owed) when the file says neither. */
function stateOf(r: Row): ImportedCommission['status'] {
  const paid = r.get('paid').toLowerCase();
  const state = r.get('status').toLowerCase();
  if (['true', 'yes', '1', 'paid'].includes(paid)) return 'PAID';
  if (!state) return 'APPROVED';
  const s = STATES[state];
  if (!s) throw new CellError(`Unknown commission state ${JSON.stringify(state.slice(0, 30))}: expected one of ${Object.keys(STATES).join(', ')}.`);
  return s;
}

/** One sale and its commissions (several rows of a commissions file may name the same sale). */
interface SaleUnit {
  rows: Row[];
  key: string;
}

/** The import's state while it runs. */
class Run {
  readonly report: CsvImportReport;
  /** Source ids (the product's affiliate and customer ids) to emails, from this run's files. */
  readonly affiliateIds = new Map<string, string>();
  readonly customerIds = new Map<string, string>();
  /** Customer email key → the affiliate email their referral row named. */
  readonly referrerOf = new Map<string, string>();

  constructor(
    readonly target: CsvImportTarget,
    readonly program: Program,
    readonly format: CsvFormat,
    readonly trx: Knex | Knex.Transaction,
    dryRun: boolean,
  ) {
    this.report = { dryRun, format, files: [], created: { affiliates: 0, referrals: 0, sales: 0, commissions: 0 }, unchanged: { participants: 0, sales: 0 }, refused: [] };
  }

  /** Runs one unit in its own transaction (a savepoint in a dry run): a refusal undoes all of it. */
  async unit(rows: Row[], work: (trx: Knex.Transaction) => Promise<() => void>): Promise<void> {
    try {
      // The counts move only after the unit's transaction committed.
      // Imported history: no welcome email, webhook or sign-up commission for it (participants' historyWrites).
      const done = await this.trx.transaction((trx) => {
        historyWrites.add(trx);
        return work(trx);
      });
      done();
    } catch (e) {
      let reason: string;
      if (e instanceof Refused || e instanceof CellError) reason = e.message;
      else if (e instanceof AppError) reason = e.errors?.length ? e.errors.map((x) => (x.field && x.field !== 'body' ? `${x.field}: ${x.message}` : x.message)).join('; ') : e.message;
      else throw e;
      const [first] = rows;
      for (const r of rows) this.report.refused.push({ file: r.file, line: r.line, reason: r === first ? reason : `${reason} (the same sale as line ${first!.line})` });
    }
  }

  /** The affiliate an email or source id names, as a row to refer customers to; a refusal otherwise. */
  async affiliate(trx: Knex.Transaction, email: string, sourceId: string): Promise<ParticipantRow> {
    const address = email || this.affiliateIds.get(sourceId) || '';
    if (!address) throw new Refused(sourceId ? `Unknown affiliate ${sourceId}: it is not in the affiliates file given with this one.` : 'The row names no affiliate.');
    const row = await findParticipant(trx, this.program.id, address);
    if (!row || !row.is_affiliate) throw new Refused(`Unknown affiliate ${address}: no affiliate of this program has that email (import the affiliates file first).`);
    return row;
  }

  async affiliateRow(r: Row): Promise<void> {
    if (r.get('id') && r.get('email')) this.affiliateIds.set(r.get('id'), r.get('email'));
    await this.unit([r], async (trx) => {
      const input = personInput(r.get('email'), namesOf(r), this.program.type === 'AFFILIATE' ? { isAffiliate: true } : {});
      const p = await this.target.create(this.program, this.target.billing, input, { trx, source: 'IMPORT' });
      return () => (p.isNew ? this.report.created.affiliates++ : this.report.unchanged.participants++);
    });
  }

  async referralRow(r: Row): Promise<void> {
    const email = r.get('email');
    if (r.get('id') && email) this.customerIds.set(r.get('id'), email);
    const affiliateEmail = r.get('affiliateEmail') || this.affiliateIds.get(r.get('affiliateId')) || '';
    if (email && affiliateEmail) this.referrerOf.set(emailKey(email), affiliateEmail);
    await this.unit([r], async (trx) => {
      const names = namesOf(r);
      personInput(email, names);
      const existing = await findParticipant(trx, this.program.id, email);
      if (existing) return () => this.report.unchanged.participants++;
      const affiliate = await this.affiliate(trx, affiliateEmail, r.get('affiliateId'));
      await this.target.create(this.program, this.target.billing, personInput(email, names, { referredBy: affiliate.id }), { trx, source: 'IMPORT' });
      return () => this.report.created.referrals++;
    });
  }

  /** A sale unit: the customer (added, referred by the row's affiliate, when new), then AF8 with the file's commissions. */
  async sale(u: SaleUnit, withCommissions: boolean): Promise<void> {
    const [first] = u.rows as [Row];
    await this.unit(u.rows, async (trx) => {
      const customerEmail = first.get('customerEmail') || first.get('email') || this.customerIds.get(first.get('customerId')) || '';
      if (!customerEmail) throw new Refused(first.get('customerId') ? `Unknown customer ${first.get('customerId')}: it is not in the referrals file given with this one.` : 'The row names no customer.');
      const affiliateEmail = first.get('affiliateEmail') || this.affiliateIds.get(first.get('affiliateId')) || this.referrerOf.get(emailKey(customerEmail)) || '';
      const currency = first.get('currency') ? currencyCode(first.get('currency')) : this.program.currencyISO;
      const grossAmount = first.get('saleAmountCents') ? moneyCell(first.get('saleAmountCents'), currency, true) : moneyCell(first.get('saleAmount'), currency);
      if (grossAmount < 1) throw new Refused('The sale amount is zero: AF8 records sales of at least one minor unit.');
      const paidAt = first.get('createdAt') ? dateCell(first.get('createdAt')) : null;
      const commissions: ImportedCommission[] = [];
      if (withCommissions) {
        for (const r of u.rows) {
          if (r.get('currency') && currencyCode(r.get('currency')) !== currency) throw new Refused(`Line ${r.line} is in ${r.get('currency')}, line ${first.line} of the same sale in ${currency}.`);
          const amountCell = r.get('amountCents') || r.get('amount');
          if (!amountCell) throw new Refused(`Line ${r.line} has no commission amount.`);
          commissions.push({
            amount: r.get('amountCents') ? moneyCell(amountCell, currency, true) : moneyCell(amountCell, currency),
            status: stateOf(r),
            createdAt: r.get('createdAt') ? dateCell(r.get('createdAt')) : (paidAt ?? this.target.now()),
            paidAt: r.get('paidAt') ? dateCell(r.get('paidAt')) : null,
          });
        }
      }
      let customer = await findParticipant(trx, this.program.id, customerEmail);
      let newCustomer = false;
      if (!customer) {
        const affiliate = await this.affiliate(trx, affiliateEmail, first.get('affiliateId'));
        const p = await this.target.create(this.program, this.target.billing, personInput(customerEmail, namesOf(first), { referredBy: affiliate.id }), { trx, source: 'IMPORT' });
        customer = (await findParticipant(trx, this.program.id, p.id))!;
        newCustomer = true;
      }
      const referrer = customer.referred_by ? await findParticipant(trx, this.program.id, customer.referred_by) : null;
      if (!referrer) throw new Refused(`The customer ${customerEmail} is in this program without a referrer, so the sale would earn no affiliate anything.`);
      if (affiliateEmail && emailKey(referrer.email) !== emailKey(affiliateEmail)) throw new Refused(`The customer ${customerEmail} is referred by ${referrer.email} here, not ${affiliateEmail}.`);
      if (!earningAffiliate(referrer)) throw new Refused(`The customer's referrer ${referrer.email} is not an earning affiliate (not enrolled, suspended or banned).`);
      const recorded = await this.target.recordImported(
        trx,
        this.program,
        customer.id,
        { currency, grossAmount, externalId: u.key, ...(paidAt != null ? { paidAt } : {}), description: `Imported from ${this.format}` },
        withCommissions ? commissions : null,
      );
      return () => {
        if (newCustomer) this.report.created.referrals++;
        if (recorded.duplicate) this.report.unchanged.sales++;
        else {
          this.report.created.sales++;
          this.report.created.commissions += withCommissions ? commissions.length : 0;
        }
      };
    });
  }
}

/** The sale units of a commissions or sales file: rows of one sale together, keyed by the product's sale id (else the commission's). */
function saleUnits(format: CsvFormat, f: ReadFile, refused: CsvRefusal[]): SaleUnit[] {
  const units = new Map<string, SaleUnit>();
  for (const r of f.rows) {
    const id = r.get('saleId') || (f.kind === 'commissions' ? r.get('id') : '');
    if (!id) {
      refused.push({ file: r.file, line: r.line, reason: 'No sale or commission id: without one a second run could not tell this sale from a new one.' });
      continue;
    }
    // AF8's externalId: the product's own id, under the product's name so two products' ids never meet.
    const key = `${format}:${r.get('saleId') ? '' : 'commission:'}${id}`.slice(0, 255);
    const u = units.get(key);
    if (u) u.rows.push(r);
    else units.set(key, { rows: [r], key });
  }
  return [...units.values()];
}

/**
 * `refloop import csv`: reads every file first (a file this import cannot understand stops it
 * before anything is written), then imports affiliates, referrals, commissions and sales in that
 * order, one row (one sale) per transaction. A dry run does the same inside one transaction it
 * rolls back, so what it reports is exactly what an import would do.
 */
export async function importCsvExports(target: CsvImportTarget, program: Program, format: CsvFormat, files: CsvFile[], opts: { dryRun: boolean; map?: unknown }): Promise<CsvImportReport> {
  if (program.type !== 'AFFILIATE') throw new ValidationError(`Program ${program.id} is a referral program; these exports are of affiliate programs.`);
  const map = format === 'generic' ? checkedMap(opts.map) : null;
  if (format !== 'generic' && opts.map !== undefined) throw new ValidationError('--map is for --format generic.');
  const read = files.flatMap((f) => readFile(f, map));
  for (const f of read) if (!(FILE_KINDS as readonly string[]).includes(f.kind)) throw fileError(f.name, `unknown kind ${f.kind}.`);
  const go = async (trx: Knex | Knex.Transaction) => {
    const run = new Run(target, program, format, trx, opts.dryRun);
    run.report.files = read.filter((f) => f.rows.length || !map).map((f) => ({ file: f.name, kind: f.kind, rows: f.rows.length }));
    const ordered = IMPORT_ORDER.flatMap((k) => read.filter((f) => f.kind === k));
    // Source ids of every file first, so a commissions file may name affiliates and customers by the product's ids.
    for (const f of ordered)
      for (const r of f.rows) {
        if (f.kind === 'affiliates' && r.get('id') && r.get('email')) run.affiliateIds.set(r.get('id'), r.get('email'));
        if (f.kind === 'referrals' && r.get('id') && r.get('email')) run.customerIds.set(r.get('id'), r.get('email'));
      }
    for (const f of ordered) {
      if (f.kind === 'affiliates') for (const r of f.rows) await run.affiliateRow(r);
      else if (f.kind === 'referrals') for (const r of f.rows) await run.referralRow(r);
      // Commission amounts come from the file when it has them (generic: when --map names commissionAmount); else AF8 computes them.
      else for (const u of saleUnits(format, f, run.report.refused)) await run.sale(u, f.kind === 'commissions' && (!map || !!map.commissionAmount));
    }
    run.report.refused.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
    return run.report;
  };
  if (!opts.dryRun) return go(target.knex);
  const trx = await target.knex.transaction();
  try {
    return await go(trx);
  } finally {
    await trx.rollback();
  }
}
