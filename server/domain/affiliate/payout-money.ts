import type { Db } from '../../db/connect.ts';

// Commission status as of now and an affiliate's payout totals, read by the payout engine and by
// analytics (server/domain/analytics/analytics-money.ts).

/**
 * A commission's status as readers see it: PENDING whose hold has passed is APPROVED (what
 * `Commissions.settle` writes before money moves; analytics only reads, so it applies it in SQL).
 */
export function statusSql(now: number): { sql: string; bindings: number[] } {
  return { sql: "CASE WHEN status = 'PENDING' AND auto_approve_at IS NOT NULL AND auto_approve_at <= ? THEN 'APPROVED' ELSE status END", bindings: [now] };
}

/**
 * An affiliate's all-time payout money (P12 and the participant API summary): `totalPaidOut` =
 * payouts ISSUED; `upcomingPayout` = approved commissions not yet paid (PENDING past their hold
 * included) plus adjustments of paid ones not yet settled by an ISSUED payout, never below 0.
 */
export async function payoutMoney(db: Db, participantId: string, now: number): Promise<{ totalPaidOut: number; upcomingPayout: number }> {
  const s = statusSql(now);
  const [paid, upcoming, adj] = await Promise.all([
    db.all<{ t: number | string | null }>("SELECT SUM(amount_in_campaign_currency) AS t FROM payouts WHERE participant_id = ? AND status = 'ISSUED'", ...[participantId]),
    db.all<{ t: number | string | null }>(`SELECT SUM(amount_in_campaign_currency) AS t FROM commissions WHERE referrer_id = ? AND ${s.sql} = 'APPROVED'`, ...[participantId, ...s.bindings]),
    db.all<{ t: number | string | null }>("SELECT SUM(amount_in_campaign_currency) AS t FROM commission_adjustments WHERE referrer_id = ? AND (payout_id IS NULL OR payout_id IN (SELECT id FROM payouts WHERE participant_id = ? AND status IN ('UPCOMING', 'QUEUED')))", ...[participantId, participantId]),
  ]);
  return {
    totalPaidOut: Number(paid[0]?.t ?? 0),
    upcomingPayout: Math.max(0, Number(upcoming[0]?.t ?? 0) + Number(adj[0]?.t ?? 0)),
  };
}
