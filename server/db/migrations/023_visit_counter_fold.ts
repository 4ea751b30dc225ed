import type { Knex } from 'knex';

// Issue #20: impression counters are folded from the visits table behind a durable watermark, so a
// crash between a visit's commit and the counter write loses nothing (server/domain/participant-api/impressions.ts).
// `visits` gains the two traits the VISIT activity row needs that were only held in memory (country,
// device). The watermark is a position in commit order: SQLite's rowid (one writer at a time, so
// rowid order is commit order), and on PostgreSQL the inserting transaction's 64-bit id
// (`pg_current_xact_id()`), read back only below a cut taken while no visit write is open (an
// advisory lock), so a visit still being committed is never skipped. Its index is appended at the
// right edge, like the time-ordered key's.

/** Adds `visits.country`, `visits.device` (and `visits.txid` on PostgreSQL) and the `counter_watermarks` table. */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  if (!(await knex.schema.hasColumn('visits', 'country'))) {
    await knex.schema.alterTable('visits', (t) => {
      t.string('country', 8).nullable();
      t.string('device', 16).nullable();
    });
  }
  if (pg && !(await knex.schema.hasColumn('visits', 'txid'))) {
    // Rows written before this migration keep NULL: the old in-memory flush counted them.
    await knex.raw('ALTER TABLE visits ADD COLUMN txid xid8');
    await knex.raw('ALTER TABLE visits ALTER COLUMN txid SET DEFAULT pg_current_xact_id()');
    await knex.raw('CREATE INDEX IF NOT EXISTS visits_txid ON visits (txid)');
  }
  if (!(await knex.schema.hasTable('counter_watermarks'))) {
    await knex.schema.createTable('counter_watermarks', (t) => {
      t.string('name', 64).primary();
      // SQLite: the last folded rowid; PostgreSQL: every transaction id below it is folded.
      t.string('position', 32).notNullable();
      t.bigInteger('updated_at').notNullable();
    });
    const position = pg
      ? (await knex.raw('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS p')).rows[0].p
      : String((await knex('visits').max({ p: knex.raw('rowid') }))[0]?.p ?? 0);
    await knex('counter_watermarks').insert({ name: 'impressions', position, updated_at: Date.now() });
  }
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('counter_watermarks');
  if (await knex.schema.hasColumn('visits', 'txid')) await knex.raw('ALTER TABLE visits DROP COLUMN txid');
  if (await knex.schema.hasColumn('visits', 'country')) {
    await knex.schema.alterTable('visits', (t) => {
      t.dropColumn('country');
      t.dropColumn('device');
    });
  }
}
