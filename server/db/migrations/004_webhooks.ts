import type { Knex } from 'knex';

// Webhooks per program, the events they were sent, one delivery per (event, webhook) and every
// attempt of every delivery. A webhook's id is unique within its program only (`primary`).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
    t.string('id', 32).notNullable();
    t.string('payload_url', 2048).nullable();
    t.text('events').notNullable(); // JSON array of event names
    t.boolean('is_enabled').notNullable().defaultTo(true);
    t.boolean('auto_disabled').notNullable().defaultTo(false);
    t.integer('failure_count').notNullable().defaultTo(0); // consecutive failed attempts
    t.bigInteger('last_failure_at').nullable();
    t.text('secret_enc').nullable(); // sealed: signing needs the plain secret back
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['program_id', 'id']);
  });
  await knex.schema.createTable('webhook_events', (t) => {
    t.string('id', 32).primary();
    t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
    t.string('event', 64).notNullable();
    t.text('payload').notNullable(); // the exact envelope JSON that is sent
    t.boolean('is_test').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.index(['program_id', 'created_at']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.increments('seq'); // primary key; newest-first cursor order
    t.string('id', 32).notNullable().unique();
    t.string('program_id', 32).notNullable();
    t.string('webhook_id', 32).notNullable();
    t.string('event_id', 32).notNullable().references('webhook_events.id').onDelete('CASCADE');
    t.string('event', 64).notNullable();
    t.string('status', 16).notNullable(); // PENDING | SUCCEEDED | FAILED | SKIPPED
    t.boolean('is_test').notNullable().defaultTo(false);
    t.string('replay_of', 32).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').nullable();
    t.bigInteger('completed_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.foreign(['program_id', 'webhook_id']).references(['program_id', 'id']).inTable('webhooks').onDelete('CASCADE');
    t.index(['program_id', 'webhook_id', 'seq']);
    t.index(['program_id', 'webhook_id', 'status']);
  });
  await knex.schema.createTable('webhook_delivery_attempts', (t) => {
    t.increments('seq');
    t.string('delivery_id', 32).notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.bigInteger('started_at').notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status_code').nullable();
    t.text('response_body').nullable(); // first 1 KiB
    t.text('error').nullable();
    t.boolean('success').notNullable();
    t.index(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_delivery_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_events');
  await knex.schema.dropTableIfExists('webhooks');
}
