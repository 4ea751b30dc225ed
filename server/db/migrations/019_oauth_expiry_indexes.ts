import type { Knex } from 'knex';

// The hourly maintenance prune deletes expired MCP OAuth codes and tokens by `expires_at`
// (server/domain/platform/maintenance.ts); without an index each run scanned both tables whole, and refresh
// tokens accumulate with every client that signs in.

const INDEXES = [
  { name: 'mcp_oauth_codes_expires', table: 'mcp_oauth_codes' },
  { name: 'mcp_oauth_tokens_expires', table: 'mcp_oauth_tokens' },
];

/** Indexes both tables on `expires_at`. */
export async function up(knex: Knex): Promise<void> {
  for (const i of INDEXES) await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON ${i.table} (expires_at)`);
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  for (const i of INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
}
