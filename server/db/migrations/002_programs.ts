import type { Knex } from 'knex';

// Programs (campaigns) and their four configuration documents, stored as JSON text validated by the
// shared zod schemas on every write, so the engines can read them typed.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('programs', (t) => {
    t.string('id', 32).primary();
    t.string('team_id', 32).notNullable().references('teams.id').onDelete('CASCADE');
    t.string('type', 16).notNullable(); // REFERRAL | AFFILIATE
    t.string('name', 255).notNullable();
    t.string('status', 16).notNullable(); // DRAFT | IN_PROGRESS | COMPLETE | DELETED
    t.string('currency_iso', 3).notNullable();
    t.string('goal', 32).nullable();
    t.string('company_name', 255).nullable();
    t.string('company_logo_image_url', 2048).nullable();
    t.text('design').notNullable();
    t.text('emails').notNullable();
    t.text('options').notNullable();
    t.text('installation').notNullable();
    t.integer('referral_count').notNullable().defaultTo(0);
    t.integer('participant_count').notNullable().defaultTo(0);
    t.integer('impression_count').notNullable().defaultTo(0);
    t.integer('invite_count').notNullable().defaultTo(0);
    t.integer('winner_count').notNullable().defaultTo(0);
    t.string('cloned_from', 32).nullable();
    t.bigInteger('launched_at').nullable();
    t.bigInteger('ended_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['team_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('programs');
}
