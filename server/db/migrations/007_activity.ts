import type { Knex } from 'knex';

// One row per thing that happened to a participant (visit, share, invite, referral, reward, email,
// fraud decision, skipped email …): the source of activity logs and of computed analytics.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('activity_logs', (t) => {
    t.increments('seq').primary(); // insertion order breaks ties between equal timestamps
    t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
    t.string('participant_id', 32).nullable().references('participants.id').onDelete('CASCADE');
    t.string('type', 16).notNullable(); // REFERRAL | SHARE | REWARD | EMAIL | COMMON | VISIT | INVITE | FRAUD
    t.string('action', 48).notNullable(); // machine-readable kind, e.g. referral.credited
    t.string('text', 1000).notNullable();
    t.text('data').nullable(); // JSON details
    t.bigInteger('created_at').notNullable();
    t.index(['participant_id', 'created_at']);
    t.index(['program_id', 'action', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('activity_logs');
}
