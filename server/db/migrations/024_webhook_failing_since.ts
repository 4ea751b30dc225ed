import type { Knex } from 'knex';

// Issue #20: a webhook switches itself off only after failing for hours (server/domain/messaging/webhooks.ts,
// AUTO_DISABLE_FAILING_FOR_MS). `failing_since` is when its current streak of failed attempts began,
// or when the webhook was last changed during one (a change starts the clock again); NULL while the
// last attempt succeeded.

/** Adds `webhooks.failing_since` (epoch ms, nullable). */
export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasColumn('webhooks', 'failing_since')) return;
  await knex.schema.alterTable('webhooks', (t) => {
    t.bigInteger('failing_since').nullable();
  });
  // A streak under way keeps the start the previous release kept in `updated_at`.
  await knex('webhooks').where('failure_count', '>', 0).update({ failing_since: knex.ref('updated_at') });
}

/** Drops the column. */
export async function down(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn('webhooks', 'failing_since'))) return;
  await knex.schema.alterTable('webhooks', (t) => {
    t.dropColumn('failing_since');
  });
}
