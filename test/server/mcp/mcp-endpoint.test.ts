import { afterEach, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { connect } from '../../helpers/mcp.ts';

const apps: TestApp[] = [];
async function start(env: Record<string, string>) {
  const app = await startApp(env);
  apps.push(app);
  return app;
}
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close().catch(() => undefined);
});

function error(result: any): any {
  expect(result.isError).toBe(true);
  return JSON.parse(result.content[0].text);
}

describe('team rate limits shared between REST and MCP', () => {
  const LOW = { ...RAISED_LIMITS, RATE_LIMIT_MINUTE: '6', RATE_LIMIT_STORE: 'memory' };

  it('limits the MCP connection once REST used up the team budget', async () => {
    const app = await start(LOW);
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key); // initialize + initialized: 2 requests
    let status = 200;
    let calls = 0;
    while (status === 200 && calls < 20) {
      status = (await app.request('GET', '/v2/campaigns', { key: acct.key })).status;
      calls++;
    }
    expect(status).toBe(429);
    expect(calls).toBe(5);
    await expect(client.callTool({ name: 'growsurf_list_campaigns', arguments: {} })).rejects.toThrow(/429/);
    await client.close().catch(() => undefined);
  });

  it('limits REST once the MCP connection used up the team budget, with the same headers', async () => {
    const app = await start(LOW);
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    for (let i = 0; i < 4; i++) expect((await client.callTool({ name: 'growsurf_list_campaigns', arguments: {} })).isError).toBeFalsy();
    const res = await app.request('GET', '/v2/campaigns', { key: acct.key });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'MINUTE' });
    const raw = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('growsurf-ratelimit-minute-remaining')).toBe('0');
    expect(raw.headers.get('retry-after')).toMatch(/^\d+$/);
    await client.close().catch(() => undefined);
  });
});

describe('credential checks that cannot be made safely', () => {
  it('answers 503, never an allow, when the database is unavailable', async () => {
    const app = await start({ ...RAISED_LIMITS, RATE_LIMIT_STORE: 'memory' });
    const acct = await verifiedAccount(app);
    await app.deps.db.knex.destroy();
    for (const bearer of [acct.key, 'mcpat_whatever']) {
      const res = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE_ERROR', status: 503 });
    }
  });
});

describe('POST /oauth/register', () => {
  it('limits dynamic client registration to 20 an hour per address', async () => {
    const app = await start(RAISED_LIMITS);
    const body = { redirect_uris: ['https://host.example/cb'], token_endpoint_auth_method: 'none' };
    for (let i = 0; i < 20; i++) expect((await app.request('POST', '/oauth/register', { body })).status).toBe(201);
    const over = await app.request('POST', '/oauth/register', { body });
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('too_many_requests');
  });
});

describe('a disabled team', () => {
  it('answers 403 account disabled on the MCP endpoint, as on REST', async () => {
    const app = await start(RAISED_LIMITS);
    const acct = await verifiedAccount(app);
    await app.deps.teams.setDisabled(acct.teamId, true);
    const res = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'ACCOUNT_DISABLED_ERROR' });
  });
});

describe('keyless onboarding at /mcp/onboard', () => {
  it('offers exactly the create-account tool, whose description asks for the owner’s approval', async () => {
    const app = await start(RAISED_LIMITS);
    const client = await connect(app, null, '/mcp/onboard');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['growsurf_create_account']);
    expect(tools[0]!.description).toMatch(/approval BEFORE calling/);
    expect(tools[0]!.annotations).toMatchObject({ openWorldHint: true, readOnlyHint: false });
    await client.close();
  });

  it('creates an account whose key stays locked until the owner verifies the email', async () => {
    const app = await start(RAISED_LIMITS);
    const onboard = await connect(app, null, '/mcp/onboard');
    const email = 'founder@acme-widgets.com';
    const r: any = await onboard.callTool({ name: 'growsurf_create_account', arguments: { email, company: 'Acme' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ email, verificationStatus: 'NOT_REQUESTED' });
    const key = r.structuredContent.apiKey as string;
    const user = await app.deps.db.knex('users').where({ email }).first();
    expect(Number(user.terms_accepted_at)).toBe(app.clock.now());
    expect(user.terms_version).toBe(app.deps.config.termsVersion);
    expect(user.terms_ip).toBeTruthy();
    expect((await app.request('GET', '/v2/campaigns', { key })).body).toMatchObject({ code: 'EMAIL_NOT_VERIFIED_ERROR', status: 403 });
    const client = await connect(app, key);
    expect(error(await client.callTool({ name: 'growsurf_list_campaigns', arguments: {} }))).toMatchObject({ code: 'EMAIL_NOT_VERIFIED_ERROR', status: 403 });
    // Team tools work while locked, as on REST (the agent can check the state and resend the email).
    const team: any = await client.callTool({ name: 'growsurf_get_team', arguments: {} });
    expect(team.isError).toBeFalsy();
    const [mail] = await app.deps.mailer.list({ to: email, limit: 1 });
    await fetch(app.local(mail!.links.find((l) => l.includes('/verify?'))!));
    const ok: any = await client.callTool({ name: 'growsurf_list_campaigns', arguments: {} });
    expect(ok.isError).toBeFalsy();
    await client.close();
    await onboard.close();
  });

  it('applies POST /accounts rules: business email, duplicate, and its own strict limit', async () => {
    const app = await start({ ...RAISED_LIMITS, ACCOUNT_CREATION_PER_HOUR: '2' });
    const onboard = await connect(app, null, '/mcp/onboard');
    expect(error(await onboard.callTool({ name: 'growsurf_create_account', arguments: { email: 'someone@gmail.com' } }))).toMatchObject({ status: 400 });
    await onboard.callTool({ name: 'growsurf_create_account', arguments: { email: 'a@acme-widgets.com' } });
    expect(error(await onboard.callTool({ name: 'growsurf_create_account', arguments: { email: 'b@acme-widgets.com' } }))).toMatchObject({ code: 'RATE_LIMIT', status: 429 });
    const dup = await startApp(RAISED_LIMITS);
    apps.push(dup);
    const c2 = await connect(dup, null, '/mcp/onboard');
    await c2.callTool({ name: 'growsurf_create_account', arguments: { email: 'a@acme-widgets.com' } });
    expect(error(await c2.callTool({ name: 'growsurf_create_account', arguments: { email: 'a@acme-widgets.com' } }))).toMatchObject({ status: 409 });
    await onboard.close();
    await c2.close();
  });

  it('needs no credential but never answers a tool outside onboarding', async () => {
    const app = await start(RAISED_LIMITS);
    const onboard = await connect(app, null, '/mcp/onboard');
    await expect(onboard.callTool({ name: 'growsurf_list_campaigns', arguments: {} })).rejects.toThrow('Unknown tool: growsurf_list_campaigns');
    await onboard.close();
  });
});


describe('issue #20: tools/call with params the SDK refuses', () => {
  async function rpc(app: TestApp, key: string, params: unknown) {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('answers -32602 invalid params with one clear sentence for arguments that are null, an array or a string', async () => {
    const app = await start(RAISED_LIMITS);
    const acct = await verifiedAccount(app);
    for (const [args, kind] of [[null, 'null'], [[], 'an array'], ['campaignId=x', 'a string'], [5, 'a number']] as const) {
      const { status, body } = await rpc(app, acct.key, { name: 'growsurf_list_campaigns', arguments: args });
      expect(status).toBe(200);
      expect(body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringContaining(`params.arguments must be an object`) } });
      expect(body.error.message).toContain(`not ${kind}.`);
      expect(body.error.message).not.toMatch(/"expected"|invalid_type|\n/);
    }
    const noName = await rpc(app, acct.key, { name: 5, arguments: {} });
    expect(noName.body.error).toEqual({ code: -32602, message: 'Invalid params for tools/call: params.name must be a string, not a number.' });
    const fine = await rpc(app, acct.key, { name: 'growsurf_list_campaigns' });
    expect(fine.body.result.structuredContent).toEqual({ campaigns: [] });
  });
});
