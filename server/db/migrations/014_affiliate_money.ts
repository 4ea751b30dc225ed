import type { Knex } from 'knex';

// Affiliate money (issue #6): recorded sales (AF8) with their de-duplication keys and refund
// history (AF9), commissions (AF10–AF13), negative/positive adjustments of commissions already paid,
// payouts (AF14/AF15 and the payout run), and the participants' unread counters.
//
// Every amount is integer minor units next to its ISO currency. A commission keeps its amount in the
// sale currency and the program-currency amount the payouts add up; `original_amount` is what the
// sale earned before refunds, so a cancelled refund restores it exactly.

/** Creates the affiliate-money tables and the unread counters on `participants`. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('affiliate_transactions'))) {
    await knex.schema.createTable('affiliate_transactions', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('customer_id', 32).notNullable().references('participants.id').onDelete('CASCADE'); // the path's participant
      t.string('referrer_id', 32).nullable(); // the affiliate credited, when any
      t.string('currency_iso', 3).notNullable();
      t.bigInteger('gross_amount').notNullable();
      t.bigInteger('commissionable_amount').notNullable(); // netAmount, else gross − tax
      t.bigInteger('gross_amount_in_campaign_currency').notNullable();
      t.double('exchange_rate').nullable();
      t.bigInteger('exchange_rate_at').nullable();
      t.bigInteger('paid_at').notNullable();
      t.bigInteger('amount_refunded').notNullable().defaultTo(0); // cumulative
      t.string('amendment_type', 16).nullable(); // last REFUND | CHARGEBACK
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.text('details').notNullable(); // JSON: the request's amounts, ids, provider and description as sent
      t.index(['customer_id', 'referrer_id', 'paid_at'], 'affiliate_transactions_customer');
      t.index(['referrer_id', 'customer_id'], 'affiliate_transactions_referrer');
    });
  }
  if (!(await knex.schema.hasTable('transaction_keys'))) {
    // One row per identifier a sale was recorded with: the unique key is what makes AF8 idempotent.
    await knex.schema.createTable('transaction_keys', (t) => {
      t.string('program_id', 32).notNullable();
      t.string('kind', 24).notNullable(); // externalId | transactionId | orderId | …
      t.string('value', 255).notNullable();
      t.string('transaction_id', 32).notNullable().references('affiliate_transactions.id').onDelete('CASCADE');
      t.primary(['program_id', 'kind', 'value']);
      t.index(['transaction_id']);
    });
  }
  if (!(await knex.schema.hasTable('transaction_refunds'))) {
    await knex.schema.createTable('transaction_refunds', (t) => {
      t.string('transaction_id', 32).notNullable().references('affiliate_transactions.id').onDelete('CASCADE');
      t.string('refund_id', 255).notNullable();
      t.bigInteger('amount').notNullable();
      t.string('status', 16).notNullable(); // ACTIVE | CANCELED
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.primary(['transaction_id', 'refund_id']);
    });
  }
  if (!(await knex.schema.hasTable('payouts'))) {
    await knex.schema.createTable('payouts', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('status', 16).notNullable(); // UPCOMING | QUEUED | ISSUED | FAILED | REVERSED
      t.string('currency_iso', 3).notNullable();
      t.bigInteger('amount').notNullable();
      t.string('campaign_currency_iso', 3).notNullable();
      t.bigInteger('amount_in_campaign_currency').notNullable();
      t.string('provider', 32).nullable();
      t.string('account', 255).nullable();
      t.string('country', 2).nullable();
      t.text('commission_ids').notNullable(); // JSON array: what it paid, kept after a failure releases them
      t.bigInteger('created_at').notNullable();
      t.bigInteger('queued_at').nullable();
      t.bigInteger('issued_at').nullable();
      t.bigInteger('failed_at').nullable();
      t.bigInteger('reversed_at').nullable();
      t.bigInteger('updated_at').notNullable();
      t.index(['program_id', 'created_at', 'id'], 'payouts_program_created');
      t.index(['participant_id', 'created_at', 'id'], 'payouts_participant_created');
    });
  }
  if (!(await knex.schema.hasTable('commissions'))) {
    await knex.schema.createTable('commissions', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('transaction_id', 32).nullable().references('affiliate_transactions.id').onDelete('CASCADE'); // null for LEAD
      t.string('reward_config_id', 40).notNullable();
      t.string('referrer_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('referred_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('event', 8).notNullable(); // LEAD | SALE
      t.string('status', 16).notNullable(); // PENDING | APPROVED | PAID | REVERSED | DELETED
      t.string('pre_refund_status', 16).nullable(); // status to restore when a full refund is cancelled
      t.string('currency_iso', 3).notNullable();
      t.bigInteger('amount').notNullable(); // what it earns now (after refunds)
      t.bigInteger('original_amount').notNullable(); // what the sale earned
      t.bigInteger('sale_amount').nullable();
      t.string('campaign_currency_iso', 3).notNullable();
      t.bigInteger('amount_in_campaign_currency').notNullable();
      t.bigInteger('sale_amount_in_campaign_currency').nullable();
      t.double('exchange_rate').nullable();
      t.bigInteger('exchange_rate_at').nullable();
      t.integer('hold_duration').notNullable();
      t.bigInteger('auto_approve_at').nullable(); // null: waits for AF12
      t.string('payout_id', 32).nullable().references('payouts.id').onDelete('SET NULL');
      t.bigInteger('paid_amount').nullable(); // amount included in its payout (what is paid when it is ISSUED)
      t.bigInteger('approved_at').nullable();
      t.bigInteger('payout_queued_at').nullable();
      t.bigInteger('paid_at').nullable();
      t.bigInteger('reversed_at').nullable();
      t.string('provider', 32).nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.index(['program_id', 'created_at', 'id'], 'commissions_program_created');
      t.index(['referrer_id', 'created_at', 'id'], 'commissions_referrer_created');
      t.index(['transaction_id'], 'commissions_transaction');
      t.index(['payout_id'], 'commissions_payout');
      t.index(['referrer_id', 'referred_id', 'reward_config_id'], 'commissions_customer');
    });
    // The auto-approval sweep reads only commissions still waiting.
    await knex.raw("CREATE INDEX IF NOT EXISTS commissions_auto_approve ON commissions (program_id, auto_approve_at) WHERE status = 'PENDING' AND auto_approve_at IS NOT NULL");
  }
  if (!(await knex.schema.hasTable('commission_adjustments'))) {
    // Changes to commissions already paid out (refunds, their cancellation): carried into the next payout.
    await knex.schema.createTable('commission_adjustments', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('commission_id', 32).notNullable().references('commissions.id').onDelete('CASCADE');
      t.string('referrer_id', 32).notNullable();
      t.string('currency_iso', 3).notNullable();
      t.bigInteger('amount').notNullable(); // signed
      t.bigInteger('amount_in_campaign_currency').notNullable(); // signed
      t.string('payout_id', 32).nullable().references('payouts.id').onDelete('SET NULL');
      t.bigInteger('created_at').notNullable();
      t.index(['referrer_id', 'payout_id'], 'commission_adjustments_referrer');
      t.index(['commission_id'], 'commission_adjustments_commission');
    });
  }
  for (const column of ['unread_commissions_count', 'unread_payouts_count']) {
    if (!(await knex.schema.hasColumn('participants', column))) {
      await knex.schema.alterTable('participants', (t) => {
        t.integer(column).notNullable().defaultTo(0);
      });
    }
  }
}

/** Drops what `up` created. */
export async function down(knex: Knex): Promise<void> {
  for (const column of ['unread_commissions_count', 'unread_payouts_count']) {
    if (await knex.schema.hasColumn('participants', column)) {
      await knex.schema.alterTable('participants', (t) => {
        t.dropColumn(column);
      });
    }
  }
  await knex.schema.dropTableIfExists('commission_adjustments');
  await knex.schema.dropTableIfExists('commissions');
  await knex.schema.dropTableIfExists('payouts');
  await knex.schema.dropTableIfExists('transaction_refunds');
  await knex.schema.dropTableIfExists('transaction_keys');
  await knex.schema.dropTableIfExists('affiliate_transactions');
}
