import type { Knex } from 'knex';

// Indexes the analytics queries range-scan (server/domain/analytics/analytics.ts): every windowed total is a
// COUNT over one program's rows between two instants, so each source gets (program, time) order.
// The referral-status indexes are partial, so a participant sits in at most one of them and
// participants nobody referred sit in none. Statuses are literals in the queries that use them
// (a bound parameter would not match a partial index's condition on SQLite).

const INDEXES: Array<{ name: string; table: string; columns: string; where?: string }> = [
  { name: 'activity_logs_program_type_time', table: 'activity_logs', columns: 'program_id, type, created_at' },
  { name: 'participants_credited', table: 'participants', columns: 'program_id, credited_at', where: "referral_status = 'CREDIT_AWARDED'" },
  // Same definition as 008's; IF NOT EXISTS makes it a no-op there.
  { name: 'participants_credit_pending', table: 'participants', columns: 'program_id, referred_at', where: "referral_status = 'CREDIT_PENDING'" },
  { name: 'participants_credit_expired', table: 'participants', columns: 'program_id, referred_at', where: "referral_status = 'CREDIT_EXPIRED'" },
  { name: 'participant_rewards_program_time', table: 'participant_rewards', columns: 'program_id, created_at' },
  { name: 'invites_program_time', table: 'invites', columns: 'program_id, created_at' },
];

export async function up(knex: Knex): Promise<void> {
  for (const i of INDEXES) {
    if (!(await knex.schema.hasTable(i.table))) continue;
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON ${i.table} (${i.columns})${i.where ? ` WHERE ${i.where}` : ''}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const i of INDEXES) {
    if (i.name === 'participants_credit_pending') continue; // 008's
    await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
  }
}
