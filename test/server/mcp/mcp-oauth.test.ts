import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createAccount, type TestApp } from '../../helpers/app.ts';
import { MCP_URL, PUBLIC, REDIRECT, VERIFIER, appFetch, connect, oauthKit, oauthApp } from '../../helpers/mcp.ts';

let app: TestApp;
let kit: ReturnType<typeof oauthKit>;
beforeAll(async () => {
  ({ app, kit } = await oauthApp());
});
afterAll(() => app?.close());

describe('OAuth metadata', () => {
  it('publishes RFC 9728 protected-resource metadata', async () => {
    const res = await app.request('GET', '/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    const doc = OAuthProtectedResourceMetadataSchema.parse(res.body);
    expect(doc.resource).toBe(MCP_URL);
    expect(doc.authorization_servers).toEqual([PUBLIC]);
    expect(doc.bearer_methods_supported).toEqual(['header']);
    expect(doc.scopes_supported).toEqual(['team:read', 'team:write', 'program:read', 'program:write', 'participant:read', 'participant:write', 'participant:delete', 'reward:write', 'analytics:read']);
    const pathSpecific = await app.request('GET', '/.well-known/oauth-protected-resource/mcp');
    expect(pathSpecific.body).toEqual(res.body);
  });

  it('publishes RFC 8414 authorization-server metadata: code, S256 only, no jwt-bearer', async () => {
    const res = await app.request('GET', '/.well-known/oauth-authorization-server');
    const doc = OAuthMetadataSchema.parse(res.body);
    expect(doc.issuer).toBe(PUBLIC);
    for (const k of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'] as const) expect(doc[k]).toMatch(/^http:\/\/refloop\.test\/oauth\//);
    expect(doc.response_types_supported).toEqual(['code']);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    expect(doc.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    expect(doc.scopes_supported).toHaveLength(9);
    expect(JSON.stringify(doc)).not.toContain('jwt-bearer');
    expect((await app.request('GET', '/.well-known/openid-configuration')).status).toBe(404);
  });
});

describe('MCP endpoint authentication', () => {
  it('answers an unauthenticated request 401 with a resource_metadata challenge', async () => {
    const res = await app.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="http:\/\/refloop\.test\/\.well-known\/oauth-protected-resource"/);
    const bad = await app.request('POST', '/mcp', { key: 'mcpat_nope', body: {} });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('keeps REST at 403 for the same missing credential', async () => {
    const res = await app.request('GET', '/v2/campaigns');
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('accepts a team API key as the bearer', async () => {
    const acct = await createAccount(app);
    await fetch(app.local(acct.verifyLink));
    const client = await connect(app, acct.key);
    const r: any = await client.callTool({ name: 'growsurf_get_team', arguments: {} });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.verificationStatus).toBeDefined();
    await client.close();
  });
});

describe('authorization code flow with PKCE', () => {
  it('registers, signs in on the consent page, approves one team and calls a tool with the token', async () => {
    const who = await kit.owner();
    const { provider } = await kit.authorize(who);
    expect(provider.saved!.scope!.split(' ')).toHaveLength(9);
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider, fetch: appFetch(app) });
    const client = new Client({ name: 'host', version: '1' });
    await client.connect(transport);
    const created: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'AFFILIATE', name: 'Via OAuth' } });
    expect(created.isError).toBeFalsy();
    const row = await app.deps.db.knex('programs').where({ id: created.structuredContent.id }).first();
    expect(row.team_id).toBe(who.teamId);
    await client.close();
  });
});



describe('authorization failures', () => {
  it('refuses a wrong PKCE verifier, and the code is spent', async () => {
    const who = await kit.owner();
    const { clientId, code } = await kit.codeFor(who);
    const wrong = await kit.token({ grant_type: 'authorization_code', code, code_verifier: 'w'.repeat(43), redirect_uri: REDIRECT, client_id: clientId });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const right = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId });
    expect(right.body.error).toBe('invalid_grant');
  });

  it('refuses a reused code and revokes the tokens the first exchange issued', async () => {
    const who = await kit.owner();
    const { clientId, code } = await kit.codeFor(who);
    const first = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId });
    expect(first.status).toBe(200);
    expect(first.body.token_type).toBe('Bearer');
    expect(await kit.mcpStatus(first.body.access_token)).toBe(200);
    const again = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(await kit.mcpStatus(first.body.access_token)).toBe(401);
  });

  it('refuses a foreign or non-exact redirect URI at authorization and at the token endpoint', async () => {
    const who = await kit.owner();
    const reg = await kit.register();
    for (const uri of ['https://evil.example/callback', `${REDIRECT}/`, `${REDIRECT}?x=1`]) {
      const res = await fetch(kit.authorizeUrl(reg.body.client_id, { redirect_uri: uri }).href.replace(PUBLIC, app.url), { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    const { clientId, code } = await kit.codeFor(who);
    const res = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: 'https://evil.example/callback', client_id: clientId });
    expect(res.body.error).toBe('invalid_grant');
    expect((await kit.register(['http://evil.example/cb'])).status).toBe(400);
  });

  it('refuses the plain PKCE method', async () => {
    const reg = await kit.register();
    const res = await fetch(kit.authorizeUrl(reg.body.client_id, { code_challenge_method: 'plain', code_challenge: VERIFIER }).href.replace(PUBLIC, app.url), { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('refuses scopes outside the nine MCP scopes', async () => {
    const reg = await kit.register();
    const res = await fetch(kit.authorizeUrl(reg.body.client_id, { scope: 'program:read api_key:rotate' }).href.replace(PUBLIC, app.url), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('sends the denial back to the client without a code', async () => {
    const who = await kit.owner();
    const reg = await kit.register();
    const back = await kit.consent(kit.authorizeUrl(reg.body.client_id), who, 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('refuses the jwt-bearer grant', async () => {
    const reg = await kit.register();
    const res = await kit.token({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: 'eyJhbGciOiJub25lIn0.e30.', client_id: reg.body.client_id });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unsupported_grant_type');
    const jwtClient = await app.request('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT], grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'], token_endpoint_auth_method: 'none' } });
    expect(jwtClient.status).toBe(400);
    expect(jwtClient.body.error).toBe('invalid_client_metadata');
    for (const path of ['/.well-known/openid-configuration', '/userinfo', '/oauth/userinfo']) expect((await app.request('GET', path)).status).toBe(404);
  });

  it('answers 401 once the access token has expired', async () => {
    const who = await kit.owner();
    const { clientId, code } = await kit.codeFor(who);
    const t = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId });
    expect(await kit.mcpStatus(t.body.access_token)).toBe(200);
    app.clock.advance(t.body.expires_in * 1000 + 1000);
    expect(await kit.mcpStatus(t.body.access_token)).toBe(401);
  });
});

describe('refresh and revocation', () => {
  it('rotates the refresh token; the old one is dead and its replay revokes the connection', async () => {
    const who = await kit.owner();
    const { clientId, code } = await kit.codeFor(who);
    const t = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId });
    const next = await kit.token({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: clientId });
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(t.body.refresh_token);
    expect(await kit.mcpStatus(next.body.access_token)).toBe(200);
    const replay = await kit.token({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: clientId });
    expect(replay.body.error).toBe('invalid_grant');
    expect(await kit.mcpStatus(next.body.access_token)).toBe(401);
    expect((await kit.token({ grant_type: 'refresh_token', refresh_token: next.body.refresh_token, client_id: clientId })).body.error).toBe('invalid_grant');
  });

  it('revokes an access token, and a refresh token with its whole connection', async () => {
    const who = await kit.owner();
    const { clientId, code } = await kit.codeFor(who);
    const t = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId });
    const revoke = (tok: string) => fetch(`${app.url}/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token: tok, client_id: clientId }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect((await revoke(t.body.access_token)).status).toBe(200);
    expect(await kit.mcpStatus(t.body.access_token)).toBe(401);
    const next = await kit.token({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: clientId });
    expect(next.status).toBe(200);
    expect((await revoke(next.body.refresh_token)).status).toBe(200);
    expect(await kit.mcpStatus(next.body.access_token)).toBe(401);
  });
});
