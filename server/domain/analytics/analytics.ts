import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import { monthBoard, monthKey, monthScore, rankKey } from '../participants/boards.ts';
import { parseJson } from '../participants/model.ts';
import { DAY, bucketOf, bucketsBetween, dayStart, type Interval } from './analytics-time.ts';
import { Tables, addCounts, countWindow, emptyCounts, rewardStatusCounts, rows, totalsOf, type Counts, type Scope } from './analytics-sql.ts';
import { engagement } from './analytics-engagement.ts';
import { moneyStatusCounts } from './analytics-money.ts';
import { payoutMoney } from '../affiliate/payout-money.ts';
import { campaignActivation, participantActivation } from './analytics-activation.ts';
import type {
  AnalyticsSeriesItem,
  CampaignActivationAnalytics,
  CampaignAnalytics,
  EmailAnalytics,
  EmailAnalyticsCounts,
  ParticipantAnalytics,
  StatusCounts,
} from '../../../shared/schemas/analytics.ts';
import { DEFAULT_ANALYTICS_DAYS, type ActivationAnalyticsQuery, type CampaignAnalyticsQuery, type ParticipantAnalyticsQuery } from '../../../shared/schemas/analytics-queries.ts';

/** A window [lo, hi) with its wire dates (both inclusive) and the same-length window before it. */
export interface AnalyticsWindow {
  lo: number;
  hi: number;
  startDate: number;
  endDate: number;
  prevLo: number;
}

/** The window a query names: `startDate`/`endDate` (inclusive), else the last `days` days up to now. */
export function resolveWindow(q: { days?: number; startDate?: number; endDate?: number }, now: number): AnalyticsWindow {
  const lo = q.startDate ?? now + 1 - (q.days ?? DEFAULT_ANALYTICS_DAYS) * DAY;
  const hi = q.endDate !== undefined ? q.endDate + 1 : now + 1;
  return { lo, hi, startDate: lo, endDate: hi - 1, prevLo: lo - (hi - lo) };
}

/** Email counts of §2.31 from what we observe: emails accepted for delivery; nothing after that is tracked yet. */
function emailCounts(sent: number): EmailAnalyticsCounts {
  return { sent, delivered: 0, opened: 0, clicked: 0, bounced: 0, spamComplaints: 0 };
}

/**
 * EmailAnalytics (§2.31). Delivery, open, click, bounce and complaint tracking has no coverage yet,
 * which the shape says with `coverageStartDate: null` and `isPartial: true`; their counts and rates
 * read 0 under that flag and are not measurements.
 */
function emailAnalytics(c: Counts): EmailAnalytics {
  const rates = { deliveryRate: 0, openRate: 0, clickRate: 0, bounceRate: 0 };
  const byType = [...c.emails.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([emailType, sent]) => ({ ...emailCounts(sent), ...rates, emailType }));
  const sent = byType.reduce((s, t) => s + t.sent, 0);
  return { ...emailCounts(sent), ...rates, byType, coverageStartDate: null, isPartial: true };
}

/** Groups per-day counts into buckets, filling empty buckets with zeros, ascending. */
function series(perDay: Map<number, Counts>, tz: string, lo: number, hi: number, interval: Interval, affiliate: boolean): Array<{ periodStart: number; counts: Counts }> {
  const buckets = new Map<number, Counts>();
  for (const b of bucketsBetween(tz, lo, hi, interval)) buckets.set(b, emptyCounts(affiliate));
  for (const [d, c] of perDay) {
    const b = buckets.get(bucketOf(d, interval));
    if (b) addCounts(b, c);
  }
  return [...buckets.entries()].map(([b, counts]) => ({ periodStart: dayStart(tz, b), counts }));
}

function sum(perDay: Map<number, Counts>, affiliate: boolean): Counts {
  const total = emptyCounts(affiliate);
  for (const c of perDay.values()) addCounts(total, c);
  return total;
}

function ratio(n: number, d: number): number {
  return d > 0 ? n / d : 0;
}

/**
 * Campaign and participant analytics (rest-v2 §2.24–§2.25, §2.29–§2.31) computed from stored rows:
 * participants and their referral columns, invites, issued rewards and the activity log. Windowed
 * totals are indexed COUNTs; series are grouped by local day in SQL and assembled here.
 */
export class Analytics {
  readonly #tables: Tables;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly participants: Participants,
  ) {
    this.#tables = new Tables(db);
  }

  /** AN1: totals over the window, with the series, previous period, status counts, rates, email and engagement asked for. */
  async campaign(program: Program, q: CampaignAnalyticsQuery): Promise<CampaignAnalytics> {
    const now = this.clock.now();
    const w = resolveWindow(q, now);
    const affiliate = program.type === 'AFFILIATE';
    const scope: Scope = { programId: program.id };
    const byDay = q.interval !== 'total';
    const emails = q.include.has('email');
    const perDay = await countWindow(this.db, this.#tables, scope, affiliate, w.lo, w.hi, { tz: q.timezone, byDay, emails });
    const total = sum(perDay, affiliate);
    const out: CampaignAnalytics = { analytics: totalsOf(total), startDate: w.startDate, endDate: w.endDate };
    if (byDay) {
      out.series = series(perDay, q.timezone, w.lo, w.hi, q.interval as Interval, affiliate).map(({ periodStart, counts }) => {
        const item: AnalyticsSeriesItem = { ...totalsOf(counts), periodStart };
        if (emails) item.email = emailCounts([...counts.emails.values()].reduce((s, n) => s + n, 0));
        return item;
      });
    }
    if (q.include.has('previousPeriod')) {
      const prev = sum(await countWindow(this.db, this.#tables, scope, affiliate, w.prevLo, w.lo, { tz: q.timezone, byDay: false, emails }), affiliate);
      out.previousPeriod = { analytics: totalsOf(prev), startDate: w.prevLo, endDate: w.lo - 1, ...(emails ? { email: emailAnalytics(prev) } : {}) };
    }
    if (q.include.has('statusCounts')) out.statusCounts = await this.statusCounts(program, w);
    if (q.include.has('rates')) {
      const t = total.totals;
      out.rates = {
        referralConversionRate: ratio(t.referrals!, t.uniqueImpressions!),
        participationRate: ratio(t.participants!, t.uniqueImpressions!),
        sharesPerParticipant: ratio(total.shares, t.participants!),
      };
    }
    if (emails) out.email = emailAnalytics(total);
    if (q.include.has('engagement')) {
      out.engagement = await engagement(this.db, program, w, {
        tz: q.timezone,
        interval: q.interval === 'total' ? 'day' : q.interval,
        platform: q.platform,
      });
    }
    return out;
  }

  /** StatusCounts for the window: rewards issued in it; affiliates who joined, commissions and payouts created in it, by current status. */
  private async statusCounts(program: Program, w: AnalyticsWindow): Promise<StatusCounts> {
    const out: StatusCounts = {
      currencyISO: program.currencyISO,
      rewardStatus: await rewardStatusCounts(this.db, this.#tables, { programId: program.id }, { lo: w.lo, hi: w.hi }),
    };
    if (program.type === 'AFFILIATE') {
      const statuses = await rows<{ s: string; n: number }>(
        this.db,
        'SELECT affiliate_status AS s, COUNT(*) AS n FROM participants WHERE program_id = ? AND created_at >= ? AND created_at < ? AND affiliate_status IS NOT NULL GROUP BY affiliate_status',
        [program.id, w.lo, w.hi],
      );
      out.affiliateStatus = { APPROVED: 0, SUSPENDED: 0, BANNED: 0 };
      for (const r of statuses) out.affiliateStatus[r.s] = Number(r.n);
      if (await this.#tables.has('commissions')) Object.assign(out, await moneyStatusCounts(this.db, program.id, w.lo, w.hi, this.clock.now()));
    }
    return out;
  }

  /** AN2: activation cohorts. */
  activation(program: Program, q: ActivationAnalyticsQuery): Promise<CampaignActivationAnalytics> {
    return campaignActivation(this.db, this.#tables, program, q, this.clock.now());
  }

  /** P12: a participant's all-time counters and ranks, plus the window's series, email and activation when asked. */
  async participant(program: Program, idOrEmail: string, q: ParticipantAnalyticsQuery): Promise<ParticipantAnalytics> {
    const knex = this.db.knex;
    const row = await this.participants.resolve(knex, program, idOrEmail);
    const now = this.clock.now();
    const cur = monthKey(now);
    const scope: Scope = { programId: program.id, participantId: row.id };
    const scores: Array<[string, number]> = [
      ['ALL_TIME', Number(row.referral_count)],
      [monthBoard(cur), monthScore(row, cur)],
      [monthBoard(cur - 1), monthScore(row, cur - 1)],
    ];
    const affiliate = program.type === 'AFFILIATE';
    const [higher, expired, rewardStatus, paid] = await Promise.all([
      this.participants.leaderboard.higherCounts(knex, program.id, scores),
      rows<{ n: number }>(this.db, "SELECT COUNT(*) AS n FROM participants WHERE referred_by = ? AND referral_status = 'CREDIT_EXPIRED'", [row.id]),
      rewardStatusCounts(this.db, this.#tables, scope, null),
      affiliate && (await this.#tables.has('payouts')) ? payoutMoney(this.db, row.id, now) : { totalPaidOut: 0, upcomingPayout: 0 },
    ]);
    // Unranked (a zero score) is null: a participant with nothing on a board holds no place on it.
    const rank = ([board, score]: [string, number]) => (score > 0 ? 1 + (higher.get(rankKey(board, score)) ?? 0) : null);
    const out: ParticipantAnalytics = {
      analytics: {
        referrals: Number(row.referral_count),
        monthlyReferrals: monthScore(row, cur),
        leads: Number(row.lead_count),
        expiredReferrals: Number(expired[0]?.n ?? 0),
        impressions: Number(row.impression_count),
        uniqueImpressions: Number(row.unique_impression_count),
        invitesSent: Number(row.invite_count),
        rewardStatus,
        ...(affiliate ? { referralRevenue: Number(row.revenue_total), totalCommissions: Number(row.commission_total), ...paid } : {}),
        currencyISO: program.currencyISO,
      },
      ranks: { rank: rank(scores[0]!), monthlyRank: rank(scores[1]!), prevMonthlyRank: rank(scores[2]!) },
      shareCount: parseJson<Record<string, number>>(row.share_count, {}),
    };
    const wantSeries = q.include.has('series');
    const wantEmail = q.include.has('email');
    const wantActivation = q.include.has('activation');
    if (wantSeries || wantEmail) {
      const w = resolveWindow(q, now);
      const perDay = await countWindow(this.db, this.#tables, scope, affiliate, w.lo, w.hi, { tz: q.timezone, byDay: wantSeries, emails: wantEmail });
      out.startDate = w.startDate;
      out.endDate = w.endDate;
      if (wantSeries) {
        out.series = series(perDay, q.timezone, w.lo, w.hi, q.interval, affiliate).map(({ periodStart, counts }) => {
          const item: AnalyticsSeriesItem = { ...totalsOf(counts), uniqueCommissionReferrals: counts.totals.uniqueCommissionReferrals ?? 0, periodStart };
          if (wantEmail) item.email = emailCounts([...counts.emails.values()].reduce((s, n) => s + n, 0));
          if (wantActivation) {
            // Portal views are not tracked yet: null, never a zero that looks measured.
            item.portalViews = null;
            item.shareActions = counts.shares;
          }
          return item;
        });
      }
      if (wantEmail) out.email = emailAnalytics(sum(perDay, affiliate));
    }
    if (wantActivation) out.activation = await participantActivation(this.db, this.#tables, program, row);
    return out;
  }
}
