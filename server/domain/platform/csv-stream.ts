import { Readable } from 'node:stream';
import { csvLine, type CsvValue } from '../../../shared/csv.ts';

// Streamed CSV exports (issue #23): a table is read in keyset pages of `batch` rows, each page
// encoded and handed to the response as it is needed, so memory stays one page whatever the table's
// size. Each page is its own short query (no transaction held open while a slow client reads), so
// rows written during an export may or may not appear in it; a row is never listed twice because
// pages continue strictly after the last key read.

/** The default page size of an export: big enough to amortise a query, small enough to stay a few hundred KiB. */
export const EXPORT_BATCH = 1000;

/** The (created_at, id) position of the last row read; null before the first page. */
export type ExportCursor = { createdAt: number; id: string } | null;

/** One export: its header and a reader of the page after `cursor`, rows already as cells. */
export interface CsvExport<R> {
  header: readonly string[];
  page(after: ExportCursor, limit: number): Promise<R[]>;
  cursor(row: R): ExportCursor;
  cells(rows: R[]): Promise<CsvValue[][]> | CsvValue[][];
}

/**
 * The export as a byte stream. The first page is read before this resolves, so a failing query is
 * still an ordinary error answer; later pages are read only when the consumer asks for more
 * (Readable.from pulls the generator under backpressure).
 */
export async function csvStream<R>(exp: CsvExport<R>, batch = EXPORT_BATCH): Promise<Readable & { rowsRead(): number }> {
  const first = await exp.page(null, batch);
  let read = first.length;
  async function* chunks(): AsyncGenerator<string> {
    yield csvLine(exp.header);
    let rows = first;
    for (;;) {
      if (rows.length) yield (await exp.cells(rows)).map(csvLine).join('');
      if (rows.length < batch) return;
      rows = await exp.page(exp.cursor(rows[rows.length - 1]!), batch);
      read += rows.length;
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false, highWaterMark: 1 }) as Readable & { rowsRead(): number };
  stream.rowsRead = () => read;
  return stream;
}

/** Epoch milliseconds as an ISO 8601 UTC time (what spreadsheets read), empty for none. */
export function isoTime(ms: number | string | null | undefined): string {
  return ms == null ? '' : new Date(Number(ms)).toISOString();
}

/** Reads the whole export into text: for the CLI writing a file and for tests. */
export async function csvText(stream: Readable): Promise<string> {
  let s = '';
  for await (const chunk of stream) s += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return s;
}
