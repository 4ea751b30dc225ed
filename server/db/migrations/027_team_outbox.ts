import type { Knex } from 'knex';

// The console's Outbox page (issue #23, a refloop extension: GET /team/outbox) pages one team's mail
// newest first by insertion order: (team_id, seq) serves the filter, the order and the cursor.

/** Creates the index. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS mail_outbox_team_seq ON mail_outbox (team_id, seq)');
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS mail_outbox_team_seq');
}
