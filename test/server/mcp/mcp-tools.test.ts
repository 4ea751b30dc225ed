import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { connect } from '../../helpers/mcp.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
});
afterAll(() => app?.close());

function error(result: any): any {
  expect(result.isError).toBe(true);
  return JSON.parse(result.content[0].text);
}

describe('MCP tools with a team API key', () => {
  it('lists every tool with its hints, risk tier, input and output schema', async () => {
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['growsurf_integration_guide', 'growsurf_get_campaign', 'growsurf_list_campaigns', 'growsurf_update_campaign_installation', 'growsurf_create_account', 'growsurf_get_team', 'growsurf_test_campaign_webhook', 'growsurf_bulk_delete_participants', 'growsurf_trigger_referral', 'growsurf_create_mobile_participant_token', 'growsurf_get_integration_connect_link']) {
      expect(names).toContain(n);
    }
    expect(names).not.toContain('growsurf_rotate_api_key');
    expect(names).toContain('growsurf_capture_referral_flow_screenshots');
    const hints = (n: string) => tools.find((t) => t.name === n)!;
    expect(hints('growsurf_bulk_delete_participants').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(hints('growsurf_bulk_delete_participants')._meta).toMatchObject({ 'growsurf/riskTier': 'DESTRUCTIVE' });
    expect(hints('growsurf_trigger_referral').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(hints('growsurf_trigger_referral')._meta).toMatchObject({ 'growsurf/riskTier': 'MONEY' });
    expect(hints('growsurf_get_campaign').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(hints('growsurf_create_account').annotations).toMatchObject({ openWorldHint: true, idempotentHint: false });
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(JSON.stringify(t.outputSchema)).not.toContain('"required"');
      expect(JSON.stringify(t.outputSchema)).not.toContain('"additionalProperties":false');
    }
    expect(Object.keys(hints('growsurf_get_campaign').inputSchema.properties!)).toContain('campaignId');
    expect(hints('growsurf_get_participant').inputSchema.anyOf).toEqual([{ required: ['participantId'] }, { required: ['participantEmail'] }]);
    expect(Object.keys(hints('growsurf_list_campaigns').inputSchema.properties ?? {})).not.toContain('campaignId');
    await client.close();
  });

  it('creates and reads a program through the same services as REST', async () => {
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    const created: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'AFFILIATE', name: 'Agent program' } });
    expect(created.isError).toBeFalsy();
    const id = created.structuredContent.id;
    expect(created.content[0].text).toContain(`New program id: ${id}`);
    const rest = await app.request('GET', `/v2/campaign/${id}`, { key: acct.key });
    expect(rest.status).toBe(200);
    const got: any = await client.callTool({ name: 'growsurf_get_campaign', arguments: { campaignId: id } });
    expect(got.structuredContent).toEqual(rest.body);
    expect(JSON.parse(got.content[0].text)).toEqual(rest.body);
    await client.close();
  });

  it('adds, reads by email and lists participants; query limits are REST’s', async () => {
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    const program: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'AFFILIATE', name: 'P' } });
    const campaignId = program.structuredContent.id;
    const added: any = await client.callTool({ name: 'growsurf_add_participant', arguments: { campaignId, email: 'ada@lovelace.dev', firstName: 'Ada' } });
    expect(added.isError).toBeFalsy();
    const byEmail: any = await client.callTool({ name: 'growsurf_get_participant', arguments: { campaignId, participantEmail: 'ada@lovelace.dev' } });
    expect(byEmail.structuredContent.id).toBe(added.structuredContent.id);
    const list: any = await client.callTool({ name: 'growsurf_list_participants', arguments: { campaignId, limit: 1 } });
    expect(list.structuredContent.participants).toHaveLength(1);
    expect(error(await client.callTool({ name: 'growsurf_list_participants', arguments: { campaignId, limit: 101 } }))).toMatchObject({ code: 'BAD_REQUEST_ERROR', status: 400 });
    const gdpr = error(await client.callTool({ name: 'growsurf_add_participant', arguments: { campaignId, email: 'x@lovelace.dev', metadata: { gdprAgreements: 'yes' } } }));
    expect(gdpr.status).toBe(400);
    await client.close();
  });

  it('returns the REST error object for validation, not found and the wrong program type, without internals', async () => {
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    const bad = error(await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'PYRAMID' } }));
    expect(bad).toMatchObject({ name: 'BadRequestError', code: 'BAD_REQUEST_ERROR', status: 400, level: 'error' });
    expect(bad.errors[0]).toMatchObject({ field: 'type' });
    expect(Object.keys(bad).sort()).toEqual(['code', 'errors', 'level', 'message', 'name', 'status', 'timestamp']);
    const missing = error(await client.callTool({ name: 'growsurf_get_campaign', arguments: {} }));
    expect(missing).toMatchObject({ code: 'BAD_REQUEST_ERROR', errors: [{ field: 'campaignId', code: 'REQUIRED' }] });
    expect(error(await client.callTool({ name: 'growsurf_get_campaign', arguments: { campaignId: 'nosuchprogram' } }))).toMatchObject({ code: 'NOT_FOUND_ERROR', status: 404 });
    const affiliate: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'AFFILIATE' } });
    const p: any = await client.callTool({ name: 'growsurf_add_participant', arguments: { campaignId: affiliate.structuredContent.id, email: 'a@lovelace.dev' } });
    const wrongType = error(await client.callTool({ name: 'growsurf_trigger_referral', arguments: { campaignId: affiliate.structuredContent.id, participantId: p.structuredContent.id } }));
    expect(wrongType).toMatchObject({ status: 422 });
    for (const e of [bad, wrongType]) expect(JSON.stringify(e)).not.toMatch(/at .*\.ts:|sk_/);
    await client.close();
  });

  it('issue #19: refuses create and clone to a program-limited key with the REST 403, as REST does', async () => {
    const acct = await verifiedAccount(app);
    const source = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
    const limited = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: ['program:read', 'program:write'], programIds: [source.body.id], origin: 'CLI' })).secret;
    const client = await connect(app, limited);
    const created = error(await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'REFERRAL' } }));
    expect(created).toMatchObject({ code: 'NOT_AUTHORIZED_ERROR', status: 403 });
    const cloned = error(await client.callTool({ name: 'growsurf_clone_campaign', arguments: { campaignId: source.body.id } }));
    expect(cloned).toMatchObject({ code: 'NOT_AUTHORIZED_ERROR', status: 403 });
    expect((await app.request('GET', '/v2/campaigns', { key: acct.key })).body.campaigns).toHaveLength(1);
    await client.close();
  });

  it('runs the local tools without a REST call', async () => {
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    const hash: any = await client.callTool({ name: 'growsurf_participant_auth_hash', arguments: { email: 'Ada@x.dev', participantAuthSecret: 'sekret' } });
    expect(hash.structuredContent.hash).toBe(crypto.createHmac('sha256', 'sekret').update('Ada@x.dev').digest('hex'));
    const guide: any = await client.callTool({ name: 'growsurf_integration_guide', arguments: { programType: 'referral' } });
    expect(guide.structuredContent.markdown).toContain('growsurf_trigger_referral');
    expect(guide.content[0].text).toBe(guide.structuredContent.markdown);
    const norm: any = await client.callTool({ name: 'growsurf_webhook_normalize', arguments: { payload: { event: 'CAMPAIGN_ENDED', createdAt: 1, data: { campaign: { id: 'c1' } } }, deliveryId: 'd-1' } });
    expect(norm.structuredContent).toMatchObject({ valid: true, event: 'CAMPAIGN_ENDED', campaignId: 'c1', idempotencyKey: 'd-1' });
    const badNorm: any = await client.callTool({ name: 'growsurf_webhook_normalize', arguments: { payload: '{"event":"NOPE"}' } });
    expect(badNorm.structuredContent.valid).toBe(false);
    const el: any = await client.callTool({ name: 'growsurf_embeddable_element_snippet', arguments: { element: 'referral_status' } });
    expect(el.structuredContent.markdown).toContain('data-grsf-block-referral-status');
    const link: any = await client.callTool({ name: 'growsurf_get_integration_connect_link', arguments: { integration: 'stripe', campaignId: 'abc' } });
    expect(link.structuredContent).toMatchObject({ integration: 'stripe', label: 'Stripe', referralOnly: false });
    expect(link.structuredContent.url).toBe(`${app.deps.config.publicUrl}/console/programs/abc/integrations/stripe`);
    await client.close();
  });

  it('records and refunds affiliate sales through the transactions service', async () => {
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'growsurf_record_sale')!._meta).toMatchObject({ 'growsurf/riskTier': 'MONEY' });
    expect(tools.find((t) => t.name === 'growsurf_record_sale')!.annotations).toMatchObject({ idempotentHint: true, destructiveHint: false });
    expect(tools.find((t) => t.name === 'growsurf_refund_transaction')!.annotations).toMatchObject({ idempotentHint: true, destructiveHint: true });
    const program: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'AFFILIATE', name: 'Sales' } });
    const campaignId = program.structuredContent.id;
    const p: any = await client.callTool({ name: 'growsurf_add_participant', arguments: { campaignId, email: 'buyer@lovelace.dev' } });
    const sale: any = await client.callTool({ name: 'growsurf_record_sale', arguments: { campaignId, participantId: p.structuredContent.id, currency: 'USD', grossAmount: 1000, orderId: 'o-1' } });
    expect(sale.isError).toBeFalsy();
    expect(sale.structuredContent.duplicate).toBe(false);
    const again = await app.request('POST', `/v2/campaign/${campaignId}/participant/${p.structuredContent.id}/transaction`, { key: acct.key, body: { currency: 'USD', grossAmount: 1000, orderId: 'o-1' } });
    expect(again.body.duplicate).toBe(true);
    const noId = error(await client.callTool({ name: 'growsurf_record_sale', arguments: { campaignId, participantId: p.structuredContent.id, currency: 'USD', grossAmount: 1000 } }));
    expect(noId.status).toBe(400);
    const refund: any = await client.callTool({ name: 'growsurf_refund_transaction', arguments: { campaignId, participantEmail: 'buyer@lovelace.dev', orderId: 'o-1' } });
    expect(refund.isError).toBeFalsy();
    expect(refund.structuredContent.success).toBe(true);
    const referral: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'REFERRAL', name: 'R' } });
    expect(referral.isError).toBeFalsy();
    const wrong = error(await client.callTool({ name: 'growsurf_record_sale', arguments: { campaignId: referral.structuredContent.id, participantId: p.structuredContent.id, currency: 'USD', grossAmount: 1, orderId: 'x' } }));
    expect(wrong.status).toBe(422);
    await client.close();
  });

  it('updates a Program Editor document through one fields argument and a reward by its id', async () => {
    const acct = await verifiedAccount(app);
    const client = await connect(app, acct.key);
    const program: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'REFERRAL', name: 'Docs' } });
    const campaignId = program.structuredContent.id;
    const before: any = await client.callTool({ name: 'growsurf_get_campaign_options', arguments: { campaignId } });
    expect(before.isError).toBeFalsy();
    const bad = error(await client.callTool({ name: 'growsurf_update_campaign_options', arguments: { campaignId, fields: { noSuchOption: true } } }));
    expect(bad.status).toBe(400);
    expect(error(await client.callTool({ name: 'growsurf_update_campaign_options', arguments: { campaignId } }))).toMatchObject({ errors: [{ field: 'fields', code: 'REQUIRED' }] });
    const reward: any = await client.callTool({ name: 'growsurf_create_campaign_reward', arguments: { campaignId, type: 'SINGLE_SIDED', title: 'Ten off' } });
    expect(reward.isError).toBeFalsy();
    const updated: any = await client.callTool({ name: 'growsurf_update_campaign_reward', arguments: { campaignId, campaignRewardId: reward.structuredContent.id, title: 'Twenty off' } });
    expect(updated.structuredContent.title).toBe('Twenty off');
    const rest = await app.request('GET', `/v2/campaign/${campaignId}/reward-configs`, { key: acct.key });
    expect(rest.body.rewards.find((r: any) => r.id === reward.structuredContent.id).title).toBe('Twenty off');
    const deleted: any = await client.callTool({ name: 'growsurf_delete_campaign_reward', arguments: { campaignId, campaignRewardId: reward.structuredContent.id } });
    expect(deleted.structuredContent).toMatchObject({ id: reward.structuredContent.id, success: true });
    await client.close();
  });
});

