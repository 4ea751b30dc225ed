import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { defaultDocuments } from '../../../server/domain/programs/program-config.ts';
import { toProgram } from '../../../server/domain/programs/programs.ts';
import { documentSchema } from '../../../shared/schemas/program-config.ts';
import { EMAIL_TEMPLATE_KEYS, type DocumentKind } from '../../../shared/schemas/program-config-fields.ts';
import { programGoal } from '../../../shared/schemas/campaign.ts';
import type { Scope } from '../../../shared/scopes.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

type Acct = Awaited<ReturnType<typeof verifiedAccount>>;

async function setup(type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL', goal?: string) {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type, ...(goal ? { goal } : {}) } });
  expect(res.status, res.text).toBe(200);
  return { acct, id: res.body.id as string };
}

async function keyWith(acct: Acct, scopes: Scope[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes, programIds, origin: 'CLI' })).secret;
}

const get = (key: string, id: string, kind: string) => app.request('GET', `/v2/campaign/${id}/${kind}`, { key });
const patch = (key: string, id: string, kind: string, body: unknown) => app.request('PATCH', `/v2/campaign/${id}/${kind}`, { key, body });

describe('defaultDocuments', () => {
  it('produces documents that validate for both program types and every goal', () => {
    for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
      for (const goal of [null, ...programGoal.options]) {
        const docs = defaultDocuments(type, goal);
        for (const kind of ['design', 'emails', 'options', 'installation'] as DocumentKind[]) {
          const r = documentSchema(kind, type).safeParse(docs[kind]);
          expect(r.success, `${type} ${goal} ${kind}: ${JSON.stringify(r.error?.issues.slice(0, 3))}`).toBe(true);
        }
      }
    }
  });

  it('shows LinkedIn for business goals and without a goal, and hides it for consumer goals', () => {
    for (const goal of ['CUSTOMERS', 'USERS', 'B2B_SAAS_SELF_SERVICE', 'B2B_SAAS_ENTERPRISE', 'HEALTHCARE_PROVIDERS'] as const) {
      expect(defaultDocuments('REFERRAL', goal).design.share.channels.linkedin.isVisible).toBe(true);
    }
    for (const goal of ['SUBSCRIBERS', 'WAITLIST', 'B2C_SUBSCRIPTIONS', 'FINANCIAL_SERVICES', 'ONLINE_EDUCATION', 'INSURANCE', 'ONLINE_INSURANCE', 'TELEHEALTH'] as const) {
      expect(defaultDocuments('REFERRAL', goal).design.share.channels.linkedin.isVisible).toBe(false);
    }
    expect(defaultDocuments('AFFILIATE', null).design.share.channels.linkedin.isVisible).toBe(true);
  });

  it('writes every email template of the type with a subject and an HTML body using merge tags', () => {
    const emails = defaultDocuments('REFERRAL', null).emails as Record<string, any>;
    expect(emails.welcomeNonReferred.body).toContain('{{shareUrl}}');
    expect(emails.welcomeNonReferred.body).toContain('{{firstName}}');
    for (const key of EMAIL_TEMPLATE_KEYS) {
      const tpl = (defaultDocuments('REFERRAL', null).emails as any)[key] ?? (defaultDocuments('AFFILIATE', null).emails as any)[key];
      expect(tpl?.subject, key).toMatch(/\S/);
      expect(tpl?.body, key).toMatch(/^<p>/);
    }
  });
});

describe('GET /campaign/{id}/design', () => {
  it('returns the complete referral design with referral-only sections and no affiliate ones', async () => {
    const { acct, id } = await setup('REFERRAL', 'WAITLIST');
    const res = await get(acct.key, id, 'design');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(defaultDocuments('REFERRAL', 'WAITLIST').design);
    expect(res.body.referralSummary).toBeDefined();
    expect(res.body.affiliateSummary).toBeUndefined();
    expect(res.body.share.channels.linkedin.isVisible).toBe(false);
    expect(res.body.header.preText).toMatch(/referral link/);
    expect(res.body.trafficInsights.isPublicDisplayed).toBe(false);
  });

  it('returns the complete affiliate design with commissions, payouts and traffic insights on', async () => {
    const { acct, id } = await setup('AFFILIATE');
    const res = await get(acct.key, id, 'design');
    expect(res.body).toEqual(defaultDocuments('AFFILIATE', null).design);
    expect(res.body.referralSummary).toBeUndefined();
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['affiliateSummary', 'commissions', 'payouts']));
    expect(res.body.participantSettings.wise).toBeDefined();
    expect(res.body.trafficInsights.isPublicDisplayed).toBe(true);
  });

  it('answers 403 without program:read and for a key not granted this program', async () => {
    const { acct, id } = await setup();
    const noScope = await get(await keyWith(acct, ['program:write']), id, 'design');
    expect(noScope.status).toBe(403);
    expect(noScope.body.message).toMatch(/program:read/);
    const other = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
    const denied = await get(await keyWith(acct, ['program:read'], [other.body.id]), id, 'design');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/not allowed to access this program/);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    const res = await get(acct.key, 'nosuchprogram', 'design');
    expect(res.status).toBe(404);
  });
});

describe('PATCH /campaign/{id}/design', () => {
  it('deep-merges: a changed leaf keeps its siblings, and the full document is returned and stored', async () => {
    const { acct, id } = await setup();
    const res = await patch(acct.key, id, 'design', { header: { preText: 'Give $10, get $10' }, share: { channels: { reddit: { isVisible: true } } } });
    expect(res.status, res.text).toBe(200);
    const defaults = defaultDocuments('REFERRAL', null).design;
    expect(res.body.header).toEqual({ preText: 'Give $10, get $10', postText: defaults.header.postText });
    expect(res.body.share.channels.reddit.isVisible).toBe(true);
    expect(res.body.share.channels.email.isVisible).toBe(true);
    expect(res.body.share.title).toBe(defaults.share.title);
    expect((await get(acct.key, id, 'design')).body).toEqual(res.body);
  });

  it('replaces arrays wholesale', async () => {
    const { acct, id } = await setup();
    const fields = [{ key: 'email', type: 'EMAIL', label: 'Work email', placeholder: '', isRequired: true }];
    const res = await patch(acct.key, id, 'design', { signup: { fields } });
    expect(res.body.signup.fields).toEqual(fields);
    const patterns = await patch(acct.key, id, 'design', { widget: { pageRules: { patterns: ['/pricing', '/blog/*'] } } });
    expect(patterns.body.widget.pageRules).toEqual({ mode: 'ALL', patterns: ['/pricing', '/blog/*'] });
    const again = await patch(acct.key, id, 'design', { widget: { pageRules: { patterns: ['/only'] } } });
    expect(again.body.widget.pageRules.patterns).toEqual(['/only']);
  });

  it('rejects an unknown nested key with its field path', async () => {
    const { acct, id } = await setup();
    const res = await patch(acct.key, id, 'design', { share: { channels: { linkedin: { isVisible: true, colour: 'blue' } } } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ field: 'share.channels.linkedin.colour', code: 'UNKNOWN_FIELD' }));
    const top = await patch(acct.key, id, 'design', { sidebar: {} });
    expect(top.body.errors[0]).toMatchObject({ field: 'sidebar', code: 'UNKNOWN_FIELD' });
  });

  it('rejects an invalid enum value and a wrong-type field', async () => {
    const { acct, id } = await setup();
    const badEnum = await patch(acct.key, id, 'design', { window: { navigationMode: 'GRID' } });
    expect(badEnum.status).toBe(400);
    expect(badEnum.body.errors[0]).toMatchObject({ field: 'window.navigationMode', code: 'INVALID_VALUE' });
    const wrongType = await patch(acct.key, id, 'design', { header: { preText: 5 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors[0]).toMatchObject({ field: 'header.preText', code: 'INVALID_TYPE' });
    const colour = await patch(acct.key, id, 'design', { theme: { primaryColor: 'red;}body{display:none' } });
    expect(colour.status).toBe(400);
    const tooLong = await patch(acct.key, id, 'design', { header: { postText: 'x'.repeat(501) } });
    // Issue #32: the bound and what it measures travel with the entry, so the console words it plainly.
    expect(tooLong.body.errors[0]).toMatchObject({ field: 'header.postText', code: 'TOO_LONG', maximum: 500, origin: 'string' });
  });

  it('rejects sections of the other program type with 400', async () => {
    const ref = await setup('REFERRAL');
    const res = await patch(ref.acct.key, ref.id, 'design', { affiliateSummary: { title: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: 'affiliateSummary', code: 'NOT_AVAILABLE_FOR_PROGRAM_TYPE' });
    const aff = await setup('AFFILIATE');
    const res2 = await patch(aff.acct.key, aff.id, 'design', { referralSummary: { isEnabled: true } });
    expect(res2.body.errors[0]).toMatchObject({ field: 'referralSummary', code: 'NOT_AVAILABLE_FOR_PROGRAM_TYPE' });
    const ok = await patch(aff.acct.key, aff.id, 'design', { affiliateSummary: { title: 'Your numbers' }, participantSettings: { wise: { isEnabled: true } } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.affiliateSummary.title).toBe('Your numbers');
  });

  it('enforces the rules across fields: the form keeps its email field; DEFAULT icon cannot be set', async () => {
    const { acct, id } = await setup();
    const noEmail = await patch(acct.key, id, 'design', { signup: { fields: [{ key: 'firstName', type: 'TEXT', label: 'Name', placeholder: '', isRequired: true }] } });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.errors[0].field).toBe('signup.fields');
    const none = await patch(acct.key, id, 'design', { widget: { icon: 'NONE' } });
    expect(none.body.widget.icon).toBe('NONE');
    const back = await patch(acct.key, id, 'design', { widget: { icon: 'DEFAULT' } });
    expect(back.status).toBe(400);
    expect(back.body.errors[0]).toMatchObject({ field: 'widget.icon' });
    const custom = await patch(acct.key, id, 'design', { widget: { icon: 'CUSTOM' } });
    expect(custom.body.errors[0]).toMatchObject({ field: 'widget.iconImageUrl', code: 'REQUIRED' });
  });

  it('sets nullable fields to null and rejects null elsewhere', async () => {
    const { acct, id } = await setup();
    const set = await patch(acct.key, id, 'design', { referredExperience: { headingText: 'Hi', pageTitleReplacement: 'A gift for you' } });
    expect(set.body.referredExperience.headingText).toBe('Hi');
    const cleared = await patch(acct.key, id, 'design', { referredExperience: { headingText: null } });
    expect(cleared.body.referredExperience).toMatchObject({ headingText: null, pageTitleReplacement: 'A gift for you' });
    const bad = await patch(acct.key, id, 'design', { header: { preText: null } });
    expect(bad.status).toBe(400);
  });

  it('merges country names by code, null going back to the default, and says why a key is refused (issue #23)', async () => {
    const { acct, id } = await setup();
    const set = await patch(acct.key, id, 'design', { countryLabels: { DE: 'Deutschland', GB: 'Britain' } });
    expect(set.status, set.text).toBe(200);
    const cleared = await patch(acct.key, id, 'design', { countryLabels: { GB: null } });
    expect(cleared.body.countryLabels).toEqual({ DE: 'Deutschland', GB: null });
    const bad = await patch(acct.key, id, 'design', { countryLabels: { Germany: 'X' } });
    expect(bad.status).toBe(400);
    // The key's own rule, not zod's generic "Invalid key in record".
    expect(bad.body.errors).toEqual([{ field: 'countryLabels.Germany', code: 'INVALID', message: 'ISO 3166-1 alpha-2 code.' }]);
    expect((await get(acct.key, id, 'design')).body.countryLabels).toEqual({ DE: 'Deutschland', GB: null });
  });

  it('answers 400 for an empty body, 403 without program:write and 404 for an unknown program', async () => {
    const { acct, id } = await setup();
    expect((await patch(acct.key, id, 'design', {})).status).toBe(400);
    const readOnly = await patch(await keyWith(acct, ['program:read']), id, 'design', { header: { preText: 'x' } });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.message).toMatch(/program:write/);
    expect((await patch(acct.key, 'nosuchprogram', 'design', { header: { preText: 'x' } })).status).toBe(404);
  });

  it('keeps both of two concurrent patches to different fields', async () => {
    const { acct, id } = await setup();
    const [a, b] = await Promise.all([
      patch(acct.key, id, 'design', { header: { preText: 'A' } }),
      patch(acct.key, id, 'design', { stats: { title: 'B' } }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const now = (await get(acct.key, id, 'design')).body;
    expect(now.header.preText).toBe('A');
    expect(now.stats.title).toBe('B');
  });
});

describe('PATCH of nested objects in every document (issue #19)', () => {
  /** What a merge of `patch` into `doc` gives: objects merge at every depth, arrays and scalars replace. */
  const merged = (doc: any, patch: any): any => {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch) || typeof doc !== 'object' || doc === null) return patch;
    const out = { ...doc };
    for (const [k, v] of Object.entries(patch)) out[k] = merged(doc[k], v);
    return out;
  };

  /** Nested objects with one field each, per document; every sibling left out must keep its value. */
  const CASES: Array<[DocumentKind, 'REFERRAL' | 'AFFILIATE', Record<string, unknown>]> = [
    ['design', 'REFERRAL', { widget: { pageRules: { mode: 'EXCEPT' } } }],
    ['design', 'REFERRAL', { trafficInsights: { metrics: { visits: { label: 'Clicks' } } } }],
    ['design', 'AFFILIATE', { theme: { widget: { color: '#112233' } } }],
    ['emails', 'REFERRAL', { welcomeNonReferred: { subject: 'Hello there' } }],
    ['emails', 'REFERRAL', { settings: { contact: { city: 'Lisbon' } } }],
    ['emails', 'AFFILIATE', { settings: { sender: { fromName: 'Partners' } } }],
    ['options', 'REFERRAL', { fraud: { blockBurnerEmails: false } }],
    ['options', 'REFERRAL', { fraud: { recaptcha: { siteKey: 'site-key' } } }],
    ['options', 'REFERRAL', { notificationEmails: { events: { NEW_PARTICIPANT_ADDED_REFERRED: false } } }],
    ['options', 'REFERRAL', { referralEmailPrivacy: { masking: 'FULL' } }],
    ['options', 'AFFILIATE', { payoutSettings: { requireTaxInfo: true } }],
    ['options', 'AFFILIATE', { taxDocumentation: { city: 'Porto' } }],
    ['options', 'AFFILIATE', { languages: { additionalLanguages: ['fr'] } }],
    ['installation', 'REFERRAL', { signup: { trackInputFields: true } }],
    ['installation', 'AFFILIATE', { mobile: { iosAppStoreUrl: 'https://apps.apple.com/app/id1' } }],
  ];

  it('issue #19: a nested object with one field merges into the stored document; GET shows every other field unchanged', async () => {
    const programs = { REFERRAL: await setup('REFERRAL'), AFFILIATE: await setup('AFFILIATE') };
    for (const { acct, id } of Object.values(programs)) {
      // Non-default siblings first, so a reset to defaults would show (one at a time: the per-IP concurrency cap).
      const seeded = [
        () => patch(acct.key, id, 'design', { widget: { pageRules: { mode: 'ONLY', patterns: ['/pricing*'] } }, trafficInsights: { metrics: { visits: { helperText: 'All visits' } } }, theme: { widget: { backgroundColor: '#ffffff' } } }),
        () => patch(acct.key, id, 'emails', { welcomeNonReferred: { preheader: 'Kept preheader' }, settings: { contact: { companyName: 'Acme', postalCode: '1000' }, sender: { replyToEmail: 'reply@example.com' } } }),
        () => patch(acct.key, id, 'options', { fraud: { blockDataCenterIps: true, blockedCountries: ['RU'], maxSignupsPerIp2Min: 7 }, notificationEmails: { recipients: ['ops@example.com'] } }),
        () => patch(acct.key, id, 'installation', { signup: { isCustomForm: true, url: 'https://shop.example.com/signup' }, mobile: { isEnabled: true, androidPackageName: 'com.example.app' } }),
      ];
      for (const send of seeded) {
        const res = await send();
        expect(res.status, res.text).toBe(200);
      }
    }
    for (const [kind, type, body] of CASES) {
      const { acct, id } = programs[type];
      const before = (await get(acct.key, id, kind)).body;
      const res = await patch(acct.key, id, kind, body);
      const label = `${type} ${kind} ${JSON.stringify(body)}`;
      expect(res.status, `${label}: ${res.text}`).toBe(200);
      expect(res.body, label).toEqual(merged(before, body));
      expect((await get(acct.key, id, kind)).body, label).toEqual(merged(before, body));
    }
  });

  it('issue #19: says in the OpenAPI document that objects merge and arrays are replaced whole', async () => {
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    for (const kind of ['design', 'emails', 'options', 'installation']) {
      expect(doc.paths[`/campaign/{id}/${kind}`].patch.summary, kind).toMatch(/objects merge, arrays replace/);
    }
  });
});

describe('GET /campaign/{id}/emails', () => {
  it('returns every template of the type plus settings, with the installation’s sender address', async () => {
    const ref = await setup('REFERRAL');
    const res = await get(ref.acct.key, ref.id, 'emails');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['welcomeReferred', 'goalAchieved', 'campaignEndedWinners', 'invite', 'loginLink', 'settings']));
    expect(res.body.commissionGenerated).toBeUndefined();
    expect(res.body.invite.useCompanyReplyTo).toBe(false);
    expect(res.body.settings.sender.fromEmail).toMatch(/@/);
    const aff = await setup('AFFILIATE');
    const affRes = await get(aff.acct.key, aff.id, 'emails');
    expect(Object.keys(affRes.body)).toEqual(expect.arrayContaining(['commissionGenerated', 'commissionAdjusted', 'payoutPending', 'payoutSentSuccess']));
    expect(affRes.body.welcomeReferred).toBeUndefined();
    expect(affRes.body.goalAchieved).toBeUndefined();
  });

  it('answers 403 without program:read', async () => {
    const { acct, id } = await setup();
    expect((await get(await keyWith(acct, ['participant:read']), id, 'emails')).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    expect((await get(acct.key, 'nosuchprogram', 'emails')).status).toBe(404);
  });
});

describe('PATCH /campaign/{id}/emails', () => {
  it('changes one template field and keeps the rest of the template', async () => {
    const { acct, id } = await setup();
    const before = (await get(acct.key, id, 'emails')).body;
    const res = await patch(acct.key, id, 'emails', { welcomeNonReferred: { subject: 'Hello {{firstName}}', isEnabled: false }, settings: { sender: { fromName: 'Acme' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.welcomeNonReferred).toEqual({ ...before.welcomeNonReferred, subject: 'Hello {{firstName}}', isEnabled: false });
    expect(res.body.settings.sender).toEqual({ ...before.settings.sender, fromName: 'Acme' });
  });

  it('rejects affiliate-only templates on a referral program and referral-only ones on an affiliate program', async () => {
    const ref = await setup('REFERRAL');
    const res = await patch(ref.acct.key, ref.id, 'emails', { commissionGenerated: { subject: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: 'commissionGenerated', code: 'NOT_AVAILABLE_FOR_PROGRAM_TYPE' });
    const aff = await setup('AFFILIATE');
    const res2 = await patch(aff.acct.key, aff.id, 'emails', { goalAchieved: { isEnabled: false } });
    expect(res2.body.errors[0]).toMatchObject({ field: 'goalAchieved', code: 'NOT_AVAILABLE_FOR_PROGRAM_TYPE' });
  });

  it('treats the sender address and transactional isEnabled as read-only but accepts them unchanged', async () => {
    const { acct, id } = await setup();
    const doc = (await get(acct.key, id, 'emails')).body;
    const from = await patch(acct.key, id, 'emails', { settings: { sender: { fromEmail: 'me@evil.example' } } });
    expect(from.status).toBe(400);
    expect(from.body.errors[0]).toMatchObject({ field: 'settings.sender.fromEmail', code: 'READ_ONLY' });
    const login = await patch(acct.key, id, 'emails', { loginLink: { isEnabled: false } });
    expect(login.body.errors[0]).toMatchObject({ field: 'loginLink.isEnabled', code: 'READ_ONLY' });
    // A client may send back the whole document it read.
    const roundTrip = await patch(acct.key, id, 'emails', doc);
    expect(roundTrip.status, roundTrip.text).toBe(200);
    expect(roundTrip.body).toEqual(doc);
  });

  it('rejects a blank subject and a bad reply-to address', async () => {
    const { acct, id } = await setup();
    const blank = await patch(acct.key, id, 'emails', { invite: { subject: '  ' } });
    expect(blank.status).toBe(400);
    expect(blank.body.errors[0].field).toBe('invite.subject');
    const reply = await patch(acct.key, id, 'emails', { settings: { sender: { replyToEmail: 'not-an-email' } } });
    expect(reply.body.errors[0].field).toBe('settings.sender.replyToEmail');
  });

  it('answers 403 without program:write', async () => {
    const { acct, id } = await setup();
    expect((await patch(await keyWith(acct, ['program:read']), id, 'emails', { invite: { isEnabled: false } })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    expect((await patch(acct.key, 'nosuchprogram', 'emails', { invite: { isEnabled: false } })).status).toBe(404);
  });
});

describe('GET /campaign/{id}/options', () => {
  it('returns the complete referral options with the documented defaults', async () => {
    const { acct, id } = await setup('REFERRAL');
    const res = await get(acct.key, id, 'options');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      referralCookieWindowDays: 90,
      referralCreditWindowDays: null,
      attributionModel: 'LAST_CLICK',
      requireParticipantAuth: false,
      requireManualRewardApproval: false,
      allowClientSideReferralTrigger: false,
      languages: { baseLanguage: 'en', additionalLanguages: [] },
      followUpReminder: { isEnabled: false, delayDays: 3, enabledAt: null },
    });
    expect(res.body.affiliateApplicationMode).toBeUndefined();
    expect(res.body.fraud.recaptcha).toEqual({ isEnabled: false, siteKey: null });
  });

  it('returns affiliate options with application settings and participant auth on', async () => {
    const { acct, id } = await setup('AFFILIATE');
    const res = await get(acct.key, id, 'options');
    expect(res.body).toMatchObject({ requireParticipantAuth: true, affiliateApplicationMode: 'OPEN_ENROLLMENT', affiliateReapplicationPolicy: 'AFTER_COOLDOWN', payoutThreshold: null });
    expect(res.body.requireManualRewardApproval).toBeUndefined();
    expect(res.body.notificationEmails.events.NEW_COMMISSION_ADDED).toBe(true);
    expect(res.body.notificationEmails.events.PARTICIPANT_REACHED_A_GOAL).toBeUndefined();
  });

  it('answers 403 without program:read', async () => {
    const { acct, id } = await setup();
    expect((await get(await keyWith(acct, ['team:read']), id, 'options')).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    expect((await get(acct.key, 'nosuchprogram', 'options')).status).toBe(404);
  });
});

describe('PATCH /campaign/{id}/options', () => {
  it('accepts the enumerated windows and the null credit window, and rejects other values', async () => {
    const { acct, id } = await setup();
    const ok = await patch(acct.key, id, 'options', { referralCookieWindowDays: 400, referralCreditWindowDays: 30, attributionModel: 'FIRST_CLICK' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ referralCookieWindowDays: 400, referralCreditWindowDays: 30, attributionModel: 'FIRST_CLICK' });
    expect((await patch(acct.key, id, 'options', { referralCreditWindowDays: null })).body.referralCreditWindowDays).toBeNull();
    const cookie = await patch(acct.key, id, 'options', { referralCookieWindowDays: 45 });
    expect(cookie.status).toBe(400);
    expect(cookie.body.errors[0]).toMatchObject({ field: 'referralCookieWindowDays', code: 'INVALID_VALUE' });
    expect((await patch(acct.key, id, 'options', { referralCreditWindowDays: 400 })).status).toBe(400);
    expect((await patch(acct.key, id, 'options', { attributionModel: 'LINEAR' })).status).toBe(400);
    expect((await patch(acct.key, id, 'options', { enforceGdprCompliance: 'yes' })).body.errors[0]).toMatchObject({ field: 'enforceGdprCompliance', code: 'INVALID_TYPE' });
  });

  it('bounds the follow-up reminder delay to 2–30 days and stamps when it is switched on', async () => {
    const { acct, id } = await setup();
    for (const delayDays of [1, 31, 2.5]) {
      const res = await patch(acct.key, id, 'options', { followUpReminder: { delayDays } });
      expect(res.status, String(delayDays)).toBe(400);
      expect(res.body.errors[0].field).toBe('followUpReminder.delayDays');
    }
    const on = await patch(acct.key, id, 'options', { followUpReminder: { isEnabled: true, delayDays: 30 } });
    expect(on.body.followUpReminder).toEqual({ isEnabled: true, delayDays: 30, enabledAt: app.clock.now() });
    app.clock.advance(1000);
    const still = await patch(acct.key, id, 'options', { followUpReminder: { delayDays: 2 } });
    expect(still.body.followUpReminder.enabledAt).toBe(on.body.followUpReminder.enabledAt);
    const forged = await patch(acct.key, id, 'options', { followUpReminder: { enabledAt: 1 } });
    expect(forged.body.errors[0]).toMatchObject({ field: 'followUpReminder.enabledAt', code: 'READ_ONLY' });
    const off = await patch(acct.key, id, 'options', { followUpReminder: { isEnabled: false } });
    expect(off.body.followUpReminder.enabledAt).toBeNull();
  });

  it('rejects fields of the other type and keeps participant auth on for affiliate programs', async () => {
    const ref = await setup('REFERRAL');
    const res = await patch(ref.acct.key, ref.id, 'options', { affiliateApplicationMode: 'MANUAL_REVIEW', payoutThreshold: 5000 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['affiliateApplicationMode', 'payoutThreshold']);
    const aff = await setup('AFFILIATE');
    expect((await patch(aff.acct.key, aff.id, 'options', { allowClientSideReferralTrigger: true })).body.errors[0].code).toBe('NOT_AVAILABLE_FOR_PROGRAM_TYPE');
    expect((await patch(aff.acct.key, aff.id, 'options', { notificationEmails: { events: { PARTICIPANT_REACHED_A_GOAL: true } } })).status).toBe(400);
    const auth = await patch(aff.acct.key, aff.id, 'options', { requireParticipantAuth: false });
    expect(auth.status).toBe(400);
    expect(auth.body.errors[0].field).toBe('requireParticipantAuth');
    const mode = await patch(aff.acct.key, aff.id, 'options', { affiliateApplicationMode: 'MANUAL_REVIEW', affiliateReapplicationPolicy: 'DISABLED', payoutThreshold: 5000 });
    expect(mode.body).toMatchObject({ affiliateApplicationMode: 'MANUAL_REVIEW', affiliateReapplicationPolicy: 'DISABLED', payoutThreshold: 5000 });
    expect((await patch(aff.acct.key, aff.id, 'options', { affiliateApplicationMode: 'INVITE_ONLY' })).status).toBe(400);
  });

  it('validates languages, block lists and their caps', async () => {
    const { acct, id } = await setup();
    const langs = await patch(acct.key, id, 'options', { languages: { baseLanguage: 'pt-BR', additionalLanguages: ['en', 'zh-CN'] } });
    expect(langs.body.languages).toEqual({ baseLanguage: 'pt-BR', additionalLanguages: ['en', 'zh-CN'] });
    expect((await patch(acct.key, id, 'options', { languages: { additionalLanguages: ['xx'] } })).status).toBe(400);
    expect((await patch(acct.key, id, 'options', { languages: { additionalLanguages: ['pt-BR'] } })).status).toBe(400);
    const lists = await patch(acct.key, id, 'options', {
      enforceGdprCompliance: true,
      fraud: { strictness: 'STRICT', blockedEmails: ['Bad@Example.com'], blockedEmailDomains: ['Spam.Example'], blockedIps: ['203.0.113.0/24', '2001:db8::1'] },
    });
    expect(lists.status, lists.text).toBe(200);
    expect(lists.body.fraud).toMatchObject({ strictness: 'STRICT', blockedEmails: ['bad@example.com'], blockedEmailDomains: ['spam.example'], blockedIps: ['203.0.113.0/24', '2001:db8::1'] });
    expect(lists.body.fraud.blockBurnerEmails).toBe(true);
    const badIp = await patch(acct.key, id, 'options', { fraud: { blockedIps: ['300.1.1.1'] } });
    expect(badIp.body.errors[0].field).toBe('fraud.blockedIps.0');
    const tooMany = await patch(acct.key, id, 'options', { fraud: { blockedEmails: Array.from({ length: 501 }, (_, i) => `u${i}@example.com`) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0]).toMatchObject({ field: 'fraud.blockedEmails', code: 'TOO_LONG', maximum: 500, origin: 'array' });
    expect((await patch(acct.key, id, 'options', { fraud: { strictness: 'PARANOID' } })).status).toBe(400);
    expect((await patch(acct.key, id, 'options', { fraud: { recaptcha: { token: 'x' } } })).body.errors[0]).toMatchObject({ field: 'fraud.recaptcha.token', code: 'UNKNOWN_FIELD' });
  });

  it('keeps the reCAPTCHA secret write-only and requires it before reCAPTCHA can be enabled', async () => {
    const { acct, id } = await setup();
    const early = await patch(acct.key, id, 'options', { fraud: { recaptcha: { isEnabled: true, siteKey: 'site' } } });
    expect(early.status).toBe(400);
    const on = await patch(acct.key, id, 'options', { fraud: { recaptcha: { isEnabled: true, siteKey: 'site', secretKey: 'very-secret' } } });
    expect(on.status, on.text).toBe(200);
    expect(on.body.fraud.recaptcha).toEqual({ isEnabled: true, siteKey: 'site' });
    expect(JSON.stringify((await get(acct.key, id, 'options')).body)).not.toContain('very-secret');
    const row = await app.deps.db.knex('programs').where({ id }).first('options');
    expect(row.options).not.toContain('very-secret');
    const program = toProgram(await app.deps.db.knex('programs').where({ id }).first());
    expect(app.deps.programConfig.recaptchaSecret(program)).toBe('very-secret');
    // Unrelated changes keep the secret.
    const other = await patch(acct.key, id, 'options', { blockPaidAdsTraffic: true });
    expect(other.status).toBe(200);
    const cleared = await patch(acct.key, id, 'options', { fraud: { recaptcha: { secretKey: null } } });
    expect(cleared.status).toBe(400);
  });

  it('answers 403 without program:write', async () => {
    const { acct, id } = await setup();
    expect((await patch(await keyWith(acct, ['program:read']), id, 'options', { blockPaidAdsTraffic: true })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    expect((await patch(acct.key, 'nosuchprogram', 'options', { blockPaidAdsTraffic: true })).status).toBe(404);
  });
});

describe('GET /campaign/{id}/installation', () => {
  it('returns referralTrigger ON_SIGNUP for referral programs and no referralTrigger for affiliate programs', async () => {
    const ref = await setup('REFERRAL');
    const res = await get(ref.acct.key, ref.id, 'installation');
    expect(res.status).toBe(200);
    // The defaults, less the two unset strings the wire omits (issue #19).
    const { shareUrl: _unset, mobile: { publicKey: _none, ...mobile }, ...rest } = defaultDocuments('REFERRAL', null).installation;
    expect(res.body).toEqual({ ...rest, mobile });
    expect(res.body).toMatchObject({ referralTrigger: 'ON_SIGNUP', allowedDomains: [], mobile: { isEnabled: false } });
    const aff = await setup('AFFILIATE');
    const affRes = await get(aff.acct.key, aff.id, 'installation');
    expect('referralTrigger' in affRes.body).toBe(false);
  });

  it('issue #19: omits shareUrl and mobile.publicKey of a new program instead of sending null (the official schemas type them as strings)', async () => {
    for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
      const { acct, id } = await setup(type);
      const res = await get(acct.key, id, 'installation');
      expect(res.status, res.text).toBe(200);
      expect(res.body, type).not.toHaveProperty('shareUrl');
      expect(res.body.mobile, type).not.toHaveProperty('publicKey');
      expect(res.body.mobile.isEnabled).toBe(false);
      // Nothing else in the document is a null the official schemas type as a plain string.
      expect(res.body.signup).toMatchObject({ url: null, redirectUrl: null });
    }
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    const wire = doc.components.schemas.CampaignInstallation;
    expect(wire.properties.shareUrl.type).toBe('string');
    expect(wire.required).not.toContain('shareUrl');
    expect(wire.properties.mobile.properties.publicKey.type).toBe('string');
    expect(wire.properties.mobile.required).not.toContain('publicKey');
  });

  it('answers 403 without program:read', async () => {
    const { acct, id } = await setup();
    expect((await get(await keyWith(acct, ['program:write']), id, 'installation')).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    expect((await get(acct.key, 'nosuchprogram', 'installation')).status).toBe(404);
  });
});

describe('PATCH /campaign/{id}/installation', () => {
  it('creates the Mobile SDK key when the mobile SDK is enabled, keeps it on disable, and never lets it be set', async () => {
    const { acct, id } = await setup();
    const on = await patch(acct.key, id, 'installation', { mobile: { isEnabled: true, androidPackageName: 'com.example.app' } });
    expect(on.status, on.text).toBe(200);
    const key = on.body.mobile.publicKey;
    expect(key).toMatch(/^pk_[a-z0-9]{32}$/);
    expect(on.body.mobile.androidPackageName).toBe('com.example.app');
    const forged = await patch(acct.key, id, 'installation', { mobile: { publicKey: 'pk_mine' } });
    expect(forged.status).toBe(400);
    expect(forged.body.errors[0]).toMatchObject({ field: 'mobile.publicKey', code: 'READ_ONLY' });
    expect(forged.body.errors[0].message).toMatch(/read-only/);
    const same = await patch(acct.key, id, 'installation', { mobile: { publicKey: key, iosAppStoreUrl: 'https://apps.apple.com/app/id1' } });
    expect(same.status, same.text).toBe(200);
    const off = await patch(acct.key, id, 'installation', { mobile: { isEnabled: false } });
    expect(off.body.mobile).toMatchObject({ isEnabled: false, publicKey: key });
    const again = await patch(acct.key, id, 'installation', { mobile: { isEnabled: true } });
    expect(again.body.mobile.publicKey).toBe(key);
  });

  it('issue #19: answers without shareUrl and mobile.publicKey while unset, fills them once set, and shareUrl: null clears it again', async () => {
    const { acct, id } = await setup();
    const other = await patch(acct.key, id, 'installation', { signupEvent: 'FORM_DETECTION' });
    expect(other.status, other.text).toBe(200);
    expect(other.body).not.toHaveProperty('shareUrl');
    expect(other.body.mobile).not.toHaveProperty('publicKey');
    // Sending back what GET answered, or the unset key as null, is accepted.
    const roundTrip = await patch(acct.key, id, 'installation', (await get(acct.key, id, 'installation')).body);
    expect(roundTrip.status, roundTrip.text).toBe(200);
    expect((await patch(acct.key, id, 'installation', { mobile: { publicKey: null } })).status).toBe(200);
    const set = await patch(acct.key, id, 'installation', { shareUrl: 'https://shop.example.com/join' });
    expect(set.body.shareUrl).toBe('https://shop.example.com/join');
    const cleared = await patch(acct.key, id, 'installation', { shareUrl: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).not.toHaveProperty('shareUrl');
    expect((await get(acct.key, id, 'installation')).body).not.toHaveProperty('shareUrl');
    const on = await patch(acct.key, id, 'installation', { mobile: { isEnabled: true } });
    expect(on.body.mobile.publicKey).toMatch(/^pk_[a-z0-9]{32}$/);
    expect((await get(acct.key, id, 'installation')).body.mobile.publicKey).toBe(on.body.mobile.publicKey);
  });

  it('rejects referralTrigger on an affiliate program and accepts CUSTOM on a referral program', async () => {
    const aff = await setup('AFFILIATE');
    const res = await patch(aff.acct.key, aff.id, 'installation', { referralTrigger: 'ON_SIGNUP' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: 'referralTrigger', code: 'NOT_AVAILABLE_FOR_PROGRAM_TYPE' });
    const ref = await setup('REFERRAL');
    expect((await patch(ref.acct.key, ref.id, 'installation', { referralTrigger: 'CUSTOM', signupEvent: 'FORM_DETECTION' })).body).toMatchObject({
      referralTrigger: 'CUSTOM',
      signupEvent: 'FORM_DETECTION',
    });
    expect((await patch(ref.acct.key, ref.id, 'installation', { referralTrigger: 'ON_PURCHASE' })).status).toBe(400);
  });

  it('needs explicit http(s) URLs and host names, normalised to lower case', async () => {
    const { acct, id } = await setup();
    const noScheme = await patch(acct.key, id, 'installation', { shareUrl: 'example.com/landing' });
    expect(noScheme.status).toBe(400);
    expect(noScheme.body.errors[0].field).toBe('shareUrl');
    expect((await patch(acct.key, id, 'installation', { shareUrl: 'javascript:alert(1)' })).status).toBe(400);
    const ok = await patch(acct.key, id, 'installation', { shareUrl: 'https://example.com/landing', allowedDomains: ['Shop.Example.com', '*.example.org'], allowedUrls: ['https://blog.example.com'] });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ shareUrl: 'https://example.com/landing', allowedDomains: ['shop.example.com', '*.example.org'] });
    expect((await patch(acct.key, id, 'installation', { allowedDomains: ['https://x.com'] })).body.errors[0].field).toBe('allowedDomains.0');
    expect((await patch(acct.key, id, 'installation', { allowedDomains: Array.from({ length: 51 }, (_, i) => `h${i}.example.com`) })).status).toBe(400);
    const cleared = await patch(acct.key, id, 'installation', { shareUrl: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).not.toHaveProperty('shareUrl');
    const redirect = await patch(acct.key, id, 'installation', { signup: { redirectAfterSignup: true } });
    expect(redirect.body.errors[0]).toMatchObject({ field: 'signup.redirectUrl', code: 'REQUIRED' });
  });

  it('answers 403 without program:write', async () => {
    const { acct, id } = await setup();
    expect((await patch(await keyWith(acct, ['program:read']), id, 'installation', { shareUrl: null })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    expect((await patch(acct.key, 'nosuchprogram', 'installation', { shareUrl: null })).status).toBe(404);
  });
});

describe('POST /campaign/{id}/clone (configuration documents)', () => {
  it('copies the documents and gives the clone its own Mobile SDK key', async () => {
    const { acct, id } = await setup();
    const on = await patch(acct.key, id, 'installation', { mobile: { isEnabled: true }, shareUrl: 'https://example.com' });
    await patch(acct.key, id, 'design', { header: { preText: 'Cloned copy' } });
    const clone = await app.request('POST', `/v2/campaign/${id}/clone`, { key: acct.key });
    expect(clone.status, clone.text).toBe(200);
    const copy = (await get(acct.key, clone.body.id, 'installation')).body;
    expect(copy.shareUrl).toBe('https://example.com');
    expect(copy.mobile.isEnabled).toBe(true);
    expect(copy.mobile.publicKey).toMatch(/^pk_/);
    expect(copy.mobile.publicKey).not.toBe(on.body.mobile.publicKey);
    expect((await get(acct.key, id, 'installation')).body.mobile.publicKey).toBe(on.body.mobile.publicKey);
    expect((await get(acct.key, clone.body.id, 'design')).body.header.preText).toBe('Cloned copy');
  });

  it('leaves the clone without a key when the source had none', async () => {
    const { acct, id } = await setup();
    const clone = await app.request('POST', `/v2/campaign/${id}/clone`, { key: acct.key });
    expect((await get(acct.key, clone.body.id, 'installation')).body.mobile).not.toHaveProperty('publicKey');
  });
});

describe('GET /campaign/{id}/integrations', () => {
  // Issue #25: the list is what refloop provides (Stripe), never keys whose connect links answered 404.
  it('lists Stripe and Paddle for both program types, not connected, with the console page as connect URL', async () => {
    for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
      const { acct, id } = await setup(type);
      const res = await get(acct.key, id, 'integrations');
      expect(res.status).toBe(200);
      expect(res.body.integrations).toEqual([
        { id: 'stripe', name: 'Stripe', connected: false, enabled: false, autoDisabled: false, connectUrl: `http://refloop.test/console/programs/${id}/integrations/stripe` },
        { id: 'paddle', name: 'Paddle Billing', connected: false, enabled: false, autoDisabled: false, connectUrl: `http://refloop.test/console/programs/${id}/integrations/paddle` },
      ]);
    }
  });

  it('answers 403 without program:read', async () => {
    const { acct, id } = await setup();
    const res = await get(await keyWith(acct, ['participant:read']), id, 'integrations');
    expect(res.status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { acct } = await setup();
    expect((await get(acct.key, 'nosuchprogram', 'integrations')).status).toBe(404);
  });
});
