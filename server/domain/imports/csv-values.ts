import { fractionDigits } from '../platform/exchange-rates.ts';

// Reading the cells of other products' CSV exports (`refloop import csv`): money as a dashboard
// shows it, dates in the few shapes exports use, and states. Every reader answers a value or a
// sentence saying why the cell was refused; none guesses between two readings.

/** A cell that could not be read: why, in words for the report. */
export class CellError extends Error {}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** The ISO 4217 code of a currency cell (any case), or a CellError. */
export function currencyCode(cell: string): string {
  const c = cell.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(c) || !CURRENCIES.has(c)) throw new CellError(`Unknown currency ${JSON.stringify(cell.trim().slice(0, 20))}: expected an ISO 4217 code such as USD.`);
  return c;
}

/** The symbols an amount of `iso` may carry: its narrow and its own symbol (`$`, `US$`, `€`). */
function symbolsOf(iso: string): Set<string> {
  const out = new Set<string>([iso]);
  for (const currencyDisplay of ['narrowSymbol', 'symbol'] as const) {
    const part = new Intl.NumberFormat('en', { style: 'currency', currency: iso, currencyDisplay }).formatToParts(1).find((p) => p.type === 'currency');
    if (part) out.add(part.value.toUpperCase());
  }
  return out;
}

/**
 * Integer minor units of `iso` from an amount as exports write it: `12.50`, `$12.50`, `1,234.56`,
 * `USD 12.50`, `12.50 USD`. Refused: a sign, a symbol of another currency, more decimals than the
 * currency has, and the readings that differ by locale (`12,50`, `1.234,56`, `1,234` for a
 * three-decimal currency). `minorUnits` reads the cell as minor units already (a `*_cents` column).
 */
export function moneyCell(cell: string, iso: string, minorUnits = false): number {
  const raw = cell.trim();
  let s = raw.replace(/\s+/g, ' ');
  const digits = fractionDigits(iso);
  const m = /^([^\d\s.,-]*)\s?(-?[\d.,]+)\s?([^\d\s.,-]*)$/.exec(s);
  if (!m) throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} is not a number.`);
  const [, before, number, after] = m as unknown as [string, string, string, string];
  for (const sym of [before, after]) {
    if (sym && !symbolsOf(iso).has(sym.toUpperCase())) throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} is marked ${sym}, but the currency is ${iso}.`);
  }
  s = number;
  if (s.startsWith('-')) throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} is negative.`);
  if (minorUnits) {
    if (!/^\d+$/.test(s)) throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} should be a whole number of minor units (cents).`);
    return checkedSize(Number(s), raw);
  }
  // Thousands separators are commas in groups of three, before an optional point and the decimals.
  const en = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/.exec(s);
  if (!en) {
    const hint = /^\d{1,3}(\.\d{3})+,\d+$|^\d+,\d{1,2}$/.test(s) ? ' It looks like a decimal comma; write it as 1234.56.' : '';
    throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} is ambiguous or malformed.${hint}`);
  }
  const [, whole, frac = ''] = en as unknown as [string, string, string | undefined];
  if (digits === 3 && whole.includes(',') && !frac) throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} is ambiguous in ${iso}, which has three decimals: write it without the comma.`);
  if (frac.length > digits) throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} has ${frac.length} decimals; ${iso} has ${digits}.`);
  const minor = Number(whole.replace(/,/g, '')) * 10 ** digits + Number((frac + '0'.repeat(digits)).slice(0, digits) || 0);
  return checkedSize(minor, raw);
}

/** An amount within what AF8 stores. */
function checkedSize(minor: number, raw: string): number {
  if (!Number.isSafeInteger(minor) || minor > 1_000_000_000_000) throw new CellError(`Amount ${JSON.stringify(raw.slice(0, 30))} is too large.`);
  return minor;
}

const MONTH_NAMES = 'january february march april may june july august september october november december'.split(' ');
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Epoch ms of a date cell: ISO 8601 (`2024-03-01`, `2024-03-01T12:30:00Z`, `2024-03-01 12:30:00 UTC`,
 * a time without a zone read as UTC) or a written month (`Mar 1, 2024`, `1 March 2024`). Slash
 * dates are refused: 03/04/2024 is March or April depending on who exported it.
 */
export function dateCell(cell: string): number {
  const s = cell.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i.exec(s);
  if (iso) {
    const [, y, mo, d, h = '0', mi = '0', sec = '0', ms = '0', zone] = iso as unknown as string[];
    const t = checkedDate(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number(ms!.padEnd(3, '0').slice(0, 3))), s, Number(mo), Number(d), Number(y));
    if (!zone || !/^[+-]/.test(zone)) return t;
    const z = zone.replace(':', '');
    return t - (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5))) * 60_000;
  }
  const written = /^(?:([a-z]{3,9})\.? (\d{1,2}),? (\d{4})|(\d{1,2}) ([a-z]{3,9})\.?,? (\d{4}))(?:,? (\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?)?\s*(?:UTC|GMT)?$/i.exec(s);
  if (written) {
    const name = (written[1] ?? written[5])!.toLowerCase();
    const month = MONTHS.indexOf(name.slice(0, 3));
    if (month >= 0 && (name.length === 3 || name === 'sept' || MONTH_NAMES[month] === name)) {
      const day = Number(written[2] ?? written[4]);
      const year = Number(written[3] ?? written[6]);
      let hour = Number(written[7] ?? 0);
      const ampm = written[10]?.toLowerCase();
      if (ampm === 'pm' && hour < 12) hour += 12;
      if (ampm === 'am' && hour === 12) hour = 0;
      return checkedDate(Date.UTC(year, month, day, hour, Number(written[8] ?? 0), Number(written[9] ?? 0)), s, month + 1, day, year);
    }
  }
  if (/^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}/.test(s)) throw new CellError(`Date ${JSON.stringify(s.slice(0, 40))} could be day-first or month-first: export dates as 2024-03-01.`);
  throw new CellError(`Date ${JSON.stringify(s.slice(0, 40))} is not a date this import reads (2024-03-01, 2024-03-01T12:00:00Z or Mar 1, 2024).`);
}

/** A real calendar date (no 31 February) in a plausible range. */
function checkedDate(t: number, s: string, month: number, day: number, year: number): number {
  const d = new Date(t);
  if (Number.isNaN(t) || year < 1990 || year > 2200 || d.getUTCDate() !== day || d.getUTCMonth() !== month - 1) throw new CellError(`Date ${JSON.stringify(s.slice(0, 40))} does not exist.`);
  return t;
}
