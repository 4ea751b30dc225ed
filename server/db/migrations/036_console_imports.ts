import type { Knex } from 'knex';

// Moving a program in from the console (issue #33 part 5): one row per program an owner asked the
// console to import (or check), read by the progress page and the import job. The source's API key
// lives here sealed only while the job needs it (cleared when the run ends, however it ends); the
// webhook secrets the run made live here sealed until their one read by the owner who started it.

/** Creates console_imports. */
export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable('console_imports')) return;
  await knex.schema.createTable('console_imports', (t) => {
    // The source program's id, which the imported program keeps: one console import per program at a time.
    t.string('program_id', 64).primary();
    t.string('id', 32).notNullable(); // this start's id (a new one per start): the job slices' unique keys
    t.string('team_id', 32).notNullable().references('teams.id').onDelete('CASCADE');
    t.string('started_by', 64).notNullable(); // the owner's user id, or `key:<api key id>`
    t.string('source_url', 2048).notNullable();
    t.text('source_key_enc').nullable();
    t.boolean('dry_run').notNullable();
    t.string('status', 16).notNullable(); // QUEUED | RUNNING | DONE | FAILED
    t.string('name', 255).notNullable();
    t.string('type', 16).notNullable();
    t.string('stage', 24).notNullable();
    t.integer('done').notNullable();
    t.integer('total').nullable();
    t.integer('slice').notNullable();
    t.string('message', 1000).nullable();
    t.text('report').nullable(); // JSON: the dry run's counts and refusals, the real run's request count
    t.text('secrets_enc').nullable(); // sealed JSON [{ id, secret }], until read
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('finished_at').nullable();
  });
}

/** Drops console_imports. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('console_imports');
}
