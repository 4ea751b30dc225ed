import type { Knex } from 'knex';

// Ranks are SUMs over a range of `leaderboard_scores` buckets (server/domain/participants/leaderboard.ts), read
// several times by every serialized participant, and their `n` changes on every credit. As an
// ordinary SQLite table each bucket of the range cost an index step plus a lookup of its row by
// rowid; keyed by its primary key alone (WITHOUT ROWID) the range is one ordered walk of one b-tree,
// and a bucket update writes one b-tree instead of two. SQLite only: PostgreSQL reads the same
// range from its primary-key index and keeps its heap table.

const TABLE = 'leaderboard_scores';
const CREATE = (name: string) =>
  `CREATE TABLE "${name}" ("program_id" varchar(32) NOT NULL REFERENCES "programs" ("id") ON DELETE CASCADE, "board" varchar(32) NOT NULL, ` +
  `"score" bigint NOT NULL, "n" integer NOT NULL, PRIMARY KEY ("program_id", "board", "score"))`;

/** Whether the SQLite table is already keyed by its primary key alone. */
async function withoutRowid(knex: Knex): Promise<boolean> {
  const rows: Array<{ sql: string }> = await knex.raw("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [TABLE]);
  return /WITHOUT ROWID\s*$/i.test(rows[0]?.sql ?? '');
}

/** Rebuilds the table under `suffix` (WITHOUT ROWID or not), copying every bucket. */
async function rebuild(knex: Knex, suffix: string): Promise<void> {
  await knex.raw(`${CREATE(`${TABLE}_new`)}${suffix}`);
  await knex.raw(`INSERT INTO "${TABLE}_new" ("program_id", "board", "score", "n") SELECT "program_id", "board", "score", "n" FROM "${TABLE}"`);
  await knex.raw(`DROP TABLE "${TABLE}"`);
  await knex.raw(`ALTER TABLE "${TABLE}_new" RENAME TO "${TABLE}"`);
}

/** On SQLite, rebuilds `leaderboard_scores` WITHOUT ROWID (safe to run twice); nothing on PostgreSQL. */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg' || (await withoutRowid(knex))) return;
  await rebuild(knex, ' WITHOUT ROWID');
}

/** Back to an ordinary rowid table on SQLite. */
export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg' || !(await withoutRowid(knex))) return;
  await rebuild(knex, '');
}
