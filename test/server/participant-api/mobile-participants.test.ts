import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobile, mobileProgram, session, shareKey, type MobileProgramFixture } from '../../helpers/mobile.ts';

// Issue #5: participant creation, referrer checks and the signed-in participant's own operations.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const DAY = 86_400_000;
const INSTANCE = '5F7D0F4C-3E7C-4AA9-8C41-D81D998F0BB1';

/** A REST-minted participant token for `email` (creates the participant). */
async function tokenFor(p: MobileProgramFixture, email: string, extra: Record<string, unknown> = {}) {
  const res = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email, ...extra } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { participantToken: string; participant: { id: string; shareUrl: string } };
}

const receipt = (pid: string, referrerId: string, at = app.clock.now()) => app.deps.receipts.sign(pid, referrerId, at, 30 * DAY);
const restGet = (p: MobileProgramFixture, who: string) => app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(who)}`, { key: p.key });

describe('POST /mobile/v2/referrer/validate', () => {
  it('says valid with the referrer id when the client named the referrer by id', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referrer/validate', s, { body: { referredBy: ann.id } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ valid: true, referredBy: ann.id });
  });

  it('says valid without referredBy when the referrer was named by share key (the id may not be revealed)', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referrer/validate', s, { body: { referredBy: shareKey(ann) } });
    expect(res.body).toEqual({ valid: true });
  });

  it('says not valid for an unknown code, a forged receipt or nothing, and reveals nothing', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    expect((await mobile(app, 'POST', '/referrer/validate', s, { body: { referredBy: 'nobody' } })).body).toEqual({ valid: false });
    const forged = receipt(p.pid, ann.id).slice(0, -2) + 'xx';
    expect((await mobile(app, 'POST', '/referrer/validate', s, { body: { receipts: [forged] } })).body).toEqual({ valid: false });
    expect((await mobile(app, 'POST', '/referrer/validate', s, { body: {} })).body).toEqual({ valid: false });
  });

  it('accepts a valid receipt and answers its referrer', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    expect((await mobile(app, 'POST', '/referrer/validate', s, { body: { receipts: [receipt(p.pid, ann.id)] } })).body).toEqual({ valid: true, referredBy: ann.id });
  });

  it('answers 400 for an email as referredBy (addresses cannot be probed)', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referrer/validate', s, { body: { referredBy: 'ann@example.com' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('referredBy');
  });

  it('answers 403 without a session token', async () => {
    const p = await mobileProgram(app);
    const res = await app.request('POST', '/mobile/v2/referrer/validate', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey! }, body: {} });
    expect(res.status).toBe(403);
  });
});

describe('POST /mobile/v2/participants', () => {
  it('creates a new participant and returns it with a working participant token', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'new@example.com', firstName: 'New', mobileInstanceId: INSTANCE, fingerprint: 'fp-1', metadata: { plan: 'pro' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ requiresParticipantToken: false, participant: { email: 'new@example.com', firstName: 'New', metadata: { plan: 'pro' } }, expiresIn: 2592000 });
    const own = await mobile(app, 'GET', '/participant', s, { participantToken: res.body.participantToken });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(res.body.participant.id);
    const stored = await restGet(p, 'new@example.com');
    expect(stored.body).toMatchObject({ mobileInstanceId: INSTANCE.toLowerCase(), fingerprint: 'fp-1', ipAddress: '127.0.0.1', referralSource: 'DIRECT' });
  });

  it('answers requiresParticipantToken true and no token or participant data for an existing email', async () => {
    const p = await mobileProgram(app);
    await addParticipant(app, p, { email: 'taken@example.com', firstName: 'Owner' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'TAKEN@example.com', firstName: 'Intruder' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requiresParticipantToken: true, participant: null });
    expect((await restGet(p, 'taken@example.com')).body.firstName).toBe('Owner');
  });

  it('applies visit receipts: last click by default, first click when the program says so', async () => {
    for (const [model, expected] of [['LAST_CLICK', 'bob'], ['FIRST_CLICK', 'ann']] as const) {
      const p = await mobileProgram(app, model === 'FIRST_CLICK' ? { options: { attributionModel: 'FIRST_CLICK' } } : {});
      const who = { ann: await addParticipant(app, p, { email: 'ann@example.com' }), bob: await addParticipant(app, p, { email: 'bob@example.com' }) };
      const s = await session(app, p);
      const now = app.clock.now();
      const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'new@example.com', receipts: [receipt(p.pid, who.ann.id, now - DAY), receipt(p.pid, who.bob.id, now - 1000)] } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.participant.referredBy, model).toBe(who[expected].id);
    }
  });

  it('ignores a receipt of another program', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    const ann = await addParticipant(app, other, { email: 'ann@example.com' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'new@example.com', receipts: [receipt(other.pid, ann.id)] } });
    expect(res.status, res.text).toBe(200);
    expect((await restGet(p, 'new@example.com')).body).toMatchObject({ referralSource: 'DIRECT' });
  });

  it('answers 400 for a bad email, a non-UUID mobileInstanceId and unknown fields', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'nope', mobileInstanceId: 'x', referralStatus: 'CREDIT_AWARDED' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'mobileInstanceId', 'referralStatus'].sort());
  });

  it('answers 422 for a blocked fraudster and writes nothing', async () => {
    const p = await mobileProgram(app, { options: { fraud: { blockedEmails: ['bad.actor@gmail.com'] } } });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'bad.actor@gmail.com' } });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe('PARTICIPANT_BLOCKED_ERROR');
    expect((await restGet(p, 'bad.actor@gmail.com')).status).toBe(400);
  });

  it('answers 403 with a session of no program credentials', async () => {
    const res = await mobile(app, 'POST', '/participants', { token: 'forged' }, { body: { email: 'new@example.com' } });
    expect(res.status).toBe(403);
  });
});

describe('POST /mobile/v2/referred-participants', () => {
  it('adds a referred participant by share key with a token, validReferral true and no referrer id revealed', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', referredBy: shareKey(ann), mobileInstanceId: INSTANCE } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ added: true, validReferral: true, participant: { email: 'friend@example.com', referredBy: ann.id }, participantToken: expect.any(String) });
    expect(res.body.referredBy).toBeUndefined();
    expect(res.body.notAddedReason).toBeUndefined();
    expect((await restGet(p, ann.id)).body.referralCount).toBe(1);
  });

  it('adds by receipt and answers the receipt’s referrer as referredBy', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', receipts: [receipt(p.pid, ann.id)] } });
    expect(res.body).toMatchObject({ added: true, validReferral: true, referredBy: ann.id });
  });

  it('answers no_referrer when nothing names a referrer (a forged receipt counts as nothing)', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const s = await session(app, p);
    const forged = receipt(p.pid, ann.id).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    for (const body of [{ email: 'friend@example.com' }, { email: 'friend@example.com', receipts: [forged] }]) {
      const res = await mobile(app, 'POST', '/referred-participants', s, { body });
      expect(res.body).toEqual({ added: false, participant: null, validReferral: false, notAddedReason: 'no_referrer' });
    }
    expect((await restGet(p, 'friend@example.com')).status).toBe(400);
  });

  it('answers invalid_referrer for a code that names nobody', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', referredBy: 'nosuchcode' } });
    expect(res.body).toEqual({ added: false, participant: null, validReferral: false, notAddedReason: 'invalid_referrer' });
  });

  it('answers invalid_referrer for a valid receipt whose referrer was deleted', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const r = receipt(p.pid, ann.id);
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key })).status).toBe(200);
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', receipts: [r] } });
    expect(res.body).toEqual({ added: false, participant: null, validReferral: false, notAddedReason: 'invalid_referrer' });
  });

  it('answers participant_already_exists without a token or the participant', async () => {
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    await addParticipant(app, p, { email: 'friend@example.com' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', referredBy: ann.id } });
    expect(res.body).toEqual({ added: false, participant: null, referredBy: ann.id, validReferral: true, notAddedReason: 'participant_already_exists' });
  });

  it('adds a referred customer of an affiliate program with added true and no token', async () => {
    const p = await mobileProgram(app, { type: 'AFFILIATE' });
    const aff = await addParticipant(app, p, { email: 'aff@example.com' });
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'buyer@example.com', referredBy: aff.id } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ added: true, validReferral: true, referredBy: aff.id });
    expect(res.body.participantToken).toBeUndefined();
  });

  it('answers 400 for a missing email', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { referredBy: 'abc' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('email');
  });

  it('answers 403 for a session token of another program', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    const s = await session(app, other);
    const res = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'friend@example.com', referredBy: 'abc' }, headers: { 'x-program-id': p.pid } });
    expect(res.status).toBe(403);
  });
});

describe('PATCH /mobile/v2/participant', () => {
  it('changes the signed-in participant’s names and metadata', async () => {
    const p = await mobileProgram(app);
    const { participantToken, participant } = await tokenFor(p, 'own@example.com', { metadata: { a: '1', b: '2' } });
    const s = await session(app, p);
    const res = await mobile(app, 'PATCH', '/participant', s, { participantToken, body: { firstName: 'Own', lastName: 'Er', metadata: { b: null, c: 3 } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: participant.id, firstName: 'Own', lastName: 'Er', metadata: { a: '1', c: '3' } });
  });

  it('answers 400 for any other field and for an empty body', async () => {
    const p = await mobileProgram(app);
    const { participantToken } = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    for (const body of [{ email: 'other@example.com' }, { referredBy: 'x' }, { vanityKeys: ['mine'] }, {}]) {
      const res = await mobile(app, 'PATCH', '/participant', s, { participantToken, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('changes the participant’s language to one of the program’s, refuses another with 400 and changes nothing (issue #27)', async () => {
    const p = await mobileProgram(app, { options: { languages: { baseLanguage: 'de', additionalLanguages: ['en', 'ja'] } } });
    const { participantToken, participant } = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    const res = await mobile(app, 'PATCH', '/participant', s, { participantToken, body: { language: 'ja' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.language).toBe('ja');
    for (const language of ['fr', 'xx', 5]) {
      const bad = await mobile(app, 'PATCH', '/participant', s, { participantToken, body: { language, firstName: 'Changed' } });
      expect(bad.status, JSON.stringify(language)).toBe(400);
      expect(bad.body.errors[0].field).toBe('language');
    }
    const rest = await app.request('GET', `/v2/campaign/${p.pid}/participant/${participant.id}`, { key: p.key });
    expect(rest.body).toMatchObject({ language: 'ja', firstName: null });
    // null (or the base language) resets to the base language.
    const reset = await mobile(app, 'PATCH', '/participant', s, { participantToken, body: { language: null } });
    expect(reset.body.language).toBe('de');
  });

  it('answers 403 without a participant token, and for a token of another program', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    const { participantToken } = await tokenFor(other, 'own@example.com');
    await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    expect((await mobile(app, 'PATCH', '/participant', s, { body: { firstName: 'X' } })).status).toBe(403);
    const res = await mobile(app, 'PATCH', '/participant', s, { participantToken, body: { firstName: 'X' } });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].field).toBe('Authorization');
  });
});

describe('POST /mobile/v2/participant/shares', () => {
  it('counts a share per channel and records a SHARE activity row', async () => {
    const p = await mobileProgram(app);
    const { participantToken, participant } = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    for (const type of ['copyRefLink', 'copy', 'email', 'sms', 'facebook', 'email']) {
      const res = await mobile(app, 'POST', '/participant/shares', s, { participantToken, body: { type } });
      expect(res.status, res.text).toBe(200);
    }
    expect((await restGet(p, participant.id)).body.shareCount).toEqual({ copyRefLink: 1, copy: 1, email: 2, sms: 1, facebook: 1 });
    const rows = await app.deps.db.knex('activity_logs').where({ participant_id: participant.id, type: 'SHARE' });
    expect(rows.map((r) => r.action).sort()).toEqual(['share.copy', 'share.copyRefLink', 'share.email', 'share.email', 'share.facebook', 'share.sms']);
  });

  it('answers 400 for an unknown share type', async () => {
    const p = await mobileProgram(app);
    const { participantToken } = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    for (const type of ['myspace', '', 'COPY']) {
      const res = await mobile(app, 'POST', '/participant/shares', s, { participantToken, body: { type } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe('type');
    }
  });

  it('answers 403 without a participant token', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    expect((await mobile(app, 'POST', '/participant/shares', s, { body: { type: 'email' } })).status).toBe(403);
  });
});

describe('POST /mobile/v2/participant/referral-trigger', () => {
  async function referred(options: Record<string, unknown>) {
    const p = await mobileProgram(app, Object.keys(options).length ? { options } : {});
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const friend = await tokenFor(p, 'friend@example.com', { referredBy: ann.id, referralStatus: 'CREDIT_PENDING' });
    return { p, ann, friend, s: await session(app, p) };
  }

  it('answers 403 while the program does not allow client-side triggers (the default)', async () => {
    const { p, friend, s } = await referred({});
    const res = await mobile(app, 'POST', '/participant/referral-trigger', s, { participantToken: friend.participantToken, body: {} });
    expect(res.status).toBe(403);
    expect((await restGet(p, friend.participant.id)).body.referralStatus).toBe('CREDIT_PENDING');
  });

  it('awards the signed-in participant’s referral when the program allows client-side triggers', async () => {
    const { p, ann, friend, s } = await referred({ allowClientSideReferralTrigger: true });
    const res = await mobile(app, 'POST', '/participant/referral-trigger', s, { participantToken: friend.participantToken, body: {} });
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(true);
    expect((await restGet(p, friend.participant.id)).body.referralStatus).toBe('CREDIT_AWARDED');
    expect((await restGet(p, ann.id)).body.referralCount).toBe(1);
  });

  it('answers 400 for a body with fields and 403 without a participant token', async () => {
    const { friend, s } = await referred({ allowClientSideReferralTrigger: true });
    expect((await mobile(app, 'POST', '/participant/referral-trigger', s, { participantToken: friend.participantToken, body: { delayInDays: 3 } })).status).toBe(400);
    expect((await mobile(app, 'POST', '/participant/referral-trigger', s, { body: {} })).status).toBe(403);
  });

  it('answers 422 on an affiliate program', async () => {
    const p = await mobileProgram(app, { type: 'AFFILIATE' });
    const { participantToken } = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participant/referral-trigger', s, { participantToken, body: {} });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('WRONG_PROGRAM_TYPE_ERROR');
  });
});

describe('GET /mobile/v2/campaign', () => {
  it('returns the program’s public details and visible rewards without coupon codes', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/campaign', s);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: p.pid, type: 'REFERRAL', currencyISO: expect.any(String), rewards: expect.any(Array) });
    for (const r of res.body.rewards) for (const hidden of ['couponCode', 'referralCouponCode', 'metadata', 'value', 'isVisible']) expect(r[hidden], hidden).toBeUndefined();
  });

  it('answers 403 without a session and 400 for a malformed program id', async () => {
    const p = await mobileProgram(app);
    expect((await app.request('GET', '/mobile/v2/campaign', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey! } })).status).toBe(403);
  });
});

describe('GET /mobile/v2/leaderboard', () => {
  async function board(nameFormat?: string) {
    const p = await mobileProgram(app);
    if (nameFormat) {
      const d = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { leaderboard: { nameFormat } } });
      expect(d.status, d.text).toBe(200);
    }
    const ann = await addParticipant(app, p, { email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' });
    const bob = await addParticipant(app, p, { email: 'bob@example.com', firstName: 'Bob' });
    for (const [i, ref] of [ann, ann, bob].entries()) await addParticipant(app, p, { email: `f${i}@example.com`, referredBy: ref.id, referralStatus: 'CREDIT_AWARDED' });
    app.deps.mobilePrograms.forget(p.pid);
    return { p, s: await session(app, p) };
  }

  it('ranks participants with masked emails and names by nameFormat, paged by page and offsetKey', async () => {
    const { s } = await board();
    const res = await mobile(app, 'GET', '/leaderboard?limit=1', s);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ leaderboardType: 'ALL_TIME', limit: 1, rows: [{ rank: 1, name: 'Ann L.', email: 'a***@example.com', score: 2 }] });
    const second = await mobile(app, 'GET', `/leaderboard?limit=1&offsetKey=${res.body.nextOffsetKey}`, s);
    expect(second.body.rows).toEqual([{ rank: 2, name: 'Bob', email: 'b***@example.com', score: 1, isYou: false }]);
    const byPage = await mobile(app, 'GET', '/leaderboard?limit=1&page=2', s);
    expect(byPage.body.rows).toEqual(second.body.rows);
  });

  it('marks the signed-in participant’s own row with isYou, and nobody’s without a participant token', async () => {
    const { p, s } = await board();
    const bob = await tokenFor(p, 'bob@example.com');
    const mine = await mobile(app, 'GET', '/leaderboard?limit=5', s, { participantToken: bob.participantToken });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.rows.slice(0, 2).map((r: { email: string; isYou: boolean }) => [r.email, r.isYou])).toEqual([
      ['a***@example.com', false],
      ['b***@example.com', true],
    ]);
    expect(mine.body.rows.filter((r: { isYou: boolean }) => r.isYou)).toHaveLength(1);
    const anon = await mobile(app, 'GET', '/leaderboard?limit=5', s);
    expect(anon.body.rows.every((r: { isYou: boolean }) => !r.isYou)).toBe(true);
    // The window's first page says the same (once the design shows the leaderboard).
    expect((await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { leaderboard: { isEnabled: true } } })).status).toBe(200);
    app.deps.mobilePrograms.forget(p.pid);
    const win = await mobile(app, 'GET', '/window', s, { participantToken: bob.participantToken });
    expect(win.body.leaderboard.rows.find((r: { isYou: boolean }) => r.isYou)?.email).toBe('b***@example.com');
    // A token of another program is refused, not ignored.
    const other = await tokenFor(await mobileProgram(app), 'bob@example.com');
    expect((await mobile(app, 'GET', '/leaderboard', s, { participantToken: other.participantToken })).status).toBe(403);
  });

  it('hides names when the design says ANONYMOUS', async () => {
    const { s } = await board('ANONYMOUS');
    const res = await mobile(app, 'GET', '/leaderboard?limit=2&leaderboardType=CURRENT_MONTH', s);
    expect(res.body.rows.map((r: { name: string | null }) => r.name)).toEqual([null, null]);
  });

  it('answers 400 for an unknown board, a limit over 50 and a page beyond row 500', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    for (const q of ['leaderboardType=NOPE', 'limit=51', 'limit=50&page=11']) expect((await mobile(app, 'GET', `/leaderboard?${q}`, s)).status, q).toBe(400);
  });

  it('answers 403 without a session token', async () => {
    expect((await app.request('GET', '/mobile/v2/leaderboard', { headers: { 'x-session-token': 'nope' } })).status).toBe(403);
  });
});

describe('GET /mobile/v2/participant/referrals', () => {
  async function withReferrals(options?: Record<string, unknown>) {
    const p = await mobileProgram(app, options ? { options } : {});
    await app.deps.teams.approveVerification(p.teamId);
    const ann = await tokenFor(p, 'ann@example.com');
    await addParticipant(app, p, { email: 'joined@example.com', firstName: 'Jo', referredBy: ann.participant.id });
    const s = await session(app, p);
    return { p, ann, s };
  }

  it('lists own referrals with masked emails by default', async () => {
    const { ann, s } = await withReferrals();
    const res = await mobile(app, 'GET', '/participant/referrals', s, { participantToken: ann.participantToken });
    expect(res.status, res.text).toBe(200);
    expect(res.body.referrals).toEqual([expect.objectContaining({ email: 'j***@example.com', firstName: 'Jo', referredBy: ann.participant.id })]);
  });

  it('discloses an invited address to its sender only when allowed and not private', async () => {
    const { ann, s } = await withReferrals({ referralEmailPrivacy: { masking: 'PARTIAL', allowInvitedEmailDisclosureAfterSignIn: true } });
    const send = (emailAddresses: string[], priv?: boolean) =>
      mobile(app, 'POST', '/participant/invites', s, { participantToken: ann.participantToken, body: { emailAddresses, messageText: 'Join me', ...(priv === undefined ? {} : { private: priv }) } });
    expect((await send(['open@example.com'])).body.invitesSent).toBe(1);
    expect((await send(['secret@example.com'], true)).body.invitesSent).toBe(1);
    const res = await mobile(app, 'GET', '/participant/referrals?sortBy=createdAt&desc=false', s, { participantToken: ann.participantToken });
    expect(res.body.referrals.map((r: { email: string }) => r.email).sort()).toEqual(['j***@example.com', 'open@example.com', 's***@example.com']);
  });

  it('masks everything under FULL masking', async () => {
    const { ann, s } = await withReferrals({ referralEmailPrivacy: { masking: 'FULL', allowInvitedEmailDisclosureAfterSignIn: true } });
    const res = await mobile(app, 'GET', '/participant/referrals', s, { participantToken: ann.participantToken });
    expect(res.body.referrals.map((r: { email: string }) => r.email)).toEqual(['***']);
  });

  it('pages with limit and offset and answers 400 for an email filter or bad sortBy', async () => {
    const { ann, s } = await withReferrals();
    const res = await mobile(app, 'GET', '/participant/referrals?limit=1&offset=1', s, { participantToken: ann.participantToken });
    expect(res.status).toBe(200);
    expect(res.body.referrals).toEqual([]);
    expect((await mobile(app, 'GET', '/participant/referrals?sortBy=email', s, { participantToken: ann.participantToken })).status).toBe(400);
    expect((await mobile(app, 'GET', '/participant/referrals?limit=0', s, { participantToken: ann.participantToken })).status).toBe(400);
  });

  it('answers 403 without a participant token', async () => {
    const { s } = await withReferrals();
    expect((await mobile(app, 'GET', '/participant/referrals', s)).status).toBe(403);
  });
});

describe('POST /mobile/v2/participant/invites', () => {
  it('sends invitations from the signed-in participant', async () => {
    const p = await mobileProgram(app);
    await app.deps.teams.approveVerification(p.teamId);
    const ann = await tokenFor(p, 'ann@example.com');
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participant/invites', s, { participantToken: ann.participantToken, body: { emailAddresses: ['x@example.com', 'y@example.com'], messageText: 'hi', subjectText: 'Join' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, invitesSent: 2, messageType: 'EMAIL' });
    expect((await restGet(p, ann.participant.id)).body.inviteCount).toBe(2);
  });

  it('answers 403 TEAM_NOT_VERIFIED_ERROR while the team is not verified', async () => {
    const p = await mobileProgram(app);
    const ann = await tokenFor(p, 'ann@example.com');
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participant/invites', s, { participantToken: ann.participantToken, body: { emailAddresses: ['x@example.com'], messageText: 'hi' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('TEAM_NOT_VERIFIED_ERROR');
  });

  it('answers 400 without messageText, without addresses and over the cap', async () => {
    const p = await mobileProgram(app);
    const ann = await tokenFor(p, 'ann@example.com');
    const s = await session(app, p);
    const many = Array.from({ length: 51 }, (_, i) => `x${i}@example.com`);
    for (const body of [{ emailAddresses: ['x@example.com'] }, { messageText: 'hi' }, { emailAddresses: many, messageText: 'hi' }]) {
      expect((await mobile(app, 'POST', '/participant/invites', s, { participantToken: ann.participantToken, body })).status).toBe(400);
    }
  });

  it('answers 403 without a participant token', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    expect((await mobile(app, 'POST', '/participant/invites', s, { body: { emailAddresses: ['x@example.com'], messageText: 'hi' } })).status).toBe(403);
  });
});

describe('GET /mobile/v2/participant/rewards and POST /mobile/v2/participant/rewards/read', () => {
  async function rewarded() {
    const p = await mobileProgram(app);
    const cfg = await app.request('POST', `/v2/campaign/${p.pid}/reward-configs`, { key: p.key, body: { type: 'SINGLE_SIDED' } });
    expect(cfg.status, cfg.text).toBe(200);
    const ann = await tokenFor(p, 'ann@example.com');
    for (const e of ['f1@example.com', 'f2@example.com']) await addParticipant(app, p, { email: e, referredBy: ann.participant.id, referralStatus: 'CREDIT_AWARDED' });
    return { p, ann, s: await session(app, p) };
  }

  it('lists own rewards with limit/nextId and marks them read', async () => {
    const { ann, s } = await rewarded();
    const all = await mobile(app, 'GET', '/participant/rewards', s, { participantToken: ann.participantToken });
    expect(all.status, all.text).toBe(200);
    expect(all.body.rewards.length).toBeGreaterThan(0);
    expect(all.body.rewards.every((r: { unread: boolean }) => r.unread)).toBe(true);
    const first = await mobile(app, 'GET', '/participant/rewards?limit=1', s, { participantToken: ann.participantToken });
    expect(first.body.rewards).toHaveLength(1);
    const one = first.body.rewards[0].id;
    const read = await mobile(app, 'POST', '/participant/rewards/read', s, { participantToken: ann.participantToken, body: { rewardIds: [one] } });
    expect(read.body).toEqual({ success: true, updated: 1 });
    const after = await mobile(app, 'GET', '/participant/rewards', s, { participantToken: ann.participantToken });
    expect(after.body.rewards.find((r: { id: string }) => r.id === one).unread).toBe(false);
    const rest = await mobile(app, 'POST', '/participant/rewards/read', s, { participantToken: ann.participantToken, body: {} });
    expect(rest.body.updated).toBe(all.body.rewards.length - 1);
  });

  it('never marks another participant’s rewards', async () => {
    const { p, ann, s } = await rewarded();
    const other = await tokenFor(p, 'other@example.com');
    const ids = (await mobile(app, 'GET', '/participant/rewards', s, { participantToken: ann.participantToken })).body.rewards.map((r: { id: string }) => r.id);
    const res = await mobile(app, 'POST', '/participant/rewards/read', s, { participantToken: other.participantToken, body: { rewardIds: ids } });
    expect(res.body.updated).toBe(0);
  });

  it('answers 400 for a bad limit, an empty rewardIds and a foreign nextId', async () => {
    const { ann, s } = await rewarded();
    expect((await mobile(app, 'GET', '/participant/rewards?limit=0', s, { participantToken: ann.participantToken })).status).toBe(400);
    expect((await mobile(app, 'GET', '/participant/rewards?nextId=nope', s, { participantToken: ann.participantToken })).status).toBe(400);
    expect((await mobile(app, 'POST', '/participant/rewards/read', s, { participantToken: ann.participantToken, body: { rewardIds: [] } })).status).toBe(400);
  });

  it('answers 403 without a participant token', async () => {
    const { s } = await rewarded();
    expect((await mobile(app, 'GET', '/participant/rewards', s)).status).toBe(403);
    expect((await mobile(app, 'POST', '/participant/rewards/read', s, { body: {} })).status).toBe(403);
  });
});

describe('GET /mobile/v2/participant/referral-summary', () => {
  it('returns referrals, leads, expired referrals, clicks, rewards and invites', async () => {
    const p = await mobileProgram(app);
    await app.request('POST', `/v2/campaign/${p.pid}/reward-configs`, { key: p.key, body: { type: 'SINGLE_SIDED' } });
    await app.deps.teams.approveVerification(p.teamId);
    const ann = await tokenFor(p, 'ann@example.com');
    await addParticipant(app, p, { email: 'f1@example.com', referredBy: ann.participant.id, referralStatus: 'CREDIT_AWARDED' });
    await addParticipant(app, p, { email: 'f2@example.com', referredBy: ann.participant.id, referralStatus: 'CREDIT_PENDING' });
    const s = await session(app, p);
    await mobile(app, 'POST', '/participant/invites', s, { participantToken: ann.participantToken, body: { emailAddresses: ['x@example.com'], messageText: 'hi' } });
    const res = await mobile(app, 'GET', '/participant/referral-summary', s, { participantToken: ann.participantToken });
    expect(res.status, res.text).toBe(200);
    const rewards = (await mobile(app, 'GET', '/participant/rewards', s, { participantToken: ann.participantToken })).body.rewards;
    expect(res.body).toEqual({
      referrals: 1,
      leads: expect.any(Number),
      expiredReferrals: 0,
      clicks: 0,
      rewardsEarned: rewards.length,
      pendingRewards: rewards.filter((r: { status: string }) => r.status === 'PENDING').length,
      invitesSent: 1,
    });
  });

  it('answers 422 on an affiliate program and 403 without a participant token', async () => {
    const p = await mobileProgram(app, { type: 'AFFILIATE' });
    const own = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/participant/referral-summary', s, { participantToken: own.participantToken });
    expect(res.status).toBe(422);
    expect((await mobile(app, 'GET', '/participant/referral-summary', s)).status).toBe(403);
  });
});

describe('POST /mobile/v2/resources/{resourceId}/download-url', () => {
  async function withFile(published = true, type = 'FILE') {
    const p = await mobileProgram(app);
    const now = app.clock.now();
    const id = `res${Math.random().toString(36).slice(2, 12)}`;
    await app.deps.db.knex('program_resources').insert({
      id, program_id: p.pid, type, title: 'Kit', file_key: `k/${id}`, file_name: 'kit.pdf', file_mime_type: 'application/pdf', file_bytes: 10,
      file_moderation_status: 'APPROVED', is_published: published, position: 0, created_at: now, updated_at: now,
    });
    const own = await tokenFor(p, 'own@example.com');
    return { p, id, own, s: await session(app, p) };
  }

  it('returns a new signed link each time', async () => {
    const { id, own, s } = await withFile();
    const a = await mobile(app, 'POST', `/resources/${id}/download-url`, s, { participantToken: own.participantToken, body: {} });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toEqual({ url: expect.stringContaining(`/files/resources/${id}?`), expiresIn: expect.any(Number) });
    app.clock.advance(1000);
    const b = await mobile(app, 'POST', `/resources/${id}/download-url`, s, { participantToken: own.participantToken, body: {} });
    expect(b.body.url).not.toBe(a.body.url);
  });

  it('answers 404 for an unpublished file, a non-file resource and an unknown id', async () => {
    const unpublished = await withFile(false);
    expect((await mobile(app, 'POST', `/resources/${unpublished.id}/download-url`, unpublished.s, { participantToken: unpublished.own.participantToken, body: {} })).status).toBe(404);
    const link = await withFile(true, 'LINK');
    expect((await mobile(app, 'POST', `/resources/${link.id}/download-url`, link.s, { participantToken: link.own.participantToken, body: {} })).status).toBe(404);
    expect((await mobile(app, 'POST', '/resources/nope/download-url', link.s, { participantToken: link.own.participantToken, body: {} })).status).toBe(404);
  });

  it('answers 400 for a body with fields and 403 without a participant token', async () => {
    const { id, own, s } = await withFile();
    expect((await mobile(app, 'POST', `/resources/${id}/download-url`, s, { participantToken: own.participantToken, body: { ttl: 5 } })).status).toBe(400);
    expect((await mobile(app, 'POST', `/resources/${id}/download-url`, s, { body: {} })).status).toBe(403);
  });
});

describe('GET and POST /mobile/v2/participant/vanity-links', () => {
  it('sets, reads and clears the signed-in participant’s vanity keys with their links', async () => {
    const p = await mobileProgram(app);
    const own = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    const set = await mobile(app, 'POST', '/participant/vanity-links', s, { participantToken: own.participantToken, body: { vanityKeys: ['ann-rocks'] } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ vanityKeys: ['ann-rocks'], links: [{ vanityKey: 'ann-rocks', url: expect.stringContaining('grsf=ann-rocks') }] });
    expect((await mobile(app, 'GET', '/participant/vanity-links', s, { participantToken: own.participantToken })).body).toEqual(set.body);
    const v = await mobile(app, 'POST', '/referrer/validate', s, { body: { referredBy: 'ann-rocks' } });
    expect(v.body).toEqual({ valid: true });
    const cleared = await mobile(app, 'POST', '/participant/vanity-links', s, { participantToken: own.participantToken, body: { vanityKeys: [] } });
    expect(cleared.body).toEqual({ vanityKeys: [], links: [] });
  });

  it('answers 409 for a key another participant holds', async () => {
    const p = await mobileProgram(app);
    const a = await tokenFor(p, 'a@example.com');
    const b = await tokenFor(p, 'b@example.com');
    const s = await session(app, p);
    await mobile(app, 'POST', '/participant/vanity-links', s, { participantToken: a.participantToken, body: { vanityKeys: ['mine'] } });
    const res = await mobile(app, 'POST', '/participant/vanity-links', s, { participantToken: b.participantToken, body: { vanityKeys: ['MINE'] } });
    expect(res.status).toBe(409);
  });

  it('answers 400 for a malformed key or more than five', async () => {
    const p = await mobileProgram(app);
    const own = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    for (const vanityKeys of [['has space'], ['a', 'b', 'c', 'd', 'e', 'f']]) {
      expect((await mobile(app, 'POST', '/participant/vanity-links', s, { participantToken: own.participantToken, body: { vanityKeys } })).status).toBe(400);
    }
  });

  it('answers 403 without a participant token', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/participant/vanity-links', s)).status).toBe(403);
  });
});

describe('POST /mobile/v2/participants with BILLING=on', () => {
  it('answers 402 USAGE_LIMIT_ERROR at the plan’s participant limit, for both creation operations', async () => {
    const billed = await startApp({ ...RAISED_LIMITS, BILLING: 'on' });
    try {
      const p = await mobileProgram(billed);
      const ann = await addParticipant(billed, p, { email: 'ann@example.com' });
      await billed.deps.db.knex('program_counters').where({ program_id: p.pid }).update({ participant_count: 50_000 });
      const s = await session(billed, p);
      const direct = await mobile(billed, 'POST', '/participants', s, { body: { email: 'new@example.com' } });
      expect(direct.status, direct.text).toBe(402);
      expect(direct.body.code).toBe('USAGE_LIMIT_ERROR');
      const referred = await mobile(billed, 'POST', '/referred-participants', s, { body: { email: 'new@example.com', referredBy: ann.id } });
      expect(referred.status).toBe(402);
    } finally {
      await billed.close();
    }
  });
});

describe('GET /mobile/v2/window', () => {
  const visit = (pid: string, participantId: string, action: string, source: string | null) =>
    app.deps.activity.record(app.deps.db.knex, { programId: pid, participantId, type: 'VISIT', action, text: 'Visit', ...(source ? { data: { source } } : {}) });

  it('answers a signed-out visitor with share URLs, channels, rewards and no participant or traffic', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/window', s);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      participant: null,
      share: { preferredUrl: null, fallbackUrl: expect.stringContaining(`/r/${p.pid}`), channels: expect.arrayContaining(['email', 'facebook']) },
      rewards: expect.any(Array),
      leaderboard: null,
      payoutSettings: { payoutDestinations: { enabledProviders: [] } },
      traffic: null,
    });
  });

  it('adds the participant, the leaderboard and the traffic report from VISIT rows for a signed-in participant', async () => {
    const p = await mobileProgram(app);
    const d = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { leaderboard: { isEnabled: true }, trafficInsights: { isPublicDisplayed: true } } });
    expect(d.status, d.text).toBe(200);
    app.deps.mobilePrograms.forget(p.pid);
    const own = await tokenFor(p, 'own@example.com', { firstName: 'Own' });
    await visit(p.pid, own.participant.id, 'visit.unique', 'google');
    await visit(p.pid, own.participant.id, 'visit.repeat', 'google');
    await visit(p.pid, own.participant.id, 'visit.unique', null);
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/window', s, { participantToken: own.participantToken });
    expect(res.status, res.text).toBe(200);
    expect(res.body.participant).toMatchObject({ id: own.participant.id, firstName: 'Own' });
    expect(res.body.leaderboard).toMatchObject({ leaderboardType: 'ALL_TIME', rows: [expect.objectContaining({ name: 'Own', email: 'o***@example.com' })] });
    const t = res.body.traffic;
    expect(t).toMatchObject({ range: 'LAST_30_DAYS', interval: 'DAY', days: 30, visits: 3, uniqueVisitors: 2 });
    expect(t.visitsOverTime).toHaveLength(30);
    expect(t.visitsOverTime.at(-1)).toEqual({ date: new Date(app.clock.now()).toISOString().slice(0, 10), visits: 3 });
    expect(t.sources).toEqual(expect.arrayContaining([{ source: 'google', visits: 2 }, { source: null, visits: 1 }]));
  });

  it('reports the design’s default date range in the window, and any range through MT1 (months for ALL_TIME)', async () => {
    const p = await mobileProgram(app);
    const d = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { trafficInsights: { isPublicDisplayed: true, defaultDateRange: 'LAST_7_DAYS' } } });
    expect(d.status, d.text).toBe(200);
    app.deps.mobilePrograms.forget(p.pid);
    const own = await tokenFor(p, 'ranges@example.com');
    const joined = app.clock.now();
    await visit(p.pid, own.participant.id, 'visit.unique', 'google');
    await visit(p.pid, own.participant.id, 'visit.repeat', 'google');
    app.clock.advance(40 * DAY);
    await visit(p.pid, own.participant.id, 'visit.unique', 'newsletter');
    const s = await session(app, p);
    // A fresh token: the first one's 30 days are over.
    const auth = { participantToken: (await tokenFor(p, 'ranges@example.com')).participantToken };

    const win = (await mobile(app, 'GET', '/window', s, auth)).body.traffic;
    expect(win).toMatchObject({ range: 'LAST_7_DAYS', interval: 'DAY', days: 7, visits: 1, uniqueVisitors: 1, sources: [{ source: 'newsletter', visits: 1 }] });
    expect(win.visitsOverTime).toHaveLength(7);
    const report = async (range?: string) => {
      const res = await mobile(app, 'GET', `/participant/traffic${range ? `?range=${range}` : ''}`, s, auth);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    expect(await report()).toEqual(win);
    expect(await report('LAST_30_DAYS')).toMatchObject({ range: 'LAST_30_DAYS', days: 30, visits: 1 });
    const ninety = await report('LAST_90_DAYS');
    expect(ninety).toMatchObject({ days: 90, visits: 3, uniqueVisitors: 2 });
    expect(ninety.visitsOverTime.find((b: { date: string }) => b.date === new Date(joined).toISOString().slice(0, 10))).toEqual({ date: new Date(joined).toISOString().slice(0, 10), visits: 2 });
    const all = await report('ALL_TIME');
    const months = [new Date(joined).toISOString().slice(0, 7), new Date(app.clock.now()).toISOString().slice(0, 7)];
    expect(all).toMatchObject({ range: 'ALL_TIME', interval: 'MONTH', days: 41, visits: 3 });
    expect(all.visitsOverTime.map((b: { date: string }) => b.date)).toEqual([...new Set(months)].length === 1 ? [months[0]] : expect.arrayContaining(months));
    expect(all.visitsOverTime.reduce((n: number, b: { visits: number }) => n + b.visits, 0)).toBe(3);

    expect((await mobile(app, 'GET', '/participant/traffic?range=LAST_YEAR', s, auth)).status).toBe(400);
    expect((await mobile(app, 'GET', '/participant/traffic', s)).status).toBe(403);
    await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { trafficInsights: { isPublicDisplayed: false } } });
    app.deps.mobilePrograms.forget(p.pid);
    expect((await mobile(app, 'GET', '/participant/traffic', s, auth)).status).toBe(403);
  });

  it('leaves the traffic report out when the design’s Traffic section is off', async () => {
    const p = await mobileProgram(app);
    const d = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { trafficInsights: { isPublicDisplayed: false } } });
    expect(d.status, d.text).toBe(200);
    app.deps.mobilePrograms.forget(p.pid);
    const own = await tokenFor(p, 'own@example.com');
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/window', s, { participantToken: own.participantToken })).body.traffic).toBeNull();
  });

  it('answers 403 for a participant token of another program', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    const own = await tokenFor(other, 'own@example.com');
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/window', s, { participantToken: own.participantToken });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].field).toBe('Authorization');
  });
});

describe('GET /mobile/v2/window with BILLING=on', () => {
  it('leaves the traffic report out on an unpaid plan', async () => {
    const billed = await startApp({ ...RAISED_LIMITS, BILLING: 'on' });
    try {
      const p = await mobileProgram(billed);
      await billed.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { trafficInsights: { isPublicDisplayed: true } } });
      const res = await billed.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email: 'own@example.com' } });
      const s = await session(billed, p);
      const paid = await mobile(billed, 'GET', '/window', s, { participantToken: res.body.participantToken });
      expect(paid.body.traffic).not.toBeNull();
      await billed.deps.db.knex('teams').where({ id: p.teamId }).update({ plan: 'FREE' });
      billed.deps.mobilePrograms.forget(p.pid);
      const unpaid = await mobile(billed, 'GET', '/window', s, { participantToken: res.body.participantToken });
      expect(unpaid.status, unpaid.text).toBe(200);
      expect(unpaid.body.traffic).toBeNull();
    } finally {
      await billed.close();
    }
  });
});

describe('GET /openapi/mobile-v2.json', () => {
  it('lists every participant operation of this file with its schemas', async () => {
    const res = await app.request('GET', '/openapi/mobile-v2.json');
    expect(res.status).toBe(200);
    const ops = Object.values(res.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap((m) => Object.values(m).map((o) => o.operationId));
    for (const id of ['referrer.validate', 'participants.add', 'participants.addReferred', 'participant.update', 'participant.trackShare', 'participant.triggerReferral', 'participant.referrals', 'participant.sendInvites', 'participant.rewards', 'participant.rewardsRead', 'participant.referralSummary', 'participant.vanityLinks', 'participant.setVanityLinks', 'window.get', 'campaign.get', 'leaderboard.get', 'resources.downloadUrl']) {
      expect(ops, id).toContain(id);
    }
    expect(res.body.components.schemas.MobileReferredParticipantCreated.properties.notAddedReason.enum).toEqual(['no_referrer', 'invalid_referrer', 'participant_already_exists']);
  });
});

describe('participant tokens on participant operations', () => {
  it('change only the token’s own participant', async () => {
    const p = await mobileProgram(app);
    const a = await tokenFor(p, 'a@example.com', { firstName: 'A' });
    const b = await tokenFor(p, 'b@example.com', { firstName: 'B' });
    const s = await session(app, p);
    await mobile(app, 'PATCH', '/participant', s, { participantToken: a.participantToken, body: { firstName: 'Changed' } });
    await mobile(app, 'POST', '/participant/shares', s, { participantToken: a.participantToken, body: { type: 'sms' } });
    expect((await restGet(p, a.participant.id)).body).toMatchObject({ firstName: 'Changed', shareCount: { sms: 1 } });
    expect((await restGet(p, b.participant.id)).body).toMatchObject({ firstName: 'B', shareCount: {} });
  });
});

describe('GDPR consent (design signup.gdpr) on MP2 and MP3', () => {
  const ORIGIN = 'https://shop.example';
  const TEXT = 'I agree to hear from Acme about referrals.';
  async function consentProgram(isCheckboxRequired: boolean) {
    const p = await mobileProgram(app);
    const res = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { signup: { gdpr: { isEnabled: true, text: TEXT, isCheckboxRequired } } } });
    expect(res.status, res.text).toBe(200);
    return p;
  }
  const agreements = async (p: MobileProgramFixture, email: string) => {
    const meta = (await restGet(p, email)).body.metadata as Record<string, string>;
    return meta.gdprAgreements ? JSON.parse(meta.gdprAgreements) : null;
  };

  it('requires the tick from pages while the checkbox is required, and records the program’s text and the time', async () => {
    const p = await consentProgram(true);
    const s = await session(app, p, { origin: ORIGIN });
    const refused = await mobile(app, 'POST', '/participants', s, { body: { email: 'no@example.com' } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'gdprConsent', code: 'REQUIRED' })]);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const referred = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'no2@example.com', referredBy: shareKey(ann), gdprConsent: false } });
    expect(referred.status, referred.text).toBe(400);
    const ok = await mobile(app, 'POST', '/referred-participants', s, { body: { email: 'yes@example.com', referredBy: shareKey(ann), gdprConsent: true } });
    expect(ok.status, ok.text).toBe(200);
    expect(await agreements(p, 'yes@example.com')).toEqual([{ text: TEXT, agreedAt: new Date(app.clock.now()).toISOString() }]);
  });

  it('lets apps (their own forms) and optional checkboxes through, recording consent only when given', async () => {
    const required = await consentProgram(true);
    const app1 = await mobile(app, 'POST', '/participants', await session(app, required), { body: { email: 'app@example.com' } });
    expect(app1.status, app1.text).toBe(200);
    expect(await agreements(required, 'app@example.com')).toBeNull();
    const optional = await consentProgram(false);
    const s = await session(app, optional, { origin: ORIGIN });
    expect((await mobile(app, 'POST', '/participants', s, { body: { email: 'skip@example.com' } })).status).toBe(200);
    expect(await agreements(optional, 'skip@example.com')).toBeNull();
    expect((await mobile(app, 'POST', '/participants', s, { body: { email: 'tick@example.com', gdprConsent: true } })).status).toBe(200);
    expect(await agreements(optional, 'tick@example.com')).toHaveLength(1);
  });

  it('keeps gdprAgreements out of client hands: metadata may not name it, nor may a REST update', async () => {
    const p = await consentProgram(false);
    const s = await session(app, p, { origin: ORIGIN });
    const forged = await mobile(app, 'POST', '/participants', s, { body: { email: 'forge@example.com', metadata: { gdprAgreements: '[]' } } });
    expect(forged.status, forged.text).toBe(400);
    const a = await mobile(app, 'POST', '/participants', s, { body: { email: 'real@example.com', gdprConsent: true } });
    const upd = await app.request('POST', `/v2/campaign/${p.pid}/participant/${a.body.participant.id}`, { key: p.key, body: { metadata: { gdprAgreements: null } } });
    expect(upd.status, upd.text).toBe(400);
    expect(await agreements(p, 'real@example.com')).toHaveLength(1);
  });

  it('does not apply while the design has no consent checkbox', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p, { origin: ORIGIN });
    expect((await mobile(app, 'POST', '/participants', s, { body: { email: 'plain@example.com', gdprConsent: true } })).status).toBe(200);
    expect(await agreements(p, 'plain@example.com')).toBeNull();
  });
});
