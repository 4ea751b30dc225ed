import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import type { CsvValue } from '../../../shared/csv.ts';
import { isoTime, type CsvExport } from '../platform/csv-stream.ts';
import { afterCursor, rowCursor } from '../participants/participant-export.ts';

// The rewards CSV export (issue #23): the program's issued rewards (deleted, that is rejected, ones
// left out, as PR5 does), oldest first, in keyset pages on `participant_rewards_program_list`
// (program_id, created_at, id WHERE deleted_at IS NULL; the query repeats the condition).

/** Columns of the rewards export; `amount` is stored as the reward configuration gave it, next to its currency. */
export const REWARD_EXPORT_HEADER = [
  'id',
  'participantId',
  'participantEmail',
  'rewardId',
  'status',
  'approved',
  'isReferrer',
  'referrerId',
  'referredId',
  'amount',
  'currencyISO',
  'createdAt',
  'approvedAt',
  'fulfilledAt',
] as const;

interface RewardExportRow {
  id: string;
  participant_id: string;
  email: string;
  reward_config_id: string;
  status: string;
  approved: boolean | number;
  is_referrer: boolean | number;
  referrer_id: string | null;
  referred_id: string | null;
  amount: number | null;
  currency_iso: string | null;
  created_at: number;
  approved_at: number | null;
  fulfilled_at: number | null;
}

/** The program's issued rewards with the recipient's email. */
export function rewardExport(knex: Knex, program: Program): CsvExport<RewardExportRow> {
  return {
    header: REWARD_EXPORT_HEADER,
    page: (after, limit) =>
      afterCursor(knex('participant_rewards as r').where('r.program_id', program.id).whereRaw('r.deleted_at IS NULL'), after, 'r')
        .join('participants as p', 'p.id', 'r.participant_id')
        .orderBy([{ column: 'r.created_at' }, { column: 'r.id' }])
        .limit(limit)
        .select('r.id', 'r.participant_id', 'p.email', 'r.reward_config_id', 'r.status', 'r.approved', 'r.is_referrer', 'r.referrer_id', 'r.referred_id', 'r.amount', 'r.currency_iso', 'r.created_at', 'r.approved_at', 'r.fulfilled_at'),
    cursor: rowCursor,
    cells: (rows) =>
      rows.map((r): CsvValue[] => [
        r.id,
        r.participant_id,
        r.email,
        r.reward_config_id,
        r.status,
        Boolean(r.approved),
        Boolean(r.is_referrer),
        r.referrer_id,
        r.referred_id,
        r.amount == null ? '' : Number(r.amount),
        r.currency_iso,
        isoTime(r.created_at),
        isoTime(r.approved_at),
        isoTime(r.fulfilled_at),
      ]),
  };
}
