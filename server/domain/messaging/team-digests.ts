import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Config } from '../../config.ts';
import { readProgramCounts, type Program } from '../programs/programs.ts';
import { escapeHtml } from './email-layout.ts';
import { formatMoney } from '../platform/exchange-rates.ts';
import { countOf as plural, plural as pluralForms } from '../../../shared/plural.ts';
import type { NOTIFICATION_EVENTS } from '../../../shared/schemas/program-config-options.ts';
import type { CampaignAnalytics } from '../../../shared/schemas/analytics.ts';
import type { CampaignAnalyticsQuery } from '../../../shared/schemas/analytics-queries.ts';

// Team notification digests (rest-v2 §2.20 `options.notificationEmails`): what the emails of the
// sweep (team-notifications.ts) say. Each enabled event with something new in a program's window
// becomes one digest, read from the tables the events already live in, counting everything and
// listing the first few; the performance reports come from the analytics service and the payout
// reminder from what waits to be paid. A digest renders to a subject, plain text and escaped HTML.

/** What the reports read: a program's analytics for a period (server/domain/analytics, wired by server/deps.ts). */
export interface ProgramAnalyticsReader {
  campaign(program: Program, query: CampaignAnalyticsQuery): Promise<CampaignAnalytics>;
}

/** A team notification event (options.notificationEmails.events key). */
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[keyof typeof NOTIFICATION_EVENTS][number];

/** Items listed in one email; the rest are counted ("and N more"). */
export const LISTED_ITEMS = 20;

/** One digest before it is rendered: what happened, how many, and the first few items. */
export interface Digest {
  event: NotificationEvent;
  subject: string;
  intro: string;
  items: string[];
  more: number;
  /** Extra paragraphs after the list (report tables, review hints). */
  notes?: string[];
}

/** `YYYY-MM-DD` of a UTC instant (the report's period, and the sweep's record of the weeks reported). */
export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A person as a digest names them: "Ada Lovelace <ada@example.com>", or just the address. */
function who(r: { first_name?: string | null; last_name?: string | null; email?: string | null }): string {
  const name = [r.first_name, r.last_name].filter(Boolean).join(' ').trim();
  const email = r.email ?? 'unknown';
  return name ? `${name} <${email}>` : email;
}

/** The digests of a program's window, its performance reports and its payout reminder, and their rendering. */
export class TeamDigests {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly analytics: ProgramAnalyticsReader,
  ) {}

  /** The digest of one event over (lo, hi], or null when nothing happened. */
  async windowDigest(program: Program, event: NotificationEvent, lo: number, hi: number, endedAt: number | null): Promise<Digest | null> {
    const k = this.db.knex;
    const inWindow = (column: string) => (q: Knex.QueryBuilder) => q.where(column, '>', lo).where(column, '<=', hi);
    /** Counts the query's rows and lists the first LISTED_ITEMS of them with `line`. */
    const listed = async (q: Knex.QueryBuilder, orderBy: string, line: (r: any) => string) => {
      const [{ n }] = await q.clone().clearSelect().count({ n: '*' });
      const count = Number(n);
      if (count === 0) return null;
      const rows = await q.orderBy([orderBy, `${orderBy.split('.')[0]}.id`]).limit(LISTED_ITEMS);
      return { count, items: rows.map(line), more: Math.max(0, count - rows.length) };
    };
    const name = program.name;
    switch (event) {
      case 'NEW_PARTICIPANT_ADDED_REFERRED':
      case 'NEW_PARTICIPANT_ADDED_NON_REFERRED': {
        const referred = event === 'NEW_PARTICIPANT_ADDED_REFERRED';
        const q = k('participants as p')
          .where('p.program_id', program.id)
          .modify(inWindow('p.created_at'))
          .modify((b) => (referred ? b.whereNotNull('p.referred_by') : b.whereNull('p.referred_by')))
          .leftJoin('participants as r', 'r.id', 'p.referred_by')
          .select('p.id', 'p.email', 'p.first_name', 'p.last_name', 'p.created_at', 'r.email as r_email', 'r.first_name as r_first_name', 'r.last_name as r_last_name');
        const got = await listed(q, 'p.created_at', (r) => (referred ? `${who(r)}, referred by ${who({ email: r.r_email, first_name: r.r_first_name, last_name: r.r_last_name })}` : who(r)));
        if (!got) return null;
        const what = referred ? plural(got.count, 'new referred participant') : plural(got.count, 'new participant');
        return { event, subject: `[${name}] ${what}`, intro: `${what} joined ${name}${referred ? ' through a referral' : ' without a referral'}:`, ...got };
      }
      case 'PARTICIPANT_REACHED_A_GOAL': {
        const q = k('participant_rewards as w')
          .join('participants as p', 'p.id', 'w.participant_id')
          .leftJoin('reward_configs as c', 'c.id', 'w.reward_config_id')
          .where('w.program_id', program.id)
          .whereNull('w.deleted_at')
          .modify(inWindow('w.created_at'))
          .select('w.id', 'w.created_at', 'p.email', 'p.first_name', 'p.last_name', 'c.title', 'c.description');
        const got = await listed(q, 'w.created_at', (r) => `${who(r)} earned ${r.title || r.description || 'a reward'}`);
        if (!got) return null;
        const what = plural(got.count, 'reward');
        return { event, subject: `[${name}] ${what} earned`, intro: `Participants reached a goal in ${name} and earned ${what}:`, ...got };
      }
      case 'CAMPAIGN_ENDED': {
        if (endedAt == null || endedAt <= lo || endedAt > hi) return null;
        const counts = (await readProgramCounts(k, [program.id])).get(program.id);
        const participants = counts?.participant ?? 0;
        const referrals = counts?.referral ?? 0;
        return { event, subject: `[${name}] The program has ended`, intro: `${name} ended on ${new Date(endedAt).toISOString().replace('T', ' ').slice(0, 16)} UTC.`, items: [], more: 0, notes: [`It had ${plural(participants, 'participant')} and ${plural(referrals, 'referral')}.`] };
      }
      case 'NEW_COMMISSION_ADDED': {
        const q = k('commissions as c')
          .join('participants as p', 'p.id', 'c.referrer_id')
          .where('c.program_id', program.id)
          .modify(inWindow('c.created_at'))
          .select('c.id', 'c.created_at', 'c.event', 'c.amount', 'c.currency_iso', 'p.email', 'p.first_name', 'p.last_name');
        const got = await listed(q, 'c.created_at', (r) => `${who(r)}: ${formatMoney(Number(r.amount), r.currency_iso)} (${String(r.event).toLowerCase()})`);
        if (!got) return null;
        const what = plural(got.count, 'new commission');
        return { event, subject: `[${name}] ${what}`, intro: `Affiliates earned ${what} in ${name}:`, ...got };
      }
      case 'COMMISSION_ADJUSTED': {
        // A refund (or its cancellation) that changes `amount` sets `adjusted_at` (migration 022); other updates do not.
        const q = k('commissions as c')
          .join('participants as p', 'p.id', 'c.referrer_id')
          .where('c.program_id', program.id)
          .modify(inWindow('c.adjusted_at'))
          .whereRaw('c.amount <> c.original_amount')
          .select('c.id', 'c.adjusted_at', 'c.amount', 'c.original_amount', 'c.currency_iso', 'p.email', 'p.first_name', 'p.last_name');
        const got = await listed(q, 'c.adjusted_at', (r) => `${who(r)}: ${formatMoney(Number(r.original_amount), r.currency_iso)} is now ${formatMoney(Number(r.amount), r.currency_iso)}`);
        if (!got) return null;
        const what = plural(got.count, 'commission');
        return { event, subject: `[${name}] ${what} adjusted`, intro: `Refunds changed ${what} in ${name}:`, ...got };
      }
      case 'NEW_PAYOUT_ISSUED': {
        const q = k('payouts as o')
          .join('participants as p', 'p.id', 'o.participant_id')
          .where('o.program_id', program.id)
          .modify(inWindow('o.issued_at'))
          .select('o.id', 'o.issued_at', 'o.amount', 'o.currency_iso', 'p.email', 'p.first_name', 'p.last_name');
        const got = await listed(q, 'o.issued_at', (r) => `${who(r)}: ${formatMoney(Number(r.amount), r.currency_iso)}`);
        if (!got) return null;
        const what = plural(got.count, 'payout');
        return { event, subject: `[${name}] ${what} issued`, intro: `${what} issued in ${name}:`, ...got };
      }
      case 'AFFILIATE_BATCH_PAYOUT_COMPLETED': {
        // No batch is stored: the payouts that reached a final state in the window are the batch (docs/decisions.md).
        const rows: Array<{ status: string; currency_iso: string; n: number | string; total: number | string }> = await k('payouts')
          .where('program_id', program.id)
          .where((w) => w.where((a) => a.where('issued_at', '>', lo).where('issued_at', '<=', hi)).orWhere((a) => a.where('failed_at', '>', lo).where('failed_at', '<=', hi)))
          .whereIn('status', ['ISSUED', 'FAILED'])
          .groupBy('status', 'currency_iso')
          .select('status', 'currency_iso')
          .count({ n: '*' })
          .sum({ total: 'amount' });
        if (rows.length === 0) return null;
        const count = rows.reduce((s, r) => s + Number(r.n), 0);
        const items = rows.map((r) => `${plural(Number(r.n), 'payout')} ${r.status === 'ISSUED' ? 'issued' : 'failed'}: ${formatMoney(Number(r.total), r.currency_iso)}`);
        return { event, subject: `[${name}] Payout batch completed: ${plural(count, 'payout')}`, intro: `The payouts of ${name} that finished since the last update:`, items, more: 0 };
      }
      case 'AFFILIATE_APPLICATIONS_PENDING_REVIEW': {
        const q = k('affiliate_applications as a').where('a.program_id', program.id).where('a.status', 'PENDING').modify(inWindow('a.created_at')).select('a.id', 'a.created_at', 'a.email', 'a.first_name', 'a.last_name');
        const got = await listed(q, 'a.created_at', who);
        if (!got) return null;
        const [pending] = await k('affiliate_applications').where({ program_id: program.id, status: 'PENDING' }).count({ n: '*' });
        const what = plural(got.count, 'new affiliate application');
        return {
          event,
          subject: `[${name}] ${what} to review`,
          intro: `${what} arrived in ${name}:`,
          ...got,
          notes: [`${pluralForms(Number(pending?.n ?? 0), { one: '{count} application in all waits', other: '{count} applications in all wait' })} for review (GET /v2/campaign/${program.id}/affiliate-applications).`],
        };
      }
      default:
        return null; // the reports and the payout reminder are periodic, not windowed
    }
  }

  /** A performance report for [from, to): real totals from the analytics service. */
  async report(program: Program, event: 'WEEKLY_PERFORMANCE_REPORT' | 'MONTHLY_PERFORMANCE_REPORT', from: number, to: number): Promise<Digest> {
    const query = { startDate: from, endDate: to - 1, interval: 'total', include: new Set(['statusCounts']), platform: 'ALL', timezone: 'UTC' } as unknown as CampaignAnalyticsQuery;
    const a = await this.analytics.campaign(program, query);
    const t = a.analytics;
    // AnalyticsTotals.referrals counts referrals credited in the period; pending and expired ones are counted apart.
    const credited = t.referrals ?? 0;
    const referrals = credited + (t.referralCreditPendings ?? 0) + (t.referralCreditExpireds ?? 0);
    const rs = a.statusCounts?.rewardStatus;
    const rewards = rs ? rs.unapproved + rs.unfulfilled + rs.completed : 0;
    const items = [
      `New participants: ${t.participants ?? 0}`,
      `Referrals: ${referrals}`,
      `Credited referrals: ${credited}`,
      `Rewards issued: ${rewards}`,
      `Impressions: ${t.impressions ?? 0}`,
    ];
    if (program.type === 'AFFILIATE') {
      items.push(`Commissions: ${t.totalCommissionCount ?? 0}`, `Commission total: ${formatMoney(t.totalCommissions ?? 0, program.currencyISO)}`);
    }
    const weekly = event === 'WEEKLY_PERFORMANCE_REPORT';
    const period = weekly ? `the week of ${day(from)} to ${day(to - 1)}` : new Date(from).toLocaleString('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    return { event, subject: `[${program.name}] ${weekly ? 'Weekly' : 'Monthly'} performance report`, intro: `How ${program.name} did in ${period} (UTC):`, items, more: 0 };
  }

  /** Money waiting to be paid: approved commissions not yet in a payout, and UPCOMING payouts (null when there is none). */
  async payoutReminder(program: Program): Promise<Digest | null> {
    const k = this.db.knex;
    const [c] = await k('commissions').where({ program_id: program.id, status: 'APPROVED' }).whereNull('payout_id').count({ n: '*' }).sum({ total: 'amount_in_campaign_currency' });
    const [p] = await k('payouts').where({ program_id: program.id, status: 'UPCOMING' }).count({ n: '*' }).sum({ total: 'amount_in_campaign_currency' });
    const commissions = Number(c?.n ?? 0);
    const payouts = Number(p?.n ?? 0);
    if (commissions === 0 && payouts === 0) return null;
    const money = (v: unknown) => formatMoney(Number(v ?? 0), program.currencyISO);
    return {
      event: 'MONTHLY_PAYOUT_REMINDER',
      subject: `[${program.name}] Monthly payout reminder`,
      intro: `Affiliates of ${program.name} are waiting to be paid:`,
      items: [`Approved commissions not yet in a payout: ${commissions} (${money(c?.total)})`, `Upcoming payouts: ${payouts} (${money(p?.total)})`],
      more: 0,
    };
  }

  /** Subject, text and HTML of a digest; every value is escaped in the HTML part. */
  render(program: Program, d: Digest): { subject: string; text: string; html: string; fromName: string } {
    const link = this.config.publicUrl;
    const more = d.more > 0 ? `and ${d.more} more` : null;
    const text = [
      d.intro,
      '',
      ...d.items.map((i) => `- ${i}`),
      ...(more ? [more] : []),
      ...(d.notes?.length ? ['', ...d.notes] : []),
      '',
      `Open refloop: ${link}`,
      '',
      `You get this email because team notifications for ${program.name} are on (options.notificationEmails).`,
    ].join('\n');
    const html = [
      `<p>${escapeHtml(d.intro)}</p>`,
      d.items.length ? `<ul>${d.items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>` : '',
      more ? `<p>${escapeHtml(more)}</p>` : '',
      ...(d.notes ?? []).map((n) => `<p>${escapeHtml(n)}</p>`),
      `<p><a href="${escapeHtml(link)}">Open refloop</a></p>`,
      `<p style="color:#666;font-size:12px">You get this email because team notifications for ${escapeHtml(program.name)} are on (options.notificationEmails).</p>`,
    ].join('\n');
    return { subject: d.subject.replace(/[\r\n]+/g, ' ').slice(0, 900), text, html, fromName: 'refloop' };
  }
}
