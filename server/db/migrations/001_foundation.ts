import type { Knex } from 'knex';

// Foundation: teams, users, memberships, API keys, owner sessions and one-time tokens,
// the mail outbox, durable jobs, idempotency records and instance secrets.
// Times are epoch milliseconds in bigint columns; ids are opaque strings.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('teams', (t) => {
    t.string('id', 32).primary();
    t.string('name', 255).notNullable();
    t.string('verification_status', 16).notNullable().defaultTo('NOT_REQUESTED');
    t.bigInteger('verification_requested_at').nullable();
    t.boolean('disabled').notNullable().defaultTo(false);
    t.boolean('owner_email_verified').notNullable().defaultTo(false); // denormalised for the auth hot path
    t.string('plan', 32).notNullable().defaultTo('TRIAL');
    t.boolean('has_payment_method').notNullable().defaultTo(false);
    t.bigInteger('trial_ends_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
  await knex.schema.createTable('users', (t) => {
    t.string('id', 32).primary();
    t.string('email', 254).notNullable().unique();
    t.string('first_name', 255).nullable();
    t.string('last_name', 255).nullable();
    t.string('company', 255).nullable();
    t.string('password_hash', 255).nullable();
    t.bigInteger('email_verified_at').nullable();
    t.bigInteger('first_signed_in_at').nullable();
    t.bigInteger('terms_accepted_at').nullable();
    t.string('terms_version', 32).nullable();
    t.string('terms_ip', 64).nullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('memberships', (t) => {
    t.string('team_id', 32).notNullable().references('teams.id').onDelete('CASCADE');
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.string('role', 16).notNullable(); // OWNER | ADMIN | MEMBER
    t.boolean('manage_api').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.primary(['team_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 32).primary();
    t.string('team_id', 32).notNullable().references('teams.id').onDelete('CASCADE');
    t.string('prefix', 16).notNullable().unique();
    t.string('hash', 64).notNullable().unique();
    t.text('scopes').notNullable(); // JSON array of scope names
    t.text('program_ids').nullable(); // JSON array, null = every program
    t.string('origin', 24).notNullable(); // ACCOUNT_CREATION | DASHBOARD | ROTATION | SIGN_IN | CLI
    t.string('label', 255).nullable();
    t.string('created_by_user_id', 32).nullable().references('users.id').onDelete('SET NULL');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.string('revoked_reason', 16).nullable(); // REVOKED | ROTATED | REPLACED
    t.string('replaced_by', 32).nullable();
    t.index(['team_id']);
  });
  await knex.schema.createTable('owner_tokens', (t) => {
    t.string('hash', 64).primary();
    t.string('purpose', 24).notNullable(); // VERIFY_EMAIL | SET_PASSWORD | TEAM_INVITE
    t.string('user_id', 32).nullable().references('users.id').onDelete('CASCADE');
    t.string('team_id', 32).nullable().references('teams.id').onDelete('CASCADE');
    t.string('email', 254).nullable();
    t.text('data').nullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('sessions', (t) => {
    t.string('hash', 64).primary();
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.string('team_id', 32).nullable().references('teams.id').onDelete('SET NULL');
    t.string('csrf', 64).notNullable();
    t.text('flash').nullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('mail_outbox', (t) => {
    t.increments('seq').primary(); // insertion order, for "newest first" when clocks tie
    t.string('id', 32).notNullable().unique();
    t.string('to', 254).notNullable();
    t.string('from', 320).notNullable();
    t.string('subject', 998).notNullable();
    t.text('text').notNullable();
    t.text('html').nullable();
    t.text('links').notNullable(); // JSON array of every link in the message
    t.string('kind', 48).notNullable();
    t.string('team_id', 32).nullable();
    t.string('status', 16).notNullable(); // OUTBOX | SENT | FAILED
    t.string('transport', 16).notNullable(); // outbox | smtp
    t.text('error').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('sent_at').nullable();
    t.index(['to']);
    t.index(['created_at']);
  });
  await knex.schema.createTable('jobs', (t) => {
    t.string('id', 32).primary();
    t.string('type', 64).notNullable();
    t.text('payload').notNullable();
    t.string('unique_key', 191).nullable().unique();
    t.string('status', 16).notNullable(); // QUEUED | RUNNING | DONE | FAILED
    t.bigInteger('run_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(10);
    t.string('locked_by', 64).nullable();
    t.bigInteger('locked_until').nullable();
    t.text('last_error').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['status', 'run_at']);
  });
  await knex.schema.createTable('idempotency_records', (t) => {
    t.string('api_key_id', 32).notNullable();
    t.string('idempotency_key', 255).notNullable();
    t.string('fingerprint', 64).notNullable();
    t.integer('status').notNullable();
    t.text('body_enc').notNullable(); // AES-256-GCM, the body may carry a secret (rotated key)
    t.bigInteger('created_at').notNullable();
    t.primary(['api_key_id', 'idempotency_key']);
    t.index(['created_at']);
  });
  // Shape required by rate-limiter-flexible (RateLimiterPostgres / RateLimiterSQLite), created here once.
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });
  await knex.schema.createTable('instance_secrets', (t) => {
    t.string('name', 64).primary();
    t.string('value', 255).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['instance_secrets', 'rate_limits', 'idempotency_records', 'jobs', 'mail_outbox', 'sessions', 'owner_tokens', 'api_keys', 'memberships', 'users', 'teams']) {
    await knex.schema.dropTableIfExists(t);
  }
}
