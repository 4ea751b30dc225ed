import type { Db } from '../../db/connect.ts';
import { COOKIE_WINDOW_DAYS } from '../../../shared/schemas/program-config-fields.ts';

const DAY = 86_400_000;
/** Visits are kept as long as the longest cookie window any program can choose: a receipt older than that is invalid anyway. */
export const VISIT_RETENTION_MS = Math.max(...COOKIE_WINDOW_DAYS) * DAY;
/** A (referrer, visitor) pair is forgotten after the same time: a visitor back after it counts as unique again. */
export const VISIT_UNIQUE_RETENTION_MS = VISIT_RETENTION_MS;
/** Superseded fraud decisions are kept this long; each participant's latest decision is kept for good (it explains the current level). */
export const FRAUD_DECISION_RETENTION_MS = 400 * DAY;
/** Rows per DELETE statement: each is its own short transaction, so a large prune never holds a long lock. */
export const PRUNE_BATCH = 2000;

/** A table pruned by age: its monotonic integer key on SQLite (`rowid`, insertion order) and its time column. */
interface Target {
  table: 'visits' | 'visit_uniques' | 'fraud_decisions';
  sqliteKey: 'rowid' | 'seq';
  /** PostgreSQL: `seq` walks an integer key like SQLite; `ctid` selects by time through the BRIN index of migration 016. */
  pgKey: 'seq' | 'ctid';
  time: string;
  /** Extra condition on the row (aliased `t`). */
  also?: string;
  /**
   * SQLite: the row with the largest key stays, so the key never goes back to 1 (SQLite hands out
   * max(rowid) + 1): the impression fold's watermark is a rowid (server/domain/participant-api/impressions.ts).
   */
  keepNewest?: boolean;
}

const TARGETS: Record<'visits' | 'visitUniques' | 'fraudDecisions', Target> = {
  visits: { table: 'visits', sqliteKey: 'rowid', pgKey: 'ctid', time: 'created_at', keepNewest: true },
  visitUniques: { table: 'visit_uniques', sqliteKey: 'rowid', pgKey: 'ctid', time: 'first_at' },
  fraudDecisions: {
    table: 'fraud_decisions',
    sqliteKey: 'seq',
    pgKey: 'seq',
    time: 'created_at',
    also: 'EXISTS (SELECT 1 FROM fraud_decisions n WHERE n.participant_id = t.participant_id AND n.seq > t.seq)',
  },
};

const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes `visits`, `visit_uniques` and superseded `fraud_decisions` past their retention, in
 * batches of `PRUNE_BATCH` rows, one short statement each, yielding between them so the visit
 * group commit keeps going. No table gets an index on the hot path for this: the oldest rows are
 * found through the insertion-ordered key (SQLite `rowid`, `seq`) by binary search, or on
 * PostgreSQL through a BRIN index on the time column (a few pages, no per-row index write).
 */
export async function pruneRetained(db: Db, now: number): Promise<{ visits: number; visit_uniques: number; fraud_decisions: number }> {
  return {
    visits: await prune(db, TARGETS.visits, now - VISIT_RETENTION_MS),
    visit_uniques: await prune(db, TARGETS.visitUniques, now - VISIT_UNIQUE_RETENTION_MS),
    fraud_decisions: await prune(db, TARGETS.fraudDecisions, now - FRAUD_DECISION_RETENTION_MS),
  };
}

async function prune(db: Db, t: Target, before: number): Promise<number> {
  const key = db.dialect === 'pg' ? t.pgKey : t.sqliteKey;
  const also = t.also ? ` AND ${t.also}` : '';
  let total = 0;
  if (key === 'ctid') {
    // Old rows sit in the first block ranges of an append-only heap; the BRIN index finds them.
    const sql = `DELETE FROM ${t.table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${t.table} t WHERE t.${t.time} < ?${also} LIMIT ${PRUNE_BATCH}))`;
    for (;;) {
      const n = await run(db, sql, [before]);
      total += n;
      if (n < PRUNE_BATCH) return total;
      await yieldToOthers();
    }
  }
  const range = await boundary(db, t.table, key, t.time, before, !!t.keepNewest);
  if (!range) return 0;
  // Fixed key ranges, so rows kept inside the range (younger, or a participant's latest decision) are never scanned twice.
  const sql = `DELETE FROM ${t.table} WHERE ${key} IN (SELECT ${key} FROM ${t.table} t WHERE t.${key} >= ? AND t.${key} < ? AND t.${t.time} < ?${also})`;
  for (let from = range.from; from <= range.end; from += PRUNE_BATCH) {
    total += await run(db, sql, [from, Math.min(from + PRUNE_BATCH, range.end + 1), before]);
    await yieldToOthers();
  }
  return total;
}

/**
 * The key range to walk: from the smallest key to the largest key whose row is older than `before`,
 * found by binary search over the insertion-ordered key (about 30 indexed reads for a billion rows).
 * Times only roughly follow insertion order, so the end is approximate: the DELETE checks each
 * row's time, and a straggler past the end goes in a later run.
 */
async function boundary(db: Db, table: string, key: string, time: string, before: number, keepNewest: boolean): Promise<{ from: number; end: number } | null> {
  const bounds = await db.get<{ lo: number | string | null; hi: number | string | null }>(`SELECT min(${key}) AS lo, max(${key}) AS hi FROM ${table}`);
  if (bounds?.lo == null || bounds.hi == null) return null;
  const sql = `SELECT ${key} AS k, ${time} AS t FROM ${table} WHERE ${key} >= ? ORDER BY ${key} LIMIT 1`;
  const from = Number(bounds.lo);
  let lo = from;
  let hi = Number(bounds.hi) - (keepNewest ? 1 : 0);
  let end: number | null = null;
  while (lo <= hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const row = await db.get<{ k: number | string; t: number | string }>(sql, mid);
    if (row && Number(row.t) < before) {
      end = Number(row.k);
      lo = Math.max(mid, end) + 1;
    } else hi = mid - 1;
  }
  return end === null ? null : { from, end };
}

async function run(db: Db, sql: string, params: unknown[]): Promise<number> {
  const res: any = await db.knex.raw(sql, params as any[]);
  return db.dialect === 'pg' ? Number(res.rowCount ?? 0) : Number(res?.changes ?? 0);
}
