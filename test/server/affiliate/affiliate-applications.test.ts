import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { mobile, session } from '../../helpers/mobile.ts';
import fc from 'fast-check';
import { checkAnswers } from '../../../server/domain/affiliate/affiliate-forms.ts';
import { ValidationError } from '../../../server/errors.ts';

// Affiliate applications (rest-v2 §2.32, §3.12 AF1–AF3) and the public application form through the
// participant API (issue #6).

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

const DAY = 86_400_000;
const QUESTIONS = [
  { fieldId: 'site', label: 'Your website', type: 'url', isRequired: true },
  { fieldId: 'audience', label: 'Audience size', type: 'number', isRequired: false },
  { fieldId: 'channel', label: 'Main channel', type: 'dropdown', isRequired: true, options: ['Blog', 'YouTube'] },
  { fieldId: 'country', label: 'Country', type: 'country', isRequired: false },
  { fieldId: 'agree', label: 'I follow the brand rules', type: 'checkbox', isRequired: true },
];
const ANSWERS = { site: 'https://blog.example.com', audience: 1200, channel: 'Blog', country: 'de', agree: true };

async function setup(options: Record<string, unknown> = {}, type: 'AFFILIATE' | 'REFERRAL' = 'AFFILIATE') {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  let r = await app.request('PATCH', `/v2/campaign/${pid}/installation`, { key: acct.key, body: { mobile: { isEnabled: true } } });
  expect(r.status, r.text).toBe(200);
  const publicKey = r.body.mobile.publicKey as string;
  if (type === 'AFFILIATE') {
    r = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: { affiliateApplicationMode: 'MANUAL_REVIEW', affiliateApplicationForm: { questions: QUESTIONS, termsUrl: null }, ...options } });
    expect(r.status, r.text).toBe(200);
  }
  return { key: acct.key, teamId: acct.teamId, pid, publicKey };
}

type Fixture = Awaited<ReturnType<typeof setup>>;

async function apply(p: Fixture, body: Record<string, unknown>) {
  const s = await session(app, p);
  return mobile(app, 'POST', '/affiliate-applications', s, { body });
}

async function pending(p: Fixture, email: string, extra: Record<string, unknown> = {}) {
  const res = await apply(p, { email, firstName: 'Ann', answers: ANSWERS, ...extra });
  expect(res.status, res.text).toBe(200);
  expect(res.body.status).toBe('PENDING');
  return res.body.applicationId as string;
}

async function limitedKey(teamId: string, scopes: string[]) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds: null, origin: 'CLI' })).secret;
}

const review = (p: Fixture, id: string, body: unknown, key = p.key) => app.request('PATCH', `/v2/campaign/${p.pid}/affiliate-applications/${id}`, { key, body });

describe('participant API: the affiliate application form', () => {
  it('serves the questions, mode and review estimate from the options', async () => {
    const p = await setup({ affiliateApplicationReviewEstimateBusinessDays: 5 });
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/affiliate-application-form', s);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ mode: 'MANUAL_REVIEW', questions: QUESTIONS, termsUrl: null, reviewEstimateBusinessDays: 5 });
  });

  it('validates the saved form in the options: unique fieldIds, options only (and always) for choices, affiliate programs only', async () => {
    const p = await setup();
    const bad = [
      [QUESTIONS[0], QUESTIONS[0]],
      [{ fieldId: 'c', label: 'C', type: 'radio', isRequired: false }],
      [{ fieldId: 't', label: 'T', type: 'text', isRequired: false, options: ['x'] }],
      [{ fieldId: 'has space', label: 'X', type: 'text', isRequired: false }],
      [{ fieldId: 'x', label: 'X', type: 'date', isRequired: false }],
    ];
    for (const questions of bad) {
      const res = await app.request('PATCH', `/v2/campaign/${p.pid}/options`, { key: p.key, body: { affiliateApplicationForm: { questions } } });
      expect(res.status, JSON.stringify(questions)).toBe(400);
    }
    const r = await setup({}, 'REFERRAL');
    const res = await app.request('PATCH', `/v2/campaign/${r.pid}/options`, { key: r.key, body: { affiliateApplicationForm: { questions: [] } } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('NOT_AVAILABLE_FOR_PROGRAM_TYPE');
  });

  it('answers 422 on a referral program', async () => {
    const p = await setup({}, 'REFERRAL');
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/affiliate-application-form', s)).status).toBe(422);
    const res = await mobile(app, 'POST', '/affiliate-applications', s, { body: { email: 'x@example.com' } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('WRONG_PROGRAM_TYPE_ERROR');
  });

  it('validates answers per field against the saved form', async () => {
    const p = await setup();
    const res = await apply(p, { email: 'bad@example.com', answers: { site: 'not a url', audience: 'many', channel: 'TikTok', country: 'Germany', extra: 'x' } });
    expect(res.status).toBe(400);
    const fields = Object.fromEntries(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]));
    expect(fields).toEqual({
      'answers.extra': 'UNKNOWN_FIELD',
      'answers.site': 'INVALID_URL',
      'answers.audience': 'INVALID_TYPE',
      'answers.channel': 'INVALID_VALUE',
      'answers.country': 'INVALID_COUNTRY',
      'answers.agree': 'REQUIRED',
    });
    expect(await app.deps.db.knex('affiliate_applications').where({ program_id: p.pid }).count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });

  it('requires accepting the terms when the form has them, and records when', async () => {
    const p = await setup({ affiliateApplicationForm: { questions: [], termsUrl: 'https://acme.example.com/terms' } });
    const refused = await apply(p, { email: 'terms@example.com' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'acceptTerms', code: 'REQUIRED' });
    const ok = await apply(p, { email: 'terms@example.com', acceptTerms: true });
    expect(ok.status, ok.text).toBe(200);
    const got = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications/${ok.body.applicationId}`, { key: p.key });
    expect(got.body.termsAcceptedAt).toBe(app.clock.now());
  });

  it('OPEN_ENROLLMENT enrolls at once with source OPEN_ENROLLMENT and a participant token, keeping no application', async () => {
    const p = await setup({ affiliateApplicationMode: 'OPEN_ENROLLMENT' });
    const res = await apply(p, { email: 'open@example.com', answers: ANSWERS });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'APPROVED', applicationId: null, participantId: expect.any(String), participantToken: expect.any(String) });
    const participant = await app.request('GET', `/v2/campaign/${p.pid}/participant/open@example.com`, { key: p.key });
    expect(participant.body).toMatchObject({ isAffiliate: true, affiliateStatus: 'APPROVED', affiliateEnrollmentSource: 'OPEN_ENROLLMENT' });
    const list = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications`, { key: p.key });
    expect(list.body.total).toBe(0);
  });

  it('AUTO_APPROVE approves a low-risk applicant and holds a high-risk one for review', async () => {
    const p = await setup({ affiliateApplicationMode: 'AUTO_APPROVE', fraud: { blockedEmailDomains: ['spam.example'] } });
    const low = await apply(p, { email: 'good@example.com', answers: ANSWERS });
    expect(low.body).toMatchObject({ status: 'APPROVED', applicationId: expect.any(String), participantToken: expect.any(String) });
    const high = await apply(p, { email: 'who@spam.example', answers: ANSWERS });
    expect(high.body).toMatchObject({ status: 'PENDING', participantId: null });
    expect(high.body.participantToken).toBeUndefined();
    const a = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications/${low.body.applicationId}`, { key: p.key });
    expect(a.body).toMatchObject({ status: 'APPROVED', riskLevel: 'LOW', participantId: low.body.participantId, decidedAt: app.clock.now(), reviewedAt: null });
    const b = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications/${high.body.applicationId}`, { key: p.key });
    expect(b.body).toMatchObject({ status: 'PENDING', riskLevel: 'HIGH' });
    const enrolled = await app.request('GET', `/v2/campaign/${p.pid}/participant/good@example.com`, { key: p.key });
    expect(enrolled.body.affiliateEnrollmentSource).toBe('APPLICATION');
  });

  it('under review modes, the participant API’s addParticipant does not enroll (406); under OPEN_ENROLLMENT it enrolls with source OPEN_ENROLLMENT', async () => {
    const p = await setup();
    const s = await session(app, p);
    const refused = await mobile(app, 'POST', '/participants', s, { body: { email: 'direct@example.com' } });
    expect(refused.status).toBe(406);
    expect(refused.body.message).toContain('/affiliate-applications');
    const open = await setup({ affiliateApplicationMode: 'OPEN_ENROLLMENT' });
    const o = await session(app, open);
    const added = await mobile(app, 'POST', '/participants', o, { body: { email: 'direct@example.com' } });
    expect(added.status, added.text).toBe(200);
    const participant = await app.request('GET', `/v2/campaign/${open.pid}/participant/direct@example.com`, { key: open.key });
    expect(participant.body).toMatchObject({ isAffiliate: true, affiliateEnrollmentSource: 'OPEN_ENROLLMENT' });
  });

  it('lets only one of two concurrent submissions from one address wait for review', async () => {
    const p = await setup();
    const both = await Promise.all([apply(p, { email: 'race@example.com', answers: ANSWERS }), apply(p, { email: 'race@example.com', answers: ANSWERS })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications`, { key: p.key })).body.total).toBe(1);
  });

  it('refuses a second pending application (409) and an existing affiliate (409)', async () => {
    const p = await setup();
    await pending(p, 'twice@example.com');
    expect((await apply(p, { email: 'TWICE@example.com', answers: ANSWERS })).status).toBe(409);
    await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email: 'aff@example.com' } });
    expect((await apply(p, { email: 'aff@example.com', answers: ANSWERS })).status).toBe(409);
  });
});

describe('GET /campaign/{id}/affiliate-applications', () => {
  it('pages newest first by offset with the filter’s total', async () => {
    const p = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await pending(p, `a${i}@example.com`));
      app.clock.advance(1000);
    }
    await review(p, ids[0]!, { status: 'DENIED' });
    const page = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications?limit=2&offset=1&status=PENDING`, { key: p.key });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.applications.map((a: { id: string }) => a.id)).toEqual([ids[3], ids[2]]);
    const one = page.body.applications[0];
    expect(one).toEqual({
      id: ids[3],
      answers: [
        { fieldId: 'site', label: 'Your website', type: 'url', value: 'https://blog.example.com' },
        { fieldId: 'audience', label: 'Audience size', type: 'number', value: 1200 },
        { fieldId: 'channel', label: 'Main channel', type: 'dropdown', value: 'Blog' },
        { fieldId: 'country', label: 'Country', type: 'country', value: 'DE' },
        { fieldId: 'agree', label: 'I follow the brand rules', type: 'checkbox', value: true },
      ],
      createdAt: expect.any(Number),
      decidedAt: null,
      reviewedAt: null,
      email: 'a3@example.com',
      firstName: 'Ann',
      lastName: null,
      participantId: null,
      reapplyAllowedAt: null,
      rejectionReason: null,
      riskLevel: 'LOW',
      status: 'PENDING',
      termsAcceptedAt: null,
    });
    const all = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications`, { key: p.key });
    expect(all.body).toMatchObject({ total: 5, limit: 20, offset: 0 });
  });

  it('rejects a bad query (400), a key without participant:read (403), a referral program (422)', async () => {
    const p = await setup();
    expect((await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications?limit=0`, { key: p.key })).status).toBe(400);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications?status=NOPE`, { key: p.key })).status).toBe(400);
    const writeOnly = await limitedKey(p.teamId, ['participant:write']);
    const denied = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications`, { key: writeOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('NOT_AUTHORIZED_ERROR');
    const r = await setup({}, 'REFERRAL');
    const wrong = await app.request('GET', `/v2/campaign/${r.pid}/affiliate-applications`, { key: r.key });
    expect(wrong.status).toBe(422);
    expect((await app.request('GET', `/v2/campaign/${r.pid}/affiliate-applications/x`, { key: r.key })).status).toBe(422);
    expect((await review(r, 'x', { status: 'APPROVED' })).status).toBe(422);
  });

  it('answers 404 for an unknown application', async () => {
    const p = await setup();
    expect((await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications/nope`, { key: p.key })).status).toBe(404);
    expect((await review(p, 'nope', { status: 'APPROVED' })).status).toBe(404);
  });
});

describe('PATCH /campaign/{id}/affiliate-applications/{applicationId}', () => {
  it('approves: creates the affiliate with source APPLICATION, idempotently', async () => {
    const p = await setup();
    const id = await pending(p, 'new@example.com');
    const first = await review(p, id, { status: 'APPROVED' });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ status: 'APPROVED', participantId: expect.any(String), decidedAt: app.clock.now(), reviewedAt: app.clock.now() });
    app.clock.advance(1000);
    const again = await review(p, id, { status: 'APPROVED' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const participant = await app.request('GET', `/v2/campaign/${p.pid}/participant/${first.body.participantId}`, { key: p.key });
    expect(participant.body).toMatchObject({ email: 'new@example.com', firstName: 'Ann', isAffiliate: true, affiliateStatus: 'APPROVED', affiliateEnrollmentSource: 'APPLICATION', shareUrl: expect.any(String) });
    expect((await app.request('GET', `/v2/campaign/${p.pid}/participants`, { key: p.key })).body.participants).toHaveLength(1);
  });

  it('approves by upgrading an existing referred customer with the same email', async () => {
    const p = await setup();
    const aff = await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email: 'ref@example.com' } });
    const customer = await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email: 'cust@example.com', referredBy: aff.body.id } });
    expect(customer.body.isAffiliate).toBe(false);
    const id = await pending(p, 'cust@example.com');
    const res = await review(p, id, { status: 'APPROVED' });
    expect(res.body.participantId).toBe(customer.body.id);
    const upgraded = await app.request('GET', `/v2/campaign/${p.pid}/participant/${customer.body.id}`, { key: p.key });
    expect(upgraded.body).toMatchObject({ isAffiliate: true, affiliateStatus: 'APPROVED', affiliateEnrollmentSource: 'APPLICATION', referredBy: aff.body.id });
  });

  it('denies with a reason and private note, and deciding it again is 406', async () => {
    const p = await setup({ affiliateReapplicationCooldownDays: 10 });
    const id = await pending(p, 'deny@example.com');
    const res = await review(p, id, { status: 'DENIED', rejectionReason: 'Audience too small', reviewNote: 'Checked their blog' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'DENIED', rejectionReason: 'Audience too small', reapplyAllowedAt: app.clock.now() + 10 * DAY, participantId: null });
    expect(JSON.stringify(res.body)).not.toContain('Checked their blog');
    for (const status of ['APPROVED', 'DENIED']) {
      const again = await review(p, id, { status });
      expect(again.status).toBe(406);
      expect(again.body.code).toBe('INVALID_STATE_ERROR');
    }
  });

  it('validates the body: exactly one of status or reapplyAllowedAt, lengths, denial-only fields', async () => {
    const p = await setup();
    const id = await pending(p, 'body@example.com');
    const cases: unknown[] = [
      {},
      { status: 'APPROVED', reapplyAllowedAt: 1 },
      { status: 'PENDING' },
      { status: 'DENIED', rejectionReason: 'x'.repeat(256) },
      { status: 'DENIED', reviewNote: 'x'.repeat(501) },
      { status: 'APPROVED', rejectionReason: 'no' },
      { status: 'APPROVED', allowImmediateReapply: true },
      { status: 'DENIED', other: 1 },
    ];
    for (const body of cases) {
      const res = await review(p, id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await review(p, id, { status: 'DENIED', rejectionReason: 'x'.repeat(255), reviewNote: 'y'.repeat(500) })).status).toBe(200);
  });

  it('needs participant:write', async () => {
    const p = await setup();
    const id = await pending(p, 'scope@example.com');
    const readOnly = await limitedKey(p.teamId, ['participant:read']);
    expect((await review(p, id, { status: 'APPROVED' }, readOnly)).status).toBe(403);
  });

  it('follows the reapplication policy: cooldown, an earlier reapply time, immediate reapply, disabled', async () => {
    const p = await setup({ affiliateReapplicationPolicy: 'AFTER_COOLDOWN', affiliateReapplicationCooldownDays: 30 });
    const id = await pending(p, 'again@example.com');
    const denied = await review(p, id, { status: 'DENIED' });
    const refused = await apply(p, { email: 'again@example.com', answers: ANSWERS });
    expect(refused.status).toBe(406);
    // Only earlier, and only on a denied application.
    expect((await review(p, id, { reapplyAllowedAt: denied.body.reapplyAllowedAt + 1 })).status).toBe(400);
    const moved = await review(p, id, { reapplyAllowedAt: app.clock.now() + DAY });
    expect(moved.body.reapplyAllowedAt).toBe(app.clock.now() + DAY);
    app.clock.advance(DAY);
    await pending(p, 'again@example.com');

    const other = await pending(p, 'other@example.com');
    expect((await review(p, other, { reapplyAllowedAt: app.clock.now() })).status).toBe(406);
    const now = await review(p, other, { status: 'DENIED', allowImmediateReapply: true });
    expect(now.body.reapplyAllowedAt).toBe(app.clock.now());
    await pending(p, 'other@example.com');

    const off = await setup({ affiliateReapplicationPolicy: 'DISABLED' });
    const never = await pending(off, 'never@example.com');
    expect((await review(off, never, { status: 'DENIED' })).body.reapplyAllowedAt).toBeNull();
    app.clock.advance(400 * DAY);
    expect((await apply(off, { email: 'never@example.com', answers: ANSWERS })).status).toBe(406);
  });
});

describe('application answers (property)', () => {
  it('either accepts answers of the declared types or refuses them with per-field 400s, never anything else', () => {
    const questions = [...QUESTIONS, { fieldId: 'bio', label: 'Bio', type: 'textarea', isRequired: false }, { fieldId: 'pick', label: 'Pick', type: 'radio', isRequired: false, options: ['a', 'b'] }] as never[];
    const expected: Record<string, string> = { site: 'string', audience: 'number', channel: 'string', country: 'string', agree: 'boolean', bio: 'string', pick: 'string' };
    const value = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('https://a.example.com/x', 'Blog', 'YouTube', 'de', 'US', 'a', '42', ''), fc.double(), fc.integer(), fc.boolean());
    const key = fc.oneof(fc.constantFrom(...Object.keys(expected)), fc.string({ minLength: 1, maxLength: 8 }));
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 9 }), (given) => {
        try {
          const answers = checkAnswers(questions, given);
          for (const a of answers) expect(typeof a.value).toBe(expected[a.fieldId]);
          for (const id of Object.keys(given)) expect(expected[id]).toBeDefined();
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
          for (const e of (err as ValidationError).errors!) expect(e.field.startsWith('answers.')).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

// Issue #32 (counts per state): AF18 counts the very rows AF1 lists.
describe('GET /campaign/{id}/affiliate-applications/counts (AF18)', () => {
  const counts = (p: { pid: string; key: string }, query = '', key = p.key) => app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications/counts${query}`, { key });
  /** Every application AF1 lists for `status` (none: no filter), paged two at a time by offset; also AF1's total. */
  const listed = async (p: Fixture, status?: string) => {
    let rows = 0;
    let total = -1;
    for (let offset = 0; ; offset += 2) {
      const res = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-applications?limit=2&offset=${offset}${status ? `&status=${status}` : ''}`, { key: p.key });
      expect(res.status, res.text).toBe(200);
      rows += res.body.applications.length;
      total = res.body.total;
      if (res.body.applications.length < 2) break;
    }
    expect(total).toBe(rows);
    return rows;
  };

  it('counts the applications in each status and ALL, each equal to the rows AF1 lists', async () => {
    const p = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push(await pending(p, `count${i}@example.com`));
      app.clock.advance(1000);
    }
    for (const id of ids.slice(0, 2)) expect((await review(p, id, { status: 'APPROVED' })).status).toBe(200);
    expect((await review(p, ids[2]!, { status: 'DENIED', rejectionReason: 'Not a fit' })).status).toBe(200);
    // Another program's applications are not counted.
    const other = await setup();
    await pending(other, 'count0@example.com');

    const res = await counts(p);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ PENDING: 4, APPROVED: 2, DENIED: 1, ALL: 7 });
    for (const s of ['PENDING', 'APPROVED', 'DENIED']) expect(res.body[s], s).toBe(await listed(p, s));
    expect(res.body.ALL).toBe(await listed(p));
  });

  it('answers zeros without applications, 400 for a query parameter, 403 without participant:read, and 422 on referral programs as AF1 does', async () => {
    const p = await setup();
    expect((await counts(p)).body).toEqual({ PENDING: 0, APPROVED: 0, DENIED: 0, ALL: 0 });
    expect((await counts(p, '?status=PENDING')).status).toBe(400);
    const denied = await counts(p, '', await limitedKey(p.teamId, ['participant:write']));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect((await counts(p, '', await limitedKey(p.teamId, ['participant:read']))).status).toBe(200);
    const r = await setup({}, 'REFERRAL');
    const list = await app.request('GET', `/v2/campaign/${r.pid}/affiliate-applications`, { key: r.key });
    const wrong = await counts(r);
    expect(wrong.status).toBe(422);
    expect({ ...wrong.body, timestamp: undefined }).toEqual({ ...list.body, timestamp: undefined });
  });
});
