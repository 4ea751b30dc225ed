// A table that can be downloaded as CSV: one model renders the table on screen and writes the file,
// so the CSV has exactly the shown caption's rows and columns (numbers unformatted, dates as
// YYYY-MM-DD, so spreadsheets read them as values).
import { t } from '../i18n/index.ts';

/** One cell: what is shown, and what the CSV holds (the shown text when omitted). */
export interface Cell {
  text: string;
  csv?: string | number;
}

/** A column heading; `num` right-aligns it and its cells. */
export interface Column {
  label: string;
  num?: boolean;
}

/** One CSV field: quoted when it holds a separator, quote or line break; text that a spreadsheet would run as a formula gets a leading apostrophe. */
function field(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const s = /^[=+\-@\t\r]/.test(v) && !/^-?\d/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The CSV text of a table (CRLF line ends, as RFC 4180 has them). */
export function csvOf(columns: Column[], rows: Cell[][]): string {
  const lines = [columns.map((c) => field(c.label)), ...rows.map((r) => r.map((c) => field(c.csv ?? c.text)))];
  return lines.map((l) => l.join(',')).join('\r\n') + '\r\n';
}

/** Hands `text` to the browser as a downloaded file. */
export function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A captioned table; with `file`, a button under it downloads the same rows as `file`. The first column heads its rows. */
export function DataTable({ caption, columns, rows, file, empty }: { caption: string; columns: Column[]; rows: Cell[][]; file?: string; empty?: string }) {
  if (!rows.length && empty) return <p>{empty}</p>;
  return (
    <>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th scope="col" class={c.num ? 'num' : undefined}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                {r.map((c, i) =>
                  i === 0 ? (
                    <th scope="row">{c.text}</th>
                  ) : (
                    <td class={columns[i]?.num ? 'num' : undefined}>{c.text}</td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {file && (
        <button type="button" class="secondary" onClick={() => download(file, csvOf(columns, rows))}>
          {t('table.csv', { caption })}
        </button>
      )}
    </>
  );
}
