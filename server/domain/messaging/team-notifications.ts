import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Jobs } from '../platform/jobs.ts';
import type { Mailer } from '../platform/mail.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { completeDocument, type ProgramDocuments } from '../programs/program-config.ts';
import { NOTIFICATION_EVENTS } from '../../../shared/schemas/program-config-options.ts';
import { day, TeamDigests, type Digest, type NotificationEvent, type ProgramAnalyticsReader } from './team-digests.ts';

// Team notification emails (rest-v2 §2.20 `options.notificationEmails`). Nothing happens on the
// request paths: a periodic sweep reads what changed in each program since its cursor, from the
// tables the events already live in, and sends at most one digest (team-digests.ts) per enabled
// event type per program per sweep. The cursor and the outbox rows are written in one transaction,
// so a crash neither sends twice nor skips a window.

/** The programs columns the sweep reads (everything `toProgram` maps except the design, emails and installation documents). */
const PROGRAM_COLUMNS = ['id', 'team_id', 'type', 'name', 'status', 'currency_iso', 'goal', 'company_name', 'company_logo_image_url', 'options', 'ended_at', 'created_at', 'updated_at'];

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How often the sweep runs. */
export const SWEEP_EVERY_MS = 10 * MINUTE;
/** The window ends this long before now, so transactions still in flight have committed. */
export const SWEEP_LAG_MS = MINUTE;

/** The per-program sweep state (table team_notification_state). */
interface State {
  cursor_at: number;
  weekly_sent_for: string | null;
  monthly_sent_for: string | null;
  payout_reminder_sent_for: string | null;
}

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
 * The sweep (`team-notifications.sweep`, every 10 minutes on the job runner): per program, its
 * window, the periods its reports are due for, and the digests' delivery to the team's recipients.
 * Programs without an enabled event cost one cheap cursor update.
 */
export class TeamNotifications {
  /** What each team notification email says. */
  readonly #digests: TeamDigests;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    config: Config,
    private readonly log: Logger,
    private readonly jobs: Jobs,
    private readonly mailer: Mailer,
    analytics: ProgramAnalyticsReader,
  ) {
    this.#digests = new TeamDigests(db, config, analytics);
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
      const d = await this.#digests.windowDigest(program, event, lo, hi, endedAt);
      if (d) digests.push(d);
    }
    const week = isoWeekStart(hi);
    if (enabled.has('WEEKLY_PERFORMANCE_REPORT') && state.weekly_sent_for !== day(week - 7 * DAY)) {
      digests.push(await this.#digests.report(program, 'WEEKLY_PERFORMANCE_REPORT', week - 7 * DAY, week));
      next.weekly_sent_for = day(week - 7 * DAY);
    }
    const mStart = monthStart(hi);
    const prevMonth = previousMonthStart(mStart);
    if (enabled.has('MONTHLY_PERFORMANCE_REPORT') && state.monthly_sent_for !== month(prevMonth)) {
      digests.push(await this.#digests.report(program, 'MONTHLY_PERFORMANCE_REPORT', prevMonth, mStart));
      next.monthly_sent_for = month(prevMonth);
    }
    if (enabled.has('MONTHLY_PAYOUT_REMINDER') && state.payout_reminder_sent_for !== month(hi)) {
      const reminder = await this.#digests.payoutReminder(program);
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
          await this.mailer.send(trx, { ...this.#digests.render(program, digest), to, kind: `team.${digest.event.toLowerCase()}`, teamId: program.teamId });
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
}
