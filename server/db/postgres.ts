// PostgreSQL specifics: bigint columns parsed as numbers, and `?`-placeholder SQL run as cached named
// statements on one pg connection (`BatchStatements`).
import pg from 'pg';
import crypto from 'node:crypto';
import type { BatchStatements } from './statements.ts';

// Epoch-millisecond bigint columns come back as numbers, as on SQLite (they stay far below 2^53).
pg.types.setTypeParser(20, (v: string) => Number(v));

/** A pg client as knex's pool hands it out. */
export interface PgConnection {
  query(q: string | { name: string; text: string; values: unknown[]; rowMode?: 'array' }): Promise<{ rows: any[]; rowCount: number | null }>;
}

/** Cached named statements on one pg connection. */
export function pgStatements(conn: PgConnection): BatchStatements {
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

