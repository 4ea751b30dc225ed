// @vitest-environment happy-dom
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram, shareKey, type MobileProgramFixture } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { STORE_KEYS } from '../../widget/runtime.ts';
import { windowSuite, asServer, makeRuntime, queued, tokenFor } from './window-runtime.ts';

// Issue #7: the window bundle's boot and the window.growsurf methods, against a real server.

let app: TestApp;
windowSuite((a) => (app = a), { reset: () => delete (window as any).grsfConfig });

const DAY = 86_400_000;
const gs = () => (window as any).growsurf;
const rest = (p: MobileProgramFixture, who: string) => asServer(app, () => app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(who)}`, { key: p.key }));
const program = (opts: Parameters<typeof mobileProgram>[1] = {}) => asServer(app, () => mobileProgram(app, opts));
const participant = (p: MobileProgramFixture, body: Record<string, unknown>) => asServer(app, () => addParticipant(app, p, body));

describe('boot', () => {
  it('settles queued stub calls in order after boot, rejecting unknown methods', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    const a = queued('validateReferrer', ann.id);
    const b = queued('validateReferrer', 'nobody');
    const c = queued('noSuchMethod');
    const rt = await makeRuntime(app, p.pid, { queue: [a.call, b.call, c.call] });
    await boot(rt);
    expect(await a.result).toBe(true);
    expect(await b.result).toBe(false);
    await expect(c.result).rejects.toThrow(/noSuchMethod/);
    expect(rt.queue).toHaveLength(0);
    expect(typeof gs().open).toBe('function');
    expect((window as any).refloop.mobileInstanceId()).toBe(rt.instanceId);
  });

  it('creates a session once, keeps it in the store and replaces one the server rejects', async () => {
    const p = await program();
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    const stored = await rt.store.get<{ token: string; expiresAt: number }>(STORE_KEYS.sessionToken);
    expect(stored?.token).toMatch(/^s1\./);
    // A forged token the server answers 403 X-Session-Token INVALID: the client starts a new session and retries.
    const rt2 = await makeRuntime(app, p.pid);
    await rt2.store.set(STORE_KEYS.sessionToken, { token: `${stored!.token.slice(0, -3)}xyz`, expiresAt: Date.now() + 3_600_000 });
    await boot(rt2);
    expect(await gs().getCampaign()).toMatchObject({ id: p.pid });
    expect((await rt2.store.get<{ token: string }>(STORE_KEYS.sessionToken))?.token).not.toMatch(/xyz$/);
  });
});

describe('addParticipant and addReferredParticipant', () => {
  it('attaches the stored visit receipts, so the referrer gets the referral', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    const receipt = app.deps.receipts.sign(p.pid, ann.id, app.clock.now(), 30 * DAY);
    const rt = await makeRuntime(app, p.pid, { receipts: { firstVisit: receipt, lastVisit: receipt } });
    await boot(rt);
    const created = await gs().addParticipant({ email: 'bob@example.com', firstName: 'Bob', plan: 'pro' });
    expect(created).toMatchObject({ email: 'bob@example.com', firstName: 'Bob' });
    const bob = (await rest(p, 'bob@example.com')).body;
    expect(bob.referredBy).toBe(ann.id);
    expect(bob.metadata).toMatchObject({ plan: 'pro' });
    // The participant token came back and is kept: the window now shows Bob.
    expect(await rt.store.get(STORE_KEYS.participantToken)).toMatch(/^ey/);
    expect(gs().currentParticipantId()).toBe(bob.id);
  });

  it('attaches the pending referral code when there is no receipt yet', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    const rt = await makeRuntime(app, p.pid, { pending: { referralCode: shareKey(ann), capturedAt: Date.now() } });
    await boot(rt);
    await gs().addParticipant({ email: 'cy@example.com' });
    expect((await rest(p, 'cy@example.com')).body.referredBy).toBe(ann.id);
  });

  it('signs up without a referrer when the pending code names nobody', async () => {
    const p = await program();
    const rt = await makeRuntime(app, p.pid, { pending: { referralCode: 'nobody', capturedAt: Date.now() } });
    await boot(rt);
    expect(await gs().addParticipant({ email: 'dee@example.com' })).toMatchObject({ email: 'dee@example.com' });
    expect((await rest(p, 'dee@example.com')).body.referredBy ?? null).toBeNull();
  });

  it('resolves null for an email that already has a participant (no token is issued)', async () => {
    const p = await program();
    await participant(p, { email: 'ann@example.com' });
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(await gs().addParticipant({ email: 'ann@example.com' })).toBeNull();
    expect(await rt.store.get(STORE_KEYS.participantToken)).toBeUndefined();
  });

  it('addReferredParticipant answers added/validReferral/notAddedReason and fires the referral event', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(await gs().addReferredParticipant({ email: 'x@example.com' })).toMatchObject({ added: false, participant: null, validReferral: false, notAddedReason: 'no_referrer' });
    const seen: unknown[] = [];
    const off = gs().subscribe('referral', (d: unknown) => seen.push(d));
    const res = await gs().addReferredParticipant({ email: 'eve@example.com', referredBy: ann.id });
    expect(res).toMatchObject({ added: true, referredBy: ann.id, validReferral: true, participant: { email: 'eve@example.com' } });
    expect(seen).toHaveLength(1);
    expect(rt.fired.map((f) => f.name)).toContain('grsfReferral');
    off();
    await gs().addReferredParticipant({ email: 'fay@example.com', referredBy: ann.id });
    expect(seen).toHaveLength(1);
    // A bad call never throws into the page; it subscribes nothing.
    const none = gs().subscribe('nope', () => seen.push('nope'));
    expect(typeof none).toBe('function');
    none();
  });
});

describe('init and auto-authentication', () => {
  async function withSecret() {
    const p = await program();
    const ann = await participant(p, { email: 'Ann@Example.com' });
    const res = await asServer(app, () => app.request('POST', `/v2/campaign/${p.pid}/participant-auth-secret`, { key: p.key }));
    expect(res.status, res.text).toBe(200);
    const hash = (email: string) => crypto.createHmac('sha256', res.body.participantAuthSecret).update(email).digest('hex');
    return { p, ann, hash };
  }

  it('signs in from window.grsfConfig at boot', async () => {
    const { p, ann, hash } = await withSecret();
    (window as any).grsfConfig = { email: 'Ann@Example.com', hash: hash('Ann@Example.com') };
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(gs().currentParticipantId()).toBe(ann.id);
    expect(await rt.store.get(STORE_KEYS.participantToken)).toMatch(/^ey/);
  });

  it('signs in through init({email, hash}) and stays signed out on a wrong hash', async () => {
    const { p, ann, hash } = await withSecret();
    (window as any).grsfConfig = { email: 'Ann@Example.com', hash: 'ab'.repeat(32) };
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(gs().currentParticipantId()).toBeNull();
    await expect(gs().init({ email: 'Ann@Example.com', hash: 'ab'.repeat(32) })).rejects.toMatchObject({ status: 403 });
    expect(await gs().init({ email: 'Ann@Example.com', hash: hash('Ann@Example.com') })).toMatchObject({ id: ann.id });
  });
});

describe('validateReferrer, handleDeepLink, getUpfrontDiscount', () => {
  it('checks an explicit id, else the pending referral code, else answers false', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    let rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(await gs().validateReferrer(ann.id)).toBe(true);
    expect(await gs().validateReferrer()).toBe(false);
    rt = await makeRuntime(app, p.pid, { pending: { referralCode: shareKey(ann), capturedAt: Date.now() } });
    await boot(rt);
    expect(await gs().validateReferrer()).toBe(true);
    rt = await makeRuntime(app, p.pid, { pending: { referralCode: 'nobody', capturedAt: Date.now() } });
    await boot(rt);
    expect(await gs().validateReferrer()).toBe(false);
    // Without a code, the stored visit receipts name the referrer.
    const receipt = app.deps.receipts.sign(p.pid, ann.id, app.clock.now(), 30 * DAY);
    rt = await makeRuntime(app, p.pid, { receipts: { firstVisit: receipt, lastVisit: receipt } });
    await boot(rt);
    expect(await gs().validateReferrer()).toBe(true);
  });

  it('handleDeepLink answers null without a code, UTM or click id, and keeps a code as the pending referral', async () => {
    const p = await program();
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(await gs().handleDeepLink('https://shop.test/pricing?color=red')).toBeNull();
    const a = await gs().handleDeepLink('https://shop.test/?grsf=ann-key&utm_source=news#x');
    expect(a).toMatchObject({ referralCode: 'ann-key', utm: { utm_source: 'news' } });
    expect(await rt.pendingAttribution()).toMatchObject({ referralCode: 'ann-key' });
  });

  it('getUpfrontDiscount is synchronous and null when the window payload offers none', async () => {
    const p = await program();
    const rt = await makeRuntime(app, p.pid, { pending: { referralCode: 'x', capturedAt: Date.now() } });
    await boot(rt);
    expect(gs().getUpfrontDiscount()).toBeNull();
    expect(gs().getUpfrontDiscount('stripe')).toBeNull();
  });
});

describe('triggerReferral and shutdown', () => {
  it('triggerReferral refuses another participant’s email and reports the server’s 403 when the program disallows it', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    await gs().addReferredParticipant({ email: 'bob@example.com', referredBy: ann.id });
    await expect(gs().triggerReferral({ email: 'someone@example.com' })).rejects.toThrow(/signed-in participant/);
    await expect(gs().triggerReferral({ email: 'bob@example.com' })).rejects.toMatchObject({ status: 403 });
  });

  it('triggerReferral credits the referrer when the program allows client-side triggers', async () => {
    const p = await program({ options: { allowClientSideReferralTrigger: true } });
    const ann = await participant(p, { email: 'ann@example.com' });
    const bob = await tokenFor(app, p, 'bob@example.com', { referredBy: ann.id, referralStatus: 'CREDIT_PENDING' });
    const rt = await makeRuntime(app, p.pid, { participantToken: bob.participantToken });
    await boot(rt);
    expect(gs().currentParticipantId()).toBe(bob.participant.id);
    expect(await gs().triggerReferral({ email: 'bob@example.com' })).toMatchObject({ success: true });
    expect((await rest(p, 'bob@example.com')).body.referralStatus).toBe('CREDIT_AWARDED');
  });

  it('shutdown clears the session token, the participant token and the pending attribution', async () => {
    const p = await program();
    const rt = await makeRuntime(app, p.pid, { pending: { referralCode: 'abc', capturedAt: Date.now() }, receipts: { firstVisit: 'r1.x', lastVisit: 'r1.x' } });
    await boot(rt);
    await gs().addParticipant({ email: 'gus@example.com' });
    expect(await rt.store.get(STORE_KEYS.participantToken)).toBeTruthy();
    await gs().shutdown();
    expect(await rt.store.get(STORE_KEYS.participantToken)).toBeUndefined();
    expect(await rt.pendingAttribution()).toBeUndefined();
    expect(await rt.receipts()).toEqual({});
    expect(gs().participantToken()).toBeNull();
    expect(gs().currentParticipantId()).toBeNull();
    expect(await rt.store.get(STORE_KEYS.sessionToken)).toBeUndefined();
  });
});
