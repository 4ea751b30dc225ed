import type { Knex } from 'knex';
import type { Db } from './connect.ts';
import { statementsOf } from './statements.ts';

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

/**
 * Inserts several rows of one shape (the first row's keys, in order) in one statement inside the
 * caller's transaction, as a cached prepared statement per table, shape and row count; like
 * `insertRow`, `ignoreConflictOn` leaves out rows whose unique column clashes.
 */
export async function insertRows(trx: Knex.Transaction, table: string, rows: Array<Record<string, unknown>>, ignoreConflictOn?: string): Promise<void> {
  if (!rows.length) return;
  const keys = Object.keys(rows[0]!);
  const cacheKey = `${table}|${ignoreConflictOn ?? ''}|${keys.join(',')}|${rows.length}`;
  let sql = insertSql.get(cacheKey);
  if (!sql) {
    const values = `(${keys.map(() => '?').join(', ')})`;
    sql =
      `INSERT INTO "${table}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES ${Array(rows.length).fill(values).join(', ')}` +
      (ignoreConflictOn ? ` ON CONFLICT ("${ignoreConflictOn}") DO NOTHING` : '');
    insertSql.set(cacheKey, sql);
  }
  await runSql(trx, sql, rows.flatMap((r) => keys.map((k) => r[k])));
}

/** One table's rows for `insertRowsTogether` (one shape per table, as `insertRows` takes them). */
export interface TableRows {
  table: string;
  rows: Array<Record<string, unknown>>;
  ignoreConflictOn?: string;
}

/**
 * Inserts rows into several tables inside the caller's transaction, in the order given. On
 * PostgreSQL in one statement: every table's INSERT but the last is a data-modifying WITH (a
 * foreign key of a later table finds the rows of an earlier one: constraints are checked at the
 * statement's end), a cached named statement per shape and row counts. On SQLite one `insertRows`
 * per table (no round trip to save there).
 */
export async function insertRowsTogether(trx: Knex.Transaction, inserts: TableRows[]): Promise<void> {
  const parts = inserts.filter((p) => p.rows.length);
  if ((trx.client as { dialect: string }).dialect !== 'postgresql' || parts.length < 2) {
    for (const p of parts) await insertRows(trx, p.table, p.rows, p.ignoreConflictOn);
    return;
  }
  const shapes = parts.map((p) => ({ ...p, keys: Object.keys(p.rows[0]!) }));
  const cacheKey = shapes.map((p) => `${p.table}|${p.ignoreConflictOn ?? ''}|${p.keys.join(',')}|${p.rows.length}`).join(';');
  let sql = insertSql.get(cacheKey);
  if (!sql) {
    const inserts = shapes.map((p) => {
      const values = `(${p.keys.map(() => '?').join(', ')})`;
      return (
        `INSERT INTO "${p.table}" (${p.keys.map((k) => `"${k}"`).join(', ')}) VALUES ${Array(p.rows.length).fill(values).join(', ')}` +
        (p.ignoreConflictOn ? ` ON CONFLICT ("${p.ignoreConflictOn}") DO NOTHING` : '')
      );
    });
    sql = `WITH ${inserts.slice(0, -1).map((s, i) => `i${i} AS (${s})`).join(', ')} ${inserts[inserts.length - 1]}`;
    insertSql.set(cacheKey, sql);
  }
  await runSql(trx, sql, shapes.flatMap((p) => p.rows.flatMap((r) => p.keys.map((k) => r[k]))));
}

/** SET lists of UPDATE text, by table and key order: call sites pass a fixed shape. */
const updateSql = new Map<string, string>();

/** Whether `q` is an open knex transaction. */
function inTransaction(q: Knex | Knex.Transaction): q is Knex.Transaction {
  return (q as Knex.Transaction).isTransaction === true;
}

/** better-sqlite3 binds no booleans; knex turned them into 0/1 the same way. */
function bindable(q: Knex | Knex.Transaction, values: unknown[]): unknown[] {
  return (q.client as { dialect: string }).dialect === 'postgresql' ? values : values.map((v) => (typeof v === 'boolean' ? Number(v) : v));
}

/**
 * Every row of fixed-shape SQL (`?` placeholders) as a cached prepared statement: on the caller's
 * transaction's connection (named on PostgreSQL), or outside one through `Db.all` (SQLite) or
 * knex.raw (PostgreSQL). For hot paths, where building and compiling the same query with knex
 * cost more than running it.
 */
export async function selectRows<T>(db: Db, q: Knex | Knex.Transaction, sql: string, params: unknown[]): Promise<T[]> {
  if (inTransaction(q)) return (await statementsOf(q)).all<T>(sql, bindable(q, params));
  if (db.dialect === 'sqlite') return db.all<T>(sql, ...bindable(q, params));
  return (await q.raw(sql, params as Knex.RawBinding[])).rows as T[];
}

/** `selectRows` with each row an array of its columns in SELECT order (cheaper for the driver to build than objects). */
export async function selectArrays(db: Db, q: Knex | Knex.Transaction, sql: string, params: unknown[]): Promise<unknown[][]> {
  if (inTransaction(q)) return (await statementsOf(q)).arrays(sql, bindable(q, params));
  return db.arrays(sql, ...bindable(q, params));
}

/** Like `selectRows` for SQL that returns no rows, inside a transaction; how many rows it changed. */
export async function runSql(trx: Knex.Transaction, sql: string, params: unknown[]): Promise<number> {
  return (await statementsOf(trx)).run(sql, bindable(trx, params));
}

/** Like `selectRows` for SQL that returns rows (SELECT, INSERT … RETURNING), inside a transaction. */
export async function trxRows<T>(trx: Knex.Transaction, sql: string, params: unknown[]): Promise<T[]> {
  return (await statementsOf(trx)).all<T>(sql, bindable(trx, params));
}

/**
 * Sets `patch` on the rows whose columns equal `where`, in the caller's transaction, as a cached
 * prepared statement (like `insertRow`): the UPDATE knex would build, without compiling it on
 * every call. Values are plain (no raw SQL); returns how many rows changed.
 */
export async function updateRows(trx: Knex.Transaction, table: string, where: Record<string, unknown>, patch: Record<string, unknown>): Promise<number> {
  const keys = Object.keys(patch);
  const cond = Object.keys(where);
  const cacheKey = `${table}|${keys.join(',')}|${cond.join(',')}`;
  let sql = updateSql.get(cacheKey);
  if (!sql) {
    sql = `UPDATE "${table}" SET ${keys.map((k) => `"${k}" = ?`).join(', ')} WHERE ${cond.map((k) => `"${k}" = ?`).join(' AND ')}`;
    updateSql.set(cacheKey, sql);
  }
  return runSql(trx, sql, [...keys.map((k) => patch[k]), ...cond.map((k) => where[k])]);
}

/**
 * ` FOR UPDATE` on PostgreSQL, nothing on SQLite (one writer at a time): what knex's `.forUpdate()`
 * wrote. For a row that will be deleted or get a new unique key; it waits for every foreign-key
 * insert that references the row (their FOR KEY SHARE), so take it before any of your own.
 */
export function forUpdate(q: Knex | Knex.Transaction): string {
  return (q.client as { dialect: string }).dialect === 'postgresql' ? ' FOR UPDATE' : '';
}

/**
 * ` FOR NO KEY UPDATE` on PostgreSQL, nothing on SQLite: what knex's `.forNoKeyUpdate()` writes. The
 * lock a row whose counters or other non-key columns will change needs (the lock PostgreSQL's own
 * UPDATE of such columns takes). It does not conflict with the FOR KEY SHARE that a foreign-key
 * insert takes on the row it references, so a transaction that inserted children of a row (a
 * referral, a commission) can still lock it while others do the same, where FOR UPDATE deadlocked
 * (issue #20).
 */
export function forNoKeyUpdate(q: Knex | Knex.Transaction): string {
  return (q.client as { dialect: string }).dialect === 'postgresql' ? ' FOR NO KEY UPDATE' : '';
}

/**
 * A `GROUP BY` count's rows (`state` the group's value, `n` the count as the driver returns it: a
 * number on SQLite, a string on PostgreSQL) folded into counts per state, `ALL` their sum; a group
 * whose value is not one of `zeros`' states (null, an unknown status) counts in `ALL` only. The
 * counts operations (AF16–AF18, FR2) share it.
 */
export function countsByState<S extends string>(rows: Array<{ state: string | null; n: number | string }>, zeros: Record<S, 0>): Record<S | 'ALL', number> {
  const out = { ...zeros, ALL: 0 } as Record<S | 'ALL', number>;
  for (const r of rows) {
    const n = Number(r.n);
    if (r.state !== null && r.state !== 'ALL' && Object.hasOwn(zeros, r.state)) out[r.state as S] += n;
    out.ALL += n;
  }
  return out;
}
