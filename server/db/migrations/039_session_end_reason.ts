import type { Knex } from 'knex';

// Sessions rotate on privilege change (issue #35): when the team's Owner changes a member's role or
// "Manage API" (TM8), every session of that member ends at once. The row stays, expired, with why
// it ended, so that browser's next request is told "your role changed: sign in again" rather than
// a bare "signed out"; the hourly prune of expired sessions removes it.

/** Adds `sessions.ended_reason`. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn('sessions', 'ended_reason'))) {
    await knex.schema.alterTable('sessions', (t) => t.string('ended_reason', 32).nullable());
  }
}

/** Drops it again. */
export async function down(knex: Knex): Promise<void> {
  if (await knex.schema.hasColumn('sessions', 'ended_reason')) await knex.schema.alterTable('sessions', (t) => t.dropColumn('ended_reason'));
}
