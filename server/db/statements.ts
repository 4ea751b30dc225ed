// Cached-statement access on either database: the `BatchStatements` interface of `Db.batch` and
// `Db.statements`, and `statementsOf`, which finds them from a knex transaction alone.
import type { Knex } from 'knex';
import type Database from 'better-sqlite3';
import { sqliteStatementsOn } from './sqlite.ts';
import { pgStatements, type PgConnection } from './postgres.ts';

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

