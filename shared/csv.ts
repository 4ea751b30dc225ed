// CSV as refloop writes and reads it: RFC 4180 (comma, CRLF, double quotes doubled inside quoted
// cells) with OWASP's CSV-injection guard on the way out. Pure: the server's exports and imports
// and the payout batch files share it.

/** A cell value before encoding; numbers are written as they are. */
export type CsvValue = string | number | boolean | null | undefined;

/**
 * One CSV cell: always quoted, quotes doubled, and a text starting with = + - @ (or tab/CR) gets a
 * leading apostrophe (OWASP "CSV Injection") so a spreadsheet shows it instead of running it. A
 * finite number is a literal, never a formula, so `-500` stays a number.
 */
export function csvCell(value: CsvValue): string {
  if (typeof value === 'number' && Number.isFinite(value)) return `"${value}"`;
  let s = value == null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

/** One record with its CRLF. */
export function csvLine(cells: readonly CsvValue[]): string {
  return cells.map(csvCell).join(',') + '\r\n';
}

/** A parsed record and the 1-based line of the file it starts on (a quoted cell may span lines). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/** A file that is not RFC 4180 CSV (an unterminated quote, text after a closing quote). */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Parses RFC 4180 text (CRLF or LF line ends, a UTF-8 byte-order mark ignored, blank lines
 * skipped). Stops with `CsvSyntaxError` at the first malformed record; `maxRecords` bounds the work
 * (one more record than allowed is returned, so the caller can say the limit was passed).
 */
export function parseCsv(text: string, maxRecords = Infinity): CsvRecord[] {
  const out: CsvRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const n = text.length;
  while (i < n && out.length <= maxRecords) {
    const start = line;
    const cells: string[] = [];
    let cell = '';
    for (;;) {
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvSyntaxError(start, `Line ${start}: a quoted cell is never closed.`);
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          cell += c;
          i++;
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          throw new CsvSyntaxError(line, `Line ${line}: text after a closing quote; double a quote inside a quoted cell ("").`);
        }
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') cell += text[i++];
      }
      cells.push(cell);
      cell = '';
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') i++;
      if (text[i] === '\n') i++;
      line++;
      break;
    }
    if (cells.length === 1 && cells[0] === '') continue;
    out.push({ line: start, cells });
  }
  return out;
}
