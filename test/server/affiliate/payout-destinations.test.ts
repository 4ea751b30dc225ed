import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { PAYOUT_REQUIRED_ACTIONS } from '../../../shared/schemas/participant.ts';

// Payout destinations (rest-v2 §2.34, §3.8 P14/P15, mobile rule 8), the confirmation page, the
// participant API counterparts, the window's provider list and payoutSettings.requiredActions (issue #6).

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

const HOUR = 3_600_000;

async function setup(opts: { type?: 'AFFILIATE' | 'REFERRAL'; providers?: string[]; verified?: boolean; requireTaxInfo?: boolean } = {}) {
  const type = opts.type ?? 'AFFILIATE';
  const p = await mobileProgram(app, { type, options: { payoutSettings: { enabledProviders: opts.providers ?? ['PAYPAL'], requireTaxInfo: opts.requireTaxInfo ?? false } } });
  if (opts.verified !== false) await app.deps.teams.approveVerification(p.teamId);
  return p;
}

/** A participant with a participant token (REST P10). */
async function member(p: MobileProgramFixture, email: string, extra: Record<string, unknown> = {}) {
  const res = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email, ...extra } });
  expect(res.status, res.text).toBe(200);
  return { id: res.body.participant.id as string, token: res.body.participantToken as string };
}

const status = (p: MobileProgramFixture, who: string, key = p.key) => app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(who)}/payout-destination`, { key });
const request = (p: MobileProgramFixture, who: string, body: unknown, key = p.key) =>
  app.request('POST', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(who)}/payout-destination/request-confirmation`, { key, body });
const mails = (to: string) => app.deps.mailer.list({ to });
/** The payout confirmation links emailed to `to`, newest first, on this server. */
const confirmLinks = async (to: string) => (await mails(to)).flatMap((m) => m.links.filter((l) => l.includes('/payout-confirm?token=')).map((l) => app.local(l)));
const confirmLink = async (to: string) => (await confirmLinks(to))[0]!;
const submit = (link: string, fields: Record<string, string>) =>
  fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
const FORM = (email: string) => ({ email, emailAgain: email, legalName: 'Ann Example', legalEntityType: 'INDIVIDUAL' });

async function limitedKey(teamId: string, scopes: string[]) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds: null, origin: 'CLI' })).secret;
}

describe('GET /campaign/{id}/participant/{participantIdOrEmail}/payout-destination', () => {
  it('lists every enabled provider as NONE until something happens, and payoutSettings asks for a destination', async () => {
    const p = await setup({ providers: ['WISECOM', 'PAYPAL'] });
    const ann = await member(p, 'ann@example.com');
    const res = await status(p, 'ann@example.com');
    expect(res.status, res.text).toBe(200);
    const none = { status: 'NONE', claimEmail: null, confirmedAt: null, legalEntityType: null, needsRepairReason: null };
    expect(res.body).toEqual({
      activeProvider: null,
      enabledProviders: ['PAYPAL', 'WISECOM'],
      destinations: [
        { provider: 'PAYPAL', providerDisplayName: 'PayPal', ...none },
        { provider: 'WISECOM', providerDisplayName: 'Wise', ...none },
      ],
    });
    const participant = await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key });
    expect(participant.body.payoutSettings).toEqual({ requiredActions: ['PAYPAL_EMAIL'] });
  });

  it('needs participant:read (403) and a known participant (400)', async () => {
    const p = await setup();
    await member(p, 'x@example.com');
    const writeOnly = await limitedKey(p.teamId, ['participant:write']);
    expect((await status(p, 'x@example.com', writeOnly)).status).toBe(403);
    const unknown = await status(p, 'nobody@example.com');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].code).toBe('PARTICIPANT_NOT_FOUND');
    expect((await app.request('GET', `/v2/campaign/nope/participant/x/payout-destination`, { key: p.key })).status).toBe(404);
  });
});

describe('POST …/payout-destination/request-confirmation and the confirmation page', () => {
  it('emails a one-time expiring link (hash stored); confirming makes the destination CONFIRMED and active', async () => {
    const p = await setup();
    const ann = await member(p, 'ann@example.com');
    const res = await request(p, ann.id, { provider: 'PAYPAL' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'CONFIRMATION_REQUESTED', provider: 'PAYPAL', providerDisplayName: 'PayPal', expiresAt: app.clock.now() + 24 * HOUR });
    const [mail] = await mails('ann@example.com').then((l) => l.filter((m) => m.kind === 'program.paypalEmailConfirmation'));
    expect(mail!.subject).toBe('Confirm your PayPal email');
    const link = await confirmLink('ann@example.com');
    const token = new URL(link).searchParams.get('token')!;
    const stored = await app.deps.db.knex('payout_confirmations').where({ participant_id: ann.id }).first();
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect((await status(p, ann.id)).body.destinations[0].status).toBe('PENDING_CONFIRMATION');

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Confirm your PayPal payout details');
    const mismatch = await submit(link, { ...FORM('pay@example.com'), emailAgain: 'other@example.com' });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain('The two email addresses are not the same.');
    const ok = await submit(link, FORM('pay@example.com'));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('are confirmed');

    const after = await status(p, ann.id);
    expect(after.body.activeProvider).toBe('PAYPAL');
    expect(after.body.destinations[0]).toEqual({ provider: 'PAYPAL', providerDisplayName: 'PayPal', status: 'CONFIRMED', claimEmail: 'pay@example.com', confirmedAt: app.clock.now(), legalEntityType: 'INDIVIDUAL', needsRepairReason: null });
    const participant = await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key });
    expect(participant.body).toMatchObject({ paypalEmailAddress: 'pay@example.com', payoutSettings: { requiredActions: [] } });
    expect(await app.deps.payoutDestinations.current(app.deps.db.knex, p.pid, ann.id)).toEqual({ provider: 'PAYPAL', account: 'pay@example.com', status: 'CONFIRMED', country: null });
    // One-time: the link is used up.
    const reused = await submit(link, FORM('evil@example.com'));
    expect(reused.status).toBe(400);
    expect(await reused.text()).toContain('already used');
    expect((await status(p, ann.id)).body.destinations[0].claimEmail).toBe('pay@example.com');
  });

  it('expires links, and a newer request replaces the older link', async () => {
    const p = await setup();
    const ann = await member(p, 'exp@example.com');
    await request(p, ann.id, { provider: 'PAYPAL' });
    const first = await confirmLink('exp@example.com');
    app.clock.advance(24 * HOUR);
    expect((await fetch(first)).status).toBe(410);
    expect((await status(p, ann.id)).body.destinations[0].status).toBe('EXPIRED');
    await request(p, ann.id, { provider: 'PAYPAL' });
    const second = await confirmLink('exp@example.com');
    expect(second).not.toBe(first);
    // At most one email a minute per participant and provider.
    const tooSoon = await request(p, ann.id, { provider: 'PAYPAL' });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body).toMatchObject({ code: 'RATE_LIMIT', name: 'RateLimit', policyName: 'PAYOUT_CONFIRMATION' });
    expect(tooSoon.headers.get('retry-after')).toBe('60');
    app.clock.advance(60_000);
    expect((await request(p, ann.id, { provider: 'PAYPAL' })).status).toBe(200);
    expect((await submit(second, FORM('a@example.com'))).status).toBe(400);
    expect((await status(p, ann.id)).body.destinations[0].status).toBe('PENDING_CONFIRMATION');
  });

  it('refuses a provider the program did not enable (400) and a bad body (400)', async () => {
    const p = await setup({ providers: ['PAYPAL'] });
    const ann = await member(p, 'np@example.com');
    const res = await request(p, ann.id, { provider: 'WISECOM' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: 'provider', code: 'PROVIDER_NOT_ENABLED' });
    expect((await request(p, ann.id, { provider: 'BANK' })).status).toBe(400);
    expect((await request(p, ann.id, {})).status).toBe(400);
  });

  it('Wise is for affiliate programs only (422 on referral programs) and for affiliates (406 for a customer)', async () => {
    const r = await setup({ type: 'REFERRAL', providers: ['PAYPAL'] });
    const bob = await member(r, 'bob@example.com');
    const wrong = await request(r, bob.id, { provider: 'WISECOM' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe('WRONG_PROGRAM_TYPE_ERROR');
    const patch = await app.request('PATCH', `/v2/campaign/${r.pid}/options`, { key: r.key, body: { payoutSettings: { enabledProviders: ['WISECOM'] } } });
    expect(patch.status).toBe(400);
    // PayPal pays referral programs too.
    expect((await request(r, bob.id, { provider: 'PAYPAL' })).status).toBe(200);

    const a = await setup({ providers: ['WISECOM'] });
    const boss = await member(a, 'boss@example.com');
    const customer = await app.request('POST', `/v2/campaign/${a.pid}/participant`, { key: a.key, body: { email: 'cust@example.com', referredBy: boss.id } });
    const refused = await request(a, customer.body.id, { provider: 'WISECOM' });
    expect(refused.status).toBe(406);
    expect(customer.body.payoutSettings.requiredActions).toEqual([]);
    expect((await request(a, boss.id, { provider: 'WISECOM' })).body.providerDisplayName).toBe('Wise');
    const [mail] = (await mails('boss@example.com')).filter((m) => m.kind === 'program.payoutDestinationConfirmation');
    expect(mail!.subject).toBe('Confirm your Wise payout details');
  });

  it('Venmo needs a US recipient (406 until the residency is US) and records the country', async () => {
    const p = await setup({ providers: ['PAYPAL', 'VENMO'] });
    const ann = await member(p, 'venmo@example.com');
    const s = await session(app, p);
    const refused = await request(p, ann.id, { provider: 'VENMO' });
    expect(refused.status).toBe(406);
    expect(refused.body.message).toContain('United States');
    let win = await mobile(app, 'GET', '/window', s, { participantToken: ann.token });
    expect(win.body.payoutSettings.payoutDestinations.enabledProviders).toEqual([
      { provider: 'PAYPAL', canConfirm: true },
      { provider: 'VENMO', canConfirm: false },
    ]);
    expect((await mobile(app, 'POST', '/participant/tax-info/residency', s, { participantToken: ann.token, body: { residencyCountryCode: 'US' } })).status).toBe(200);
    win = await mobile(app, 'GET', '/window', s, { participantToken: ann.token });
    expect(win.body.payoutSettings.payoutDestinations.enabledProviders[1]).toEqual({ provider: 'VENMO', canConfirm: true });
    // Signed out, nobody can confirm anything.
    const anon = await mobile(app, 'GET', '/window', s);
    expect(anon.body.payoutSettings.payoutDestinations.enabledProviders.map((e: { canConfirm: boolean }) => e.canConfirm)).toEqual([false, false]);

    expect((await request(p, ann.id, { provider: 'VENMO' })).status).toBe(200);
    expect((await submit(await confirmLink('venmo@example.com'), FORM('venmo-pay@example.com'))).status).toBe(200);
    expect(await app.deps.payoutDestinations.current(app.deps.db.knex, p.pid, ann.id)).toEqual({ provider: 'VENMO', account: 'venmo-pay@example.com', status: 'CONFIRMED', country: 'US' });
    const st = await status(p, ann.id);
    expect(st.body.activeProvider).toBe('VENMO');
    expect(st.body.destinations.map((d: { status: string }) => d.status)).toEqual(['NONE', 'CONFIRMED']);
  });

  it('answers 403 TEAM_NOT_VERIFIED_ERROR and sends nothing while the team is not verified', async () => {
    const p = await setup({ verified: false });
    const ann = await member(p, 'unv@example.com');
    const res = await request(p, ann.id, { provider: 'PAYPAL' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('TEAM_NOT_VERIFIED_ERROR');
    expect((await mails('unv@example.com')).filter((m) => m.kind.includes('Confirmation'))).toHaveLength(0);
    expect(await app.deps.db.knex('payout_confirmations').where({ participant_id: ann.id })).toHaveLength(0);
  });

  it('needs participant:write (403) and a known participant (400)', async () => {
    const p = await setup();
    await member(p, 'w@example.com');
    const readOnly = await limitedKey(p.teamId, ['participant:read']);
    expect((await request(p, 'w@example.com', { provider: 'PAYPAL' }, readOnly)).status).toBe(403);
    expect((await request(p, 'nobody@example.com', { provider: 'PAYPAL' })).status).toBe(400);
  });
});

describe('payoutSettings.requiredActions (issue #19)', () => {
  /** The exact enum the official Python client 1.2.1 and MCP server 0.10.0 validate against. */
  const OFFICIAL = ['PAYPAL_EMAIL', 'TAX_INFO'];

  it('issue #19: a missing payout destination of any provider is PAYPAL_EMAIL, and every value is one the official clients accept', async () => {
    expect([...PAYOUT_REQUIRED_ACTIONS]).toEqual(OFFICIAL);
    const p = await setup({ providers: ['WISECOM'], requireTaxInfo: true });
    const ann = await member(p, 'wise-only@example.com');
    const s = await session(app, p);
    const one = await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key });
    const list = await app.request('GET', `/v2/campaign/${p.pid}/participants`, { key: p.key });
    const own = await mobile(app, 'GET', '/participant', s, { participantToken: ann.token });
    for (const res of [one, list, own]) expect(res.status, res.text).toBe(200);
    const listed = list.body.participants.find((x: { id: string }) => x.id === ann.id);
    for (const body of [one.body, listed, own.body]) {
      expect(body.payoutSettings).toEqual({ requiredActions: ['PAYPAL_EMAIL', 'TAX_INFO'] });
      for (const action of body.payoutSettings.requiredActions) expect(OFFICIAL).toContain(action);
    }
  });

  it('issue #19: the OpenAPI document types requiredActions as that enum', async () => {
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    expect(doc.components.schemas.PayoutSettings.properties.requiredActions.items.enum).toEqual(OFFICIAL);
  });
});

describe('participant API: payout destinations', () => {
  it('reads the status, requests a confirmation (with success) and the PayPal confirmation email', async () => {
    const p = await setup({ providers: ['PAYPAL', 'WISECOM'] });
    const ann = await member(p, 'mob@example.com');
    const s = await session(app, p);
    const st = await mobile(app, 'GET', '/participant/payout-destination', s, { participantToken: ann.token });
    expect(st.status, st.text).toBe(200);
    expect(st.body.enabledProviders).toEqual(['PAYPAL', 'WISECOM']);
    const req = await mobile(app, 'POST', '/participant/payout-destination/request-confirmation', s, { participantToken: ann.token, body: { provider: 'WISECOM' } });
    expect(req.status, req.text).toBe(200);
    expect(req.body).toEqual({ success: true, status: 'CONFIRMATION_REQUESTED', provider: 'WISECOM', providerDisplayName: 'Wise', expiresAt: app.clock.now() + 24 * HOUR });
    const pp = await mobile(app, 'POST', '/participant/paypal-confirmation-email', s, { participantToken: ann.token });
    expect(pp.status, pp.text).toBe(200);
    expect(pp.body).toEqual({ success: true });
    expect((await mails('mob@example.com')).filter((m) => m.kind === 'program.paypalEmailConfirmation')).toHaveLength(1);
    expect((await mobile(app, 'POST', '/participant/payout-destination/request-confirmation', s, { participantToken: ann.token, body: { provider: 'VENMO' } })).status).toBe(400);
    expect((await mobile(app, 'GET', '/participant/payout-destination', s)).status).toBe(403);
  });

  it('Wise answers 422 on referral programs through the participant API too', async () => {
    const r = await setup({ type: 'REFERRAL' });
    const bob = await member(r, 'bob@example.com');
    const s = await session(app, r);
    const res = await mobile(app, 'POST', '/participant/payout-destination/request-confirmation', s, { participantToken: bob.token, body: { provider: 'WISECOM' } });
    expect(res.status).toBe(422);
  });
});
