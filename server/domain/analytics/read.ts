import type { Db } from '../../db/connect.ts';

/** Runs read SQL outside any transaction (a cached prepared statement on SQLite). */
export function rows<T>(db: Db, sql: string, bindings: unknown[]): Promise<T[]> {
  return db.all<T>(sql, ...bindings);
}

/** A boolean binding in the dialect's own form (better-sqlite3 takes no booleans). */
export function boolBinding(db: Db, v: boolean): boolean | number {
  return db.dialect === 'sqlite' ? (v ? 1 : 0) : v;
}
