import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import type { CsvValue } from '../../../shared/csv.ts';
import { isoTime, type CsvExport } from '../platform/csv-stream.ts';
import { afterCursor, rowCursor } from '../participants/participant-export.ts';

// The commissions CSV export (issue #23): every commission of an affiliate program, oldest first, in
// keyset pages on `commissions_program_created` (program_id, created_at, id). Money is integer minor
// units, each amount beside its currency column (the sale currency and the program currency).

/** Columns of the commissions export. */
export const COMMISSION_EXPORT_HEADER = [
  'id',
  'affiliateId',
  'affiliateEmail',
  'referredId',
  'transactionId',
  'rewardId',
  'event',
  'status',
  'amount',
  'saleAmount',
  'currencyISO',
  'amountInCampaignCurrency',
  'campaignCurrencyISO',
  'payoutId',
  'createdAt',
  'approvedAt',
  'paidAt',
  'reversedAt',
] as const;

interface CommissionExportRow {
  id: string;
  referrer_id: string;
  email: string;
  referred_id: string;
  transaction_id: string | null;
  reward_config_id: string;
  event: string;
  status: string;
  amount: number | string;
  sale_amount: number | string | null;
  currency_iso: string;
  amount_in_campaign_currency: number | string;
  campaign_currency_iso: string;
  payout_id: string | null;
  created_at: number;
  approved_at: number | null;
  paid_at: number | null;
  reversed_at: number | null;
}

/** The program's commissions with the affiliate's email. */
export function commissionExport(knex: Knex, program: Program): CsvExport<CommissionExportRow> {
  return {
    header: COMMISSION_EXPORT_HEADER,
    page: (after, limit) =>
      afterCursor(knex('commissions as c').where('c.program_id', program.id), after, 'c')
        .join('participants as p', 'p.id', 'c.referrer_id')
        .orderBy([{ column: 'c.created_at' }, { column: 'c.id' }])
        .limit(limit)
        .select(
          'c.id',
          'c.referrer_id',
          'p.email',
          'c.referred_id',
          'c.transaction_id',
          'c.reward_config_id',
          'c.event',
          'c.status',
          'c.amount',
          'c.sale_amount',
          'c.currency_iso',
          'c.amount_in_campaign_currency',
          'c.campaign_currency_iso',
          'c.payout_id',
          'c.created_at',
          'c.approved_at',
          'c.paid_at',
          'c.reversed_at',
        ),
    cursor: rowCursor,
    cells: (rows) =>
      rows.map((r): CsvValue[] => [
        r.id,
        r.referrer_id,
        r.email,
        r.referred_id,
        r.transaction_id,
        r.reward_config_id,
        r.event,
        r.status,
        Number(r.amount),
        r.sale_amount == null ? '' : Number(r.sale_amount),
        r.currency_iso,
        Number(r.amount_in_campaign_currency),
        r.campaign_currency_iso,
        r.payout_id,
        isoTime(r.created_at),
        isoTime(r.approved_at),
        isoTime(r.paid_at),
        isoTime(r.reversed_at),
      ]),
  };
}
