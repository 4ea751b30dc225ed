// The boards: which column or month each leaderboard type ranks, how a row scores on it, and the
// month keys the monthly boards are named by.
import type { LeaderboardType } from '../../../shared/schemas/participant-list.ts';

// Leaderboards and ranks without counting participants.
//
// `leaderboard_scores` is a histogram per (program, board): how many participants hold each positive
// score. A participant's rank is 1 + the number of participants with a strictly higher score
// (competition ranking: ties share a rank, the next rank skips), i.e. one SUM over the buckets above.
// Zero scores are never stored: nobody's rank depends on how many others have zero.
//
// Monthly counts live on the participant row with the month they belong to (`month_key`, UTC); a
// stale month reads as zero and the row rolls over on its next write, so nothing runs at month end.
// Each calendar month has its own histogram board (`M2026-01`): CURRENT_MONTH reads this month's,
// PREV_MONTH last month's, and a rollover moves no bucket because the month's scores do not change.

/** A leaderboard type after aliases (BY_REFERRALS is the all-time referral board). */
export type BoardType = Exclude<LeaderboardType, 'BY_REFERRALS'>;

/** The subset of a participants row the boards read. */
export interface ScoredRow {
  id: string;
  created_at: number;
  referral_count: number;
  month_key: number;
  monthly_referral_count: number;
  prev_monthly_referral_count: number;
  lead_count: number;
  impression_count: number;
  unique_impression_count: number;
  commission_total: number;
  revenue_total: number;
}

/** A board's rows with a positive score: one column, optionally pinned to one `month_key`. */
export interface Segment {
  column: keyof ScoredRow & string;
  month?: number;
}

/** How one board is stored and read at a given moment. */
export interface BoardSpec {
  /** Histogram board name in `leaderboard_scores`. */
  histogram: string;
  /** Where its positive scores are; several segments are merged (PREV_MONTH). */
  segments: Segment[];
  scoreOf(row: ScoredRow): number;
}

// Plain counter boards: histogram name → participants column.
const COLUMN_BOARDS: Record<Exclude<BoardType, 'CURRENT_MONTH' | 'PREV_MONTH'>, keyof ScoredRow & string> = {
  ALL_TIME: 'referral_count',
  TOTAL_IMPRESSION_COUNT: 'impression_count',
  UNIQUE_IMPRESSION_COUNT: 'unique_impression_count',
  BY_LEADS: 'lead_count',
  BY_COMMISSIONS: 'commission_total',
  BY_REVENUE: 'revenue_total',
};

/** Histogram boards kept for every participant regardless of month (all but the month boards). */
export const COLUMN_BOARD_NAMES = Object.keys(COLUMN_BOARDS) as Array<keyof typeof COLUMN_BOARDS>;

/** The UTC month of an instant as one integer (year * 12 + month index), so the previous month is key - 1. */
export function monthKey(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** Histogram board name of a month key, e.g. `M2026-01`. */
export function monthBoard(key: number): string {
  return `M${Math.floor(key / 12)}-${String((key % 12) + 1).padStart(2, '0')}`;
}

/** A row's referral count for month `key`: its monthly count, its previous-month count, or 0 when stale. */
export function monthScore(row: Pick<ScoredRow, 'month_key' | 'monthly_referral_count' | 'prev_monthly_referral_count'>, key: number): number {
  if (Number(row.month_key) === key) return Number(row.monthly_referral_count);
  if (Number(row.month_key) === key + 1) return Number(row.prev_monthly_referral_count);
  return 0;
}

/** The storage and scoring of `type` at instant `now`. */
export function boardSpec(type: LeaderboardType, now: number): BoardSpec {
  const cur = monthKey(now);
  if (type === 'CURRENT_MONTH') {
    return { histogram: monthBoard(cur), segments: [{ column: 'monthly_referral_count', month: cur }], scoreOf: (r) => monthScore(r, cur) };
  }
  if (type === 'PREV_MONTH') {
    return {
      histogram: monthBoard(cur - 1),
      segments: [
        { column: 'prev_monthly_referral_count', month: cur },
        { column: 'monthly_referral_count', month: cur - 1 },
      ],
      scoreOf: (r) => monthScore(r, cur - 1),
    };
  }
  const board = type === 'BY_REFERRALS' ? 'ALL_TIME' : type;
  const column = COLUMN_BOARDS[board];
  return { histogram: board, segments: [{ column }], scoreOf: (r) => Number(r[column]) };
}

/** One page of a leaderboard: rows best first, their board scores, and the cursor of the next page. */
export interface LeaderboardPage<R> {
  rows: R[];
  scores: number[];
  nextId: string | null;
}

/** Key of a (board, score) pair in the maps `higherCounts` returns. */
export function rankKey(board: string, score: number): string {
  return `${board}|${score}`;
}
