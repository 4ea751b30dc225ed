// SQLite specifics: connection pragmas, LIMIT inlining, the per-connection prepared-statement cache,
// and running cached statements (`BatchStatements` on one connection; rows read as arrays, shaped in JavaScript).
import type Database from 'better-sqlite3';
import { AUTO_CHECKPOINT_PAGES } from './checkpointer.ts';
import type { BatchStatements } from './statements.ts';
import type { SqliteSynchronous } from '../config.ts';

// wal_autocheckpoint 10000 pages (≈ 40 MB of WAL): a referral trigger writes ≈ 57 WAL frames, so
// the default 1000 checkpointed every ~17 triggers, rewriting the same hot index pages each time.
// temp_store MEMORY: a savepoint (each caller of a group commit) copies every page it first changes
// into a sub-journal, which beyond 64 KiB spilled into a temporary file (a trigger changes ≈ 50
// pages), costing write calls on every insert; in memory it is a copy. The trade-off: sorts and
// temporary b-trees (analytics GROUP BY / DISTINCT over large windows) are held in memory too.
// Under a steady write load the checkpoints move to a thread of their own (server/db/checkpointer.ts).
// cache_size 64 MiB (SQLite's default is 2 MiB): a trigger touches pages all over the participant
// and reward indexes, and every page that falls out of the cache is read again with a system call
// and a copy; the cache only grows as pages are used, so small databases pay nothing for it.
// synchronous FULL (the default; see `sqlitePragmas`): in WAL mode every COMMIT syncs the WAL before
// it returns, so an acknowledged write survives an OS crash or power cut, not only a process crash.
// The group commits (Db.grouped, the visit writer) share that one sync among their callers.
export const PRAGMAS = [
  'journal_mode = WAL',
  'foreign_keys = ON',
  'busy_timeout = 5000',
  'synchronous = FULL',
  `wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`,
  'temp_store = MEMORY',
  'cache_size = -65536',
];

/**
 * The connection pragmas with the configured `synchronous` (SQLITE_SYNCHRONOUS): FULL unless the
 * operator opted into NORMAL, where a COMMIT only appends to the WAL and the sync waits for the next
 * checkpoint (a power cut can then lose the last acknowledged writes; a process crash cannot).
 */
export function sqlitePragmas(synchronous: SqliteSynchronous = 'FULL'): string[] {
  return PRAGMAS.map((p) => (p.startsWith('synchronous') ? `synchronous = ${synchronous}` : p));
}

const LIMIT_TAIL = /\blimit \?(\s*)$/i;
/** Largest LIMIT written into SQL text: bigger ones stay bound (each distinct value is its own cached statement). */
const INLINE_LIMIT_MAX = 1000;

/** What `inlineLimit` learned about one SQL text: null when it does not end in `LIMIT ?`, else its inlined texts by limit. */
type LimitTail = { head: string; tail: string; texts: Map<number, string> } | null;
const limitTails = new Map<string, LimitTail>();
/** Distinct SQL texts `inlineLimit` remembers (dynamic IN lists make new ones); forgotten all at once beyond it. */
const LIMIT_TAILS_MAX = 5000;

/**
 * Writes a bound LIMIT at the end of a statement into its text. This SQLite build has STAT4, and a
 * statement with a bound LIMIT is re-planned on every run (measured: a primary-key read with
 * `LIMIT ?` costs ≈ 50 µs, with `LIMIT 1` ≈ 17 µs), which made every `.first()` pay a compile.
 * Only small non-negative integers are inlined, so the set of SQL texts stays small. Every
 * statement passes through here, so the answer per SQL text (and limit) is remembered rather than
 * matching the whole text again on each run.
 */
export function inlineLimit(sql: string, params: unknown[]): [string, unknown[]] {
  if (params.length === 0) return [sql, params];
  let known = limitTails.get(sql);
  if (known === undefined) {
    const m = LIMIT_TAIL.exec(sql);
    known = m ? { head: sql.slice(0, m.index + 6), tail: m[1]!, texts: new Map() } : null;
    if (limitTails.size >= LIMIT_TAILS_MAX) limitTails.clear();
    limitTails.set(sql, known);
  }
  if (!known) return [sql, params];
  const n = params[params.length - 1];
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > INLINE_LIMIT_MAX) return [sql, params];
  let text = known.texts.get(n);
  if (text === undefined) known.texts.set(n, (text = `${known.head}${n}${known.tail}`));
  return [text, params.slice(0, -1)];
}

const PATCHED = Symbol('refloop.inlineLimit');
type KnexSqliteClient = { _query(conn: Database.Database, obj: { sql: string; bindings?: unknown[] }): Promise<unknown>; [PATCHED]?: true };

/**
 * knex binds every `.first()` / `.limit(n)`; its queries get the same literal LIMIT as ours. Patched
 * on the client class because knex's transaction clients are made from the prototype, not the instance.
 */
export function patchKnexLimits(proto: KnexSqliteClient): void {
  if (proto[PATCHED]) return;
  const query = proto._query;
  proto._query = function (this: KnexSqliteClient, conn, obj) {
    if (obj.bindings) [obj.sql, obj.bindings] = inlineLimit(obj.sql, obj.bindings);
    return query.call(this, conn, obj);
  };
  proto[PATCHED] = true;
}

/** Distinct SQL texts whose prepared statements one SQLite connection keeps. */
const PREPARE_CACHE_SIZE = 2000;

/**
 * Makes `conn.prepare` reuse statements by SQL text (least recently used dropped beyond the cap).
 * knex's better-sqlite3 client prepares every query afresh, and compiling SQL was the largest single
 * cost of write transactions (≈ 15% of a referral trigger's CPU). Statements are only ever run to
 * completion (`all`/`run`/`get`), so sharing one between calls is safe; SQLite re-prepares a
 * statement itself when the schema changes under it.
 */
export function cachePrepare(conn: Database.Database): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, Database.Statement>();
  conn.prepare = ((sql: string) => {
    let st = cache.get(sql);
    if (st) {
      cache.delete(sql);
    } else {
      st = prepare(sql);
      if (cache.size >= PREPARE_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, st);
    return st;
  }) as Database.Database['prepare'];
}

/** Statements on one SQLite connection, `prepare` returning its cached statement of a SQL text. */
export function sqliteStatementsOn(prepare: (sql: string) => Database.Statement): BatchStatements {
  return {
    all: async (sql, params) => {
      [sql, params] = inlineLimit(sql, params);
      return objectRows(prepare(sql), params) as never[];
    },
    arrays: async (sql, params) => {
      [sql, params] = inlineLimit(sql, params);
      return arrayRows(prepare(sql), params);
    },
    run: async (sql, params) => {
      [sql, params] = inlineLimit(sql, params);
      return prepare(sql).run(...params).changes;
    },
  };
}

/** A statement's row maker: an object literal of its columns, compiled once per statement and column count. */
const rowMakers = new WeakMap<Database.Statement, { count: number; make: (row: unknown[]) => unknown }>();

function rowMaker(st: Database.Statement, count: number): (row: unknown[]) => unknown {
  const known = rowMakers.get(st);
  if (known?.count === count) return known.make;
  // Column names come from the schema and are quoted by JSON.stringify; a repeated name keeps its
  // last value, as the driver's own objects do. (A column named __proto__ would set the prototype
  // in a literal, so such rows are built one property at a time.)
  const names = st.columns().map((c) => c.name);
  const make = names.includes('__proto__')
    ? (row: unknown[]) => {
        const o: Record<string, unknown> = {};
        names.forEach((n, i) => Object.defineProperty(o, n, { value: row[i], enumerable: true, writable: true, configurable: true }));
        return o;
      }
    : (new Function('r', `return { ${names.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(', ')} };`) as (row: unknown[]) => unknown);
  rowMakers.set(st, { count, make });
  return make;
}

/**
 * Every row of a cached statement as objects, read as arrays and shaped in JavaScript: the driver
 * builds a wide row object several times slower than an array (participant rows have ≈ 45 columns).
 */
export function objectRows(st: Database.Statement, params: unknown[]): unknown[] {
  const rows = arrayRows(st, params);
  if (!rows.length) return rows;
  const make = rowMaker(st, rows[0]!.length);
  return rows.map(make);
}

/** The first row of a cached statement as an object (like `objectRows`), or undefined. */
export function objectRow(st: Database.Statement, params: unknown[]): unknown {
  st.raw(true);
  let row: unknown[] | undefined;
  try {
    row = st.get(...params) as unknown[] | undefined;
  } finally {
    st.raw(false);
  }
  return row === undefined ? undefined : rowMaker(st, row.length)(row);
}

/** Every row of a (shared, cached) statement as arrays, leaving it in object mode for its other users. */
export function arrayRows(st: Database.Statement, params: unknown[]): unknown[][] {
  st.raw(true);
  try {
    return st.all(...params) as unknown[][];
  } finally {
    st.raw(false);
  }
}

