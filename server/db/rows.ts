import type { Knex } from 'knex';
import type { Db } from './connect.ts';

/** Column lists joined into INSERT text, by table and key order: call sites pass a fixed shape. */
const insertSql = new Map<string, string>();

/**
 * Inserts one row. Inside a transaction it runs as a cached prepared statement (`Db.statements`):
 * knex compiling the same INSERT on every call was a visible share of a referral trigger's CPU.
 * Outside a transaction it is plain knex, as before. `ignoreConflictOn` names a unique column whose
 * clash leaves the row out (`ON CONFLICT … DO NOTHING` on both databases).
 */
export async function insertRow(db: Db, q: Knex | Knex.Transaction, table: string, row: Record<string, unknown>, ignoreConflictOn?: string): Promise<void> {
  if ((q as Knex.Transaction).isTransaction !== true) {
    const insert = q(table).insert(row);
    await (ignoreConflictOn ? insert.onConflict(ignoreConflictOn).ignore() : insert);
    return;
  }
  const keys = Object.keys(row);
  const cacheKey = `${table}|${ignoreConflictOn ?? ''}|${keys.join(',')}`;
  let sql = insertSql.get(cacheKey);
  if (!sql) {
    sql =
      `INSERT INTO "${table}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})` +
      (ignoreConflictOn ? ` ON CONFLICT ("${ignoreConflictOn}") DO NOTHING` : '');
    insertSql.set(cacheKey, sql);
  }
  // better-sqlite3 binds no booleans; knex turned them into 0/1 the same way.
  const values = db.dialect === 'sqlite' ? keys.map((k) => (typeof row[k] === 'boolean' ? Number(row[k]) : row[k])) : keys.map((k) => row[k]);
  await (await db.statements(q as Knex.Transaction)).run(sql, values);
}
