import type { Knex } from 'knex';

// A new program's starter rewards (rest-v2 §3.2: hidden placeholders) are flagged until the owner
// edits them (issue #24): the REST reward shows `isStarter: true` and the widget window says the
// program's reward is not switched on yet, so early referrals do not silently earn nothing.
// - is_starter: set when the program's creation made the row, cleared by any PATCH of it; a clone
//   copies it with the row.
// Rows made before this migration are starters when they still look as created: hidden, the
// placeholder title the starters carry, never updated.

/** Adds the column and flags the untouched starters already made. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reward_configs', (t) => {
    t.boolean('is_starter').notNullable().defaultTo(false);
  });
  await knex('reward_configs')
    .where({ is_visible: false })
    .whereNull('deleted_at')
    .where('title', 'like', '%(placeholder)')
    .whereRaw('updated_at = created_at')
    .update({ is_starter: true });
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reward_configs', (t) => {
    t.dropColumn('is_starter');
  });
}
