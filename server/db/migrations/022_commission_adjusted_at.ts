import type { Knex } from 'knex';

// When a refund (or its cancellation) last changed a commission's amount. The team digest's
// COMMISSION_ADJUSTED reads this instead of `updated_at`, which approvals and payouts also move, so
// an adjusted commission is announced once per change, not again whenever it is touched later.

/** Adds `commissions.adjusted_at` (back-filled from `updated_at` for commissions already adjusted) and its window index. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn('commissions', 'adjusted_at'))) {
    await knex.schema.alterTable('commissions', (t) => {
      t.bigInteger('adjusted_at').nullable();
    });
    await knex('commissions').whereRaw('amount <> original_amount').update({ adjusted_at: knex.ref('updated_at') });
  }
  await knex.raw('CREATE INDEX IF NOT EXISTS commissions_program_adjusted ON commissions (program_id, adjusted_at) WHERE adjusted_at IS NOT NULL');
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS commissions_program_adjusted');
  if (await knex.schema.hasColumn('commissions', 'adjusted_at')) {
    await knex.schema.alterTable('commissions', (t) => {
      t.dropColumn('adjusted_at');
    });
  }
}
