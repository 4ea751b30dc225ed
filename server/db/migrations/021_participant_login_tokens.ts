import type { Knex } from 'knex';

// One-time email sign-in for returning participants (POST /mobile/v2/participant/login-link):
// the sha256 of each link's token, never the token itself, with its participant, program, expiry
// and use. The hourly maintenance prune deletes expired rows through the expiry index.

/** Creates `participant_login_tokens`. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('participant_login_tokens'))) {
    await knex.schema.createTable('participant_login_tokens', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('token_hash', 64).notNullable().unique();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('used_at').nullable();
      t.index(['expires_at'], 'participant_login_tokens_expires');
      t.index(['participant_id'], 'participant_login_tokens_participant');
    });
  }
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('participant_login_tokens');
}
