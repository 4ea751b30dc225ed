import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { seedParticipants } from '../../../scripts/seed.ts';
import { toProgram } from '../../../server/domain/programs/programs.ts';

// Budgets raised: these tests make many calls per team; the limits have their own tests.
const LIMITS = RAISED_LIMITS;

let app: TestApp;
beforeAll(async () => {
  app = await startApp(LIMITS);
});
afterAll(async () => {
  await app.close();
});

type Docs = { installation?: Record<string, unknown>; options?: Record<string, unknown> };

/** Writes program documents directly, so these tests do not depend on the config endpoints. */
async function patchDocs(a: TestApp, pid: string, docs: Docs) {
  const row = await a.deps.db.knex('programs').where({ id: pid }).first();
  const update: Record<string, string> = {};
  for (const [k, v] of Object.entries(docs)) update[k] = JSON.stringify({ ...JSON.parse(row[k]), ...v });
  await a.deps.db.knex('programs').where({ id: pid }).update(update);
}

async function setup(type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL', docs?: Docs, a: TestApp = app) {
  const acct = await verifiedAccount(a);
  const res = await a.request('POST', '/v2/campaigns', { key: acct.key, body: { type } });
  expect(res.status, res.text).toBe(200);
  if (docs) await patchDocs(a, res.body.id, docs);
  return { key: acct.key, teamId: acct.teamId, pid: res.body.id as string };
}

const add = (key: string, pid: string, body: Record<string, unknown>, a: TestApp = app) => a.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
const get = (key: string, pid: string, who: string) => app.request('GET', `/v2/campaign/${pid}/participant/${who}`, { key });
const update = (key: string, pid: string, who: string, body: unknown) => app.request('POST', `/v2/campaign/${pid}/participant/${who}`, { key, body });

async function added(key: string, pid: string, body: Record<string, unknown>) {
  const res = await add(key, pid, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

const ALL_PARTICIPANT_SCOPES = ['participant:read', 'participant:write', 'participant:delete'];

describe('POST /campaign/{id}/participant', () => {
  it('adds a participant with every field of the wire shape and isNew true', async () => {
    const { key, pid } = await setup();
    const res = await add(key, pid, {
      email: 'Ada@Example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      ipAddress: '203.0.113.7',
      fingerprint: 'fp-1',
      mobileInstanceId: '5F7D0F4C-3E7C-4AA9-8C41-D81D998F0BB1',
      metadata: { plan: 'pro', seats: 5, trial: true },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      email: 'Ada@Example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      shareUrl: expect.stringMatching(new RegExp(`^http://refloop\\.test/r/${pid}\\?grsf=[a-z0-9]{10}$`)),
      referralCount: 0,
      monthlyReferralCount: 0,
      prevMonthlyReferralCount: 0,
      rank: 1,
      monthlyRank: 1,
      prevMonthlyRank: 1,
      impressionCount: 0,
      uniqueImpressionCount: 0,
      inviteCount: 0,
      leadCount: 0,
      referrals: [],
      monthlyReferrals: [],
      rewards: [],
      createdAt: app.clock.now(),
      referralSource: 'DIRECT',
      fraudRiskLevel: 'LOW',
      fraudReasonCode: 'UNIQUE_IDENTITY',
      allMatchingFraudsters: [],
      isWinner: false,
      shareCount: {},
      ipAddress: '203.0.113.7',
      fingerprint: 'fp-1',
      mobileInstanceId: '5f7d0f4c-3e7c-4aa9-8c41-d81d998f0bb1',
      metadata: { plan: 'pro', seats: '5', trial: 'true' },
      notes: null,
      unsubscribed: false,
      vanityKeys: [],
      payoutSettings: { requiredActions: [] },
      isNew: true,
      language: 'en',
    });
    const program = await app.request('GET', `/v2/campaign/${pid}`, { key });
    expect(program.body.participantCount).toBe(1);
  });

  it('returns the existing participant unchanged with isNew false for a known email in any case', async () => {
    const { key, pid } = await setup();
    const first = await added(key, pid, { email: 'grace@example.com', firstName: 'Grace' });
    const again = await add(key, pid, { email: 'GRACE@example.com', firstName: 'Other', metadata: { x: 'y' } });
    expect(again.status).toBe(200);
    const { isNew, ...rest } = again.body;
    expect(isNew).toBe(false);
    const { isNew: _n, ...firstRest } = first;
    expect(rest).toEqual(firstRest);
    expect((await app.request('GET', `/v2/campaign/${pid}`, { key })).body.participantCount).toBe(1);
  });

  it('resolves referredBy from a participant id, a share key, a vanity key and an email', async () => {
    const { key, pid } = await setup();
    const ref = await added(key, pid, { email: 'referrer@example.com' });
    const vanity = await update(key, pid, ref.id, { vanityKeys: ['Top-Ref'] });
    expect(vanity.status, vanity.text).toBe(200);
    const shareKey = new URL(ref.shareUrl).searchParams.get('grsf')!;
    const values = [ref.id, shareKey, 'top-ref', 'REFERRER@example.com'];
    for (const [i, referredBy] of values.entries()) {
      const p = await added(key, pid, { email: `friend${i}@example.com`, referredBy });
      expect(p, String(referredBy)).toMatchObject({ referredBy: ref.id, referralSource: 'PARTICIPANT', referralStatus: 'CREDIT_AWARDED' });
      expect(p.referrer).toMatchObject({ id: ref.id, email: 'referrer@example.com', referralCount: i + 1 });
      expect(p.referrer).not.toHaveProperty('vanityKeys');
      expect(p.referrer).not.toHaveProperty('rewards');
    }
    const after = (await get(key, pid, ref.id)).body;
    expect(after.referralCount).toBe(4);
    expect(after.referrals).toHaveLength(4);
    expect(after.monthlyReferrals).toEqual(after.referrals);
  });

  it('credits at once on an ON_SIGNUP program: the referrer has referralCount 1 and rank 1', async () => {
    const { key, pid } = await setup('REFERRAL', { installation: { referralTrigger: 'ON_SIGNUP' } });
    const a = await added(key, pid, { email: 'a@example.com' });
    const b = await added(key, pid, { email: 'b@example.com' });
    const friend = await added(key, pid, { email: 'friend@example.com', referredBy: b.id });
    expect(friend.referralStatus).toBe('CREDIT_AWARDED');
    const rb = (await get(key, pid, b.id)).body;
    expect(rb).toMatchObject({ referralCount: 1, monthlyReferralCount: 1, rank: 1, monthlyRank: 1, leadCount: 0, referrals: [friend.id] });
    expect((await get(key, pid, a.id)).body).toMatchObject({ referralCount: 0, rank: 2, monthlyRank: 2 });
    expect((await app.request('GET', `/v2/campaign/${pid}`, { key })).body).toMatchObject({ participantCount: 3, referralCount: 1 });
  });

  it('leaves the credit pending on a CUSTOM program unless the caller sends CREDIT_AWARDED', async () => {
    const { key, pid } = await setup('REFERRAL', { installation: { referralTrigger: 'CUSTOM' } });
    const r = await added(key, pid, { email: 'r@example.com' });
    const pending = await added(key, pid, { email: 'p@example.com', referredBy: r.id });
    expect(pending.referralStatus).toBe('CREDIT_PENDING');
    expect((await get(key, pid, r.id)).body).toMatchObject({ referralCount: 0, leadCount: 1, rank: 1, referrals: [pending.id] });
    const awarded = await added(key, pid, { email: 'q@example.com', referredBy: r.id, referralStatus: 'CREDIT_AWARDED' });
    expect(awarded.referralStatus).toBe('CREDIT_AWARDED');
    expect((await get(key, pid, r.id)).body).toMatchObject({ referralCount: 1, leadCount: 1 });
  });

  it('adds a DIRECT participant when referredBy matches nobody', async () => {
    const { key, pid } = await setup();
    const p = await added(key, pid, { email: 'lonely@example.com', referredBy: 'nobody-at-all', referralStatus: 'CREDIT_AWARDED' });
    expect(p.referralSource).toBe('DIRECT');
    expect(p).not.toHaveProperty('referredBy');
    expect(p).not.toHaveProperty('referralStatus');
    expect(p).not.toHaveProperty('referrer');
  });

  it('builds shareUrl on installation.shareUrl with ? or & as the URL needs', async () => {
    const { key, pid } = await setup('REFERRAL', { installation: { shareUrl: 'https://shop.example.com/join?utm_source=ref#top' } });
    const p = await added(key, pid, { email: 'u@example.com' });
    expect(p.shareUrl).toMatch(/^https:\/\/shop\.example\.com\/join\?utm_source=ref&grsf=[a-z0-9]{10}#top$/);
    await patchDocs(app, pid, { installation: { shareUrl: 'https://shop.example.com/' } });
    expect((await get(key, pid, p.id)).body.shareUrl).toMatch(/^https:\/\/shop\.example\.com\/\?grsf=[a-z0-9]{10}$/);
  });

  it('stores no IP address, fingerprint or mobile instance id when the program enforces GDPR compliance', async () => {
    const { key, pid } = await setup('REFERRAL', { options: { enforceGdprCompliance: true } });
    const p = await added(key, pid, { email: 'gdpr@example.com', ipAddress: '198.51.100.1', fingerprint: 'fp', mobileInstanceId: '5f7d0f4c-3e7c-4aa9-8c41-d81d998f0bb1' });
    expect(p).toMatchObject({ ipAddress: null, fingerprint: null, mobileInstanceId: null });
    const row = await app.deps.db.knex('participants').where({ id: p.id }).first();
    expect([row.ip_address, row.fingerprint, row.mobile_instance_id]).toEqual([null, null, null]);
  });

  it('takes a language among the program’s languages and defaults to the base language', async () => {
    const { key, pid } = await setup('REFERRAL', { options: { languages: { baseLanguage: 'de', additionalLanguages: ['fr'] } } });
    expect((await added(key, pid, { email: 'de@example.com' })).language).toBe('de');
    expect((await added(key, pid, { email: 'fr@example.com', language: 'fr' })).language).toBe('fr');
    const bad = await add(key, pid, { email: 'es@example.com', language: 'es' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('language');
  });

  it('rejects a missing or malformed email, unknown fields, nested or reserved metadata and a CREDIT_EXPIRED status with 400', async () => {
    const { key, pid } = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'email'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 'x@example.com', referralCount: 3 }, 'referralCount'],
      [{ email: 'x@example.com', metadata: { nested: { a: 1 } } }, 'metadata.nested'],
      [{ email: 'x@example.com', metadata: { gdprAgreements: 'yes' } }, 'metadata.gdprAgreements'],
      [{ email: 'x@example.com', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
      [{ email: 'x@example.com', metadata: { long: 'v'.repeat(1001) } }, 'metadata.long'],
      [{ email: 'x@example.com', referralStatus: 'CREDIT_EXPIRED' }, 'referralStatus'],
      [{ email: 'x@example.com', mobileInstanceId: 'not-a-uuid' }, 'mobileInstanceId'],
      [{ email: 'x@example.com', ipAddress: '999.1.1.1' }, 'ipAddress'],
      [{ email: 'x@example.com', isAffiliate: true }, 'isAffiliate'],
    ];
    for (const [body, field] of cases) {
      const res = await add(key, pid, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await app.request('GET', `/v2/campaign/${pid}/participants`, { key })).body.participants).toEqual([]);
  });

  it('answers 403 without participant:write, 403 outside the key’s program grant, and 404 for an unknown program', async () => {
    const { key, teamId, pid } = await setup();
    const readOnly = await limitedKey(teamId, ['participant:read']);
    const noScope = await add(readOnly, pid, { email: 'x@example.com' });
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe('NOT_AUTHORIZED_ERROR');
    const other = await setup();
    const granted = await limitedKey(teamId, ALL_PARTICIPANT_SCOPES, [other.pid]);
    expect((await add(granted, pid, { email: 'x@example.com' })).status).toBe(403);
    expect((await add(key, 'doesnotexist', { email: 'x@example.com' })).status).toBe(404);
  });

  it('keeps counts exact under concurrent adds, same-email races and status changes on one referrer', async () => {
    const { key, pid } = await setup('REFERRAL', { installation: { referralTrigger: 'ON_SIGNUP' } });
    const r = await added(key, pid, { email: 'busy@example.com' });
    const other = await added(key, pid, { email: 'other@example.com' });
    const friends = await Promise.all(Array.from({ length: 12 }, (_, i) => add(key, pid, { email: `c${i}@example.com`, referredBy: i % 2 ? r.id : other.id })));
    expect(friends.map((f) => f.status)).toEqual(Array(12).fill(200));
    // Bodies differ (firstName), or the pipeline would answer 409 for an identical request in flight.
    const same = await Promise.all(Array.from({ length: 6 }, (_, i) => add(key, pid, { email: 'twin@example.com', firstName: `T${i}`, referredBy: r.id })));
    expect(same.map((x) => x.status)).toEqual(Array(6).fill(200));
    expect(same.filter((x) => x.body.isNew).length).toBe(1);
    const flips = await Promise.all(
      friends.map((f, i) => update(key, pid, f.body.id, { referralStatus: i % 3 ? 'CREDIT_EXPIRED' : 'CREDIT_PENDING', ...(i % 4 === 0 ? { referredBy: i % 2 ? other.id : r.id } : {}) })),
    );
    expect(flips.map((x) => x.status)).toEqual(Array(12).fill(200));
    const everyone = (await app.request('GET', `/v2/campaign/${pid}/participants?limit=100`, { key })).body.participants as Array<{ id: string; referredBy?: string; referralStatus?: string; referralCount: number; leadCount: number }>;
    for (const p of everyone) {
      const mine = everyone.filter((x) => x.referredBy === p.id);
      expect(p.referralCount).toBe(mine.filter((x) => x.referralStatus === 'CREDIT_AWARDED').length);
      expect(p.leadCount).toBe(mine.filter((x) => x.referralStatus === 'CREDIT_PENDING').length);
    }
    const campaign = (await app.request('GET', `/v2/campaign/${pid}`, { key })).body;
    expect(campaign).toMatchObject({ participantCount: everyone.length, referralCount: everyone.reduce((n, p) => n + p.referralCount, 0) });
  });

  it('emits NEW_PARTICIPANT_ADDED to subscribed webhooks in GrowSurf’s shape: the participant’s fields at the top of data, beside campaign', async () => {
    const { key, pid } = await setup();
    const now = app.clock.now();
    await app.deps.db
      .knex('webhooks')
      .insert({ program_id: pid, id: 'primary', payload_url: 'http://127.0.0.1:9/hook', events: JSON.stringify(['NEW_PARTICIPANT_ADDED']), is_enabled: true, created_at: now, updated_at: now });
    const p = await added(key, pid, { email: 'hooked@example.com' });
    const events = await app.deps.db.knex('webhook_events').where({ program_id: pid });
    expect(events).toHaveLength(1);
    const envelope = JSON.parse(events[0].payload);
    expect(envelope.event).toBe('NEW_PARTICIPANT_ADDED');
    const { isNew: _isNew, rewards: _rewards, ...wire } = p;
    const { campaign, ...fields } = envelope.data;
    expect(fields).toEqual(wire);
    expect(campaign).toEqual((await app.request('GET', `/v2/campaign/${pid}`, { key })).body);
    await add(key, pid, { email: 'hooked@example.com' });
    expect(await app.deps.db.knex('webhook_events').where({ program_id: pid })).toHaveLength(1);
  });
});

describe('POST /campaign/{id}/participant on affiliate programs', () => {
  it('enrolls a new participant unless a valid referrer makes them a referred customer, and gives everyone a shareUrl', async () => {
    const { key, pid } = await setup('AFFILIATE');
    const affiliate = await added(key, pid, { email: 'aff@example.com' });
    expect(affiliate).toMatchObject({ isAffiliate: true, affiliateStatus: 'APPROVED', affiliateEnrollmentSource: 'REST_API', shareUrl: expect.any(String) });
    const customer = await added(key, pid, { email: 'cust@example.com', referredBy: affiliate.id });
    expect(customer).toMatchObject({ isAffiliate: false, affiliateStatus: null, affiliateEnrollmentSource: null, referredBy: affiliate.id, shareUrl: expect.any(String) });
    const both = await added(key, pid, { email: 'both@example.com', referredBy: affiliate.id, isAffiliate: true });
    expect(both).toMatchObject({ isAffiliate: true, affiliateStatus: 'APPROVED', referredBy: affiliate.id });
    const not = await added(key, pid, { email: 'not@example.com', isAffiliate: false });
    expect(not).toMatchObject({ isAffiliate: false, affiliateStatus: null, shareUrl: expect.any(String) });
  });

  it('issue #19: a customer referred by an affiliate carries its own shareUrl on GET, on the list and as the referrer of someone else', async () => {
    const { key, pid } = await setup('AFFILIATE');
    const affiliate = await added(key, pid, { email: 'aff19@example.com' });
    const customer = await added(key, pid, { email: 'cust19@example.com', referredBy: affiliate.id });
    expect(customer).toMatchObject({ isAffiliate: false, referredBy: affiliate.id });
    const link = new RegExp(`^http://refloop\\.test/r/${pid}\\?grsf=[a-z0-9]{10}$`);
    expect(customer.shareUrl).toMatch(link);
    expect(customer.shareUrl).not.toBe(affiliate.shareUrl);
    const one = await get(key, pid, customer.id);
    expect(one.status, one.text).toBe(200);
    expect(one.body.shareUrl).toBe(customer.shareUrl);
    const list = await app.request('GET', `/v2/campaign/${pid}/participants`, { key });
    expect(list.status, list.text).toBe(200);
    for (const p of list.body.participants) expect(p.shareUrl, p.email).toMatch(link);
    expect(list.body.participants.find((p: { id: string }) => p.id === customer.id).shareUrl).toBe(customer.shareUrl);
    // The referrer summary of someone the customer referred carries it too.
    const friend = await added(key, pid, { email: 'friend19@example.com', referredBy: customer.id, isAffiliate: false });
    expect(friend.referrer).toMatchObject({ id: customer.id, shareUrl: customer.shareUrl });
  });
});

describe('POST /campaign/{id}/participant with BILLING=on', () => {
  it('answers 402 USAGE_LIMIT_ERROR past the plan’s participant limit (FREE: 100) but still returns existing emails', async () => {
    const billed = await startApp({ ...LIMITS, BILLING: 'on' });
    try {
      const acct = await verifiedAccount(billed);
      await billed.deps.teams.setPlan(acct.teamId, 'FREE', true);
      const prog = await billed.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'AFFILIATE' } });
      expect(prog.status, prog.text).toBe(200);
      const pid = prog.body.id;
      const first = await add(acct.key, pid, { email: 'first@example.com' }, billed);
      expect(first.status).toBe(200);
      await seedParticipants(billed.deps.db, { programId: pid, count: 99, now: billed.clock.now(), seed: 1 });
      const over = await add(acct.key, pid, { email: 'one-too-many@example.com' }, billed);
      expect(over.status).toBe(402);
      expect(over.body.code).toBe('USAGE_LIMIT_ERROR');
      const known = await add(acct.key, pid, { email: 'first@example.com' }, billed);
      expect(known.status).toBe(200);
      expect(known.body.isNew).toBe(false);
    } finally {
      await billed.close();
    }
  });
});

describe('GET /campaign/{id}/participant/{participantIdOrEmail}', () => {
  it('answers a referred participant byte for byte as the serializer does from whole rows, by id and by email; a referrer in another program shows as null', async () => {
    const { key, pid } = await setup();
    const referrer = await added(key, pid, { email: 'p4-ref@example.com', firstName: 'Ria', metadata: { plan: 'pro' }, ipAddress: '203.0.113.9', fingerprint: 'fp-ref' });
    await added(key, pid, { email: 'p4-f1@example.com', referredBy: referrer.id });
    const friend = await added(key, pid, { email: 'p4-f2@example.com', firstName: 'Fox', referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
    const program = toProgram(await app.deps.db.knex('programs').where({ id: pid }).first());
    const whole = async (id: string) => JSON.stringify((await app.deps.participants.serialize(app.deps.db.knex, program, [await app.deps.db.knex('participants').where({ id }).first()]))[0]);
    for (const who of [friend.id, 'P4-F2@example.com', referrer.id]) {
      const res = await get(key, pid, encodeURIComponent(who));
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe(await whole(who.includes('@') ? friend.id : who));
    }
    expect((await get(key, pid, friend.id)).body.referrer).toMatchObject({ id: referrer.id, firstName: 'Ria', referralCount: 1, metadata: { plan: 'pro' } });
    // A referred_by pointing outside the program (never written by refloop, but the read must not show it).
    const other = await setup();
    const stranger = await added(other.key, other.pid, { email: 'p4-stranger@example.com' });
    await app.deps.db.knex('participants').where({ id: friend.id }).update({ referred_by: stranger.id });
    const res = await get(key, pid, friend.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.referrer).toBeNull();
    expect(res.text).toBe(await whole(friend.id));
  });

  it('finds a participant by id and by email, raw or percent-encoded, with + kept as +', async () => {
    const { key, pid } = await setup();
    const p = await added(key, pid, { email: 'a+b@x.com' });
    for (const who of [p.id, 'a+b@x.com', 'a%2Bb%40x.com', 'A%2BB@X.COM']) {
      const res = await get(key, pid, who);
      expect(res.status, who).toBe(200);
      expect(res.body.id).toBe(p.id);
      expect(res.body).not.toHaveProperty('isNew');
    }
    // A space is not a plus: `+` in a path is never decoded to a space, nor the reverse.
    expect((await get(key, pid, 'a%20b@x.com')).status).toBe(400);
  });

  it('answers 400 (not 404) for an unknown id or email', async () => {
    const { key, pid } = await setup();
    const byId = await get(key, pid, 'nosuchparticipant');
    expect(byId.status).toBe(400);
    expect(byId.body.message).toMatch(/No participant with id "nosuchparticipant"/);
    const byEmail = await get(key, pid, 'ghost@example.com');
    expect(byEmail.status).toBe(400);
    expect(byEmail.body.message).toMatch(/No participant with email/);
  });

  it('does not see participants of another program', async () => {
    const a = await setup();
    const b = await setup();
    const p = await added(a.key, a.pid, { email: 'mine@example.com' });
    const other = await app.request('POST', '/v2/campaigns', { key: a.key, body: { type: 'REFERRAL' } });
    expect((await get(a.key, other.body.id, p.id)).status).toBe(400);
    expect((await get(b.key, a.pid, p.id)).status).toBe(403);
  });

  it('answers 403 without participant:read or outside the program grant, and 404 for an unknown program', async () => {
    const { key, teamId, pid } = await setup();
    const p = await added(key, pid, { email: 'r@example.com' });
    expect((await get(await limitedKey(teamId, ['participant:write']), pid, p.id)).status).toBe(403);
    expect((await get(await limitedKey(teamId, ALL_PARTICIPANT_SCOPES, ['someotherprogram']), pid, p.id)).status).toBe(403);
    expect((await get(key, 'doesnotexist', p.id)).status).toBe(404);
  });
});

describe('POST /campaign/{id}/participant/{participantIdOrEmail}', () => {
  it('updates email, names, notes, unsubscribed, language and merges metadata (null removes a key)', async () => {
    const { key, pid } = await setup('REFERRAL', { options: { languages: { baseLanguage: 'en', additionalLanguages: ['fr'] } } });
    const p = await added(key, pid, { email: 'old@example.com', firstName: 'Old', metadata: { a: '1', b: '2' } });
    const res = await update(key, pid, 'old@example.com', {
      email: 'New@Example.com',
      firstName: 'New',
      lastName: 'Name',
      notes: 'VIP',
      unsubscribed: true,
      language: 'fr',
      metadata: { b: null, c: 3 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, email: 'New@Example.com', firstName: 'New', lastName: 'Name', notes: 'VIP', unsubscribed: true, language: 'fr', metadata: { a: '1', c: '3' } });
    expect((await get(key, pid, 'new@example.com')).body.id).toBe(p.id);
    expect((await get(key, pid, 'old@example.com')).status).toBe(400);
    const reset = await update(key, pid, p.id, { language: null });
    expect(reset.body.language).toBe('en');
    const filtered = await app.request('GET', `/v2/campaign/${pid}/participants?metadata[c]=3`, { key });
    expect(filtered.body.participants.map((x: { id: string }) => x.id)).toEqual([p.id]);
    expect((await app.request('GET', `/v2/campaign/${pid}/participants?metadata[b]=2`, { key })).body.participants).toEqual([]);
  });

  it('answers 409 when the new email belongs to another participant', async () => {
    const { key, pid } = await setup();
    await added(key, pid, { email: 'taken@example.com' });
    const p = await added(key, pid, { email: 'mover@example.com' });
    const res = await update(key, pid, p.id, { email: 'TAKEN@example.com' });
    expect(res.status).toBe(409);
    expect((await update(key, pid, p.id, { email: 'MOVER@example.com' })).body.email).toBe('MOVER@example.com');
  });

  it('rejects read-only fields, unknown fields and an empty body with 400', async () => {
    const { key, pid } = await setup();
    const p = await added(key, pid, { email: 'ro@example.com' });
    for (const field of ['referralCount', 'rank', 'shareUrl', 'isAffiliate', 'fraudRiskLevel', 'id', 'createdAt', 'referralSource', 'isWinner']) {
      const res = await update(key, pid, p.id, { [field]: 1 });
      expect(res.status, field).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ field });
      expect(res.body.errors[0].message).toMatch(/read-only/);
    }
    expect((await update(key, pid, p.id, { favouriteColour: 'blue' })).status).toBe(400);
    expect((await update(key, pid, p.id, {})).status).toBe(400);
    expect((await update(key, pid, p.id, { notes: 'n'.repeat(501) })).status).toBe(400);
    expect((await update(key, pid, p.id, { firstName: 'n'.repeat(256) })).status).toBe(400);
    expect((await update(key, pid, p.id, { referredBy: 'r'.repeat(101) })).status).toBe(400);
  });

  it('replaces vanity keys wholesale and keeps them unique in the program case-insensitively (409 when taken)', async () => {
    const { key, pid } = await setup();
    const a = await added(key, pid, { email: 'va@example.com' });
    const b = await added(key, pid, { email: 'vb@example.com' });
    expect((await update(key, pid, a.id, { vanityKeys: ['Alpha', 'beta_2', 'c-3'] })).body.vanityKeys).toEqual(['Alpha', 'beta_2', 'c-3']);
    expect((await update(key, pid, a.id, { vanityKeys: ['gamma'] })).body.vanityKeys).toEqual(['gamma']);
    const taken = await update(key, pid, b.id, { vanityKeys: ['GAMMA'] });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toMatch(/already taken/);
    expect((await update(key, pid, b.id, { vanityKeys: ['alpha'] })).status).toBe(200);
    const shareKey = new URL(a.shareUrl).searchParams.get('grsf')!;
    expect((await update(key, pid, b.id, { vanityKeys: [shareKey.toUpperCase()] })).status).toBe(409);
    for (const bad of [['x'.repeat(21)], [''], ['has space'], ['dot.ted'], ['a', 'b', 'c', 'd', 'e', 'f'], ['dup', 'DUP']]) {
      expect((await update(key, pid, b.id, { vanityKeys: bad })).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await update(key, pid, a.id, { vanityKeys: [] })).body.vanityKeys).toEqual([]);
    expect((await update(key, pid, b.id, { vanityKeys: ['gamma'] })).status).toBe(200);
  });

  it('sets, changes and re-grades the referrer, keeping both referrers’ counts and ranks exact', async () => {
    const { key, pid } = await setup('REFERRAL', { installation: { referralTrigger: 'ON_SIGNUP' } });
    const r1 = await added(key, pid, { email: 'r1@example.com' });
    const r2 = await added(key, pid, { email: 'r2@example.com' });
    const p = await added(key, pid, { email: 'p@example.com' });
    const set = await update(key, pid, p.id, { referredBy: r1.id });
    expect(set.body).toMatchObject({ referredBy: r1.id, referralStatus: 'CREDIT_AWARDED', referralSource: 'PARTICIPANT' });
    expect((await get(key, pid, r1.id)).body).toMatchObject({ referralCount: 1, rank: 1, referrals: [p.id] });
    const moved = await update(key, pid, p.id, { referredBy: 'r2@example.com' });
    expect(moved.body).toMatchObject({ referredBy: r2.id, referralStatus: 'CREDIT_AWARDED' });
    expect((await get(key, pid, r1.id)).body).toMatchObject({ referralCount: 0, rank: 2, referrals: [] });
    expect((await get(key, pid, r2.id)).body).toMatchObject({ referralCount: 1, rank: 1, referrals: [p.id] });
    const expired = await update(key, pid, p.id, { referralStatus: 'CREDIT_EXPIRED' });
    expect(expired.body.referralStatus).toBe('CREDIT_EXPIRED');
    expect((await get(key, pid, r2.id)).body).toMatchObject({ referralCount: 0, monthlyReferralCount: 0, rank: 1, leadCount: 0 });
    await update(key, pid, p.id, { referralStatus: 'CREDIT_PENDING' });
    expect((await get(key, pid, r2.id)).body).toMatchObject({ referralCount: 0, leadCount: 1 });
    await update(key, pid, p.id, { referralStatus: 'CREDIT_AWARDED' });
    expect((await get(key, pid, r2.id)).body).toMatchObject({ referralCount: 1, monthlyReferralCount: 1, leadCount: 0, rank: 1 });
    expect((await app.request('GET', `/v2/campaign/${pid}`, { key })).body.referralCount).toBe(1);
  });

  it('calls referralCredited hooks in the transaction when a credit is awarded', async () => {
    const { key, pid } = await setup('REFERRAL', { installation: { referralTrigger: 'CUSTOM' } });
    const calls: Array<[string, string, number]> = [];
    const hook = async (_trx: unknown, _program: unknown, referrer: { id: string; referral_count: number }, referred: { id: string }) => {
      calls.push([referrer.id, referred.id, Number(referrer.referral_count)]);
    };
    app.deps.participants.hooks.referralCredited.push(hook as never);
    try {
      const r = await added(key, pid, { email: 'hr@example.com' });
      const p = await added(key, pid, { email: 'hp@example.com', referredBy: r.id });
      expect(calls).toEqual([]);
      await update(key, pid, p.id, { referralStatus: 'CREDIT_AWARDED' });
      expect(calls).toEqual([[r.id, p.id, 1]]);
      await update(key, pid, p.id, { notes: 'unrelated' });
      expect(calls).toHaveLength(1);
    } finally {
      app.deps.participants.hooks.referralCredited.splice(app.deps.participants.hooks.referralCredited.indexOf(hook as never), 1);
    }
  });

  it('rejects an unknown referrer, self-referral and a status without a referrer with 400', async () => {
    const { key, pid } = await setup();
    const p = await added(key, pid, { email: 'solo@example.com' });
    const unknown = await update(key, pid, p.id, { referredBy: 'ghost' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('referredBy');
    expect((await update(key, pid, p.id, { referredBy: p.id })).status).toBe(400);
    expect((await update(key, pid, p.id, { referralStatus: 'CREDIT_AWARDED' })).status).toBe(400);
  });

  it('applies affiliateStatus only on affiliate programs: APPROVED enrolls, SUSPENDED needs an affiliate and keeps shareUrl', async () => {
    const ref = await setup();
    const rp = await added(ref.key, ref.pid, { email: 'r@example.com' });
    expect((await update(ref.key, ref.pid, rp.id, { affiliateStatus: 'APPROVED' })).status).toBe(400);
    const { key, pid } = await setup('AFFILIATE');
    const customer = await added(key, pid, { email: 'c@example.com', isAffiliate: false });
    expect((await update(key, pid, customer.id, { affiliateStatus: 'SUSPENDED' })).status).toBe(400);
    const enrolled = await update(key, pid, customer.id, { affiliateStatus: 'APPROVED' });
    expect(enrolled.body).toMatchObject({ isAffiliate: true, affiliateStatus: 'APPROVED', affiliateEnrollmentSource: 'REST_API', shareUrl: expect.any(String) });
    const suspended = await update(key, pid, customer.id, { affiliateStatus: 'SUSPENDED' });
    expect(suspended.body).toMatchObject({ isAffiliate: true, affiliateStatus: 'SUSPENDED', shareUrl: enrolled.body.shareUrl });
  });

  it('answers 400 for an unknown participant, 403 without participant:write and 404 for an unknown program', async () => {
    const { key, teamId, pid } = await setup();
    const p = await added(key, pid, { email: 'u@example.com' });
    expect((await update(key, pid, 'ghost@example.com', { notes: 'x' })).status).toBe(400);
    expect((await update(await limitedKey(teamId, ['participant:read']), pid, p.id, { notes: 'x' })).status).toBe(403);
    expect((await update(key, 'doesnotexist', p.id, { notes: 'x' })).status).toBe(404);
  });
});

describe('DELETE /campaign/{id}/participant/{participantIdOrEmail}', () => {
  it('deletes permanently: the referrer loses the credit, people they referred stay without a referrer, counters follow', async () => {
    const { key, pid } = await setup();
    const top = await added(key, pid, { email: 'top@example.com' });
    const mid = await added(key, pid, { email: 'mid@example.com', referredBy: top.id });
    const leaf = await added(key, pid, { email: 'leaf@example.com', referredBy: mid.id });
    await update(key, pid, mid.id, { vanityKeys: ['midkey'] });
    const res = await app.request('DELETE', `/v2/campaign/${pid}/participant/MID@example.com`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await get(key, pid, mid.id)).status).toBe(400);
    expect((await get(key, pid, top.id)).body).toMatchObject({ referralCount: 0, referrals: [], rank: 1 });
    const orphan = (await get(key, pid, leaf.id)).body;
    expect(orphan).not.toHaveProperty('referredBy');
    expect(orphan).not.toHaveProperty('referrer');
    expect((await app.request('GET', `/v2/campaign/${pid}`, { key })).body).toMatchObject({ participantCount: 2, referralCount: 0 });
    // The vanity key is free again.
    expect((await update(key, pid, top.id, { vanityKeys: ['MIDKEY'] })).status).toBe(200);
    expect(await app.deps.db.knex('leaderboard_scores').where({ program_id: pid }).sum({ n: 'n' }).first()).toEqual({ n: 0 });
  });

  it('answers 400 for an unknown participant, 403 without participant:delete and 404 for an unknown program', async () => {
    const { key, teamId, pid } = await setup();
    const p = await added(key, pid, { email: 'd@example.com' });
    expect((await app.request('DELETE', `/v2/campaign/${pid}/participant/ghost@example.com`, { key })).status).toBe(400);
    const writer = await limitedKey(teamId, ['participant:read', 'participant:write']);
    expect((await app.request('DELETE', `/v2/campaign/${pid}/participant/${p.id}`, { key: writer })).status).toBe(403);
    expect((await app.request('DELETE', `/v2/campaign/doesnotexist/participant/${p.id}`, { key })).status).toBe(404);
    expect((await get(key, pid, p.id)).status).toBe(200);
  });
});

describe('POST /campaign/{id}/participants/bulk-delete', () => {
  it('deletes ids and emails in one call and reports each identifier in order, with unknowns and duplicates', async () => {
    const { key, pid } = await setup();
    const a = await added(key, pid, { email: 'a@example.com' });
    const b = await added(key, pid, { email: 'b@example.com', referredBy: a.id });
    const c = await added(key, pid, { email: 'c@example.com' });
    const res = await app.request('POST', `/v2/campaign/${pid}/participants/bulk-delete`, {
      key,
      body: { participants: [a.id, 'B@example.com', 'ghost@example.com', 'a@example.com', 'nosuchid', b.id] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.summary).toEqual({ total: 6, deletedCount: 2, notFoundCount: 2, duplicateCount: 2, errorCount: 0 });
    expect(res.body.results).toEqual([
      { index: 0, identifier: a.id, status: 'DELETED', participantId: a.id, email: 'a@example.com' },
      { index: 1, identifier: 'B@example.com', status: 'DELETED', participantId: b.id, email: 'b@example.com' },
      { index: 2, identifier: 'ghost@example.com', status: 'NOT_FOUND', message: expect.any(String) },
      { index: 3, identifier: 'a@example.com', status: 'DUPLICATE', participantId: a.id, message: expect.stringMatching(/index 0/) },
      { index: 4, identifier: 'nosuchid', status: 'NOT_FOUND', message: expect.any(String) },
      { index: 5, identifier: b.id, status: 'DUPLICATE', participantId: b.id, message: expect.stringMatching(/index 1/) },
    ]);
    const left = await app.request('GET', `/v2/campaign/${pid}/participants`, { key });
    expect(left.body.participants.map((p: { id: string }) => p.id)).toEqual([c.id]);
    expect((await app.request('GET', `/v2/campaign/${pid}`, { key })).body).toMatchObject({ participantCount: 1, referralCount: 0 });
  });

  it('rejects an empty list, more than 200 identifiers and a missing body with 400', async () => {
    const { key, pid } = await setup();
    const path = `/v2/campaign/${pid}/participants/bulk-delete`;
    expect((await app.request('POST', path, { key, body: { participants: [] } })).status).toBe(400);
    expect((await app.request('POST', path, { key, body: { participants: Array.from({ length: 201 }, (_, i) => `p${i}`) } })).status).toBe(400);
    expect((await app.request('POST', path, { key, body: {} })).status).toBe(400);
    expect((await app.request('POST', path, { key, body: { participants: [''] } })).status).toBe(400);
  });

  it('answers 403 without participant:delete and 404 for an unknown program', async () => {
    const { key, teamId, pid } = await setup();
    const writer = await limitedKey(teamId, ['participant:read', 'participant:write']);
    expect((await app.request('POST', `/v2/campaign/${pid}/participants/bulk-delete`, { key: writer, body: { participants: ['x'] } })).status).toBe(403);
    expect((await app.request('POST', '/v2/campaign/doesnotexist/participants/bulk-delete', { key, body: { participants: ['x'] } })).status).toBe(404);
  });
});

describe('GET /campaign/{id}/participants', () => {
  it('lists newest first, 10 by default, and pages with nextId without duplicates or gaps', async () => {
    const { key, pid } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      ids.push((await added(key, pid, { email: `n${i}@example.com` })).id);
      // Every third one shares a millisecond with the previous, so ties are ordered by id.
      if (i % 3 !== 0) app.clock.advance(1);
    }
    const first = await app.request('GET', `/v2/campaign/${pid}/participants`, { key });
    expect(first.body.limit).toBe(10);
    expect(first.body.participants).toHaveLength(10);
    const seen: string[] = [];
    let nextId: string | null = null;
    do {
      const res: { body: { participants: Array<{ id: string; createdAt: number }>; nextId: string | null; limit: number } } = await app.request(
        'GET',
        `/v2/campaign/${pid}/participants?limit=7${nextId ? `&nextId=${nextId}` : ''}`,
        { key },
      );
      expect(res.body.limit).toBe(7);
      seen.push(...res.body.participants.map((p) => p.id));
      nextId = res.body.nextId;
    } while (nextId);
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    expect(new Set(seen)).toEqual(new Set(ids));
    const rows = await app.deps.db.knex('participants').where({ program_id: pid }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).select('id');
    expect(seen).toEqual(rows.map((r: { id: string }) => r.id));
  });

  it('filters by up to three metadata pairs, exact and as strings, with brackets raw or percent-encoded', async () => {
    const { key, pid } = await setup();
    const match = await added(key, pid, { email: 'm1@example.com', metadata: { plan: 'pro', seats: 5, 'team name': 'A&B' } });
    await added(key, pid, { email: 'm2@example.com', metadata: { plan: 'pro', seats: 6, 'team name': 'A&B' } });
    await added(key, pid, { email: 'm3@example.com', metadata: { plan: 'Pro', seats: 5, 'team name': 'A&B' } });
    const list = (qs: string) => app.request('GET', `/v2/campaign/${pid}/participants?${qs}`, { key });
    const raw = await list('metadata[plan]=pro&metadata[seats]=5&metadata[team%20name]=A%26B');
    expect(raw.status, raw.text).toBe(200);
    expect(raw.body.participants.map((p: { id: string }) => p.id)).toEqual([match.id]);
    const encoded = await list('metadata%5Bplan%5D=pro&metadata%5Bseats%5D=5&metadata%5Bteam%20name%5D=A%26B');
    expect(encoded.body.participants.map((p: { id: string }) => p.id)).toEqual([match.id]);
    expect((await list('metadata[plan]=pro')).body.participants).toHaveLength(2);
    expect((await list('metadata[plan]=pr')).body.participants).toHaveLength(0);
    const four = await list('metadata[a]=1&metadata[b]=2&metadata[c]=3&metadata[d]=4');
    expect(four.status).toBe(400);
    expect((await list('metadata[]=1')).status).toBe(400);
    expect((await list('metadata[plan]=a&metadata[plan]=b')).status).toBe(400);
  });

  it('rejects a limit outside 1–100 and an unknown nextId with 400', async () => {
    const { key, pid } = await setup();
    for (const qs of ['limit=0', 'limit=101', 'limit=abc', 'nextId=nosuchparticipant']) {
      expect((await app.request('GET', `/v2/campaign/${pid}/participants?${qs}`, { key })).status, qs).toBe(400);
    }
  });

  it('answers 403 without participant:read and 404 for an unknown program', async () => {
    const { key, teamId, pid } = await setup();
    expect((await app.request('GET', `/v2/campaign/${pid}/participants`, { key: await limitedKey(teamId, ['program:read']) })).status).toBe(403);
    expect((await app.request('GET', '/v2/campaign/doesnotexist/participants', { key })).status).toBe(404);
  });
});
