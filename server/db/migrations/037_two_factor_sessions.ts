import type { Knex } from 'knex';

// Two-factor sign-in and visible sessions (issue #35 parts 2 and 3). Users get a sealed TOTP secret
// (and the one being enrolled, not yet confirmed) and the last step used, so a code works once;
// recovery codes and remembered browsers are stored hashed; sessions say where they came from, when
// they were last seen (written at most once a minute), whether they still wait for the second
// factor (granting nothing) and when their person last re-authenticated; a team may require 2FA.

/** Adds the two-factor columns and tables. */
export async function up(knex: Knex): Promise<void> {
  const add = async (table: string, column: string, build: (t: Knex.CreateTableBuilder) => void) => {
    if (!(await knex.schema.hasColumn(table, column))) await knex.schema.alterTable(table, build);
  };
  await add('users', 'totp_secret_enc', (t) => t.text('totp_secret_enc').nullable());
  await add('users', 'totp_pending_enc', (t) => t.text('totp_pending_enc').nullable());
  await add('users', 'totp_enabled_at', (t) => t.bigInteger('totp_enabled_at').nullable());
  await add('users', 'totp_last_step', (t) => t.bigInteger('totp_last_step').nullable());
  await add('teams', 'require_two_factor', (t) => t.boolean('require_two_factor').notNullable().defaultTo(false));
  await add('sessions', 'pending_two_factor', (t) => t.boolean('pending_two_factor').notNullable().defaultTo(false));
  await add('sessions', 'ip', (t) => t.string('ip', 64).nullable());
  await add('sessions', 'user_agent', (t) => t.string('user_agent', 255).nullable());
  await add('sessions', 'last_seen_at', (t) => t.bigInteger('last_seen_at').nullable());
  await add('sessions', 'reauthenticated_at', (t) => t.bigInteger('reauthenticated_at').nullable());
  if (!(await knex.schema.hasTable('recovery_codes'))) {
    await knex.schema.createTable('recovery_codes', (t) => {
      t.string('hash', 64).primary();
      t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
      t.bigInteger('used_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.index(['user_id']);
    });
  }
  if (!(await knex.schema.hasTable('trusted_devices'))) {
    await knex.schema.createTable('trusted_devices', (t) => {
      t.string('hash', 64).primary();
      t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('created_at').notNullable();
      t.index(['user_id']);
    });
  }
  // Sessions were only ever read by hash; listing and ending a person's sessions reads them by user.
  await knex.raw('CREATE INDEX IF NOT EXISTS sessions_user_id ON sessions (user_id)');
}

/** Drops them again. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS sessions_user_id');
  await knex.schema.dropTableIfExists('trusted_devices');
  await knex.schema.dropTableIfExists('recovery_codes');
  for (const [table, cols] of [
    ['sessions', ['pending_two_factor', 'ip', 'user_agent', 'last_seen_at', 'reauthenticated_at']],
    ['teams', ['require_two_factor']],
    ['users', ['totp_secret_enc', 'totp_pending_enc', 'totp_enabled_at', 'totp_last_step']],
  ] as const) {
    for (const c of cols) if (await knex.schema.hasColumn(table, c)) await knex.schema.alterTable(table, (t) => t.dropColumn(c));
  }
}
