import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import type { CsvExport } from '../platform/csv-stream.ts';
import type { CsvValue } from '../../../shared/csv.ts';

// Participants' coupon and promotion codes in the CSV exports (issue #25, docs/integrations.md
// "Codes"): columns appended at the end of an export, so the existing columns keep their order and
// meaning. The exports belong to the participants and affiliate contexts, which do not read billing
// tables; the HTTP layer and the CLI wrap them with these (one query per page each).

/** Appended to the participants export (DX1): the participant's codes, oldest first, separated by spaces. */
export const PARTICIPANT_CODES_HEADER = ['codes'] as const;

/** Appended to the commissions export (DX4): the affiliate's codes, and the code that attributed the commission's sale (empty when none did). */
export const COMMISSION_CODES_HEADER = ['affiliateCodes', 'attributedCode'] as const;

/** Each participant's codes, oldest first: one query for a page of participants. */
export async function participantCodes(knex: Knex, programId: string, participantIds: Array<string | null>): Promise<Map<string, string[]>> {
  const ids = [...new Set(participantIds.filter((x): x is string => !!x))];
  const out = new Map<string, string[]>();
  if (!ids.length) return out;
  const rows: Array<{ participant_id: string; code: string }> = await knex('billing_codes').where('program_id', programId).whereIn('participant_id', ids).orderBy('id').select('participant_id', 'code');
  for (const r of rows) out.set(r.participant_id, [...(out.get(r.participant_id) ?? []), r.code]);
  return out;
}

/** The code that attributed each sale, by transaction id (billing_sale_codes). */
async function saleCodes(knex: Knex, transactionIds: Array<string | null>): Promise<Map<string, string>> {
  const ids = [...new Set(transactionIds.filter((x): x is string => !!x))];
  if (!ids.length) return new Map();
  const rows: Array<{ transaction_id: string; code: string }> = await knex('billing_sale_codes').whereIn('transaction_id', ids).select('transaction_id', 'code');
  return new Map(rows.map((r) => [r.transaction_id, r.code]));
}

/** The export with more columns at the end, computed for each page. */
function appended<R>(exp: CsvExport<R>, header: readonly string[], extra: (rows: R[]) => Promise<CsvValue[][]>): CsvExport<R> {
  return {
    header: [...exp.header, ...header],
    page: (after, limit) => exp.page(after, limit),
    cursor: (row) => exp.cursor(row),
    async cells(rows) {
      const [base, more] = await Promise.all([exp.cells(rows), extra(rows)]);
      return base.map((cells, i) => [...cells, ...more[i]!]);
    },
  };
}

/** DX1 with the `codes` column. */
export function withParticipantCodes<R extends { id: string }>(knex: Knex, program: Program, exp: CsvExport<R>): CsvExport<R> {
  return appended(exp, PARTICIPANT_CODES_HEADER, async (rows) => {
    const codes = await participantCodes(knex, program.id, rows.map((r) => r.id));
    return rows.map((r) => [(codes.get(r.id) ?? []).join(' ')]);
  });
}

/** DX4 with the `affiliateCodes` and `attributedCode` columns. */
export function withCommissionCodes<R extends { referrer_id: string; transaction_id: string | null }>(knex: Knex, program: Program, exp: CsvExport<R>): CsvExport<R> {
  return appended(exp, COMMISSION_CODES_HEADER, async (rows) => {
    const [codes, attributed] = await Promise.all([participantCodes(knex, program.id, rows.map((r) => r.referrer_id)), saleCodes(knex, rows.map((r) => r.transaction_id))]);
    return rows.map((r) => [(codes.get(r.referrer_id) ?? []).join(' '), (r.transaction_id && attributed.get(r.transaction_id)) || '']);
  });
}
