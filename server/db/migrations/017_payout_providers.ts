import type { Knex } from 'knex';

// Affiliate money analytics (issue #6): windowed revenue totals (AN1 `totalRevenue`, P12 series)
// read recorded sales by program or affiliate and recording time. Migration 014 indexed sales only
// by customer and referrer, so these windows would scan a program's whole sales history.

const INDEXES = [
  { name: 'affiliate_transactions_program_created', columns: 'program_id, created_at' },
  { name: 'affiliate_transactions_referrer_created', columns: 'referrer_id, created_at' },
];

/** Adds the (program, time) and (referrer, time) indexes on recorded sales. */
export async function up(knex: Knex): Promise<void> {
  for (const i of INDEXES) await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON affiliate_transactions (${i.columns})`);
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  for (const i of INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
}
