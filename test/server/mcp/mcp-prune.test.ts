import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { VERIFIER, REDIRECT, oauthKit, oauthApp } from '../../helpers/mcp.ts';

// Issue #8: the hourly maintenance removes MCP OAuth codes and tokens a day after they expired, and
// connections revoked 30 days ago, while everything still usable stays.

const HOUR = 3_600_000;
let app: TestApp;
let kit: ReturnType<typeof oauthKit>;
beforeAll(async () => {
  ({ app, kit } = await oauthApp());
});
afterAll(() => app?.close());

const count = async (table: string) => Number((await app.deps.db.knex(table).count({ n: '*' }).first())?.n ?? 0);

describe('maintenance prunes MCP OAuth records', () => {
  it('keeps live codes and tokens, removes expired ones a day later and long-revoked connections', async () => {
    const who = await kit.owner();
    const { clientId, code } = await kit.codeFor(who);
    const issued = await kit.token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: VERIFIER, redirect_uri: REDIRECT });
    expect(issued.status).toBe(200);
    expect(await count('mcp_oauth_codes')).toBe(1);
    expect(await count('mcp_oauth_tokens')).toBe(2);

    await app.deps.maintenance.prune();
    expect(await count('mcp_oauth_codes')).toBe(1);
    expect(await count('mcp_oauth_tokens')).toBe(2);
    expect(await kit.mcpStatus(issued.body.access_token)).toBe(200);

    // Two hours on, the access token has expired but not for a day yet; the code is a day-old memory soon.
    app.clock.advance(26 * HOUR);
    const pruned = await app.deps.maintenance.prune();
    expect(pruned.mcp_oauth_codes).toBe(1);
    expect(pruned.mcp_oauth_tokens).toBe(1); // the access token; the refresh token lives for 30 days
    expect(await count('mcp_oauth_tokens')).toBe(1);
    expect(await count('mcp_oauth_grants')).toBe(1);

    // Revoke the connection through its refresh token, then let 30 days pass.
    const revoke = await fetch(`${app.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.body.refresh_token, client_id: clientId }).toString(),
    });
    expect(revoke.status).toBe(200);
    await app.deps.maintenance.prune();
    expect(await count('mcp_oauth_grants')).toBe(1);
    app.clock.advance(31 * 24 * HOUR);
    const later = await app.deps.maintenance.prune();
    expect(later.mcp_oauth_grants).toBe(1);
    expect(await count('mcp_oauth_tokens')).toBe(0);
  });

  it('finds expired codes and tokens through an index on expires_at, not a scan', async () => {
    for (const table of ['mcp_oauth_codes', 'mcp_oauth_tokens']) {
      if (app.deps.db.dialect === 'sqlite') {
        const plan: Array<{ detail: string }> = await app.deps.db.knex.raw(`EXPLAIN QUERY PLAN SELECT 1 FROM ${table} WHERE expires_at < ?`, [Date.now()]);
        expect(plan.map((r) => r.detail).join(' | ')).toMatch(/USING (COVERING )?INDEX \w+_expires/);
      } else {
        // This server's own schema: test servers share the database, one schema each.
        const r = await app.deps.db.knex.raw('SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexdef LIKE ?', [table, '%(expires_at)%']);
        expect(r.rows).toHaveLength(1);
      }
    }
  });
});
