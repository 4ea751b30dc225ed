import type { Knex } from 'knex';

// Affiliate enrollment (issue #6): applications (AF1–AF3), invites (AF4–AF7), payout destinations
// (P14/P15 and the participant API) with their one-time confirmation links, and tax information.
// Link tokens are stored only as SHA-256 hashes. Tax id numbers are never stored: the tax profile
// keeps the form type, residency country, VAT number and times only.

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('affiliate_applications'))) {
    await knex.schema.createTable('affiliate_applications', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.bigInteger('created_at').notNullable();
      t.string('status', 16).notNullable(); // PENDING | APPROVED | DENIED
      t.string('email', 254).nullable(); // null after the applicant's data is removed
      t.string('email_key', 254).nullable();
      t.string('first_name', 255).nullable();
      t.string('last_name', 255).nullable();
      t.string('risk_level', 8).nullable();
      t.string('participant_id', 32).nullable(); // set by approval; kept when the participant is deleted
      t.bigInteger('decided_at').nullable();
      t.bigInteger('reviewed_at').nullable();
      t.bigInteger('reapply_allowed_at').nullable();
      t.bigInteger('terms_accepted_at').nullable();
      t.string('rejection_reason', 255).nullable();
      t.string('review_note', 500).nullable(); // private, never shown
      t.bigInteger('updated_at').notNullable();
      t.text('answers').notNullable(); // JSON Answer[]
      t.index(['program_id', 'created_at', 'id'], 'affiliate_applications_list');
      t.index(['program_id', 'email_key', 'created_at'], 'affiliate_applications_email');
    });
    // One pending application per address: two concurrent submissions cannot both wait for review.
    await knex.raw(`CREATE UNIQUE INDEX IF NOT EXISTS affiliate_applications_pending ON affiliate_applications (program_id, email_key) WHERE status = 'PENDING'`);
  }
  if (!(await knex.schema.hasTable('affiliate_invites'))) {
    await knex.schema.createTable('affiliate_invites', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.bigInteger('created_at').notNullable();
      t.string('status', 16).notNullable(); // PENDING | ACCEPTED | EXPIRED | REVOKED (PENDING past expires_at reads EXPIRED)
      t.string('email', 254).notNullable();
      t.string('email_key', 254).notNullable();
      t.string('first_name', 255).nullable();
      t.string('last_name', 255).nullable();
      t.string('token_hash', 64).nullable().unique(); // SHA-256 of the current accept link's token; null once used or revoked
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('last_sent_at').notNullable();
      t.integer('send_count').notNullable().defaultTo(1);
      t.bigInteger('accepted_at').nullable();
      t.bigInteger('revoked_at').nullable();
      t.string('participant_id', 32).nullable();
      t.index(['program_id', 'created_at', 'id'], 'affiliate_invites_list');
    });
    // One active invite per address (rest-v2 §3.12 AF5): a concurrent duplicate fails here.
    await knex.raw(`CREATE UNIQUE INDEX IF NOT EXISTS affiliate_invites_active ON affiliate_invites (program_id, email_key) WHERE status = 'PENDING'`);
  }
  if (!(await knex.schema.hasTable('payout_destinations'))) {
    await knex.schema.createTable('payout_destinations', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('provider', 16).notNullable(); // PAYPAL | VENMO | WISECOM
      t.string('account', 254).notNullable(); // the confirmed payout email address
      t.string('country', 2).nullable(); // ISO 3166-1 alpha-2
      t.string('status', 24).notNullable(); // CONFIRMED | ACTIVE | NEEDS_REPAIR (rest-v2 §4)
      t.string('legal_entity_type', 16).nullable(); // INDIVIDUAL | BUSINESS
      t.string('legal_name', 255).nullable();
      t.string('needs_repair_reason', 255).nullable();
      t.bigInteger('confirmed_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.unique(['program_id', 'participant_id'], { indexName: 'payout_destinations_current' });
    });
  }
  if (!(await knex.schema.hasTable('payout_confirmations'))) {
    await knex.schema.createTable('payout_confirmations', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('provider', 16).notNullable();
      t.string('token_hash', 64).notNullable().unique();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('used_at').nullable();
      t.index(['participant_id', 'provider', 'created_at'], 'payout_confirmations_participant');
    });
  }
  if (!(await knex.schema.hasTable('tax_profiles'))) {
    await knex.schema.createTable('tax_profiles', (t) => {
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('status', 24).notNullable(); // NOT_STARTED | SESSION_STARTED | SUBMITTED
      t.string('form_type', 4).nullable(); // W9 | W8
      t.string('residency_country', 2).nullable();
      t.string('vat_number', 32).nullable();
      t.string('legal_name', 255).nullable();
      t.bigInteger('submitted_at').nullable();
      t.string('session_hash', 64).nullable(); // SHA-256 of the open hosted-page session's nonce
      t.bigInteger('session_expires_at').nullable();
      t.bigInteger('updated_at').notNullable();
      t.primary(['program_id', 'participant_id']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('tax_profiles');
  await knex.schema.dropTableIfExists('payout_confirmations');
  await knex.schema.dropTableIfExists('payout_destinations');
  await knex.schema.dropTableIfExists('affiliate_invites');
  await knex.schema.dropTableIfExists('affiliate_applications');
}
