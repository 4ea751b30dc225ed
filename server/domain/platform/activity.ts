import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { insertRow, insertRowsTogether, runSql, type TableRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';

/** Activity families as the wire's `type` reports them (open list). */
export type ActivityType = 'REFERRAL' | 'SHARE' | 'REWARD' | 'EMAIL' | 'COMMON' | 'VISIT' | 'INVITE' | 'FRAUD';

/**
 * The actions analytics counts (server/domain/analytics/analytics.ts); engines record these names so windowed
 * totals, series and activation stages can be computed from rows. Other actions are kept for the
 * activity log only.
 * - COMMON `participant.joined` (their own log), `participant.deleted` (program-level, participant null)
 * - REFERRAL `referral.created` / `referral.credited` / `referral.status` / `referral.removed` (the referrer's log)
 * - VISIT `visit.unique` (first view of the link by a visitor) or `visit.repeat`; `portal.viewed` once portal views are tracked
 * - SHARE `share.<channel>`, channel as in `Participant.shareCount` (`email`, `facebook`, `copyRefLink`, `iosNativeShare` …)
 * - INVITE `invite.sent` (one row per invited address)
 * - EMAIL `email.sent` / `email.skipped`, with `data.emailType` (the template key)
 * - REWARD `reward.issued`, `reward.approved`, `reward.fulfilled`
 */
export const ACTIONS = {
  participantJoined: 'participant.joined',
  participantDeleted: 'participant.deleted',
  referralCreated: 'referral.created',
  referralCredited: 'referral.credited',
  referralStatus: 'referral.status',
  referralRemoved: 'referral.removed',
  visitUnique: 'visit.unique',
  visitRepeat: 'visit.repeat',
  portalViewed: 'portal.viewed',
  inviteSent: 'invite.sent',
  emailSent: 'email.sent',
  emailSkipped: 'email.skipped',
  rewardIssued: 'reward.issued',
} as const;

/** An activity_logs row as written. */
type ActivityRow = {
  program_id: string;
  participant_id: string | null;
  type: string;
  action: string;
  text: string;
  data: string | null;
  created_at: number;
};

/** The INSERT of `count` activity rows, columns in `record`'s row order. */
function insertActivitySql(count: number): string {
  return `INSERT INTO "activity_logs" ("program_id", "participant_id", "type", "action", "text", "data", "created_at") VALUES ${Array(count).fill('(?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
}

/** One event to record. */
export interface ActivityEntry {
  programId: string;
  participantId: string | null;
  type: ActivityType;
  /** Machine-readable kind (`referral.credited`, `email.skipped` …) that analytics count. */
  action: string;
  /** Human text shown in activity logs, e.g. "Referred ann@example.com (credit awarded)". */
  text: string;
  data?: Record<string, unknown>;
}

/** An activity log row on the wire (rest-v2 §2.26). */
export interface ActivityLog {
  type: string;
  text: string;
  createdAt: number;
}

/** The activity log: every engine records what happened here, in its own transaction. */
export class Activity {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Rows recorded on a transaction inside `batched`, written when its work ends. */
  readonly #buffers = new WeakMap<object, ActivityRow[]>();

  /**
   * Runs `work`, holding the activity rows recorded on `trx` meanwhile and writing them in one
   * statement when it succeeds (a referral trigger records six rows from four hooks). Nothing in
   * such work reads the log back. A failure writes none of them, as its rollback would have undone them.
   */
  async batched<T>(trx: Knex.Transaction, work: () => Promise<T>): Promise<T> {
    if (this.#buffers.has(trx)) return work();
    const rows: ActivityRow[] = [];
    this.#buffers.set(trx, rows);
    try {
      const out = await work();
      this.#buffers.delete(trx);
      const others = this.#others.get(trx) ?? [];
      this.#others.delete(trx);
      // With the rows of other tables held alongside (a sign-up's fraud decision): one statement on PostgreSQL.
      if (others.length) await insertRowsTogether(trx, [...others, { table: 'activity_logs', rows }]);
      else await this.#insert(trx, rows);
      return out;
    } finally {
      this.#buffers.delete(trx);
      this.#others.delete(trx);
    }
  }

  /** Rows of other tables held by `alongside` inside `batched`, by transaction. */
  readonly #others = new WeakMap<object, TableRows[]>();

  /**
   * Inside `batched` on `trx`: holds a row of another table to be written with the batch's activity
   * rows when the work ends (in the same statement on PostgreSQL), for a row nothing in the work
   * reads back (a sign-up's fraud decision). False outside a batch: the caller writes it itself.
   */
  alongside(trx: Knex.Transaction, table: string, row: Record<string, unknown>): boolean {
    if (!this.#buffers.has(trx)) return false;
    let others = this.#others.get(trx);
    if (!others) this.#others.set(trx, (others = []));
    let part = others.find((p) => p.table === table);
    if (!part) others.push((part = { table, rows: [] }));
    part.rows.push(row);
    return true;
  }

  /** Records entries in the caller's transaction (or directly). */
  async record(q: Knex | Knex.Transaction, ...entries: ActivityEntry[]): Promise<void> {
    if (!entries.length) return;
    const now = this.clock.now();
    const toRow = (e: ActivityEntry): ActivityRow => ({
      program_id: e.programId,
      participant_id: e.participantId,
      type: e.type,
      action: e.action,
      text: e.text.slice(0, 1000),
      data: e.data ? JSON.stringify(e.data) : null,
      created_at: now,
    });
    const buffer = this.#buffers.get(q);
    if (buffer) {
      buffer.push(...entries.map(toRow));
      return;
    }
    // One row (the common case) goes through a cached prepared statement; several through one
    // multi-row insert, a cached statement too inside a transaction.
    if (entries.length === 1) await insertRow(this.db, q, 'activity_logs', toRow(entries[0]!));
    else if ((q as Knex.Transaction).isTransaction === true) await this.#insert(q as Knex.Transaction, entries.map(toRow));
    else await q('activity_logs').insert(entries.map(toRow));
  }

  async #insert(trx: Knex.Transaction, rows: ActivityRow[]): Promise<void> {
    if (!rows.length) return;
    if (rows.length === 1) return insertRow(this.db, trx, 'activity_logs', rows[0]!);
    await runSql(trx, insertActivitySql(rows.length), rows.flatMap((r) => [r.program_id, r.participant_id, r.type, r.action, r.text, r.data, r.created_at]));
  }

  /** A participant's log, newest first, offset-paged; `offset` is null when nothing follows. */
  async list(participantId: string, limit: number, offset: number): Promise<{ activityLogs: ActivityLog[]; limit: number; offset: number | null }> {
    const rows = await this.db
      .knex('activity_logs')
      .where({ participant_id: participantId })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }])
      .limit(limit + 1)
      .offset(offset)
      .select('type', 'text', 'created_at');
    const more = rows.length > limit;
    return {
      activityLogs: rows.slice(0, limit).map((r: any) => ({ type: r.type, text: r.text, createdAt: Number(r.created_at) })),
      limit,
      offset: more ? offset + limit : null,
    };
  }
}
