import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
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
  /** Closes every connection. */
  close(): Promise<void>;
}

const PRAGMAS = ['journal_mode = WAL', 'foreign_keys = ON', 'busy_timeout = 5000', 'synchronous = NORMAL'];

/** Opens the configured database; SQLite connections get WAL, foreign keys and a busy timeout. */
export function openDb(database: Config['database'], opts: { searchPath?: string } = {}): Db {
  if (database.client === 'pg') {
    const knex = knexFactory({
      client: 'pg',
      connection: database.url,
      searchPath: opts.searchPath ? [opts.searchPath] : undefined,
      pool: { min: 0, max: 10 },
    });
    return {
      knex,
      dialect: 'pg',
      async get<T>(sql: string, ...params: unknown[]) {
        return (await knex.raw(sql, params as Knex.RawBinding[])).rows[0] as T | undefined;
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
      afterCreate(conn: { pragma(s: string): unknown }, done: (err: Error | null, c: unknown) => void) {
        try {
          for (const p of PRAGMAS) conn.pragma(p);
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
  const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();
  const client = knex.client as { acquireConnection(): Promise<Database.Database>; releaseConnection(c: Database.Database): Promise<void> };
  return {
    knex,
    dialect: 'sqlite',
    async get<T>(sql: string, ...params: unknown[]) {
      const conn = await client.acquireConnection();
      try {
        let statements = cache.get(conn);
        if (!statements) cache.set(conn, (statements = new Map()));
        let st = statements.get(sql);
        if (!st) statements.set(sql, (st = conn.prepare(sql)));
        return st.get(...params) as T | undefined;
      } finally {
        await client.releaseConnection(conn);
      }
    },
    close: () => knex.destroy(),
  };
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
