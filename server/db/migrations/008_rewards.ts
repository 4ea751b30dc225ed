import type { Knex } from 'knex';

// Issued rewards (ParticipantReward, rest-v2 §2.11), delayed referral triggers (P8/P9), and the
// index the credit-window sweep reads.
//
// Every issued reward carries an `issue_key` naming the occasion it was earned for (configuration,
// recipient, and the referral, milestone count or leaderboard period); the unique index on it is
// what makes issuing idempotent: a retried trigger inserts nothing the second time.

/** Creates `participant_rewards`, `referral_triggers` and the pending-credit index. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('participant_rewards'))) {
    await knex.schema.createTable('participant_rewards', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE'); // the recipient
      t.string('reward_config_id', 40).notNullable(); // `rewardId`; configurations are soft-deleted, so it always resolves
      t.string('issue_key', 160).notNullable().unique('participant_rewards_issue_key');
      t.string('status', 16).notNullable(); // PENDING | FULFILLED
      t.boolean('approved').notNullable();
      t.bigInteger('approved_at').nullable();
      t.bigInteger('fulfilled_at').nullable();
      t.boolean('is_available').notNullable();
      t.boolean('is_referrer').notNullable();
      t.string('referrer_id', 32).nullable();
      t.string('referred_id', 32).nullable();
      t.boolean('unread').notNullable().defaultTo(true);
      t.double('amount').nullable();
      t.string('currency_iso', 3).nullable();
      t.text('commission_structure').nullable(); // affiliate programs only; JSON
      t.bigInteger('created_at').notNullable();
      // PR4 deletes softly: the issue key stays taken, so a deleted (rejected) reward is never issued again.
      t.bigInteger('deleted_at').nullable();
      t.index(['participant_id', 'created_at', 'id'], 'participant_rewards_recipient');
      // Limit windows: rewards of one configuration earned by one participant since a time.
      t.index(['reward_config_id', 'participant_id', 'created_at'], 'participant_rewards_limit');
    });
  }

  if (!(await knex.schema.hasTable('referral_triggers'))) {
    // A delayed `POST …/ref`: the job that credits it looks the row up, so cancelling is one update.
    await knex.schema.createTable('referral_triggers', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('status', 16).notNullable(); // PENDING | DONE | CANCELLED
      t.bigInteger('run_at').notNullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('resolved_at').nullable();
    });
  }
  // At most one pending delayed trigger per participant.
  await knex.raw("CREATE UNIQUE INDEX IF NOT EXISTS referral_triggers_pending ON referral_triggers (participant_id) WHERE status = 'PENDING'");
  // The credit-window sweep: a program's pending referrals, oldest first.
  await knex.raw("CREATE INDEX IF NOT EXISTS participants_credit_pending ON participants (program_id, referred_at) WHERE referral_status = 'CREDIT_PENDING'");
}

/** Drops what `up` created. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS participants_credit_pending');
  await knex.schema.dropTableIfExists('referral_triggers');
  await knex.schema.dropTableIfExists('participant_rewards');
}
