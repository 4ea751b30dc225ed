import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { migrationSource } from './migrations.ts';

// Epoch-millisecond bigint columns come back as numbers, as on SQLite (they stay far below 2^53).
pg.types.setTypeParser(20, (v: string) => Number(v));

/** The knex handle plus which dialect it speaks. */
export interface Db {
  knex: Knex;
  dialect: 'sqlite' | 'pg';
}

/** Opens the configured database; SQLite connections get WAL, foreign keys and a busy timeout. */
export function openDb(database: Config['database'], opts: { searchPath?: string } = {}): Db {
  if (database.client === 'pg') {
    const knex = knexFactory({
      client: 'pg',
      connection: database.url,
      searchPath: opts.searchPath ? [opts.searchPath] : undefined,
      pool: { min: 0, max: 10 },
    });
    return { knex, dialect: 'pg' };
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
          conn.pragma('journal_mode = WAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          conn.pragma('synchronous = NORMAL');
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
  return { knex, dialect: 'sqlite' };
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
