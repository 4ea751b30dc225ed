// The database handle: the `Db` interface, `openDb` (SQLite or PostgreSQL through knex) and `migrate`.
// Group commit, SQLite and PostgreSQL specifics and cached statements live beside it in server/db/.
import knexFactory, { type Knex } from 'knex';
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import { migrationSource } from './migrations.ts';
import { BackgroundCheckpointer, type CheckpointerOptions } from './checkpointer.ts';
import { retryTransactions, runRetrying, type RetryLog } from './retry.ts';
import { groupCommit } from './group-commit.ts';
import { WalSync } from './wal-sync.ts';
import { sqlitePragmas, arrayRows, cachePrepare, inlineLimit, objectRow, objectRows, patchKnexLimits, sqliteStatementsOn } from './sqlite.ts';
import { pgStatements, type PgConnection } from './postgres.ts';
import { statementsOf, type BatchStatements } from './statements.ts';
import { ambient, routeIntoAmbient } from './ambient.ts';

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
   * On SQLite with `synchronous` FULL the promise settles once the commit is on disk, as everywhere,
   * but the WAL's sync runs on the thread pool rather than blocking the request thread (`wal-sync.ts`).
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

/** What `openDb` reads of knex's (tarn) pool to find its one SQLite connection idle. */
interface TarnPool {
  free: Array<{ resource: Database.Database }>;
  numUsed(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

export interface OpenDbOptions {
  /** SQLite files: when and how checkpoints move off the request thread; `false` keeps SQLite's automatic checkpoints. */
  checkpointer?: CheckpointerOptions | false;
  /** PostgreSQL: where transactions run again after a deadlock or serialization failure are reported. */
  log?: RetryLog;
}

/** Opens the configured database; SQLite connections get WAL, foreign keys, a busy timeout and `synchronous` FULL unless configured NORMAL. */
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
    // Inside a request transaction (server/db/ambient.ts) statements and transactions join it.
    routeIntoAmbient(knex);
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
        const a = ambient();
        if (a) return inSavepoint((sql) => (a.conn as PgConnection).query(sql), () => fn(pgStatements(a.conn as PgConnection)));
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
  const synchronous = database.synchronous ?? 'FULL';
  const pragmas = sqlitePragmas(synchronous);
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: database.filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: Database.Database, done: (err: Error | null, c: unknown) => void) {
        try {
          for (const p of pragmas) conn.pragma(p);
          // The audit chain's hash, computed in its one INSERT (server/domain/platform/audit.ts).
          conn.function('audit_sha256', { deterministic: true }, (text: unknown) => createHash('sha256').update(String(text)).digest('hex'));
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
  // Inside a request transaction (server/db/ambient.ts) statements and transactions join it.
  routeIntoAmbient(knex);
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
      { synchronous, ...(opts.checkpointer || {}) },
    );
  }
  const sqliteStatements = (conn: Database.Database): BatchStatements => sqliteStatementsOn((sql) => prepared(conn, sql));
  // `batch` with synchronous FULL on a file: the WAL is synced on the thread pool, not in its COMMIT (wal-sync.ts).
  const walSync = synchronous === 'FULL' && database.filename !== ':memory:' ? new WalSync(database.filename) : null;
  // The pool's one connection while nobody holds or waits for it: a statement outside a transaction
  // runs on it at once (better-sqlite3 is synchronous, so nothing can take it in between), without
  // the pool's acquire and release, two promise hops and a timer per statement on every read.
  const pool = (): TarnPool | undefined => (knex.client as { pool?: TarnPool }).pool;
  const idleConnection = (): Database.Database | null => {
    const p = pool();
    if (!p || p.free.length !== 1 || p.numUsed() !== 0 || p.numPendingAcquires() !== 0 || p.numPendingCreates() !== 0) return null;
    return p.free[0]!.resource;
  };
  const run = async <R>(sql: string, params: unknown[], use: (st: Database.Statement, params: unknown[]) => R): Promise<R> => {
    const idle = idleConnection();
    if (idle) {
      [sql, params] = inlineLimit(sql, params);
      return use(prepared(idle, sql), params);
    }
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
      const a = ambient();
      if (a) {
        const conn = a.conn as Database.Database;
        return inSavepoint(async (sql) => void prepared(conn, sql).run(), () => fn(sqliteStatements(conn)));
      }
      // The pool holds one connection, so nothing else runs between BEGIN and COMMIT.
      const conn = await client.acquireConnection();
      let out: T;
      try {
        // synchronous FULL: this transaction's COMMIT appends without the sync, which runs off the
        // request thread below. SQLite takes the setting only outside a transaction; nobody else
        // uses the connection until it is set back.
        if (walSync) prepared(conn, 'PRAGMA synchronous = NORMAL').run();
        prepared(conn, 'BEGIN IMMEDIATE').run();
        try {
          out = await fn(sqliteStatements(conn));
          prepared(conn, 'COMMIT').run();
        } catch (err) {
          if (conn.inTransaction) prepared(conn, 'ROLLBACK').run();
          throw err;
        }
      } finally {
        try {
          if (walSync && !conn.inTransaction) prepared(conn, 'PRAGMA synchronous = FULL').run();
        } finally {
          await client.releaseConnection(conn);
        }
      }
      // Answered only once the WAL holding this commit is on disk, as FULL's own sync would have it.
      if (walSync) await walSync.sync();
      return out;
    },
    grouped: groupedOutsideAmbient(knex, groupCommit(knex)),
    statements: statementsOf,
    checkpointer,
    async close() {
      await checkpointer?.close();
      await knex.destroy();
      await walSync?.close();
    },
  };
}

/** `Db.batch` inside a request transaction: the batch is a savepoint of it (no BEGIN, COMMIT or sync of its own). */
async function inSavepoint<T>(exec: (sql: string) => Promise<unknown>, fn: () => Promise<T>): Promise<T> {
  await exec('SAVEPOINT db_batch');
  try {
    const out = await fn();
    await exec('RELEASE db_batch');
    return out;
  } catch (err) {
    await exec('ROLLBACK TO db_batch').then(() => exec('RELEASE db_batch')).catch(() => undefined);
    throw err;
  }
}

/** SQLite's group commit, except inside a request transaction, where the work is a savepoint of it (never shared with other callers). */
function groupedOutsideAmbient(knex: Knex, group: <T>(fn: (trx: Knex.Transaction) => Promise<T>) => Promise<T>): <T>(fn: (trx: Knex.Transaction) => Promise<T>) => Promise<T> {
  return (fn) => (ambient() ? knex.transaction(fn) : group(fn));
}

/** Applies pending migrations; safe to run twice and from several processes at once. */
export async function migrate(db: Db): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db.knex.migrate.latest({ migrationSource });
      return;
    } catch (err) {
      // Another process holds knex's migration lock; wait for it to finish. On a fresh PostgreSQL
      // database, processes that start together also race to create knex's own two tables (a
      // duplicate type or table error): the loser waits and tries again, finding them made.
      const e = err as Error & { code?: string };
      const raced = (e.code === '23505' || e.code === '42P07') && /knex_migrations/.test(String(e.message));
      if (attempt < 50 && (raced || /already locked/i.test(String(e.message)))) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      throw err;
    }
  }
}
