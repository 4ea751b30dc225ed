import type { Knex } from 'knex';

// Coupon and promotion codes (issue #25, docs/integrations.md "Codes"): a participant's codes,
// created in refloop and mapped to the codes that exist in the billing system.
// - billing_codes: one row per code. `code` is what the customer types, kept as written;
//   `code_key` is its lower-case form, unique per program (codes are case-insensitive). The
//   billing system's ids (a Stripe promotion code id promo_…, a Stripe coupon id, a Paddle
//   discount id dsc_…) are each unique per program, so a sale that used one names one owner.
//   Deleted with the participant (and the program).

/** Creates the table. */
export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable('billing_codes')) return;
  await knex.schema.createTable('billing_codes', (t) => {
    t.string('id', 32).primary();
    t.string('program_id', 32).notNullable().references('id').inTable('programs').onDelete('CASCADE');
    t.string('participant_id', 32).notNullable().references('id').inTable('participants').onDelete('CASCADE');
    t.string('code', 64).notNullable();
    t.string('code_key', 64).notNullable();
    t.string('stripe_promotion_code_id', 255).nullable();
    t.string('stripe_coupon_id', 255).nullable();
    t.string('paddle_discount_id', 255).nullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['program_id', 'code_key']);
    t.unique(['program_id', 'stripe_promotion_code_id']);
    t.unique(['program_id', 'stripe_coupon_id']);
    t.unique(['program_id', 'paddle_discount_id']);
    t.index(['participant_id']);
  });
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('billing_codes');
}
