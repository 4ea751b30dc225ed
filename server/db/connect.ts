import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Config } from '../config.ts';
import { migrationSource } from './migrations.ts';
import { BackgroundCheckpointer, AUTO_CHECKPOINT_PAGES, type CheckpointerOptions } from './checkpointer.ts';
import { retryTransactions, runRetrying, type RetryLog } from './retry.ts';

// Epoch-millisecond bigint columns come back as numbers, as on SQLite (they stay far below 2^53).
pg.types.setTypeParser(20, (v: string) => Number(v));

/** The knex handle plus which dialect it speaks; on SQLite also a raw connection for hot-path prepared statements. */
export interface Db {
  knex: Knex;
  dialect: 'sqlite' | 'pg';
  /**
   * SQLite only: runs one cached prepared statement on knex's own connection (knex's query builder
   * costs several times a prepared statement). Taking the connection from knex's pool keeps it
   * serialised with transactions, so it never waits on a lock held by its own process.
   */
  get<T>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  /** Like `get`, returning every row (read-heavy list paths: leaderboards, participant pages). Never inside a transaction. */
  all<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Like `all` (on PostgreSQL too), each row an array of its columns in SELECT order. */
  arrays(sql: string, ...params: unknown[]): Promise<unknown[][]>;
  /**
   * Runs `fn` in one transaction on one connection, with statements prepared once per connection and
   * SQL text (named statements on PostgreSQL): hot-path batch writes without the query builder's
   * per-call cost. SQL uses `?` placeholders on both databases and must have a fixed shape per text.
   * On PostgreSQL a deadlock or serialization failure runs `fn` again in a new transaction (`retry.ts`).
   */
  batch<T>(fn: (s: BatchStatements) => Promise<T>): Promise<T>;
  /** The same cached statements on the connection of an open knex transaction: bulk writes inside work that also uses the query builder. */
  statements(trx: Knex.Transaction): Promise<BatchStatements>;
  /**
   * Runs `fn` in a transaction. On SQLite, callers that arrive while one is running share the next
   * transaction (group commit): each runs in its own savepoint, so a failure undoes only its own
   * work, and every caller's promise settles after the shared COMMIT. On PostgreSQL, whose
   * processes and connections commit in parallel, an ordinary transaction. On SQLite the callers
   * of one group share the transaction object: `fn` must not commit or roll it back itself, nor
   * leave queries running when it settles (its savepoint ends then). On PostgreSQL, as for every
   * `knex.transaction(fn)`, a deadlock or serialization failure runs `fn` again (`retry.ts`).
   */
  grouped<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /** SQLite files only: the thread that takes WAL checkpoints off the request thread under load (null otherwise). */
  checkpointer: BackgroundCheckpointer | null;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** The statements of one `Db.batch` transaction. */
export interface BatchStatements {
  /** Every row a statement returns (SELECT, or INSERT … RETURNING). */
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  /**
   * Like `all`, each row an array of its columns in SELECT order: turning a wide row into an object
   * costs the driver several times more than into an array (long reward lists).
   */
  arrays(sql: string, params: unknown[]): Promise<unknown[][]>;
  /** Runs a statement that returns no rows; how many rows it changed. */
  run(sql: string, params: unknown[]): Promise<number>;
}

/** A pg client as knex's pool hands it out. */
interface PgConnection {
  query(q: string | { name: string; text: string; values: unknown[]; rowMode?: 'array' }): Promise<{ rows: any[]; rowCount: number | null }>;
}

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
const PRAGMAS = [
  'journal_mode = WAL',
  'foreign_keys = ON',
  'busy_timeout = 5000',
  'synchronous = NORMAL',
  `wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`,
  'temp_store = MEMORY',
  'cache_size = -65536',
];

export interface OpenDbOptions {
  /** SQLite files: when and how checkpoints move off the request thread; `false` keeps SQLite's automatic checkpoints. */
  checkpointer?: CheckpointerOptions | false;
  /** PostgreSQL: where transactions run again after a deadlock or serialization failure are reported. */
  log?: RetryLog;
}

/** Opens the configured database; SQLite connections get WAL, foreign keys and a busy timeout. */
export function openDb(database: Config['database'], opts: OpenDbOptions = {}): Db {
  if (database.client === 'pg') {
    const knex = knexFactory({
      client: 'pg',
      connection: database.url,
      pool: { min: 0, max: 10 },
    });
    // Deadlock victims and serialization failures run again, whole (server/db/retry.ts); `grouped`
    // and every domain service's `knex.transaction(fn)` go through this one patched method.
    retryTransactions(knex, () => opts.log);
    return {
      knex,
      dialect: 'pg',
      async get<T>(sql: string, ...params: unknown[]) {
        return (await knex.raw(sql, params as Knex.RawBinding[])).rows[0] as T | undefined;
      },
      async all<T>(sql: string, ...params: unknown[]) {
        return (await knex.raw(sql, params as Knex.RawBinding[])).rows as T[];
      },
      async arrays(sql: string, ...params: unknown[]) {
        return (await knex.raw(sql, params as Knex.RawBinding[]).options({ rowMode: 'array' })).rows as unknown[][];
      },
      async batch<T>(fn: (s: BatchStatements) => Promise<T>): Promise<T> {
        const client = knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
        return runRetrying(async () => {
          const conn = await client.acquireConnection();
          let done = false;
          try {
            await conn.query('BEGIN');
            const out = await fn(pgStatements(conn));
            await conn.query('COMMIT');
            done = true;
            return out;
          } finally {
            if (!done) await conn.query('ROLLBACK').catch(() => undefined);
            await client.releaseConnection(conn);
          }
        }, () => opts.log);
      },
      grouped: (fn) => knex.transaction(fn),
      statements: statementsOf,
      checkpointer: null,
      close: () => knex.destroy(),
    };
  }
  if (database.filename !== ':memory:') fs.mkdirSync(path.dirname(database.filename), { recursive: true });
  let checkpointer: BackgroundCheckpointer | null = null;
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: database.filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: Database.Database, done: (err: Error | null, c: unknown) => void) {
        try {
          for (const p of PRAGMAS) conn.pragma(p);
          checkpointer?.configure(conn);
          cachePrepare(conn);
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
  patchKnexLimits(Object.getPrototypeOf(knex.client));
  const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();
  const client = knex.client as { acquireConnection(): Promise<Database.Database>; releaseConnection(c: Database.Database): Promise<void> };
  // Statements are prepared once per connection and SQL text; only fixed SQL shapes reach here.
  const prepared = (conn: Database.Database, sql: string): Database.Statement => {
    let statements = cache.get(conn);
    if (!statements) cache.set(conn, (statements = new Map()));
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = conn.prepare(sql)));
    return st;
  };
  if (database.filename !== ':memory:' && opts.checkpointer !== false) {
    checkpointer = new BackgroundCheckpointer(
      database.filename,
      () => client.acquireConnection(),
      (conn) => client.releaseConnection(conn),
      opts.checkpointer || {},
    );
  }
  const sqliteStatements = (conn: Database.Database): BatchStatements => sqliteStatementsOn((sql) => prepared(conn, sql));
  const run = async <R>(sql: string, params: unknown[], use: (st: Database.Statement, params: unknown[]) => R): Promise<R> => {
    const conn = await client.acquireConnection();
    try {
      [sql, params] = inlineLimit(sql, params);
      return use(prepared(conn, sql), params);
    } finally {
      await client.releaseConnection(conn);
    }
  };
  return {
    knex,
    dialect: 'sqlite',
    async get<T>(sql: string, ...params: unknown[]) {
      return run(sql, params, objectRow) as Promise<T | undefined>;
    },
    async all<T>(sql: string, ...params: unknown[]) {
      return run(sql, params, objectRows) as Promise<T[]>;
    },
    async arrays(sql: string, ...params: unknown[]) {
      return run(sql, params, arrayRows);
    },
    async batch<T>(fn: (s: BatchStatements) => Promise<T>): Promise<T> {
      // The pool holds one connection, so nothing else runs between BEGIN and COMMIT.
      const conn = await client.acquireConnection();
      try {
        prepared(conn, 'BEGIN IMMEDIATE').run();
        try {
          const out = await fn(sqliteStatements(conn));
          prepared(conn, 'COMMIT').run();
          return out;
        } catch (err) {
          if (conn.inTransaction) prepared(conn, 'ROLLBACK').run();
          throw err;
        }
      } finally {
        await client.releaseConnection(conn);
      }
    },
    grouped: groupCommit(knex),
    statements: statementsOf,
    checkpointer,
    async close() {
      await checkpointer?.close();
      await knex.destroy();
    },
  };
}

/** The shared transactions of the SQLite group commit (see `groupCommit` and `GroupCache`). */
const groupTransactions = new WeakSet<object>();
/** Forgets what every `GroupCache` holds for a group transaction whose caller's savepoint was rolled back. */
const groupCacheResets: Array<(trx: object) => void> = [];

/**
 * Values that only the group commit's own statements change, kept for the life of one shared SQLite
 * transaction (nothing else writes while it runs): its callers read a value once and the writer
 * that changes it updates the cached copy in place (`peek`). A caller whose savepoint is rolled
 * back may have changed cached values, so every entry of that transaction is then forgotten. Other
 * transactions (PostgreSQL, plain knex transactions) get no cache: `of` answers null.
 */
export class GroupCache<V> {
  readonly #entries = new WeakMap<object, Map<string, V>>();

  constructor() {
    groupCacheResets.push((trx) => this.#entries.delete(trx));
  }

  /** The entries of `trx` when it is a group-commit transaction, else null (read afresh). */
  of(trx: object): Map<string, V> | null {
    if (!groupTransactions.has(trx)) return null;
    let entries = this.#entries.get(trx);
    if (!entries) this.#entries.set(trx, (entries = new Map()));
    return entries;
  }

  /** The entries `trx` holds already, for the writer that must keep them current. */
  peek(trx: object): Map<string, V> | undefined {
    return this.#entries.get(trx);
  }
}

/** Most callers one shared transaction takes: bounds how long the first of them waits for COMMIT. */
const GROUP_MAX = 64;

interface GroupedCall {
  fn(trx: Knex.Transaction): Promise<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/**
 * SQLite group commit. One process writes through one connection, so concurrent write transactions
 * run one after another anyway; what each pays alone is its COMMIT (≈ 0.6 ms to append a referral
 * trigger's ≈ 57 WAL frames, many of them the same index pages as its neighbours'). Callers queue
 * while a transaction runs; the next one takes them all, each in a savepoint.
 */
function groupCommit(knex: Knex): <T>(fn: (trx: Knex.Transaction) => Promise<T>) => Promise<T> {
  const queue: GroupedCall[] = [];
  let running = false;
  const runBatch = async (): Promise<void> => {
    let batch: GroupedCall[] = [];
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      await knex.transaction(async (trx) => {
        groupTransactions.add(trx);
        // Taken once the connection is ours: callers that queued while it was busy join this transaction.
        batch = queue.splice(0, GROUP_MAX);
        if (batch.length === 1) {
          // Alone: no savepoint; a failure rolls the transaction back and rejects below.
          outcomes.push({ ok: true, value: await batch[0]!.fn(trx) });
          return;
        }
        // Plain SAVEPOINT statements on the shared transaction: a knex nested transaction cost
        // ≈ 100 µs of JavaScript per caller. Callers therefore share one transaction object (and
        // the per-transaction read caches keyed by it, which stay valid: nothing outside this
        // transaction writes while it runs), and must not leave queries running once they settle.
        const conn = (await (trx.client as { acquireConnection(): Promise<Database.Database> }).acquireConnection()) as Database.Database;
        for (const call of batch) {
          conn.prepare('SAVEPOINT grouped_call').run();
          let value: unknown;
          try {
            value = await call.fn(trx);
          } catch (err) {
            // SQLite may have ended the whole transaction (a full disk, say): then the group fails.
            if (!conn.inTransaction) throw err;
            conn.prepare('ROLLBACK TO grouped_call').run();
            conn.prepare('RELEASE grouped_call').run();
            for (const reset of groupCacheResets) reset(trx);
            outcomes.push({ ok: false, value: err });
            continue;
          }
          conn.prepare('RELEASE grouped_call').run();
          outcomes.push({ ok: true, value });
        }
      });
    } catch (err) {
      // Rolled back or the shared COMMIT failed: nobody's work landed.
      for (const call of batch) call.reject(err);
      return;
    }
    batch.forEach((call, i) => (outcomes[i]!.ok ? call.resolve(outcomes[i]!.value) : call.reject(outcomes[i]!.value)));
  };
  const drain = async (): Promise<void> => {
    try {
      while (queue.length) await runBatch();
    } finally {
      running = false;
    }
  };
  return <T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      // better-sqlite3 answers synchronously, so a request runs to its end in microtasks and the next
      // one is not even parsed until it does: yield to the event loop once, so requests that are
      // already waiting reach this queue and share the transaction.
      if (!running) {
        running = true;
        setImmediate(drain);
      }
    });
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
function patchKnexLimits(proto: KnexSqliteClient): void {
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
function cachePrepare(conn: Database.Database): void {
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

/**
 * `Db.statements` knowing only the transaction (the score ledger has no `Db`): its connection's
 * statements, prepared once per SQL text (`cachePrepare` on SQLite, named statements on PostgreSQL).
 */
export async function statementsOf(trx: Knex.Transaction): Promise<BatchStatements> {
  const client = trx.client as { dialect: string; acquireConnection(): Promise<object> };
  const conn = await client.acquireConnection();
  let statements = statementsByConnection.get(conn);
  if (!statements) {
    const db = conn as Database.Database;
    statements = client.dialect === 'postgresql' ? pgStatements(conn as PgConnection) : sqliteStatementsOn((sql) => db.prepare(sql));
    statementsByConnection.set(conn, statements);
  }
  return statements;
}

/** `statementsOf`'s answer per connection (they hold nothing but the connection). */
const statementsByConnection = new WeakMap<object, BatchStatements>();

/** Statements on one SQLite connection, `prepare` returning its cached statement of a SQL text. */
function sqliteStatementsOn(prepare: (sql: string) => Database.Statement): BatchStatements {
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
function objectRows(st: Database.Statement, params: unknown[]): unknown[] {
  const rows = arrayRows(st, params);
  if (!rows.length) return rows;
  const make = rowMaker(st, rows[0]!.length);
  return rows.map(make);
}

/** The first row of a cached statement as an object (like `objectRows`), or undefined. */
function objectRow(st: Database.Statement, params: unknown[]): unknown {
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
function arrayRows(st: Database.Statement, params: unknown[]): unknown[][] {
  st.raw(true);
  try {
    return st.all(...params) as unknown[][];
  } finally {
    st.raw(false);
  }
}

/** Cached named statements on one pg connection. */
function pgStatements(conn: PgConnection): BatchStatements {
  return {
    all: async (sql, params) => (await conn.query({ ...pgStatement(sql), values: params })).rows,
    arrays: async (sql, params) => (await conn.query({ ...pgStatement(sql), values: params, rowMode: 'array' })).rows,
    run: async (sql, params) => (await conn.query({ ...pgStatement(sql), values: params })).rowCount ?? 0,
  };
}

const pgNamed = new Map<string, { name: string; text: string }>();

/** A `?`-placeholder statement as a named PostgreSQL statement (`$n` placeholders), so each connection plans it once. */
function pgStatement(sql: string): { name: string; text: string } {
  let s = pgNamed.get(sql);
  if (!s) {
    let i = 0;
    const text = sql.replace(/\?/g, () => `$${++i}`);
    s = { name: `rf_${crypto.createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text };
    pgNamed.set(sql, s);
  }
  return s;
}

/** Applies pending migrations; safe to run twice and from several processes at once. */
export async function migrate(db: Db): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db.knex.migrate.latest({ migrationSource });
      return;
    } catch (err) {
      // Another process holds knex's migration lock; wait for it to finish.
      if (attempt < 50 && /already locked/i.test(String((err as Error).message))) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      throw err;
    }
  }
}
