import type { Knex } from 'knex';

// Moving a program in (issue #33): one row per imported program, with the stage it reached and the
// source cursor inside that stage, written in the same transaction as the rows of each page, so a
// run killed at any moment resumes where it stopped and nothing is written twice; and the records
// the import refused, by their source id, with the reason.

/** Creates import_runs and import_refusals. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('import_runs'))) {
    await knex.schema.createTable('import_runs', (t) => {
      t.string('id', 32).primary();
      t.string('team_id', 32).notNullable().references('teams.id').onDelete('CASCADE');
      // The imported program keeps the source's id (share links `/r/{id}` and script tags keep working).
      t.string('program_id', 64).notNullable().unique();
      t.string('source_url', 2048).notNullable();
      t.string('source_kind', 16).notNullable(); // GROWSURF
      t.string('status', 16).notNullable(); // RUNNING | DONE
      t.string('mode', 16).notNullable().defaultTo('FULL'); // FULL | CATCH_UP (`--since`: what changed after a finished run)
      t.string('stage', 24).notNullable();
      t.boolean('with_activity').notNullable().defaultTo(false); // `--activity`: each participant's activity log too (one request each)
      t.text('cursor').nullable();
      t.text('counts').notNullable(); // JSON: created/skipped/refused per record kind
      t.bigInteger('started_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.bigInteger('finished_at').nullable();
    });
  }
  if (!(await knex.schema.hasTable('import_refusals'))) {
    await knex.schema.createTable('import_refusals', (t) => {
      t.string('run_id', 32).notNullable().references('import_runs.id').onDelete('CASCADE');
      t.string('kind', 24).notNullable();
      t.string('source_id', 255).notNullable();
      t.string('reason', 1000).notNullable();
      t.bigInteger('created_at').notNullable();
      t.primary(['run_id', 'kind', 'source_id']);
    });
  }
}

/** Drops both tables. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('import_refusals');
  await knex.schema.dropTableIfExists('import_runs');
}
