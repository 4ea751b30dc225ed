import type { Knex } from 'knex';
import type { Program } from './programs.ts';
import type { PayoutRow } from './payouts.ts';
import { fractionDigits } from './exchange-rates.ts';
import type { Payout } from '../../shared/schemas/payout.ts';

// The built-in manual payout provider's export: a CSV for PayPal / Wise batch payments.

/** A CSV cell: quoted, quotes doubled, and a leading = + - @ (or tab/CR) defused with an apostrophe so spreadsheets never run it. */
export function csvCell(value: string | number | null | undefined): string {
  let s = value == null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

/** Minor units as a plain decimal string in major units (1234 USD → "12.34", 500 JPY → "500"). */
export function majorUnits(amount: number, iso: string): string {
  const d = fractionDigits(iso);
  if (d === 0) return String(amount);
  const neg = amount < 0;
  const s = String(Math.abs(amount)).padStart(d + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, -d)}.${s.slice(-d)}`;
}

/**
 * The manual provider's CSV (RFC 4180, CRLF, every cell quoted): one row per payout, default
 * UPCOMING and QUEUED, oldest first. The destination is the affiliate's current one (they may have
 * confirmed or changed it since the run), else the one recorded on the payout, with its status.
 */
export async function payoutsCsv(knex: Knex, program: Program, status?: Payout['status']): Promise<string> {
  type Line = PayoutRow & { email: string; first_name: string | null; last_name: string | null; d_provider: string | null; d_account: string | null; d_country: string | null; d_status: string | null };
  const rows: Line[] = await knex('payouts as o')
    .join('participants as p', 'p.id', 'o.participant_id')
    .leftJoin('payout_destinations as d', (j) => j.on('d.program_id', '=', 'o.program_id').andOn('d.participant_id', '=', 'o.participant_id'))
    .where('o.program_id', program.id)
    .whereIn('o.status', status ? [status] : ['UPCOMING', 'QUEUED'])
    .orderBy([{ column: 'o.created_at' }, { column: 'o.id' }])
    .select('o.*', 'p.email', 'p.first_name', 'p.last_name', 'd.provider as d_provider', 'd.account as d_account', 'd.country as d_country', 'd.status as d_status');
  const header = ['payout_id', 'participant_id', 'email', 'first_name', 'last_name', 'status', 'amount', 'currency', 'amount_minor', 'provider', 'account', 'country', 'destination_status', 'commission_count', 'created_at'];
  const lines = [header.map(csvCell).join(',')];
  for (const r of rows) {
    lines.push(
      [
        r.id,
        r.participant_id,
        r.email,
        r.first_name,
        r.last_name,
        r.status,
        majorUnits(Number(r.amount), r.currency_iso),
        r.currency_iso,
        Number(r.amount),
        r.d_provider ?? r.provider,
        r.d_account ?? r.account,
        r.d_provider ? r.d_country : r.country,
        r.d_status,
        (JSON.parse(r.commission_ids) as string[]).length,
        new Date(Number(r.created_at)).toISOString(),
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
