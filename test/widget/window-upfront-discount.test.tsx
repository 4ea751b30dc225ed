// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram, shareKey, type MobileProgramFixture } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { state } from '../../widget/window/state.ts';
import { windowSuite, asServer, makeRuntime } from './window-runtime.ts';

// Issue #25: growsurf.getUpfrontDiscount(type?) answers, synchronously, the referral program's
// referred-friend discount (a DOUBLE_SIDED reward with referredRewardUpfront and a
// referralCouponCode, carried by the window payload's upfrontDiscount) to a referred visitor.

let app: TestApp;
windowSuite((a) => (app = a), { reset: () => delete (window as any).grsfConfig });

const gs = () => (window as any).growsurf;
const program = (type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL') => asServer(app, () => mobileProgram(app, { type }));
const participant = (p: MobileProgramFixture, body: Record<string, unknown>) => asServer(app, () => addParticipant(app, p, body));
const reward = (p: MobileProgramFixture, body: Record<string, unknown>) =>
  asServer(app, async () => {
    const res = await app.request('POST', `/v2/campaign/${p.pid}/reward-configs`, { key: p.key, body });
    expect(res.status, res.text).toBe(200);
    return res.body;
  });

/** Boots the window for a visitor (referred by `code`, or not) and waits for the window payload. */
async function visit(p: MobileProgramFixture, code: string | null) {
  const rt = await makeRuntime(app, p.pid, code ? { pending: { referralCode: code, capturedAt: Date.now() } } : {});
  state.value = { status: 'loading' };
  await boot(rt);
  await expect.poll(() => state.value.status, { timeout: 10_000 }).toBe('ready');
}

const UPFRONT = {
  type: 'DOUBLE_SIDED',
  description: '$10 credit',
  referralDescription: '20% off your first month',
  referredRewardUpfront: true,
  referralCouponCode: 'FRIEND20',
  metadata: { stripeCouponId: 'coupon_friend20' },
};

describe('getUpfrontDiscount', () => {
  it('answers the upfront discount synchronously to a referred visitor, filtered by integration', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    await reward(p, UPFRONT);
    await visit(p, shareKey(ann));
    const got = gs().getUpfrontDiscount();
    // Not a promise: the sources call it without await (web-sdk.md §6).
    expect(got).not.toBeInstanceOf(Promise);
    expect(got).toEqual({ integration: 'stripe', promotionCode: 'FRIEND20', couponId: 'coupon_friend20' });
    expect(gs().getUpfrontDiscount('stripe')).toEqual(got);
    expect(gs().getUpfrontDiscount('chargebee')).toBeNull();
  });

  it('answers null to a visitor who was not referred', async () => {
    const p = await program();
    await reward(p, UPFRONT);
    await visit(p, null);
    expect(gs().getUpfrontDiscount()).toBeNull();
  });

  it('answers null when no reward gives the discount up front, and couponId null without the metadata', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    await reward(p, { ...UPFRONT, referredRewardUpfront: false });
    await visit(p, shareKey(ann));
    expect(gs().getUpfrontDiscount()).toBeNull();
    const q = await program();
    const bea = await participant(q, { email: 'bea@example.com' });
    await reward(q, { ...UPFRONT, metadata: {} });
    await visit(q, shareKey(bea));
    expect(gs().getUpfrontDiscount()).toEqual({ integration: 'stripe', promotionCode: 'FRIEND20', couponId: null });
  });
});
