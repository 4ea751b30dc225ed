import type { Knex } from 'knex';

// Team notification emails (options.notificationEmails): one cursor per program for the digest
// sweep (server/domain/messaging/team-notifications.ts), the periods whose reports and reminders went out,
// and the indexes its window queries need on tables that grow with traffic.

const INDEXES = [
  // COMMISSION_ADJUSTED: commissions of one program changed in the window. (Rewards, participants,
  // applications and payouts already have a (program_id, created_at) index; payouts are few.)
  { name: 'commissions_program_updated', table: 'commissions', columns: 'program_id, updated_at' },
];

/** Creates the per-program notification state and the window indexes. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('team_notification_state'))) {
    await knex.schema.createTable('team_notification_state', (t) => {
      t.string('program_id', 32).primary().references('programs.id').onDelete('CASCADE');
      t.bigInteger('cursor_at').notNullable(); // events up to this time (inclusive) have been looked at
      t.string('weekly_sent_for', 10).nullable(); // ISO week start (YYYY-MM-DD) of the last weekly report
      t.string('monthly_sent_for', 7).nullable(); // YYYY-MM of the last monthly report
      t.string('payout_reminder_sent_for', 7).nullable(); // YYYY-MM of the last payout reminder
      t.bigInteger('updated_at').notNullable();
    });
  }
  for (const i of INDEXES) await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON ${i.table} (${i.columns})`);
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  for (const i of INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
  await knex.schema.dropTableIfExists('team_notification_state');
}
