import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { addParticipant, commissionsOf, limitedKey, moneyProgram } from '../../helpers/money.ts';
import { connectStripe, deliver, eventLog, stripeEvent } from './stripe-helpers.ts';
import { stripeDiscountRefs } from '../../../server/domain/billing/codes.ts';

// BC1–BC4, participants' coupon and promotion codes, and a Stripe sale attributed by its code
// alone (issue #25, docs/integrations.md "Codes").

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
});
afterAll(async () => {
  await app.close();
});

const codesOf = (pid: string, participant: string) => `/v2/campaign/${pid}/participant/${encodeURIComponent(participant)}/codes`;

describe('POST /campaign/:id/participant/:p/codes', () => {
  it('adds codes to a participant, lists them per participant and per program, and deletes one', async () => {
    const p = await moneyProgram(app);
    const first = await app.request('POST', codesOf(p.pid, p.affiliate.email), { key: p.key, body: { code: 'Jane20', stripePromotionCodeId: 'promo_1PqJane20' } });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ id: expect.any(String), participantId: p.affiliate.id, code: 'Jane20', stripePromotionCodeId: 'promo_1PqJane20', stripeCouponId: null, paddleDiscountId: null, createdAt: app.clock.now() });
    app.clock.advance(1000);
    const second = await app.request('POST', codesOf(p.pid, p.affiliate.id), { key: p.key, body: { code: 'JANE-PADDLE', paddleDiscountId: 'dsc_01hv8x2a3b', stripeCouponId: 'JANECOUPON' } });
    expect(second.status, second.text).toBe(200);
    const other = await app.request('POST', codesOf(p.pid, p.customer.id), { key: p.key, body: { code: 'CUST5', stripeCouponId: 'cust5' } });
    expect(other.status, other.text).toBe(200);

    const mine = await app.request('GET', codesOf(p.pid, p.affiliate.id), { key: p.key });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.codes.map((c: { code: string }) => c.code)).toEqual(['Jane20', 'JANE-PADDLE']);
    const all = await app.request('GET', `/v2/campaign/${p.pid}/codes?limit=2`, { key: p.key });
    expect(all.body.codes.map((c: { code: string }) => c.code)).toEqual(['CUST5', 'JANE-PADDLE']);
    expect(all.body.nextId).toBe(first.body.id);
    const rest = await app.request('GET', `/v2/campaign/${p.pid}/codes?limit=2&nextId=${all.body.nextId}`, { key: p.key });
    expect(rest.body).toMatchObject({ codes: [expect.objectContaining({ code: 'Jane20' })], nextId: null });

    const gone = await app.request('DELETE', `/v2/campaign/${p.pid}/codes/${first.body.id}`, { key: p.key });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toEqual({ id: first.body.id, success: true });
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/codes/${first.body.id}`, { key: p.key })).status).toBe(404);
    expect((await app.request('GET', codesOf(p.pid, p.affiliate.id), { key: p.key })).body.codes.map((c: { code: string }) => c.code)).toEqual(['JANE-PADDLE']);
    // The freed code can be used again.
    expect((await app.request('POST', codesOf(p.pid, p.customer.id), { key: p.key, body: { code: 'jane20', stripePromotionCodeId: 'promo_1PqJane20' } })).status).toBe(200);
  });

  it('answers 400 with the field for a bad or taken code, case-insensitively, and writes nothing', async () => {
    const p = await moneyProgram(app);
    expect((await app.request('POST', codesOf(p.pid, p.affiliate.id), { key: p.key, body: { code: 'SAVE10', stripePromotionCodeId: 'promo_save10' } })).status).toBe(200);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code: 'NOMAP' }, 'stripePromotionCodeId'],
      [{ code: 'x', stripeCouponId: 'c1' }, 'code'],
      [{ code: 'has space', stripeCouponId: 'c1' }, 'code'],
      [{ code: 'OK1', stripePromotionCodeId: 'coupon_not_promo' }, 'stripePromotionCodeId'],
      [{ code: 'OK1', paddleDiscountId: 'pri_123' }, 'paddleDiscountId'],
      [{ code: 'OK1', stripeCouponId: 'c1', extra: true }, ''],
      [{ code: 'save10', stripeCouponId: 'c2' }, 'code'],
      [{ code: 'OTHER', stripePromotionCodeId: 'promo_save10' }, 'stripePromotionCodeId'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('POST', codesOf(p.pid, p.customer.id), { key: p.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      if (field) expect(res.body.errors.map((e: { field: string }) => e.field), JSON.stringify(body)).toContain(field);
    }
    const taken = await app.request('POST', codesOf(p.pid, p.customer.id), { key: p.key, body: { code: 'Save10', stripeCouponId: 'c3' } });
    expect(taken.body.errors).toEqual([expect.objectContaining({ field: 'code', code: 'CODE_TAKEN' })]);
    const unknown = await app.request('POST', codesOf(p.pid, 'nobody@example.com'), { key: p.key, body: { code: 'NEW1', stripeCouponId: 'c4' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'PARTICIPANT_NOT_FOUND' });
    expect((await app.request('GET', `/v2/campaign/${p.pid}/codes`, { key: p.key })).body.codes.length).toBe(1);
    // Another program may use the same code and ids.
    const q = await moneyProgram(app);
    expect((await app.request('POST', codesOf(q.pid, q.affiliate.id), { key: q.key, body: { code: 'SAVE10', stripePromotionCodeId: 'promo_save10' } })).status).toBe(200);
  });

  it('answers 403 without participant:write, and to another team’s key', async () => {
    const p = await moneyProgram(app);
    const made = await app.request('POST', codesOf(p.pid, p.affiliate.id), { key: p.key, body: { code: 'MINE1', stripeCouponId: 'mine1' } });
    expect(made.status).toBe(200);
    const reader = await limitedKey(app, p.teamId, ['participant:read']);
    expect((await app.request('POST', codesOf(p.pid, p.affiliate.id), { key: reader, body: { code: 'READER', stripeCouponId: 'r1' } })).status).toBe(403);
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/codes/${made.body.id}`, { key: reader })).status).toBe(403);
    expect((await app.request('GET', codesOf(p.pid, p.affiliate.id), { key: reader })).status).toBe(200);
    const stranger = await verifiedAccount(app);
    for (const [method, path] of [['POST', codesOf(p.pid, p.affiliate.id)], ['GET', codesOf(p.pid, p.affiliate.id)], ['GET', `/v2/campaign/${p.pid}/codes`], ['DELETE', `/v2/campaign/${p.pid}/codes/${made.body.id}`]] as const) {
      const res = await app.request(method, path, { key: stranger.key, ...(method === 'POST' ? { body: { code: 'THEIRS', stripeCouponId: 't1' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    // A stranger's own program cannot delete this program's code by id either.
    const theirs = await moneyProgram(app);
    expect((await app.request('DELETE', `/v2/campaign/${theirs.pid}/codes/${made.body.id}`, { key: theirs.key })).status).toBe(404);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/codes`, { key: p.key })).body.codes.map((c: { code: string }) => c.code)).toEqual(['MINE1']);
  });

  it('deletes a participant’s codes with the participant', async () => {
    const p = await moneyProgram(app);
    const other = await addParticipant(app, p.key, p.pid, { email: `leaving-${p.pid}@example.com` });
    expect((await app.request('POST', codesOf(p.pid, other.id), { key: p.key, body: { code: 'LEAVING', stripePromotionCodeId: 'promo_leaving' } })).status).toBe(200);
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/participant/${other.id}`, { key: p.key })).status).toBe(200);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/codes`, { key: p.key })).body.codes).toEqual([]);
    // The code is free again.
    expect((await app.request('POST', codesOf(p.pid, p.affiliate.id), { key: p.key, body: { code: 'leaving', stripePromotionCodeId: 'promo_leaving' } })).status).toBe(200);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(expect.arrayContaining(['/campaign/{id}/participant/{participantIdOrEmail}/codes', '/campaign/{id}/codes', '/campaign/{id}/codes/{codeId}']));
  });
});

describe('Stripe sales attributed by a code', () => {
  /** A paid Checkout Session of a new customer, with no referral, that used `discount`. */
  function discounted(discount: Record<string, unknown>, opts: { eventId?: string; email?: string; pi?: string } = {}) {
    return stripeEvent('checkout.session.completed.payment', (e, o) => {
      if (opts.eventId) e.id = opts.eventId;
      o.client_reference_id = null;
      o.metadata = {};
      if (opts.email) o.customer_details.email = opts.email;
      if (opts.pi) o.payment_intent = opts.pi;
      o.amount_subtotal = 12_500;
      o.amount_total = 10_000;
      o.total_details.amount_discount = 2_500;
      o.discounts = [discount];
    });
  }

  it('records a promotion-code sale with no visit and no referral for the code’s owner, and logs why', async () => {
    const p = await moneyProgram(app);
    const { path: endpoint } = await connectStripe(app, p.key, p.pid);
    expect((await app.request('POST', codesOf(p.pid, p.affiliate.id), { key: p.key, body: { code: 'AFF25', stripePromotionCodeId: 'promo_1QAff25' } })).status).toBe(200);
    const res = await deliver(app, endpoint, discounted({ coupon: null, promotion_code: 'promo_1QAff25' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: 'ACCEPTED' });
    const customer = await app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent('jenny.rosen@example.com')}`, { key: p.key });
    expect(customer.status, customer.text).toBe(200);
    expect(customer.body.referrer).toMatchObject({ id: p.affiliate.id });
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ event: 'SALE', amount: 1000, saleAmount: 10_000, referredId: customer.body.id });
    const [logged] = await eventLog(app, p.key, p.pid);
    expect(logged).toMatchObject({ outcome: 'ACCEPTED', participantId: customer.body.id });
    expect(logged!.reason).toContain('Stripe promotion code promo_1QAff25');
    expect(logged!.reason).toContain(`code AFF25 of participant ${p.affiliate.id}`);
  });

  it('matches a coupon used on its own (expanded breakdown) and leaves an unmapped code unattributed', async () => {
    const p = await moneyProgram(app);
    const { path: endpoint } = await connectStripe(app, p.key, p.pid);
    expect((await app.request('POST', codesOf(p.pid, p.affiliate.id), { key: p.key, body: { code: 'AFFCOUPON', stripeCouponId: 'aff-coupon-25' } })).status).toBe(200);
    const unmapped = await deliver(app, endpoint, discounted({ coupon: 'someone-elses', promotion_code: null }, { eventId: 'evt_unmapped', pi: 'pi_unmapped' }));
    expect(unmapped.body.outcome).toBe('UNATTRIBUTED');
    const expanded = stripeEvent('checkout.session.completed.payment', (e, o) => {
      e.id = 'evt_coupon_breakdown';
      o.client_reference_id = null;
      o.customer_details.email = `coupon-buyer-${p.pid}@example.com`;
      o.total_details.breakdown = { discounts: [{ amount: 2_500, discount: { id: 'di_1', object: 'discount', coupon: { id: 'aff-coupon-25', object: 'coupon', percent_off: 20 }, promotion_code: null } }], taxes: [] };
    });
    expect((await deliver(app, endpoint, expanded)).body.outcome).toBe('ACCEPTED');
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ event: 'SALE', referrerId: p.affiliate.id });
    const log = await eventLog(app, p.key, p.pid);
    expect(log.map((e) => e.outcome)).toEqual(['ACCEPTED', 'UNATTRIBUTED']);
    expect(log[0]!.reason).toContain('Stripe coupon aff-coupon-25');
  });

  it('keeps an existing customer’s own referrer when they use another participant’s code', async () => {
    const p = await moneyProgram(app);
    const { path: endpoint } = await connectStripe(app, p.key, p.pid);
    const other = await addParticipant(app, p.key, p.pid, { email: `other-${p.pid}@example.com` });
    expect((await app.request('POST', codesOf(p.pid, other.id), { key: p.key, body: { code: 'OTHER10', stripePromotionCodeId: 'promo_other10' } })).status).toBe(200);
    expect((await deliver(app, endpoint, discounted({ promotion_code: 'promo_other10' }, { email: p.customer.email }))).body.outcome).toBe('ACCEPTED');
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ referredId: p.customer.id, referrerId: p.affiliate.id });
  });
});

describe('stripeDiscountRefs', () => {
  it('reads promotion codes and coupons from sessions and invoices of old and new API versions', () => {
    expect(stripeDiscountRefs({ discounts: [{ coupon: 'c1', promotion_code: 'promo_1' }] })).toEqual({ stripePromotionCodeIds: ['promo_1'], stripeCouponIds: ['c1'], codes: [] });
    expect(stripeDiscountRefs({ discounts: ['di_unexpanded'], discount: { coupon: { id: 'c2' }, promotion_code: { id: 'promo_2', code: 'SAVE' } } })).toEqual({ stripePromotionCodeIds: ['promo_2'], stripeCouponIds: ['c2'], codes: ['SAVE'] });
    expect(stripeDiscountRefs({ total_discount_amounts: [{ amount: 5, discount: { source: { coupon: 'c3', type: 'coupon' }, promotion_code: null } }] })).toEqual({ stripePromotionCodeIds: [], stripeCouponIds: ['c3'], codes: [] });
    expect(stripeDiscountRefs(null)).toEqual({ stripePromotionCodeIds: [], stripeCouponIds: [], codes: [] });
  });
});
