import type { Knex } from 'knex';

// Billing integrations (issue #25): a program's connection to its billing system and the log of
// the events that system sent.
// - billing_connections: one per (program, provider). The webhook signing secret and the optional
//   restricted API key are sealed (server/crypto.ts Sealer), never stored in the clear; state is
//   ACTIVE or DISCONNECTED (a disconnected row keeps its id, so reconnecting keeps the endpoint URL).
// - billing_events: one row per provider event id and connection (the idempotency key), with what
//   was done (outcome, reason, participant, transaction) and how many times it was delivered;
//   `pending` holds the facts of a refund that arrived before its sale (no payload is stored).
//   Pruned 30 days after it was received (server/domain/platform/maintenance.ts).
// - billing_customers: the billing system's customer id → the participant a sale was attributed
//   to, so renewals (which carry no referral) follow the first sale.
// - billing_subscriptions: subscriptions whose end was received, so later invoices are not credited.

/** Creates the four tables. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('billing_connections'))) {
    await knex.schema.createTable('billing_connections', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('id').inTable('programs').onDelete('CASCADE');
      t.string('provider', 16).notNullable();
      t.string('state', 16).notNullable();
      t.text('webhook_secret_sealed').nullable();
      t.text('api_key_sealed').nullable();
      t.string('api_key_hint', 16).nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.bigInteger('last_event_at').nullable();
      t.unique(['program_id', 'provider']);
    });
  }
  if (!(await knex.schema.hasTable('billing_events'))) {
    await knex.schema.createTable('billing_events', (t) => {
      t.string('id', 32).primary();
      t.string('connection_id', 32).notNullable().references('id').inTable('billing_connections').onDelete('CASCADE');
      t.string('provider_event_id', 255).notNullable();
      t.string('type', 100).notNullable();
      t.string('outcome', 16).notNullable();
      t.string('reason', 500).nullable();
      t.string('participant_id', 32).nullable();
      t.string('transaction_id', 32).nullable();
      t.boolean('livemode').notNullable().defaultTo(false);
      t.bigInteger('event_created_at').nullable();
      t.integer('deliveries').notNullable().defaultTo(1);
      t.text('pending').nullable();
      t.bigInteger('received_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.unique(['connection_id', 'provider_event_id']);
      t.index(['connection_id', 'received_at']);
      t.index(['received_at']);
    });
  }
  if (!(await knex.schema.hasTable('billing_customers'))) {
    await knex.schema.createTable('billing_customers', (t) => {
      t.string('connection_id', 32).notNullable().references('id').inTable('billing_connections').onDelete('CASCADE');
      t.string('customer_ref', 255).notNullable();
      t.string('participant_id', 32).notNullable();
      t.bigInteger('created_at').notNullable();
      t.primary(['connection_id', 'customer_ref']);
    });
  }
  if (!(await knex.schema.hasTable('billing_subscriptions'))) {
    await knex.schema.createTable('billing_subscriptions', (t) => {
      t.string('connection_id', 32).notNullable().references('id').inTable('billing_connections').onDelete('CASCADE');
      t.string('subscription_ref', 255).notNullable();
      t.bigInteger('ended_at').notNullable();
      t.bigInteger('created_at').notNullable();
      t.primary(['connection_id', 'subscription_ref']);
    });
  }
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('billing_subscriptions');
  await knex.schema.dropTableIfExists('billing_customers');
  await knex.schema.dropTableIfExists('billing_events');
  await knex.schema.dropTableIfExists('billing_connections');
}
