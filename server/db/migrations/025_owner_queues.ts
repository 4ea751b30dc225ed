import type { Knex } from 'knex';

// The owner console's queues (issue #23), both refloop extensions:
// - PR5, a program's issued rewards by state, newest first: `participant_rewards_queue` serves the
//   three states as equalities on (approved, status), `participant_rewards_program_list` serves ALL.
//   Deleted (rejected) rewards are left out of both.
// - FR1, the fraud review: participants flagged above LOW or decided by the owner, a tiny share of a
//   large program. The condition is repeated word for word by the query (server/domain/referral/
//   fraud-review.ts REVIEW_PREDICATE): SQLite uses a partial index only when the query's WHERE
//   contains the index's condition as a term.

const INDEXES: Array<{ name: string; table: string; columns: string; where: string }> = [
  { name: 'participant_rewards_queue', table: 'participant_rewards', columns: 'program_id, approved, status, created_at, id', where: 'deleted_at IS NULL' },
  { name: 'participant_rewards_program_list', table: 'participant_rewards', columns: 'program_id, created_at, id', where: 'deleted_at IS NULL' },
  { name: 'participants_fraud_review', table: 'participants', columns: 'program_id, created_at, id', where: "(fraud_risk_level <> 'LOW' OR fraud_reason_code = 'MANUAL_UPDATE')" },
];

/** Creates the queue indexes. */
export async function up(knex: Knex): Promise<void> {
  for (const i of INDEXES) await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON ${i.table} (${i.columns}) WHERE ${i.where}`);
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  for (const i of INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
}
