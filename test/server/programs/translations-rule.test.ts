import { describe, expect, it } from 'vitest';
import { NOT_TRANSLATABLE, checkMergedTranslation, checkTranslation, mergeOverrides, translatablePaths, withOverrides } from '../../../shared/program-translations.ts';
import { defaultDesign } from '../../../server/domain/programs/program-config-default-design.ts';
import { completeDocument } from '../../../server/domain/programs/program-config.ts';

// Issue #27: which texts of the design and emails documents an owner may write per program
// language. The rule is derived from the zod schemas (plain strings; records of texts; the sign-up
// fields by key) with an explicit deny list; these lists fail when a schema change adds, removes or
// reclassifies a text, so the change is seen and decided.

const paths = (groups: Record<string, string[]>) => Object.entries(groups).flatMap(([head, tails]) => tails.map((t) => `${head}.${t}`));
const TEMPLATE = ['subject', 'preheader', 'body'];
const templates = (keys: string[]) => keys.flatMap((k) => TEMPLATE.map((f) => `${k}.${f}`));

const DESIGN_BOTH = {
  header: ['preText', 'postText'],
  stats: ['title'],
  share: ['title', 'description', 'linkLabel', 'copyButtonText', 'copiedText', 'message', 'emailSubject', 'invite.title', 'invite.placeholder', 'invite.buttonText', 'invite.successText'],
  signup: ['fields.*.label', 'fields.*.placeholder', 'buttonText', 'loginText', 'loginLinkText', 'gdpr.text', 'termsText'],
  referralStatus: ['title', 'emptyState', 'statusLabels.CREDIT_PENDING', 'statusLabels.CREDIT_AWARDED', 'statusLabels.CREDIT_EXPIRED', 'statusLabels.INVITE_SENT'],
  leaderboard: ['title', 'rankLabel', 'nameLabel', 'scoreLabel', 'youLabel', 'emptyState', 'selectorLabels.ALL_TIME', 'selectorLabels.CURRENT_MONTH', 'selectorLabels.PREV_MONTH'],
  referredExperience: ['offerPopupTitle', 'offerPopupDescription', 'offerPopupButtonText', 'offerPopupThankYouText', 'offerPopupThankYouButtonText', 'offerPopupSecondaryLinkText', 'offerPopupEmailPlaceholder', 'offerPopupPromoCodeCopyLabel', 'offerPopupSubmitError', 'bannerText', 'headingText', 'pageTitleReplacement', 'referrerNameFallback'],
  rewards: ['title', 'description', 'emptyState'],
  participantSettings: ['title', 'logoutText', 'paypalEmail.label', 'paypalEmail.placeholder', 'paypalEmail.helpText', 'taxDetails.label', 'taxDetails.helpText'],
  landingPages: ['content.headline', 'content.subheadline', 'content.body', 'content.buttonText', 'seo.title', 'seo.description'],
  login: ['heading', 'description', 'fieldLabel', 'fieldPlaceholder', 'buttonText', 'successHeading', 'successBody', 'resendPrompt', 'resend', 'resent', 'invalidEmail', 'cooldown', 'serverError', 'invalidLink'],
  payoutDestinationConfirmation: ['headline', 'description', 'emailLabel', 'emailPlaceholder', 'emailAgainLabel', 'emailAgainPlaceholder', 'legalNameLabel', 'legalNamePlaceholder', 'legalTypeLabel', 'legalTypeIndividual', 'legalTypeBusiness', 'button', 'success', 'claimPending', 'errorMessages.invalidEmail', 'errorMessages.emailMismatch', 'errorMessages.tokenExpired', 'errorMessages.tokenUsed', 'errorMessages.alreadyConfirmed', 'errorMessages.generic'],
  countryLabels: ['*'],
  widget: ['newVisitorText', 'participantText', 'buttonText', 'newVisitorDescription', 'participantDescription'],
  trafficInsights: ['title', 'trafficForLabel', 'allLinksLabel', 'visitsOverTimeTitle', 'breakdownsTitle', 'viewTrafficInsightsLinkText', 'backLinkText', 'notSetLabel', 'emptyState', 'messages.error', 'messages.unavailable', 'messages.partial', 'messages.partialFrom', 'messages.breakdownPartial', 'messages.breakdownEmpty', 'dateRangeLabels.LAST_7_DAYS', 'dateRangeLabels.LAST_30_DAYS', 'dateRangeLabels.LAST_90_DAYS', 'dateRangeLabels.ALL_TIME', 'metrics.visits.label', 'metrics.visits.helperText', 'metrics.uniqueVisitors.label', 'metrics.uniqueVisitors.helperText', 'breakdowns.utm.label', 'breakdowns.utm.levels.*', 'breakdowns.utm.values.*', 'breakdowns.referrer.label', 'breakdowns.referrer.levels.*', 'breakdowns.referrer.values.*', 'breakdowns.destination.label', 'breakdowns.destination.levels.*', 'breakdowns.destination.values.*', 'breakdowns.geo.label', 'breakdowns.geo.levels.*', 'breakdowns.geo.values.*', 'breakdowns.technology.label', 'breakdowns.technology.levels.*', 'breakdowns.technology.values.*', 'breakdowns.trigger.label', 'breakdowns.trigger.levels.*', 'breakdowns.trigger.values.*'],
  resources: ['title', 'viewResourcesLinkText', 'backLinkText', 'copyButtonText', 'copiedText', 'emptyState'],
};
const DESIGN_REFERRAL = {
  referralSummary: ['title', 'tiles.clicks.label', 'tiles.leads.label', 'tiles.referrals.label', 'tiles.rewards.label'],
};
const DESIGN_AFFILIATE = {
  affiliateSummary: ['title', 'tiles.clicks.label', 'tiles.revenue.label', 'tiles.payouts.label'],
  commissions: ['title', 'emptyState', 'statusLabels.PENDING', 'statusLabels.APPROVED', 'statusLabels.PAID', 'statusLabels.REVERSED'],
  payouts: ['title', 'emptyState', 'statusLabels.UPCOMING', 'statusLabels.QUEUED', 'statusLabels.ISSUED', 'statusLabels.FAILED', 'statusLabels.REVERSED'],
  participantSettings: ['manualPayout.label', 'manualPayout.instructions', 'wise.label'],
};
const EMAILS_BOTH = [
  ...templates(['welcomeNonReferred', 'referralLinkViewedFirstTime', 'referredSignup', 'progressUpdateMonthly', 'invite', 'loginLink', 'paypalEmailConfirmation', 'taxInfoMissing', 'taxInfoReceived', 'taxInfoApproved', 'taxInfoRejected']),
  'settings.design.footerText',
];
const EMAILS_REFERRAL = templates(['welcomeReferred', 'referralLinkUsed', 'goalAchieved', 'campaignEndedWinners', 'campaignEndedNonWinners']);
const EMAILS_AFFILIATE = templates(['commissionGenerated', 'commissionAdjusted', 'payoutPending', 'payoutSentSuccess']);

const sorted = (xs: string[]) => [...xs].sort();

describe('translatable texts (issue #27)', () => {
  it('lists exactly these design texts for each program type', () => {
    expect(sorted(translatablePaths('design', 'REFERRAL'))).toEqual(sorted([...paths(DESIGN_BOTH), ...paths(DESIGN_REFERRAL)]));
    expect(sorted(translatablePaths('design', 'AFFILIATE'))).toEqual(sorted([...paths(DESIGN_BOTH), ...paths(DESIGN_AFFILIATE)]));
  });

  it('lists exactly these email texts for each program type', () => {
    expect(sorted(translatablePaths('emails', 'REFERRAL'))).toEqual(sorted([...EMAILS_BOTH, ...EMAILS_REFERRAL]));
    expect(sorted(translatablePaths('emails', 'AFFILIATE'))).toEqual(sorted([...EMAILS_BOTH, ...EMAILS_AFFILIATE]));
  });

  it('leaves out colours, URLs, enums, ids, patterns and the deny list', () => {
    const all = [...translatablePaths('design', 'REFERRAL'), ...translatablePaths('design', 'AFFILIATE')].map((p) => `design.${p}`);
    all.push(...[...translatablePaths('emails', 'REFERRAL'), ...translatablePaths('emails', 'AFFILIATE')].map((p) => `emails.${p}`));
    for (const p of ['design.theme.primaryColor', 'design.widget.artImageUrl', 'design.widget.placement', 'design.signup.fields.*.key', 'design.widget.pageRules.patterns', 'design.landingPages.scripts.googleAnalyticsId', 'emails.settings.sender.replyToEmail']) {
      expect(all, p).not.toContain(p);
    }
    for (const denied of NOT_TRANSLATABLE) expect(all.filter((p) => p === denied || p.startsWith(`${denied}.`)), denied).toEqual([]);
  });
});

describe('checkTranslation', () => {
  const keys = (path: string) => (path === 'signup.fields' ? ['email', 'firstName'] : []);

  it('accepts texts and nulls at translatable places, trimmed as the base field stores them', () => {
    const r = checkTranslation('design', 'REFERRAL', { header: { preText: 'Hola', postText: null }, signup: { fields: { email: { label: ' Correo ' } } }, countryLabels: { ES: 'España' } }, keys);
    expect(r.errors).toEqual([]);
    expect(r.value).toEqual({ header: { preText: 'Hola', postText: null }, signup: { fields: { email: { label: 'Correo' } } }, countryLabels: { ES: 'España' } });
  });

  it('names every refused path down to its leaf', () => {
    const r = checkTranslation('design', 'REFERRAL', { theme: { primaryColor: '#ff0000' }, commissions: { title: 'x' }, signup: { fields: { company: { label: 'x' } } }, stats: { title: '   ' }, header: { preText: 'x'.repeat(501) }, countryLabels: { spain: 'x' } }, keys);
    expect(r.errors.map((e) => [e.field, e.code])).toEqual([
      ['design.theme.primaryColor', 'NOT_TRANSLATABLE'],
      ['design.commissions.title', 'NOT_TRANSLATABLE'],
      ['design.signup.fields.company', 'NOT_TRANSLATABLE'],
      ['design.stats.title', 'TOO_SHORT'],
      ['design.header.preText', 'TOO_LONG'],
      ['design.countryLabels.spain', 'NOT_TRANSLATABLE'],
    ]);
    const e = checkTranslation('emails', 'AFFILIATE', { goalAchieved: { subject: 'x' }, invite: { subject: '', isEnabled: false }, settings: { sender: { fromName: 'x' } } });
    expect(e.errors.map((x) => [x.field, x.code])).toEqual([
      ['emails.goalAchieved.subject', 'NOT_TRANSLATABLE'],
      ['emails.invite.subject', 'TOO_SHORT'],
      ['emails.invite.isEnabled', 'NOT_TRANSLATABLE'],
      ['emails.settings.sender.fromName', 'NOT_TRANSLATABLE'],
    ]);
    expect(checkTranslation('design', 'REFERRAL', { header: 'x' }).errors[0]).toMatchObject({ field: 'design.header', code: 'INVALID_TYPE' });
    expect(checkTranslation('design', 'REFERRAL', { header: { preText: 3 } }).errors[0]).toMatchObject({ field: 'design.header.preText', code: 'INVALID_TYPE' });
  });
});

describe('mergeOverrides and withOverrides', () => {
  it('merges objects, removes a text with null and drops what is left empty', () => {
    const stored = { header: { preText: 'a', postText: 'b' }, stats: { title: 'c' } };
    expect(mergeOverrides(stored, { header: { preText: null }, stats: { title: null }, share: { title: 'd' } })).toEqual({ header: { postText: 'b' }, share: { title: 'd' } });
  });

  it('lays texts over their places only: sign-up fields by key, a record may gain a key, unknown places ignored', () => {
    const design = completeDocument('design', { type: 'REFERRAL', goal: null }, defaultDesign('REFERRAL', null));
    const out = withOverrides('design', 'REFERRAL', design, {
      header: { preText: 'Hola' },
      signup: { fields: { firstName: { label: 'Nombre' }, gone: { label: 'x' } } },
      countryLabels: { ES: 'España' },
      theme: { primaryColor: 'red' },
      commissions: { title: 'x' },
    });
    expect(out.header.preText).toBe('Hola');
    expect(out.header.postText).toBe(design.header.postText);
    expect(out.signup.fields.map((f) => [f.key, f.label])).toEqual([
      ['email', design.signup.fields[0]!.label],
      ['firstName', 'Nombre'],
    ]);
    expect(out.countryLabels).toEqual({ ES: 'España' });
    expect(out.theme).toEqual(design.theme);
    expect('commissions' in out).toBe(false);
    expect(design.header.preText).not.toBe('Hola');
  });
});

describe('checkMergedTranslation', () => {
  it('refuses a record of texts larger than its base field allows', () => {
    const levels = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`level${i}`, `Stufe ${i}`]));
    expect(checkMergedTranslation('design', 'REFERRAL', { trafficInsights: { breakdowns: { utm: { levels } } } })).toEqual([
      { field: 'design.trafficInsights.breakdowns.utm.levels', code: 'TOO_MANY', message: 'design.trafficInsights.breakdowns.utm.levels holds more entries than its base field allows.' },
    ]);
    delete levels.level50;
    expect(checkMergedTranslation('design', 'REFERRAL', { trafficInsights: { breakdowns: { utm: { levels } } }, countryLabels: { ES: 'España' } })).toEqual([]);
  });
});
