import type { Db } from '../../db/connect.ts';
import { proportion } from '../affiliate/commission-math.ts';
import type { Counts, Scope, Tables } from './analytics-sql.ts';
import { rows } from './read.ts';
import { statusSql } from '../affiliate/payout-money.ts';

// Affiliate money in analytics (rest-v2 §2.24 AnalyticsTotals and StatusCounts, §2.25): read from
// the money tables of migration 014, each query an indexed range over one program's (or one
// affiliate's) rows by recording time (indexes of migrations 014 and 017). Amounts are minor units
// of the program currency (the `…in_campaign_currency` columns).

/** Commission statuses that count as earned (as `commission_total` counts them). */
const EARNED = "('PENDING', 'APPROVED', 'PAID')";

/** A per-day SQL expression (from `localDaySql`) or the single group 0. */
export type DayExpr = { sql: string; bindings: number[] };

/**
 * Adds, into the window's per-day Counts, the affiliate totals: `totalRevenue` (gross sales credited
 * to an affiliate, less refunds), `totalCommissions`/`totalCommissionCount` (earned commissions
 * created in the window) and `uniqueCommissionReferrals` (distinct referred customers behind them).
 * `day(column)` gives the local-day expression; `byDay` false means one group (key 0).
 */
export async function addMoneyCounts(
  db: Db,
  tables: Tables,
  scope: Scope,
  lo: number,
  hi: number,
  byDay: boolean,
  day: (column: string) => DayExpr,
  at: (d: number) => Counts,
): Promise<void> {
  if (!(await tables.has('commissions'))) return;
  const mine = scope.participantId !== undefined;
  const owner = mine ? scope.participantId : scope.programId;
  const who = mine ? 'referrer_id = ?' : 'program_id = ? AND referrer_id IS NOT NULL';
  const group = byDay ? ' GROUP BY d' : '';
  const sales = day('created_at');
  const refunds = day('created_at');
  const earned = day('created_at');
  const referred = day('created_at');
  const [gross, refunded, commissions, customers] = await Promise.all([
    rows<{ d: number; g: number | string | null }>(
      db,
      `SELECT ${sales.sql} AS d, SUM(gross_amount_in_campaign_currency) AS g FROM affiliate_transactions WHERE ${who} AND created_at >= ? AND created_at < ?${group}`,
      [...sales.bindings, owner, lo, hi],
    ),
    // Refunded sales are the few; their share is computed exactly here, half-up like the counters.
    rows<{ d: number; g: number | string; gross: number | string; r: number | string }>(
      db,
      `SELECT ${refunds.sql} AS d, gross_amount_in_campaign_currency AS g, gross_amount AS gross, amount_refunded AS r FROM affiliate_transactions WHERE ${who} AND created_at >= ? AND created_at < ? AND amount_refunded > 0`,
      [...refunds.bindings, owner, lo, hi],
    ),
    rows<{ d: number; n: number | string; a: number | string | null }>(
      db,
      `SELECT ${earned.sql} AS d, COUNT(*) AS n, SUM(amount_in_campaign_currency) AS a FROM commissions WHERE ${mine ? 'referrer_id' : 'program_id'} = ? AND status IN ${EARNED} AND created_at >= ? AND created_at < ?${group}`,
      [...earned.bindings, owner, lo, hi],
    ),
    byDay
      ? rows<{ d: number; c: string }>(
          db,
          `SELECT ${referred.sql} AS d, referred_id AS c FROM commissions WHERE ${mine ? 'referrer_id' : 'program_id'} = ? AND status IN ${EARNED} AND created_at >= ? AND created_at < ? GROUP BY d, c`,
          [...referred.bindings, owner, lo, hi],
        )
      : rows<{ d: number; n: number | string }>(
          db,
          `SELECT 0 AS d, COUNT(DISTINCT referred_id) AS n FROM commissions WHERE ${mine ? 'referrer_id' : 'program_id'} = ? AND status IN ${EARNED} AND created_at >= ? AND created_at < ?`,
          [owner, lo, hi],
        ),
  ]);
  for (const r of gross) if (r.g != null) at(Number(r.d)).totals.totalRevenue! += Number(r.g);
  for (const r of refunded) at(Number(r.d)).totals.totalRevenue! -= proportion(Number(r.g), Math.min(Number(r.r), Number(r.gross)), Number(r.gross));
  for (const r of commissions) {
    const c = at(Number(r.d));
    c.totals.totalCommissionCount! += Number(r.n);
    c.totals.totalCommissions! += Number(r.a ?? 0);
  }
  if (byDay) {
    // Distinct customers per bucket cannot be summed from per-day counts: buckets union these sets.
    for (const r of customers as Array<{ d: number; c: string }>) {
      const c = at(Number(r.d));
      (c.referred ??= new Set()).add(r.c);
      c.totals.uniqueCommissionReferrals = c.referred.size;
    }
  } else for (const r of customers as Array<{ d: number; n: number | string }>) at(0).totals.uniqueCommissionReferrals! += Number(r.n);
}

/** StatusCounts' commission and payout buckets for commissions and payouts created in [lo, hi). */
export async function moneyStatusCounts(
  db: Db,
  programId: string,
  lo: number,
  hi: number,
  now: number,
): Promise<{
  commissionStatus: Record<'pending' | 'approved' | 'paid' | 'reversed', { count: number; totalAmount: number; totalRevenue: number }>;
  payoutStatus: Record<'upcoming' | 'queued' | 'issued' | 'failed' | 'reversed', { count: number; totalAmount: number }>;
}> {
  const money = () => ({ count: 0, totalAmount: 0, totalRevenue: 0 });
  const payout = () => ({ count: 0, totalAmount: 0 });
  const commissionStatus = { pending: money(), approved: money(), paid: money(), reversed: money() };
  const payoutStatus = { upcoming: payout(), queued: payout(), issued: payout(), failed: payout(), reversed: payout() };
  const s = statusSql(now);
  const [c, p] = await Promise.all([
    rows<{ s: string; n: number | string; a: number | string | null; r: number | string | null }>(
      db,
      `SELECT ${s.sql} AS s, COUNT(*) AS n, SUM(amount_in_campaign_currency) AS a, SUM(sale_amount_in_campaign_currency) AS r FROM commissions WHERE program_id = ? AND created_at >= ? AND created_at < ? GROUP BY s`,
      [...s.bindings, programId, lo, hi],
    ),
    rows<{ s: string; n: number | string; a: number | string | null }>(
      db,
      'SELECT status AS s, COUNT(*) AS n, SUM(amount_in_campaign_currency) AS a FROM payouts WHERE program_id = ? AND created_at >= ? AND created_at < ? GROUP BY status',
      [programId, lo, hi],
    ),
  ]);
  for (const r of c) {
    const b = commissionStatus[r.s.toLowerCase() as keyof typeof commissionStatus];
    if (!b) continue; // DELETED commissions have no bucket
    b.count += Number(r.n);
    b.totalAmount += Number(r.a ?? 0);
    b.totalRevenue += Number(r.r ?? 0);
  }
  for (const r of p) {
    const b = payoutStatus[r.s.toLowerCase() as keyof typeof payoutStatus];
    if (!b) continue;
    b.count += Number(r.n);
    b.totalAmount += Number(r.a ?? 0);
  }
  return { commissionStatus, payoutStatus };
}
