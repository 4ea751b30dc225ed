import type { Knex } from 'knex';

// The participant API (/mobile/v2): per-program secrets (participant-token signing key, participant
// auth secret, both sealed) and visits. A visit row is written once per (program, client visit id)
// by the group commit in server/domain/participant-api/visits.ts and answers every retry of that id; the
// first-visit columns are fixed when the row is written, so a retry gets the same receipts.
// `visits` is an append log with one index, its key: every further index is a random-position
// write on the hottest path (measured: the key alone costs ~25 µs a row with random ids, ~5 µs with
// time-ordered ones). Per-referrer traffic is read from the VISIT activity rows the counter flush
// writes. `visitor_key` is a keyed hash of the client instance id (never the id itself, even
// without GDPR mode). `visit_uniques` holds one row per (referrer, visitor): the unique-impression
// test, written by the once-a-second flush.

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('program_secrets'))) {
    await knex.schema.createTable('program_secrets', (t) => {
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('name', 32).notNullable(); // participant_token | participant_auth
      t.text('value_enc').notNullable(); // sealed (deps.sealer)
      t.bigInteger('created_at').notNullable();
      t.primary(['program_id', 'name']);
    });
  }
  if (!(await knex.schema.hasTable('visits'))) {
    await knex.schema.createTable('visits', (t) => {
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('visit_id', 64).notNullable();
      t.string('visitor_key', 32).notNullable();
      t.bigInteger('created_at').notNullable();
      t.string('referrer_id', 32).nullable(); // the participant whose link was visited
      t.string('first_referrer_id', 32).nullable(); // the earliest referred visit within the cookie window the client showed a receipt for
      t.bigInteger('first_visit_at').nullable();
      t.string('referral_code', 64).nullable();
      t.string('click_id', 128).nullable();
      t.string('provider', 16).nullable();
      t.text('utm').nullable(); // JSON of the allowlisted UTM values
      t.string('destination', 2048).nullable(); // origin + path
      t.string('referrer_url', 2048).nullable(); // origin + path
      t.primary(['program_id', 'visit_id']);
    });
  }
  if (!(await knex.schema.hasTable('visit_uniques'))) {
    await knex.schema.createTable('visit_uniques', (t) => {
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('referrer_id', 32).notNullable();
      t.string('visitor_key', 32).notNullable();
      t.bigInteger('first_at').notNullable();
      t.primary(['program_id', 'referrer_id', 'visitor_key']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('visit_uniques');
  await knex.schema.dropTableIfExists('visits');
  await knex.schema.dropTableIfExists('program_secrets');
}
