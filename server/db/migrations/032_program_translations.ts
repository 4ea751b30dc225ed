import type { Knex } from 'knex';

// An owner's own texts per program language (issue #27, `GET/PATCH /campaign/{id}/translations`):
// one row per program and additional language, holding only the overrides set, as JSON text like
// the program row's documents (`design`, `emails`: trees shaped like those documents). Kept out of
// the `programs` row, which issue #26 found large enough already. A language removed from the
// program's options keeps its row (not served; adding the language back brings its texts back);
// deleted with the program.

/** Creates the table. */
export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable('program_translations')) return;
  await knex.schema.createTable('program_translations', (t) => {
    t.string('program_id', 32).notNullable().references('id').inTable('programs').onDelete('CASCADE');
    t.string('language', 16).notNullable();
    t.text('design').notNullable();
    t.text('emails').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['program_id', 'language']);
  });
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('program_translations');
}
