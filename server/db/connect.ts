import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Config } from '../config.ts';
import { migrationSource } from './migrations.ts';

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
  /**
   * Runs `fn` in one transaction on one connection, with statements prepared once per connection and
   * SQL text (named statements on PostgreSQL): hot-path batch writes without the query builder's
   * per-call cost. SQL uses `?` placeholders on both databases and must have a fixed shape per text.
   */
  batch<T>(fn: (s: BatchStatements) => Promise<T>): Promise<T>;
  /** The same cached statements on the connection of an open knex transaction: bulk writes inside work that also uses the query builder. */
  statements(trx: Knex.Transaction): Promise<BatchStatements>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** The statements of one `Db.batch` transaction. */
export interface BatchStatements {
  /** Every row a statement returns (SELECT, or INSERT … RETURNING). */
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  /** Runs a statement that returns no rows; how many rows it changed. */
  run(sql: string, params: unknown[]): Promise<number>;
}

/** A pg client as knex's pool hands it out. */
interface PgConnection {
  query(q: string | { name: string; text: string; values: unknown[] }): Promise<{ rows: any[]; rowCount: number | null }>;
}

// wal_autocheckpoint 10000 pages (≈ 40 MB of WAL): a referral trigger writes ≈ 57 WAL frames, so
// the default 1000 checkpointed every ~17 triggers, rewriting the same hot index pages each time.
const PRAGMAS = ['journal_mode = WAL', 'foreign_keys = ON', 'busy_timeout = 5000', 'synchronous = NORMAL', 'wal_autocheckpoint = 10000'];

/** Opens the configured database; SQLite connections get WAL, foreign keys and a busy timeout. */
export function openDb(database: Config['database']): Db {
  if (database.client === 'pg') {
    const knex = knexFactory({
      client: 'pg',
      connection: database.url,
      pool: { min: 0, max: 10 },
    });
    return {
      knex,
      dialect: 'pg',
      async get<T>(sql: string, ...params: unknown[]) {
        return (await knex.raw(sql, params as Knex.RawBinding[])).rows[0] as T | undefined;
      },
      async all<T>(sql: string, ...params: unknown[]) {
        return (await knex.raw(sql, params as Knex.RawBinding[])).rows as T[];
      },
      async batch<T>(fn: (s: BatchStatements) => Promise<T>): Promise<T> {
        const client = knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
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
      },
      async statements(trx: Knex.Transaction): Promise<BatchStatements> {
        return pgStatements((await (trx.client as { acquireConnection(): Promise<PgConnection> }).acquireConnection()) as PgConnection);
      },
      close: () => knex.destroy(),
    };
  }
  if (database.filename !== ':memory:') fs.mkdirSync(path.dirname(database.filename), { recursive: true });
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
          cachePrepare(conn);
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
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
  const sqliteStatements = (conn: Database.Database): BatchStatements => ({
    all: async (sql, params) => prepared(conn, sql).all(...params) as never[],
    run: async (sql, params) => prepared(conn, sql).run(...params).changes,
  });
  const run = async <R>(sql: string, use: (st: Database.Statement) => R): Promise<R> => {
    const conn = await client.acquireConnection();
    try {
      return use(prepared(conn, sql));
    } finally {
      await client.releaseConnection(conn);
    }
  };
  return {
    knex,
    dialect: 'sqlite',
    async get<T>(sql: string, ...params: unknown[]) {
      return run(sql, (st) => st.get(...params) as T | undefined);
    },
    async all<T>(sql: string, ...params: unknown[]) {
      return run(sql, (st) => st.all(...params) as T[]);
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
    async statements(trx: Knex.Transaction): Promise<BatchStatements> {
      return sqliteStatements(await (trx.client as typeof client).acquireConnection());
    },
    close: () => knex.destroy(),
  };
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

/** Cached named statements on one pg connection. */
function pgStatements(conn: PgConnection): BatchStatements {
  return {
    all: async (sql, params) => (await conn.query({ ...pgStatement(sql), values: params })).rows,
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
