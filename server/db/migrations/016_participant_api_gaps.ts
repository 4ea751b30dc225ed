import type { Knex } from 'knex';

// Retention of the participant API's append-only tables (server/domain/platform/retention.ts). On
// PostgreSQL, BRIN indexes on the time columns of `visits` and `visit_uniques` let the hourly prune
// find old rows without a sequential scan: a BRIN index summarises whole block ranges, so an
// append-only, time-ordered table pays almost nothing per inserted row (unlike a B-tree on the
// hottest write path). SQLite needs nothing: the prune walks the tables' insertion-ordered rowid.

const BRIN = [
  { name: 'visits_created_brin', table: 'visits', column: 'created_at' },
  { name: 'visit_uniques_first_brin', table: 'visit_uniques', column: 'first_at' },
];

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  for (const i of BRIN) await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON ${i.table} USING brin (${i.column})`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  for (const i of BRIN) await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
}
