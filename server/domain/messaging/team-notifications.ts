import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Jobs } from '../platform/jobs.ts';
import type { Mailer } from '../platform/mail.ts';
import { readProgramCounts, toProgram, type Program } from '../programs/programs.ts';
import { completeDocument, type ProgramDocuments } from '../programs/program-config.ts';
import { escapeHtml } from './email-layout.ts';
import { formatMoney } from '../platform/exchange-rates.ts';
import { countOf as plural, plural as pluralForms } from '../../../shared/plural.ts';
import { NOTIFICATION_EVENTS } from '../../../shared/schemas/program-config-options.ts';
import type { CampaignAnalytics } from '../../../shared/schemas/analytics.ts';
import type { CampaignAnalyticsQuery } from '../../../shared/schemas/analytics-queries.ts';

/** What the reports read: a program's analytics for a period (server/domain/analytics, wired by server/deps.ts). */
export interface ProgramAnalyticsReader {
  campaign(program: Program, query: CampaignAnalyticsQuery): Promise<CampaignAnalytics>;
}

// Team notification emails (rest-v2 §2.20 `options.notificationEmails`). Nothing happens on the
// request paths: a periodic sweep reads what changed in each program since its cursor, from the
// tables the events already live in, and sends at most one digest per enabled event type per
// program per sweep. The cursor and the outbox rows are written in one transaction, so a crash
// neither sends twice nor skips a window.

/** The programs columns the sweep reads (everything `toProgram` maps except the design, emails and installation documents). */
const PROGRAM_COLUMNS = ['id', 'team_id', 'type', 'name', 'status', 'currency_iso', 'goal', 'company_name', 'company_logo_image_url', 'options', 'ended_at', 'created_at', 'updated_at'];

/** A team notification event (options.notificationEmails.events key). */
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[keyof typeof NOTIFICATION_EVENTS][number];

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How often the sweep runs. */
export const SWEEP_EVERY_MS = 10 * MINUTE;
/** The window ends this long before now, so transactions still in flight have committed. */
export const SWEEP_LAG_MS = MINUTE;
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

/** The per-program sweep state (table team_notification_state). */
interface State {
  cursor_at: number;
  weekly_sent_for: string | null;
  monthly_sent_for: string | null;
  payout_reminder_sent_for: string | null;
}


/** A person as a digest names them: "Ada Lovelace <ada@example.com>", or just the address. */
function who(r: { first_name?: string | null; last_name?: string | null; email?: string | null }): string {
  const name = [r.first_name, r.last_name].filter(Boolean).join(' ').trim();
  const email = r.email ?? 'unknown';
  return name ? `${name} <${email}>` : email;
}

/** `YYYY-MM-DD` of a UTC instant. */
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** `YYYY-MM` of a UTC instant. */
const month = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** Start (UTC midnight) of the ISO week (Monday) containing `ms`. */
export function isoWeekStart(ms: number): number {
  const d = new Date(ms);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return midnight - ((d.getUTCDay() + 6) % 7) * DAY;
}

/** Start (UTC) of the calendar month containing `ms`. */
export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Start of the month before the one starting at `start`. */
const previousMonthStart = (start: number) => monthStart(start - 1);

/**
 * The sweep (`team-notifications.sweep`, every 10 minutes on the job runner) and the composition of
 * team notification emails. Programs without an enabled event cost one cheap cursor update.
 */
export class TeamNotifications {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly jobs: Jobs,
    private readonly mailer: Mailer,
    private readonly analytics: ProgramAnalyticsReader,
  ) {
    this.schedule = jobs.registerPeriodic('team-notifications.sweep', SWEEP_EVERY_MS, 'team-notify', () => this.sweep());
  }

  /** Makes sure the sweep of the 10-minute bucket containing `at` is queued (several processes never double it up). */
  readonly schedule: (at?: number) => Promise<void>;

  /** Sweeps every live program of every enabled team; returns how many emails were queued. */
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const hi = now - SWEEP_LAG_MS;
    // Only the options document is read: the design and emails documents can be large and are not needed.
    const rows = await this.db
      .knex('programs as p')
      .join('teams as t', 't.id', 'p.team_id')
      .whereNot('p.status', 'DELETED')
      .where('t.disabled', false)
      .select(PROGRAM_COLUMNS.map((c) => `p.${c}`));
    let sent = 0;
    for (const row of rows) {
      const program = toProgram(row, { options: JSON.parse(row.options) } as ProgramDocuments);
      try {
        sent += await this.sweepProgram(program, row.ended_at == null ? null : Number(row.ended_at), hi);
      } catch (err) {
        // One program's failure must not hold back the others; its cursor did not move, so the next sweep retries it.
        this.log.warn('team notification sweep failed for a program', { programId: program.id, error: String((err as Error)?.message ?? err) });
      }
    }
    return sent;
  }

  /** One program's window (cursor, hi]: digests, reports, then the cursor, in one transaction. */
  private async sweepProgram(program: Program, endedAt: number | null, hi: number): Promise<number> {
    const k = this.db.knex;
    const settings = completeDocument('options', program, program.documents.options).notificationEmails as {
      recipients: string[];
      events: Partial<Record<NotificationEvent, boolean>>;
    };
    const enabled = new Set((NOTIFICATION_EVENTS[program.type] as readonly NotificationEvent[]).filter((e) => settings.events[e] === true));
    const stored = (await k('team_notification_state').where({ program_id: program.id }).first()) as State | undefined;
    if (!stored) {
      // First sight: start now, with this period's reports counted as sent (no back-fill of history).
      if (enabled.size === 0) return 0;
      const lastMonth = month(previousMonthStart(monthStart(hi)));
      await k('team_notification_state')
        .insert({
          program_id: program.id,
          cursor_at: hi,
          weekly_sent_for: day(isoWeekStart(hi) - 7 * DAY),
          monthly_sent_for: lastMonth,
          payout_reminder_sent_for: month(hi),
          updated_at: this.clock.now(),
        })
        .onConflict('program_id')
        .ignore();
      return 0;
    }
    const state: State = { ...stored, cursor_at: Number(stored.cursor_at) };
    if (state.cursor_at >= hi) return 0;
    if (enabled.size === 0) {
      await k('team_notification_state').where({ program_id: program.id, cursor_at: state.cursor_at }).update({ cursor_at: hi, updated_at: this.clock.now() });
      return 0;
    }
    // Reads happen before the transaction (SQLite has one writer connection; the reports go
    // through the analytics service, which reads outside any transaction).
    const lo = state.cursor_at;
    const digests: Digest[] = [];
    const next: Partial<State> = {};
    for (const event of enabled) {
      const d = await this.#windowDigest(program, event, lo, hi, endedAt);
      if (d) digests.push(d);
    }
    const week = isoWeekStart(hi);
    if (enabled.has('WEEKLY_PERFORMANCE_REPORT') && state.weekly_sent_for !== day(week - 7 * DAY)) {
      digests.push(await this.#report(program, 'WEEKLY_PERFORMANCE_REPORT', week - 7 * DAY, week));
      next.weekly_sent_for = day(week - 7 * DAY);
    }
    const mStart = monthStart(hi);
    const prevMonth = previousMonthStart(mStart);
    if (enabled.has('MONTHLY_PERFORMANCE_REPORT') && state.monthly_sent_for !== month(prevMonth)) {
      digests.push(await this.#report(program, 'MONTHLY_PERFORMANCE_REPORT', prevMonth, mStart));
      next.monthly_sent_for = month(prevMonth);
    }
    if (enabled.has('MONTHLY_PAYOUT_REMINDER') && state.payout_reminder_sent_for !== month(hi)) {
      const reminder = await this.#payoutReminder(program);
      if (reminder) digests.push(reminder);
      next.payout_reminder_sent_for = month(hi);
    }
    const recipients = digests.length ? await this.#recipients(program, settings.recipients) : [];
    let sent = 0;
    await k.transaction(async (trx) => {
      sent = 0; // counted afresh when a PostgreSQL deadlock runs this again (server/db/retry.ts)
      // The cursor moves only from where this sweep read it; another process that got there first wins.
      const moved = await trx('team_notification_state')
        .where({ program_id: program.id, cursor_at: state.cursor_at })
        .update({ ...next, cursor_at: hi, updated_at: this.clock.now() });
      if (moved === 0) return;
      for (const digest of digests) {
        for (const to of recipients) {
          await this.mailer.send(trx, { ...this.#render(program, digest), to, kind: `team.${digest.event.toLowerCase()}`, teamId: program.teamId });
          sent++;
        }
      }
    });
    return sent;
  }

  /** Who gets the program's notifications: the configured list, else the team owner. */
  async #recipients(program: Program, configured: string[]): Promise<string[]> {
    if (configured.length) return [...new Set(configured.map((e) => e.trim().toLowerCase()))];
    const owner = await this.db
      .knex('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.team_id': program.teamId, 'm.role': 'OWNER' })
      .orderBy('m.created_at')
      .first('u.email');
    return owner ? [owner.email] : [];
  }

  /** The digest of one event over (lo, hi], or null when nothing happened. */
  async #windowDigest(program: Program, event: NotificationEvent, lo: number, hi: number, endedAt: number | null): Promise<Digest | null> {
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
  async #report(program: Program, event: 'WEEKLY_PERFORMANCE_REPORT' | 'MONTHLY_PERFORMANCE_REPORT', from: number, to: number): Promise<Digest> {
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
  async #payoutReminder(program: Program): Promise<Digest | null> {
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
  #render(program: Program, d: Digest): { subject: string; text: string; html: string; fromName: string } {
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
