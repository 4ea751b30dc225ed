import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import type { PayoutRow } from './payout-model.ts';
import { fractionDigits } from '../platform/exchange-rates.ts';
import type { Payout } from '../../../shared/schemas/payout.ts';
import { csvCell } from '../../../shared/csv.ts';

/** The one CSV cell encoder (shared/csv.ts), named here for the batch files' importers. */
export { csvCell };

// The built-in manual payout provider's export: a CSV for PayPal / Wise batch payments.

/** Minor units as a plain decimal string in major units (1234 USD → "12.34", 500 JPY → "500"). */
export function majorUnits(amount: number, iso: string): string {
  const d = fractionDigits(iso);
  if (d === 0) return String(amount);
  const neg = amount < 0;
  const s = String(Math.abs(amount)).padStart(d + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, -d)}.${s.slice(-d)}`;
}

/** One payout as a batch file lists it: the payout, the affiliate, and the destination to pay. */
export interface PayoutLine {
  payout: PayoutRow;
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** The affiliate's current destination, else the one recorded on the payout (status then unknown: null). */
  destination: { provider: string; account: string | null; country: string | null; status: string | null; legalEntityType: string | null; legalName: string | null } | null;
  /** The affiliate's coupon and promotion codes, oldest first (the generic CSV's last column), when the export was given a reader of them. */
  codes?: string[];
}

/** Reads participants' coupon and promotion codes (billing's, wired in server/deps.ts): participant id → codes, oldest first. */
export type ParticipantCodesReader = (knex: Knex, programId: string, participantIds: string[]) => Promise<Map<string, string[]>>;

/**
 * The payouts a batch file lists (default UPCOMING and QUEUED), oldest first, with the affiliate
 * and their destination. The destination is the affiliate's current one (they may have confirmed or
 * changed it since the run), else the one recorded on the payout. `payoutId` narrows it to one payout.
 */
export async function payoutLines(knex: Knex, program: Program, status?: Payout['status'], payoutId?: string): Promise<PayoutLine[]> {
  type Row = PayoutRow & { email: string; first_name: string | null; last_name: string | null; d_provider: string | null; d_account: string | null; d_country: string | null; d_status: string | null; d_legal_type: string | null; d_legal_name: string | null };
  const q = knex('payouts as o');
  if (payoutId) q.where('o.id', payoutId);
  const rows: Row[] = await q
    .join('participants as p', 'p.id', 'o.participant_id')
    .leftJoin('payout_destinations as d', (j) => j.on('d.program_id', '=', 'o.program_id').andOn('d.participant_id', '=', 'o.participant_id'))
    .where('o.program_id', program.id)
    .whereIn('o.status', status ? [status] : ['UPCOMING', 'QUEUED'])
    .orderBy([{ column: 'o.created_at' }, { column: 'o.id' }])
    .select('o.*', 'p.email', 'p.first_name', 'p.last_name', 'd.provider as d_provider', 'd.account as d_account', 'd.country as d_country', 'd.status as d_status', 'd.legal_entity_type as d_legal_type', 'd.legal_name as d_legal_name');
  return rows.map((r) => ({
    payout: r,
    email: r.email,
    firstName: r.first_name,
    lastName: r.last_name,
    destination: r.d_provider
      ? { provider: r.d_provider, account: r.d_account, country: r.d_country, status: r.d_status, legalEntityType: r.d_legal_type, legalName: r.d_legal_name }
      : r.provider
        ? { provider: r.provider, account: r.account, country: r.country, status: null, legalEntityType: null, legalName: null }
        : null,
  }));
}

/** Columns of the generic CSV (docs/decisions.md "Affiliate money"); `codes`, the affiliate's codes separated by spaces, is appended last (issue #25). */
export const GENERIC_CSV_HEADER = ['payout_id', 'participant_id', 'email', 'first_name', 'last_name', 'status', 'amount', 'currency', 'amount_minor', 'provider', 'account', 'country', 'destination_status', 'commission_count', 'created_at', 'codes'];

/** Rows as CSV text: RFC 4180, CRLF, every cell quoted and defused. */
export function csvText(rows: Array<Array<string | number | null | undefined>>): string {
  return rows.map((r) => r.map(csvCell).join(',') + '\r\n').join('');
}

/** The manual provider's generic CSV (one row per payout, every destination provider, with a header row). */
export function genericCsv(lines: PayoutLine[]): string {
  return csvText([
    GENERIC_CSV_HEADER,
    ...lines.map(({ payout: r, email, firstName, lastName, destination: d, codes }) => [
      r.id,
      r.participant_id,
      email,
      firstName,
      lastName,
      r.status,
      majorUnits(Number(r.amount), r.currency_iso),
      r.currency_iso,
      Number(r.amount),
      d?.provider,
      d?.account,
      d?.country,
      d?.status,
      (JSON.parse(r.commission_ids) as string[]).length,
      new Date(Number(r.created_at)).toISOString(),
      (codes ?? []).join(' '),
    ]),
  ]);
}

/** The generic CSV of a program's payouts (default UPCOMING and QUEUED), oldest first. */
export async function payoutsCsv(knex: Knex, program: Program, status?: Payout['status']): Promise<string> {
  return genericCsv(await payoutLines(knex, program, status));
}
