import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import type { Scope } from '../../../shared/scopes.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

type Account = Awaited<ReturnType<typeof verifiedAccount>>;

async function newProgram(key: string, body: Record<string, unknown> = { type: 'REFERRAL', rewards: [] }) {
  const res = await app.request('POST', '/v2/campaigns', { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function keyWith(acct: Account, scopes: Scope[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes, programIds, origin: 'CLI' })).secret;
}

const rc = (programId: string, rewardId?: string) => `/v2/campaign/${programId}/reward-configs${rewardId ? `/${rewardId}` : ''}`;

async function create(key: string, programId: string, body: Record<string, unknown>) {
  const res = await app.request('POST', rc(programId), { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function list(key: string, programId: string) {
  const res = await app.request('GET', rc(programId), { key });
  expect(res.status, res.text).toBe(200);
  return res.body.rewards as any[];
}

async function setReferralTrigger(programId: string, referralTrigger: 'ON_SIGNUP' | 'CUSTOM') {
  const row = await app.deps.db.knex('programs').where({ id: programId }).first('installation');
  await app.deps.db
    .knex('programs')
    .where({ id: programId })
    .update({ installation: JSON.stringify({ ...JSON.parse(row.installation), referralTrigger }) });
}

const affiliateCommission = { type: 'PERCENT', percent: 25, event: 'SALE' };

describe('GET /campaign/{id}/reward-configs', () => {
  it('lists live configurations by order then creation, hidden ones included', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const a = await create(acct.key, p.id, { type: 'SINGLE_SIDED', order: 5 });
    const b = await create(acct.key, p.id, { type: 'DOUBLE_SIDED', order: 1, isVisible: false });
    const c = await create(acct.key, p.id, { type: 'LEADERBOARD', order: 5 });
    const rewards = await list(acct.key, p.id);
    expect(rewards.map((r) => r.id)).toEqual([b.id, a.id, c.id]);
    expect(rewards[0]).toEqual(b);
    expect(rewards[0].isVisible).toBe(false);
  });

  it('answers 403 without program:read and for a key not granted the program', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const writeOnly = await keyWith(acct, ['program:write']);
    const noScope = await app.request('GET', rc(p.id), { key: writeOnly });
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect(noScope.body.message).toMatch(/program:read/);
    const other = await newProgram(acct.key);
    const limited = await keyWith(acct, ['program:read', 'program:write'], [other.id]);
    const notGranted = await app.request('GET', rc(p.id), { key: limited });
    expect(notGranted.status).toBe(403);
    expect(notGranted.body.message).toMatch(/not allowed to access this program/);
  });

  it('answers 404 for an unknown program', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('GET', rc('doesnotexist'), { key: acct.key });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND_ERROR');
  });

  it('ignores query parameters: RC1 takes none, so there is nothing to reject', async () => {
    // RC1 has no body or query to validate; extra query keys are ignored like every list without filters.
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const res = await app.request('GET', `${rc(p.id)}?limit=5`, { key: acct.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ rewards: [] });
  });
});

describe('POST /campaign/{id}/reward-configs', () => {
  it('creates a DOUBLE_SIDED reward with every wire field and its defaults', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const res = await app.request('POST', rc(p.id), { key: acct.key, body: { type: 'DOUBLE_SIDED' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^crew_[a-z0-9]{20}$/),
      type: 'DOUBLE_SIDED',
      isUnlimited: true,
      metadata: {},
      title: null,
      isVisible: true,
      event: 'CONVERSION',
      description: null,
      referralDescription: null,
      referredRewardUpfront: false,
      limit: -1,
      limitDuration: 'IN_TOTAL',
      conversionsRequired: 1,
      numberOfWinners: null,
      order: 0,
      imageUrl: null,
      couponCode: null,
      referralCouponCode: null,
      nextMilestonePrefix: null,
      nextMilestoneSuffix: null,
      commissionStructure: null,
      value: null,
      referredValue: null,
    });
    expect(Object.keys(res.body)).toEqual([
      'id',
      'type',
      'isUnlimited',
      'metadata',
      'title',
      'isVisible',
      'event',
      'description',
      'referralDescription',
      'referredRewardUpfront',
      'limit',
      'limitDuration',
      'conversionsRequired',
      'numberOfWinners',
      'order',
      'imageUrl',
      'couponCode',
      'referralCouponCode',
      'nextMilestonePrefix',
      'nextMilestoneSuffix',
      'commissionStructure',
      'value',
      'referredValue',
    ]);
  });

  it('round-trips every field it accepts, metadata values as strings', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const body = {
      type: 'DOUBLE_SIDED',
      title: 'Give $10, get $10',
      event: 'CONVERSION',
      description: 'You get $10 for each friend.',
      referralDescription: 'Your friend gets $10 off.',
      imageUrl: 'https://cdn.example.com/reward.png',
      isVisible: false,
      isUnlimited: false,
      referredRewardUpfront: true,
      limit: 3,
      limitDuration: 'PER_YEAR',
      conversionsRequired: 2,
      order: 7,
      couponCode: 'THANKS10',
      referralCouponCode: 'WELCOME10',
      metadata: { amount: 10, tier: 'gold', vip: true },
      value: { fairMarketValueUSD: 10.5, taxCharacter: 'PRIZE_OR_AWARD' },
      referredValue: { fairMarketValueUSD: 10, taxCharacter: 'PURCHASE_REBATE' },
    };
    const created = await create(acct.key, p.id, body);
    expect(created).toMatchObject({ ...body, metadata: { amount: '10', tier: 'gold', vip: 'true' } });
    expect(created.numberOfWinners).toBeNull();
    expect((await list(acct.key, p.id))[0]).toEqual(created);
  });

  it('defaults MILESTONE to earn once and requires conversionsRequired', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const missing = await app.request('POST', rc(p.id), { key: acct.key, body: { type: 'MILESTONE' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'conversionsRequired', code: 'REQUIRED' })]);
    const m = await create(acct.key, p.id, { type: 'MILESTONE', conversionsRequired: 5, nextMilestonePrefix: 'Refer', nextMilestoneSuffix: 'more' });
    expect(m).toMatchObject({ isUnlimited: false, limit: 1, conversionsRequired: 5, event: 'CONVERSION', nextMilestonePrefix: 'Refer', nextMilestoneSuffix: 'more' });
  });

  it('gives LEADERBOARD three winners by default and no event key', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const l = await create(acct.key, p.id, { type: 'LEADERBOARD', limitDuration: 'PER_MONTH' });
    expect(l).toMatchObject({ numberOfWinners: 3, limitDuration: 'PER_MONTH', isUnlimited: true });
    expect('event' in l).toBe(false);
  });

  it('creates an AFFILIATE reward with a complete commission structure in the program currency', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key, { type: 'AFFILIATE', currencyISO: 'EUR', rewards: [] });
    const r = await create(acct.key, p.id, {
      type: 'AFFILIATE',
      title: 'Lead bonus',
      commissionStructure: { type: 'FIXED', amount: 500, event: 'LEAD', holdDuration: 14, hasMaxAmount: true, maxAmount: 5000 },
      value: { fairMarketValueUSD: 5 },
    });
    expect(r.commissionStructure).toEqual({
      type: 'FIXED',
      percent: null,
      amount: 500,
      amountISO: 'EUR',
      event: 'LEAD',
      minPaidReferrals: 1,
      holdDuration: 14,
      duration: 'FOREVER',
      durationInMonths: null,
      approvalRequired: false,
      hasMaxAmount: true,
      maxAmount: 5000,
      maxAmountISO: 'EUR',
      hasIntro: false,
      introType: null,
      introPercent: null,
      introAmount: null,
      introAmountISO: null,
      introDuration: null,
      introDurationInMonths: null,
    });
    expect(r.value).toEqual({ fairMarketValueUSD: 5, taxCharacter: 'NONEMPLOYEE_SERVICES' });
    expect(r).toMatchObject({ type: 'AFFILIATE', conversionsRequired: null, referredValue: null });
    expect('event' in r).toBe(false);
    const sale = await create(acct.key, p.id, {
      type: 'AFFILIATE',
      commissionStructure: {
        type: 'PERCENT',
        percent: 20,
        duration: 'REPEATING',
        durationInMonths: 12,
        hasIntro: true,
        introType: 'PERCENT',
        introPercent: 50,
        introDuration: 'REPEATING',
        introDurationInMonths: 3,
      },
    });
    expect(sale.commissionStructure).toMatchObject({ type: 'PERCENT', percent: 20, amountISO: null, event: 'SALE', durationInMonths: 12, introPercent: 50, introDurationInMonths: 3 });
  });

  it('answers 400 on type when the reward type does not fit the program type', async () => {
    const acct = await verifiedAccount(app);
    const referral = await newProgram(acct.key);
    const affiliate = await newProgram(acct.key, { type: 'AFFILIATE', rewards: [] });
    const a = await app.request('POST', rc(referral.id), { key: acct.key, body: { type: 'AFFILIATE', commissionStructure: affiliateCommission } });
    expect(a.status).toBe(400);
    expect(a.body.errors).toContainEqual(expect.objectContaining({ field: 'type', code: 'INVALID_VALUE' }));
    for (const type of ['SINGLE_SIDED', 'DOUBLE_SIDED', 'LEADERBOARD']) {
      const b = await app.request('POST', rc(affiliate.id), { key: acct.key, body: { type } });
      expect(b.status, type).toBe(400);
      expect(b.body.errors[0]).toMatchObject({ field: 'type', code: 'INVALID_VALUE' });
    }
    expect(await list(acct.key, referral.id)).toEqual([]);
  });

  it('rejects fields that do not apply to the reward type, unknown fields and bad values with 400', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'SINGLE_SIDED', referralDescription: 'x' }, 'referralDescription'],
      [{ type: 'SINGLE_SIDED', referredRewardUpfront: true }, 'referredRewardUpfront'],
      [{ type: 'MILESTONE', conversionsRequired: 2, referralCouponCode: 'X' }, 'referralCouponCode'],
      [{ type: 'SINGLE_SIDED', referredValue: { fairMarketValueUSD: 1 } }, 'referredValue'],
      [{ type: 'DOUBLE_SIDED', numberOfWinners: 5 }, 'numberOfWinners'],
      [{ type: 'DOUBLE_SIDED', commissionStructure: affiliateCommission }, 'commissionStructure'],
      [{ type: 'LEADERBOARD', event: 'CONVERSION' }, 'event'],
      [{ type: 'SINGLE_SIDED', nextMilestonePrefix: 'Refer' }, 'nextMilestonePrefix'],
      [{ type: 'SINGLE_SIDED', conversionsRequired: 0 }, 'conversionsRequired'],
      [{ type: 'SINGLE_SIDED', limit: -2 }, 'limit'],
      [{ type: 'SINGLE_SIDED', limitDuration: 'PER_WEEK' }, 'limitDuration'],
      [{ type: 'SINGLE_SIDED', imageUrl: 'javascript:alert(1)' }, 'imageUrl'],
      [{ type: 'SINGLE_SIDED', title: '' }, 'title'],
      [{ type: 'SINGLE_SIDED', metadata: { nested: { a: 1 } } }, 'metadata.nested'],
      [{ type: 'SINGLE_SIDED', value: { fairMarketValueUSD: -1 } }, 'value.fairMarketValueUSD'],
      [{ type: 'SINGLE_SIDED', value: { fairMarketValueUSD: 1, taxCharacter: 'OTHER_INCOME', isTaxReportable: true } }, 'value.isTaxReportable'],
      [{ type: 'SINGLE_SIDED', value: { taxCharacter: 'GIFT' } }, 'value.taxCharacter'],
      [{ type: 'SINGLE_SIDED', points: 5 }, 'points'],
      [{ type: 'LOYALTY' }, 'type'],
      [{}, 'type'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('POST', rc(p.id), { key: acct.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST_ERROR');
      expect(res.body.errors.map((e: { field: string }) => e.field), JSON.stringify(body)).toContain(field);
    }
    expect(await list(acct.key, p.id)).toEqual([]);
  });

  it('accepts the older {fairMarketValueUSD, isTaxReportable} valuation and returns taxCharacter', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const r = await create(acct.key, p.id, {
      type: 'DOUBLE_SIDED',
      value: { fairMarketValueUSD: 25, isTaxReportable: true },
      referredValue: { fairMarketValueUSD: null, isTaxReportable: false },
    });
    expect(r.value).toEqual({ fairMarketValueUSD: 25, taxCharacter: 'OTHER_INCOME' });
    expect(r.referredValue).toEqual({ fairMarketValueUSD: null, taxCharacter: 'PURCHASE_REBATE' });
  });

  it('rejects event LEAD unless the program’s referral trigger is CUSTOM', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const denied = await app.request('POST', rc(p.id), { key: acct.key, body: { type: 'SINGLE_SIDED', event: 'LEAD' } });
    expect(denied.status).toBe(400);
    expect(denied.body.errors).toEqual([expect.objectContaining({ field: 'event', code: 'INVALID_VALUE' })]);
    await setReferralTrigger(p.id, 'CUSTOM');
    const ok = await create(acct.key, p.id, { type: 'SINGLE_SIDED', event: 'LEAD' });
    expect(ok.event).toBe('LEAD');
  });

  it('enforces the commission rules: CLICK/LEAD fixed and positive, REPEATING months, caps and intros consistent, closed object', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key, { type: 'AFFILIATE', rewards: [] });
    const cases: Array<[Record<string, unknown> | null, string]> = [
      [{ type: 'PERCENT', percent: 10, event: 'CLICK' }, 'commissionStructure.type'],
      [{ type: 'PERCENT', percent: 10, event: 'LEAD' }, 'commissionStructure.type'],
      [{ type: 'FIXED', amount: 0, event: 'CLICK' }, 'commissionStructure.amount'],
      [{ type: 'FIXED', amount: 2.5, event: 'CLICK' }, 'commissionStructure.amount'],
      [{ type: 'FIXED', event: 'CLICK' }, 'commissionStructure.amount'],
      [{ type: 'PERCENT' }, 'commissionStructure.percent'],
      [{ type: 'PERCENT', percent: 150 }, 'commissionStructure.percent'],
      [{ type: 'PERCENT', percent: 10, amount: 100 }, 'commissionStructure.amount'],
      [{ percent: 10 }, 'commissionStructure.type'],
      [{ type: 'PERCENT', percent: 10, duration: 'REPEATING' }, 'commissionStructure.durationInMonths'],
      [{ type: 'PERCENT', percent: 10, durationInMonths: 6 }, 'commissionStructure.durationInMonths'],
      [{ type: 'PERCENT', percent: 10, hasMaxAmount: true }, 'commissionStructure.maxAmount'],
      [{ type: 'PERCENT', percent: 10, maxAmount: 100 }, 'commissionStructure.maxAmount'],
      [{ type: 'PERCENT', percent: 10, hasIntro: true }, 'commissionStructure.introType'],
      [{ type: 'PERCENT', percent: 10, introPercent: 5 }, 'commissionStructure.introPercent'],
      [{ type: 'PERCENT', percent: 10, holdDuration: -1 }, 'commissionStructure.holdDuration'],
      [{ type: 'PERCENT', percent: 10, amountISO: 'XYZ' }, 'commissionStructure.amountISO'],
      [{ type: 'PERCENT', percent: 10, bonus: 1 }, 'commissionStructure.bonus'],
      [null, 'commissionStructure'],
    ];
    for (const [commissionStructure, field] of cases) {
      const res = await app.request('POST', rc(p.id), { key: acct.key, body: { type: 'AFFILIATE', commissionStructure } });
      expect(res.status, JSON.stringify(commissionStructure)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field), JSON.stringify(commissionStructure)).toContain(field);
    }
    const taxed = await app.request('POST', rc(p.id), { key: acct.key, body: { type: 'AFFILIATE', commissionStructure: affiliateCommission, value: { taxCharacter: 'PRIZE_OR_AWARD' } } });
    expect(taxed.status).toBe(400);
    expect(taxed.body.errors[0].field).toBe('value.taxCharacter');
    expect(await list(acct.key, p.id)).toEqual([]);
  });

  it('answers 403 without program:write and for a key not granted the program', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const readOnly = await keyWith(acct, ['program:read']);
    const noScope = await app.request('POST', rc(p.id), { key: readOnly, body: { type: 'SINGLE_SIDED' } });
    expect(noScope.status).toBe(403);
    expect(noScope.body.message).toMatch(/program:write/);
    const limited = await keyWith(acct, ['program:read', 'program:write'], ['someotherprogram']);
    expect((await app.request('POST', rc(p.id), { key: limited, body: { type: 'SINGLE_SIDED' } })).status).toBe(403);
    expect(await list(acct.key, p.id)).toEqual([]);
  });

  it('answers 404 for an unknown program', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('POST', rc('doesnotexist'), { key: acct.key, body: { type: 'SINGLE_SIDED' } });
    expect(res.status).toBe(404);
  });
});

describe('PATCH /campaign/{id}/reward-configs/{campaignRewardId}', () => {
  it('changes only the sent fields; null clears; the whole object re-checks against the stored type', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const r = await create(acct.key, p.id, { type: 'DOUBLE_SIDED', title: 'Old', description: 'Desc', couponCode: 'A', referralCouponCode: 'B', metadata: { a: 1 } });
    const res = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { title: 'New', referralCouponCode: null, isUnlimited: false, limit: 2, metadata: { b: 'x' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...r, title: 'New', referralCouponCode: null, isUnlimited: false, limit: 2, metadata: { b: 'x' } });
    expect((await list(acct.key, p.id))[0]).toEqual(res.body);
    const back = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { isUnlimited: true } });
    expect(back.body.limit).toBe(-1);
  });

  it('accepts a reward read back from GET (minus id and type) unchanged', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key, { type: 'AFFILIATE', rewards: [] });
    const r = await create(acct.key, p.id, { type: 'AFFILIATE', commissionStructure: { type: 'FIXED', amount: 900, hasIntro: true, introType: 'FIXED', introAmount: 100, introDuration: 'ONCE' } });
    const { id, type, ...rest } = r;
    const res = await app.request('PATCH', rc(p.id, id), { key: acct.key, body: rest });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(r);
    expect(type).toBe('AFFILIATE');
  });

  it('issue #19: a commissionStructure with one field merges into the stored structure; the other fields keep their values', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key, { type: 'AFFILIATE', rewards: [] });
    const r = await create(acct.key, p.id, {
      type: 'AFFILIATE',
      commissionStructure: {
        type: 'PERCENT',
        percent: 20,
        holdDuration: 45,
        minPaidReferrals: 3,
        approvalRequired: true,
        duration: 'REPEATING',
        durationInMonths: 12,
        hasMaxAmount: true,
        maxAmount: 10_000,
        hasIntro: true,
        introType: 'PERCENT',
        introPercent: 40,
        introDuration: 'REPEATING',
        introDurationInMonths: 2,
      },
    });
    const before = r.commissionStructure;
    const res = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { commissionStructure: { percent: 30 } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.commissionStructure).toEqual({ ...before, percent: 30 });
    expect((await list(acct.key, p.id))[0].commissionStructure).toEqual({ ...before, percent: 30 });
    // null restores one key's default and leaves the rest.
    const reset = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { commissionStructure: { holdDuration: null } } });
    expect(reset.body.commissionStructure).toEqual({ ...before, percent: 30, holdDuration: 0 });
    // A new type drops the stored keys it does not use (percent) instead of rejecting them; the rest stays.
    const fixed = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { commissionStructure: { type: 'FIXED', amount: 700, introType: 'FIXED', introAmount: 100 } } });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.body.commissionStructure).toEqual({
      ...before,
      type: 'FIXED',
      percent: null,
      amount: 700,
      amountISO: 'USD',
      holdDuration: 0,
      introType: 'FIXED',
      introPercent: null,
      introAmount: 100,
      introAmountISO: 'USD',
    });
    // A sent key that does not fit is still a 400 naming it.
    const bad = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { commissionStructure: { percent: 5 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('commissionStructure.percent');
    expect((await list(acct.key, p.id))[0].commissionStructure).toEqual(fixed.body.commissionStructure);
  });

  it('issue #19: value and referredValue with one key merge into the stored valuation; metadata is replaced whole', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const r = await create(acct.key, p.id, {
      type: 'DOUBLE_SIDED',
      value: { fairMarketValueUSD: 10, taxCharacter: 'PRIZE_OR_AWARD' },
      referredValue: { fairMarketValueUSD: 4, taxCharacter: 'PURCHASE_REBATE' },
      metadata: { a: 'x', b: 'y' },
    });
    const res = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { value: { fairMarketValueUSD: 12 }, referredValue: { taxCharacter: 'OTHER_INCOME' }, metadata: { b: 'z' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      ...r,
      value: { fairMarketValueUSD: 12, taxCharacter: 'PRIZE_OR_AWARD' },
      referredValue: { fairMarketValueUSD: 4, taxCharacter: 'OTHER_INCOME' },
      metadata: { b: 'z' },
    });
    expect((await list(acct.key, p.id))[0]).toEqual(res.body);
    // The older isTaxReportable merges the same way; null still clears the whole object.
    const older = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { value: { isTaxReportable: false } } });
    expect(older.body.value).toEqual({ fairMarketValueUSD: 12, taxCharacter: 'PURCHASE_REBATE' });
    const cleared = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { value: null } });
    expect(cleared.body.value).toBeNull();
    const fresh = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { value: { fairMarketValueUSD: 3 } } });
    expect(fresh.body.value).toEqual({ fairMarketValueUSD: 3, taxCharacter: null });
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    expect(doc.paths['/campaign/{id}/reward-configs/{campaignRewardId}'].patch.summary).toMatch(/metadata is replaced whole/);
  });

  it('rejects type, an empty body, fields that do not fit the stored type and LEAD without CUSTOM with 400', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const r = await create(acct.key, p.id, { type: 'DOUBLE_SIDED' });
    const m = await create(acct.key, p.id, { type: 'MILESTONE', conversionsRequired: 3 });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [r.id, { type: 'SINGLE_SIDED' }, 'type'],
      [r.id, { type: 'DOUBLE_SIDED' }, 'type'],
      [r.id, {}, 'body'],
      [r.id, { numberOfWinners: 3 }, 'numberOfWinners'],
      [r.id, { commissionStructure: affiliateCommission }, 'commissionStructure'],
      [r.id, { event: 'LEAD' }, 'event'],
      [m.id, { conversionsRequired: null }, 'conversionsRequired'],
      [m.id, { referralDescription: 'x' }, 'referralDescription'],
    ];
    for (const [id, body, field] of cases) {
      const res = await app.request('PATCH', rc(p.id, id), { key: acct.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field), JSON.stringify(body)).toContain(field);
    }
    expect(await list(acct.key, p.id)).toEqual([r, m]);
    await setReferralTrigger(p.id, 'CUSTOM');
    const lead = await app.request('PATCH', rc(p.id, r.id), { key: acct.key, body: { event: 'LEAD' } });
    expect(lead.status).toBe(200);
    expect(lead.body.event).toBe('LEAD');
  });

  it('answers 403 without program:write and for a key not granted the program', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const r = await create(acct.key, p.id, { type: 'SINGLE_SIDED' });
    const readOnly = await keyWith(acct, ['program:read']);
    expect((await app.request('PATCH', rc(p.id, r.id), { key: readOnly, body: { title: 'x' } })).status).toBe(403);
    const limited = await keyWith(acct, ['program:write'], ['someotherprogram']);
    expect((await app.request('PATCH', rc(p.id, r.id), { key: limited, body: { title: 'x' } })).status).toBe(403);
    expect((await list(acct.key, p.id))[0].title).toBeNull();
  });

  it('answers 404 for an unknown program, an unknown reward and another program’s reward', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const q = await newProgram(acct.key);
    const r = await create(acct.key, p.id, { type: 'SINGLE_SIDED' });
    expect((await app.request('PATCH', rc('doesnotexist', r.id), { key: acct.key, body: { title: 'x' } })).status).toBe(404);
    const unknown = await app.request('PATCH', rc(p.id, 'crew_nope'), { key: acct.key, body: { title: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND_ERROR');
    expect((await app.request('PATCH', rc(q.id, r.id), { key: acct.key, body: { title: 'x' } })).status).toBe(404);
  });
});

describe('DELETE /campaign/{id}/reward-configs/{campaignRewardId}', () => {
  it('soft-deletes: the row stays, the list and Campaign.rewards drop it, and a second delete is 404', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const keep = await create(acct.key, p.id, { type: 'SINGLE_SIDED' });
    const gone = await create(acct.key, p.id, { type: 'DOUBLE_SIDED' });
    const res = await app.request('DELETE', rc(p.id, gone.id), { key: acct.key, raw: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: gone.id, success: true });
    expect(await list(acct.key, p.id)).toEqual([keep]);
    expect((await app.request('GET', `/v2/campaign/${p.id}`, { key: acct.key })).body.rewards).toEqual([keep]);
    const row = await app.deps.db.knex('reward_configs').where({ id: gone.id }).first();
    expect(Number(row.deleted_at)).toBe(app.clock.now());
    expect((await app.request('DELETE', rc(p.id, gone.id), { key: acct.key })).status).toBe(404);
    expect((await app.request('PATCH', rc(p.id, gone.id), { key: acct.key, body: { title: 'x' } })).status).toBe(404);
  });

  it('has no input to validate: a body is ignored and a malformed or over-long reward id is a 404, never a 500', async () => {
    // The pipeline parses no DELETE body (clients send none or an empty JSON one), so only the path can be wrong.
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const r = await create(acct.key, p.id, { type: 'SINGLE_SIDED' });
    for (const id of ['x'.repeat(300), '%E2%82%AC', 'crew_%00']) {
      const res = await app.request('DELETE', rc(p.id, id), { key: acct.key });
      expect(res.status, id).toBe(404);
    }
    const withBody = await app.request('DELETE', rc(p.id, r.id), { key: acct.key, body: { force: true } });
    expect(withBody.status).toBe(200);
    expect(withBody.body).toEqual({ id: r.id, success: true });
  });

  it('answers 403 without program:write and for a key not granted the program', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const r = await create(acct.key, p.id, { type: 'SINGLE_SIDED' });
    expect((await app.request('DELETE', rc(p.id, r.id), { key: await keyWith(acct, ['program:read']) })).status).toBe(403);
    expect((await app.request('DELETE', rc(p.id, r.id), { key: await keyWith(acct, ['program:write'], ['someotherprogram']) })).status).toBe(403);
    expect(await list(acct.key, p.id)).toEqual([r]);
  });

  it('answers 404 for an unknown program, an unknown reward and another program’s reward', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key);
    const q = await newProgram(acct.key);
    const r = await create(acct.key, p.id, { type: 'SINGLE_SIDED' });
    expect((await app.request('DELETE', rc('doesnotexist', r.id), { key: acct.key })).status).toBe(404);
    expect((await app.request('DELETE', rc(p.id, 'crew_nope'), { key: acct.key })).status).toBe(404);
    expect((await app.request('DELETE', rc(q.id, r.id), { key: acct.key })).status).toBe(404);
    expect(await list(acct.key, p.id)).toEqual([r]);
  });
});

describe('GET /campaign/{id} and GET /campaigns (Campaign.rewards)', () => {
  it('equals the reward-configs list on GET /campaign/{id} and GET /campaigns', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key, { type: 'REFERRAL', goal: 'SUBSCRIBERS' });
    await create(acct.key, p.id, { type: 'DOUBLE_SIDED', order: 2, metadata: { amount: 5 } });
    const rewards = await list(acct.key, p.id);
    expect(rewards).toHaveLength(5);
    expect((await app.request('GET', `/v2/campaign/${p.id}`, { key: acct.key })).body.rewards).toEqual(rewards);
    const all = await app.request('GET', '/v2/campaigns', { key: acct.key });
    expect(all.body.campaigns.find((c: { id: string }) => c.id === p.id).rewards).toEqual(rewards);
    expect(p.rewards).toEqual(rewards.filter((r) => r.type === 'MILESTONE'));
  });
});

describe('POST /campaigns (rewards and starter rewards)', () => {
  const starters: Array<[Record<string, unknown>, string[]]> = [
    [{ type: 'REFERRAL' }, ['DOUBLE_SIDED']],
    [{ type: 'REFERRAL', goal: 'CUSTOMERS' }, ['DOUBLE_SIDED']],
    [{ type: 'REFERRAL', goal: 'B2C_SUBSCRIPTIONS' }, ['DOUBLE_SIDED']],
    [{ type: 'REFERRAL', goal: 'HEALTHCARE_PROVIDERS' }, ['SINGLE_SIDED']],
    [{ type: 'REFERRAL', goal: 'SUBSCRIBERS' }, ['MILESTONE', 'MILESTONE', 'MILESTONE', 'MILESTONE']],
    [{ type: 'REFERRAL', goal: 'WAITLIST' }, ['LEADERBOARD']],
    [{ type: 'AFFILIATE' }, ['AFFILIATE']],
  ];
  for (const [body, types] of starters) {
    it(`gives ${JSON.stringify(body)} hidden starter rewards ${types.join(', ')}`, async () => {
      const acct = await verifiedAccount(app);
      const p = await newProgram(acct.key, body);
      const rewards = await list(acct.key, p.id);
      expect(rewards.map((r) => r.type)).toEqual(types);
      expect(p.rewards).toEqual(rewards);
      for (const r of rewards) {
        expect(r.isVisible).toBe(false);
        expect(r.isStarter).toBe(true);
        expect(r.title).not.toMatch(/placeholder/);
      }
    });
  }

  it('builds the SUBSCRIBERS ladder on 1, 3, 5 and 10 referrals and the affiliate starter on 20% of each sale', async () => {
    const acct = await verifiedAccount(app);
    const sub = await newProgram(acct.key, { type: 'REFERRAL', goal: 'SUBSCRIBERS' });
    expect(sub.rewards.map((r: any) => [r.conversionsRequired, r.order, r.isUnlimited])).toEqual([
      [1, 0, false],
      [3, 1, false],
      [5, 2, false],
      [10, 3, false],
    ]);
    const aff = await newProgram(acct.key, { type: 'AFFILIATE', currencyISO: 'CAD' });
    expect(aff.rewards[0].commissionStructure).toMatchObject({ type: 'PERCENT', percent: 20, event: 'SALE', duration: 'FOREVER', amountISO: null });
    expect(aff.rewards[0].value).toEqual({ fairMarketValueUSD: null, taxCharacter: 'NONEMPLOYEE_SERVICES' });
  });

  it('creates the sent rewards instead of starters, and none for an empty list', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key, {
      type: 'REFERRAL',
      goal: 'WAITLIST',
      rewards: [
        { type: 'DOUBLE_SIDED', title: 'Main', couponCode: 'HI' },
        { type: 'MILESTONE', conversionsRequired: 3, title: 'Bonus' },
      ],
    });
    expect(p.rewards.map((r: any) => [r.type, r.title, r.order, r.isVisible])).toEqual([
      ['DOUBLE_SIDED', 'Main', 0, true],
      ['MILESTONE', 'Bonus', 1, true],
    ]);
    expect(await list(acct.key, p.id)).toEqual(p.rewards);
    const none = await newProgram(acct.key, { type: 'REFERRAL', rewards: [] });
    expect(none.rewards).toEqual([]);
  });

  it('rolls the whole program back when one sent reward is invalid', async () => {
    const acct = await verifiedAccount(app);
    const count = async () => Number((await app.deps.db.knex('programs').where({ team_id: acct.teamId }).count({ n: '*' }).first())!.n);
    const rewardsBefore = Number((await app.deps.db.knex('reward_configs').count({ n: '*' }).first())!.n);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'REFERRAL', rewards: [{ type: 'SINGLE_SIDED' }, { type: 'AFFILIATE', commissionStructure: affiliateCommission }] }, 'rewards.1.type'],
      [{ type: 'AFFILIATE', rewards: [{ type: 'AFFILIATE', commissionStructure: { type: 'PERCENT', percent: 5, event: 'CLICK' } }] }, 'rewards.0.commissionStructure.type'],
      [{ type: 'REFERRAL', rewards: [{ type: 'SINGLE_SIDED', event: 'LEAD' }] }, 'rewards.0.event'],
      [{ type: 'REFERRAL', rewards: [{ type: 'MILESTONE' }] }, 'rewards.0.conversionsRequired'],
      [{ type: 'REFERRAL', rewards: [{ type: 'SINGLE_SIDED', bogus: 1 }] }, 'rewards.0.bogus'],
      [{ type: 'REFERRAL', rewards: Array.from({ length: 21 }, () => ({ type: 'SINGLE_SIDED' })) }, 'rewards'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field), JSON.stringify(body)).toContain(field);
    }
    expect(await count()).toBe(0);
    expect(Number((await app.deps.db.knex('reward_configs').count({ n: '*' }).first())!.n)).toBe(rewardsBefore);
  });
});

describe('POST /campaign/{id}/clone', () => {
  it('copies the live reward configurations with new ids, deleted ones left behind', async () => {
    const acct = await verifiedAccount(app);
    const p = await newProgram(acct.key, { type: 'REFERRAL', goal: 'SUBSCRIBERS' });
    const extra = await create(acct.key, p.id, { type: 'DOUBLE_SIDED', metadata: { k: 'v' }, referredValue: { fairMarketValueUSD: 3, taxCharacter: 'PURCHASE_REBATE' } });
    const dropped = p.rewards[1];
    expect((await app.request('DELETE', rc(p.id, dropped.id), { key: acct.key })).status).toBe(200);
    const source = await list(acct.key, p.id);
    const res = await app.request('POST', `/v2/campaign/${p.id}/clone`, { key: acct.key });
    expect(res.status).toBe(200);
    const copied = await list(acct.key, res.body.id);
    expect(res.body.rewards).toEqual(copied);
    expect(copied).toHaveLength(source.length);
    const strip = (r: any) => ({ ...r, id: undefined });
    expect(copied.map(strip)).toEqual(source.map(strip));
    for (const r of copied) expect(source.map((s) => s.id)).not.toContain(r.id);
    expect(copied.find((r) => r.type === 'DOUBLE_SIDED')).toMatchObject({ metadata: { k: 'v' }, referredValue: extra.referredValue });
    expect(await list(acct.key, p.id)).toEqual(source);
  });
});
