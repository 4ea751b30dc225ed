import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { Browser, CHALLENGE, PUBLIC, REDIRECT, VERIFIER, connect, hidden, oauthKit, oauthApp } from '../../helpers/mcp.ts';

let app: TestApp;
let kit: ReturnType<typeof oauthKit>;
beforeAll(async () => {
  ({ app, kit } = await oauthApp());
});
afterAll(() => app?.close());

describe('grants', () => {
  it('filters tools/list by the approved scopes and refuses an unlisted tool with the REST error', async () => {
    const who = await kit.owner();
    const a = await kit.authorize(who, 'program:read');
    const b = await kit.authorize(who, 'participant:read analytics:read');
    const ca = await connect(app, a.provider.saved!.access_token);
    const cb = await connect(app, b.provider.saved!.access_token);
    const la = (await ca.listTools()).tools.map((t) => t.name);
    const lb = (await cb.listTools()).tools.map((t) => t.name);
    expect(la).toContain('growsurf_list_campaigns');
    expect(la).not.toContain('growsurf_list_participants');
    expect(la).not.toContain('growsurf_create_campaign');
    expect(lb).toContain('growsurf_list_participants');
    expect(lb).toContain('growsurf_get_campaign_analytics');
    expect(lb).not.toContain('growsurf_list_campaigns');
    for (const l of [la, lb]) expect(l).toContain('growsurf_integration_guide');
    const denied: any = await ca.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'AFFILIATE' } });
    expect(denied.isError).toBe(true);
    const err = JSON.parse(denied.content[0].text);
    expect(err).toMatchObject({ code: 'NOT_AUTHORIZED_ERROR', status: 403 });
    expect(err.message).toContain('program:write');
    expect(await app.deps.db.knex('programs').where({ team_id: who.teamId }).count({ n: '*' }).first()).toMatchObject({ n: 0 });
    await expect(ca.callTool({ name: 'growsurf_rotate_api_key', arguments: {} })).rejects.toThrow('Unknown tool: growsurf_rotate_api_key');
    await ca.close();
    await cb.close();
  });

  it('binds a token to its team: team B’s program is out of reach', async () => {
    const alice = await kit.owner();
    const bob = await kit.owner();
    const bobProgram = await app.request('POST', '/v2/campaigns', { key: bob.key, body: { type: 'AFFILIATE', name: 'Bob' } });
    expect(bobProgram.status).toBe(200);
    const a = await kit.authorize(alice, 'program:read program:write');
    const client = await connect(app, a.provider.saved!.access_token);
    const r: any = await client.callTool({ name: 'growsurf_get_campaign', arguments: { campaignId: bobProgram.body.id } });
    expect(r.isError).toBe(true);
    expect(JSON.parse(r.content[0].text)).toMatchObject({ code: 'NOT_AUTHORIZED_ERROR', status: 403 });
    const list: any = await client.callTool({ name: 'growsurf_list_campaigns', arguments: {} });
    expect(list.structuredContent.campaigns).toEqual([]);
    await client.close();
  });
});

describe('secrets at rest', () => {
  it('stores codes and tokens only as hashes and a confidential client’s secret sealed', async () => {
    const who = await kit.owner();
    const reg = await app.request('POST', '/oauth/register', { body: { client_name: 'Confidential', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' } });
    expect(reg.status).toBe(201);
    const secret = reg.body.client_secret as string;
    expect(secret).toBeTruthy();
    const row = await app.deps.db.knex('mcp_oauth_clients').where({ id: reg.body.client_id }).first();
    expect(row.secret_enc).not.toContain(secret);
    expect(row.metadata).not.toContain(secret);
    const back = await kit.consent(kit.authorizeUrl(reg.body.client_id), who);
    const code = back.searchParams.get('code')!;
    const base = { grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: reg.body.client_id };
    expect((await kit.token(base)).body.error).toBe('invalid_client');
    const t = await kit.token({ ...base, client_secret: secret });
    expect(t.status).toBe(200);
    const dump = JSON.stringify([await app.deps.db.knex('mcp_oauth_tokens'), await app.deps.db.knex('mcp_oauth_codes')]);
    for (const s of [code, t.body.access_token, t.body.refresh_token]) expect(dump).not.toContain(s);
  });
});

describe('a separate MCP host name', () => {
  it('publishes the MCP addresses on MCP_PUBLIC_URL and keeps the consent page on PUBLIC_URL', async () => {
    const other = await startApp({ ...RAISED_LIMITS, MCP_PUBLIC_URL: 'https://mcp.refloop.test', MCP_PATH: '/agents' });
    try {
      const prm = await other.request('GET', '/.well-known/oauth-protected-resource');
      expect(prm.body).toMatchObject({ resource: 'https://mcp.refloop.test/agents', authorization_servers: ['https://mcp.refloop.test'] });
      const asm = await other.request('GET', '/.well-known/oauth-authorization-server');
      expect(asm.body.token_endpoint).toBe('https://mcp.refloop.test/oauth/token');
      const res = await other.request('POST', '/agents', { body: {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata="https://mcp.refloop.test/.well-known/oauth-protected-resource"');
      expect((await other.request('POST', '/mcp', { body: {} })).status).toBe(404);
      const reg = await other.request('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } });
      const u = new URL(`${other.url}/oauth/authorize`);
      for (const [k, v] of Object.entries({ response_type: 'code', client_id: reg.body.client_id, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', resource: 'https://mcp.refloop.test/agents' })) u.searchParams.set(k, v);
      const a = await fetch(u, { redirect: 'manual' });
      expect(a.headers.get('location')).toMatch(/^http:\/\/refloop\.test\/oauth\/consent\?request=/);
      const foreign = new URL(u);
      foreign.searchParams.set('resource', 'https://elsewhere.example/mcp');
      const b = await fetch(foreign, { redirect: 'manual' });
      expect(new URL(b.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    } finally {
      await other.close();
    }
  });
});

describe('consent page', () => {
  it('refuses a forged request, a missing CSRF value, and framing', async () => {
    const who = await kit.owner();
    const reg = await kit.register();
    const browser = new Browser(app);
    const forged = await browser.go(`${PUBLIC}/oauth/consent?request=${encodeURIComponent('abc.def.ghi')}`);
    expect(forged.status).toBe(400);
    const a = await browser.go(kit.authorizeUrl(reg.body.client_id).href);
    const consentUrl = a.headers.get('location')!;
    const signIn = await browser.go(consentUrl);
    expect(signIn.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(signIn.headers.get('x-frame-options')).toBe('DENY');
    const html = await signIn.text();
    await browser.post(`${PUBLIC}/oauth/consent`, { action: 'signin', request: hidden(html, 'request'), email: who.email, password: who.password });
    const page = await (await browser.go(consentUrl)).text();
    expect(page).toContain('Manual host');
    expect(page).toContain('program:read');
    const noCsrf = await browser.post(`${PUBLIC}/oauth/consent`, { request: hidden(page, 'request'), teamId: who.teamId, decision: 'approve' });
    expect(noCsrf.status).toBe(403);
    const otherTeam = await browser.post(`${PUBLIC}/oauth/consent`, { csrf: hidden(page, 'csrf'), request: hidden(page, 'request'), teamId: 'someoneelsesteam', decision: 'approve' });
    expect(otherTeam.status).toBe(400);
    expect(await app.deps.db.knex('mcp_oauth_codes').where({ client_id: reg.body.client_id }).first()).toBeUndefined();
  });

  it('ends the connection when the approving member leaves the team', async () => {
    const who = await kit.owner();
    const { clientId, code } = await kit.codeFor(who);
    const t = await kit.token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId });
    expect(await kit.mcpStatus(t.body.access_token)).toBe(200);
    await app.deps.db.knex('memberships').where({ team_id: who.teamId }).del();
    expect(await kit.mcpStatus(t.body.access_token)).toBe(401);
    expect((await kit.token({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: clientId })).body.error).toBe('invalid_grant');
  });
});

describe('who may connect a team', () => {
  it('offers a Member without Manage API no team to connect', async () => {
    const who = await kit.owner();
    const ownerBrowser = new Browser(app);
    await ownerBrowser.post(`${PUBLIC}/signin`, { email: who.email, password: who.password });
    const members = await (await ownerBrowser.go(`${PUBLIC}/team/members`)).text();
    const memberEmail = `member-${crypto.randomBytes(3).toString('hex')}@acme-widgets.com`;
    const inv = await ownerBrowser.post(`${PUBLIC}/team/members/invite`, { csrf: hidden(members, 'csrf'), email: memberEmail, role: 'MEMBER' });
    expect(inv.status).toBe(303);
    const [mail] = await app.deps.mailer.list({ to: memberEmail, limit: 1 });
    const accept = mail!.links.find((l) => l.includes('/invite/accept?'))!;
    const joined = await fetch(app.local(accept), { method: 'POST', body: new URLSearchParams({ password: 'member password 1', confirm: 'member password 1' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(joined.status).toBe(303);
    const reg = await kit.register();
    const browser = new Browser(app);
    const a = await browser.go(kit.authorizeUrl(reg.body.client_id).href);
    const consentUrl = a.headers.get('location')!;
    const html = await (await browser.go(consentUrl)).text();
    await browser.post(`${PUBLIC}/oauth/consent`, { action: 'signin', request: hidden(html, 'request'), email: memberEmail, password: 'member password 1' });
    const page = await browser.go(consentUrl);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('do not manage API access');
  });
});
