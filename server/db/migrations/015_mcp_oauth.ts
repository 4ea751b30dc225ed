import type { Knex } from 'knex';

// The hosted MCP endpoint's OAuth 2.1 authorization server (server/mcp/oauth-store.ts).
// `mcp_oauth_clients`: dynamically registered clients; a confidential client's secret is sealed
// (the SDK's token endpoint compares it in plain text, so it must be readable again).
// `mcp_oauth_codes`: authorization codes as SHA-256, single use (`used_at`), short-lived.
// `mcp_oauth_grants`: one approved connection: client, the user who approved it, one team and the
// approved scopes. Revoking a grant ends every token issued under it.
// `mcp_oauth_tokens`: access and refresh tokens as SHA-256; a refresh token is used once
// (`used_at`) and replaced by a new one; presenting a used one again revokes the grant.

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('mcp_oauth_clients'))) {
    await knex.schema.createTable('mcp_oauth_clients', (t) => {
      t.string('id', 64).primary();
      t.text('metadata').notNullable(); // JSON of the registered client metadata, without the secret
      t.text('secret_enc').nullable(); // sealed client secret; null for public clients
      t.bigInteger('secret_expires_at').nullable(); // epoch seconds, as RFC 7591 writes it
      t.bigInteger('created_at').notNullable();
    });
  }
  if (!(await knex.schema.hasTable('mcp_oauth_grants'))) {
    await knex.schema.createTable('mcp_oauth_grants', (t) => {
      t.string('id', 32).primary();
      t.string('client_id', 64).notNullable().references('mcp_oauth_clients.id').onDelete('CASCADE');
      t.string('team_id', 32).notNullable().references('teams.id').onDelete('CASCADE');
      t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
      t.text('scopes').notNullable(); // JSON array
      t.string('resource', 2048).nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('revoked_at').nullable();
      t.index(['team_id']);
    });
  }
  if (!(await knex.schema.hasTable('mcp_oauth_codes'))) {
    await knex.schema.createTable('mcp_oauth_codes', (t) => {
      t.string('hash', 64).primary();
      t.string('client_id', 64).notNullable().references('mcp_oauth_clients.id').onDelete('CASCADE');
      t.string('team_id', 32).notNullable().references('teams.id').onDelete('CASCADE');
      t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
      t.text('scopes').notNullable();
      t.string('redirect_uri', 2048).notNullable();
      t.string('code_challenge', 128).notNullable();
      t.string('resource', 2048).nullable();
      t.string('grant_id', 32).nullable(); // the grant the code was exchanged for, revoked if the code is replayed
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('used_at').nullable();
      t.bigInteger('created_at').notNullable();
    });
  }
  if (!(await knex.schema.hasTable('mcp_oauth_tokens'))) {
    await knex.schema.createTable('mcp_oauth_tokens', (t) => {
      t.string('hash', 64).primary();
      t.string('kind', 8).notNullable(); // access | refresh
      t.string('grant_id', 32).notNullable().references('mcp_oauth_grants.id').onDelete('CASCADE');
      t.text('scopes').nullable(); // JSON array when narrower than the grant's (a refresh asking for less)
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('used_at').nullable(); // refresh tokens: rotated
      t.bigInteger('revoked_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.index(['grant_id']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mcp_oauth_tokens');
  await knex.schema.dropTableIfExists('mcp_oauth_codes');
  await knex.schema.dropTableIfExists('mcp_oauth_grants');
  await knex.schema.dropTableIfExists('mcp_oauth_clients');
}
