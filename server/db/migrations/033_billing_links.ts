import type { Knex } from 'knex';

// Billing integrations, second part (issue #25):
// - billing_invoice_payments: which payment paid which invoice, from Stripe's invoice_payment.paid
//   events (or the invoice_payments API). Since Stripe's 2025-03-31 (basil) API versions an invoice
//   no longer names its payment intent or charge, and a charge no longer names its invoice: this is
//   how a refund of a charge finds the invoice, and so the sale, it belongs to. One row per invoice
//   payment (inpay_…); kept with the connection.
// - billing_sale_codes: the code (billing_codes) that attributed a recorded sale, for the commissions
//   export. The code's text is kept, so the row still says it after the code is deleted.

/** Creates the tables. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('billing_invoice_payments'))) {
    await knex.schema.createTable('billing_invoice_payments', (t) => {
      t.string('connection_id', 32).notNullable().references('id').inTable('billing_connections').onDelete('CASCADE');
      t.string('invoice_payment_ref', 255).notNullable();
      t.string('invoice_ref', 255).notNullable();
      t.string('payment_intent_ref', 255).nullable();
      t.string('charge_ref', 255).nullable();
      t.bigInteger('created_at').notNullable();
      t.primary(['connection_id', 'invoice_payment_ref']);
      t.index(['connection_id', 'invoice_ref']);
      t.index(['connection_id', 'payment_intent_ref']);
      t.index(['connection_id', 'charge_ref']);
    });
  }
  if (!(await knex.schema.hasTable('billing_sale_codes'))) {
    await knex.schema.createTable('billing_sale_codes', (t) => {
      t.string('transaction_id', 32).primary().references('id').inTable('affiliate_transactions').onDelete('CASCADE');
      t.string('program_id', 32).notNullable();
      t.string('code_id', 32).nullable();
      t.string('code', 64).notNullable();
      t.bigInteger('created_at').notNullable();
    });
  }
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('billing_sale_codes');
  await knex.schema.dropTableIfExists('billing_invoice_payments');
}
