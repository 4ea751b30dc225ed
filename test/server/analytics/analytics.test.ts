import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import type { ActivityEntry } from '../../../server/domain/platform/activity.ts';

// Budgets raised: these tests make many calls per team; the limits have their own tests.
const LIMITS = RAISED_LIMITS;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let app: TestApp;
beforeAll(async () => {
  app = await startApp(LIMITS);
});
afterAll(async () => {
  await app.close();
});
// Every test starts at 2026-01-15 12:00 UTC (a Thursday) on programs of its own.
beforeEach(() => {
  app.clock.current = Date.UTC(2026, 0, 15, 12);
});

/** Sets installation fields directly, so these tests do not depend on the config endpoints. */
async function patchInstallation(pid: string, fields: Record<string, unknown>) {
  const row = await app.deps.db.knex('programs').where({ id: pid }).first();
  await app.deps.db.knex('programs').where({ id: pid }).update({ installation: JSON.stringify({ ...JSON.parse(row.installation), ...fields }) });
}

async function setup(type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL') {
  const acct = await verifiedAccount(app);
  // No reward configurations: issued rewards here are the ones a test inserts.
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type, rewards: [] } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  await patchInstallation(pid, { referralTrigger: 'CUSTOM' });
  return { key: acct.key, teamId: acct.teamId, pid };
}

async function add(key: string, pid: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; email: string };
}

async function update(key: string, pid: string, who: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant/${who}`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Records activity rows the way the engines that own visits, shares and emails do. */
function record(pid: string, participantId: string | null, type: ActivityEntry['type'], action: string, data?: Record<string, unknown>) {
  return app.deps.activity.record(app.deps.db.knex, { programId: pid, participantId, type, action, text: action, data });
}

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

const analytics = (key: string, pid: string, query = '') => app.request('GET', `/v2/campaign/${pid}/analytics${query}`, { key });
const activation = (key: string, pid: string, query = '') => app.request('GET', `/v2/campaign/${pid}/analytics/activation${query}`, { key });
const participantAnalytics = (key: string, pid: string, who: string, query = '') => app.request('GET', `/v2/campaign/${pid}/participant/${who}/analytics${query}`, { key });
const logs = (key: string, pid: string, who: string, query = '') => app.request('GET', `/v2/campaign/${pid}/participant/${who}/activity-logs${query}`, { key });

/**
 * Three days of history, one clock day apart (the clock starts 2026-01-15 12:00 UTC):
 * day 0: ann joins, bob joins referred by ann (credited); ann's link gets two unique visits and one repeat.
 * day 1: cat joins referred by ann (pending); ann shares on facebook.
 * day 2: dan joins; bob copies his link; ann shares by email.
 */
async function history() {
  const s = await setup();
  const day0 = app.clock.now();
  const ann = await add(s.key, s.pid, { email: 'ann@alpha.test' });
  const bob = await add(s.key, s.pid, { email: 'bob@bravo.test', referredBy: ann.id, referralStatus: 'CREDIT_AWARDED' });
  await record(s.pid, ann.id, 'VISIT', 'visit.unique');
  await record(s.pid, ann.id, 'VISIT', 'visit.unique');
  await record(s.pid, ann.id, 'VISIT', 'visit.repeat');
  app.clock.advance(DAY);
  const cat = await add(s.key, s.pid, { email: 'cat@charlie.test', referredBy: ann.id });
  await record(s.pid, ann.id, 'SHARE', 'share.facebook');
  app.clock.advance(DAY);
  const dan = await add(s.key, s.pid, { email: 'dan@delta.test' });
  await record(s.pid, bob.id, 'SHARE', 'share.copyRefLink');
  await record(s.pid, ann.id, 'SHARE', 'share.email');
  return { ...s, day0, ann, bob, cat, dan };
}

describe('GET /campaign/{id}/analytics', () => {
  it('totals the window and buckets a day series from participants, referrals, visits and shares', async () => {
    const h = await history();
    const res = await analytics(h.key, h.pid, '?days=7&interval=day');
    expect(res.status, res.text).toBe(200);
    const now = app.clock.now();
    expect(res.body.startDate).toBe(now + 1 - 7 * DAY);
    expect(res.body.endDate).toBe(now);
    expect(res.body.analytics).toMatchObject({
      participants: 4,
      referrals: 1,
      referralCreditPendings: 1,
      referralCreditExpireds: 0,
      invites: 0,
      impressions: 3,
      uniqueImpressions: 2,
      facebookShares: 1,
      copyRefLinkShares: 1,
      emailShares: 1,
      twitterShares: 0,
    });
    expect(res.body.analytics).not.toHaveProperty('totalRevenue');
    const series = res.body.series as Array<Record<string, number>>;
    // 2026-01-10 12:00 to 2026-01-17 12:00 touches eight UTC days.
    expect(series.map((s) => s.periodStart)).toEqual(Array.from({ length: 8 }, (_, i) => Date.UTC(2026, 0, 10 + i)));
    expect(series.map((s) => s.participants)).toEqual([0, 0, 0, 0, 0, 2, 1, 1]);
    expect(series.map((s) => s.referrals)).toEqual([0, 0, 0, 0, 0, 1, 0, 0]);
    expect(series.map((s) => s.impressions)).toEqual([0, 0, 0, 0, 0, 3, 0, 0]);
    expect(series[6]).toMatchObject({ referralCreditPendings: 1, facebookShares: 1 });
    expect(series[7]).toMatchObject({ copyRefLinkShares: 1, emailShares: 1 });
    expect(res.body).not.toHaveProperty('previousPeriod');
    expect(res.body).not.toHaveProperty('statusCounts');
  });

  it('answers totals only (no series) by default, over the last 365 days', async () => {
    const h = await history();
    const res = await analytics(h.key, h.pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body.analytics.participants).toBe(4);
    expect(res.body).not.toHaveProperty('series');
    expect(res.body.endDate - res.body.startDate + 1).toBe(365 * DAY);
  });

  it('buckets weeks from Monday and months from the 1st', async () => {
    const h = await history();
    const weeks = await analytics(h.key, h.pid, '?days=14&interval=week');
    expect(weeks.status, weeks.text).toBe(200);
    // The window starts Saturday Jan 3 (week of Monday Dec 29); the history (Jan 15–17) is in the week of Monday Jan 12.
    expect(weeks.body.series.map((s: { periodStart: number; participants: number }) => [s.periodStart, s.participants])).toEqual([
      [Date.UTC(2025, 11, 29), 0],
      [Date.UTC(2026, 0, 5), 0],
      [Date.UTC(2026, 0, 12), 4],
    ]);
    const months = await analytics(h.key, h.pid, '?days=60&interval=month');
    expect(months.body.series.map((s: { periodStart: number; participants: number }) => [s.periodStart, s.participants])).toEqual([
      [Date.UTC(2025, 10, 1), 0],
      [Date.UTC(2025, 11, 1), 0],
      [Date.UTC(2026, 0, 1), 4],
    ]);
  });

  it('draws bucket boundaries at local midnight in the requested time zone', async () => {
    const h = await history();
    app.clock.advance(10 * HOUR); // 2026-01-17 22:00 UTC is 14:00 in Los Angeles
    await add(h.key, h.pid, { email: 'eve@echo.test' });
    const res = await analytics(h.key, h.pid, `?days=3&interval=day&timezone=${encodeURIComponent('America/Los_Angeles')}`);
    expect(res.status, res.text).toBe(200);
    const series = res.body.series as Array<{ periodStart: number; participants: number }>;
    // Los Angeles is UTC-8 in January: local midnight is 08:00 UTC.
    expect(series.map((s) => s.periodStart)).toEqual([Date.UTC(2026, 0, 14, 8), Date.UTC(2026, 0, 15, 8), Date.UTC(2026, 0, 16, 8), Date.UTC(2026, 0, 17, 8)]);
    // Day 0 (12:00 UTC) is 04:00 local on the 15th; dan (day 2, 12:00 UTC) and eve (22:00 UTC) share the 17th.
    expect(series.map((s) => s.participants)).toEqual([0, 2, 1, 2]);
  });

  it('keeps local midnights across a daylight-saving change', async () => {
    const s = await setup();
    // New York moves from UTC-5 to UTC-4 on Sunday 2026-03-08.
    app.clock.current = Date.UTC(2026, 2, 8, 4, 30); // Mar 7 23:30 EST
    await add(s.key, s.pid, { email: 'late@alpha.test' });
    app.clock.current = Date.UTC(2026, 2, 9, 4, 30); // Mar 9 00:30 EDT
    await add(s.key, s.pid, { email: 'early@bravo.test' });
    app.clock.current = Date.UTC(2026, 2, 10, 12);
    const res = await analytics(s.key, s.pid, `?days=5&interval=day&timezone=${encodeURIComponent('America/New_York')}`);
    expect(res.status, res.text).toBe(200);
    const series = res.body.series as Array<{ periodStart: number; participants: number }>;
    expect(series.map((x) => x.periodStart)).toEqual([
      Date.UTC(2026, 2, 5, 5),
      Date.UTC(2026, 2, 6, 5),
      Date.UTC(2026, 2, 7, 5),
      Date.UTC(2026, 2, 8, 5),
      Date.UTC(2026, 2, 9, 4),
      Date.UTC(2026, 2, 10, 4),
    ]);
    expect(series.map((x) => x.participants)).toEqual([0, 0, 1, 0, 1, 0]);
  });

  it('adds the same-length window just before with include=previousPeriod', async () => {
    const h = await history();
    const start = h.day0 + 2 * DAY - 12 * HOUR;
    const end = start + DAY - 1;
    const res = await analytics(h.key, h.pid, `?startDate=${start}&endDate=${end}&include=previousPeriod`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ startDate: start, endDate: end });
    expect(res.body.analytics).toMatchObject({ participants: 1, copyRefLinkShares: 1, emailShares: 1, facebookShares: 0 });
    expect(res.body.previousPeriod).toEqual({
      analytics: expect.objectContaining({ participants: 1, referralCreditPendings: 1, facebookShares: 1, emailShares: 0 }),
      startDate: start - DAY,
      endDate: start - 1,
    });
  });

  it('counts rewards in the later SDKs’ buckets with include=statusCounts', async () => {
    const s = await setup();
    const p = await add(s.key, s.pid, { email: 'winner@alpha.test' });
    const base = { program_id: s.pid, participant_id: p.id, reward_config_id: 'crew_test', is_available: true, is_referrer: true, created_at: app.clock.now() };
    await app.deps.db.knex('participant_rewards').insert([
      { ...base, id: 'r1', issue_key: `${s.pid}:r1`, status: 'PENDING', approved: false, is_available: false },
      { ...base, id: 'r2', issue_key: `${s.pid}:r2`, status: 'PENDING', approved: true },
      { ...base, id: 'r3', issue_key: `${s.pid}:r3`, status: 'FULFILLED', approved: true },
      { ...base, id: 'r4', issue_key: `${s.pid}:r4`, status: 'FULFILLED', approved: true, created_at: app.clock.now() - 400 * DAY },
    ]);
    const res = await analytics(s.key, s.pid, '?include=statusCounts');
    expect(res.status, res.text).toBe(200);
    expect(res.body.statusCounts).toEqual({ currencyISO: 'USD', rewardStatus: { unapproved: 1, unfulfilled: 1, completed: 1 } });
  });

  it('reports affiliate totals and status buckets for an affiliate program', async () => {
    const s = await setup('AFFILIATE');
    await add(s.key, s.pid, { email: 'aff@alpha.test' });
    const res = await analytics(s.key, s.pid, '?include=statusCounts');
    expect(res.status, res.text).toBe(200);
    expect(res.body.analytics).toMatchObject({ participants: 1, totalRevenue: 0, totalCommissions: 0, totalCommissionCount: 0, uniqueCommissionReferrals: 0 });
    expect(res.body.statusCounts).toMatchObject({
      affiliateStatus: { APPROVED: 1, SUSPENDED: 0, BANNED: 0 },
      commissionStatus: { pending: { count: 0, totalAmount: 0, totalRevenue: 0 } },
      payoutStatus: { reversed: { count: 0, totalAmount: 0 } },
    });
  });

  it('computes rates from the window’s totals with include=rates', async () => {
    const h = await history();
    const res = await analytics(h.key, h.pid, '?include=rates,previousPeriod');
    expect(res.status, res.text).toBe(200);
    expect(res.body.rates).toEqual({ referralConversionRate: 1 / 2, participationRate: 4 / 2, sharesPerParticipant: 3 / 4 });
    const empty = await setup();
    expect((await analytics(empty.key, empty.pid, '?include=rates')).body.rates).toEqual({ referralConversionRate: 0, participationRate: 0, sharesPerParticipant: 0 });
  });

  it('counts emails sent by type and marks delivery tracking as uncovered with include=email', async () => {
    const h = await history();
    await record(h.pid, h.ann.id, 'EMAIL', 'email.sent', { emailType: 'welcomeNonReferred' });
    await record(h.pid, h.bob.id, 'EMAIL', 'email.sent', { emailType: 'welcomeReferred' });
    await record(h.pid, h.dan.id, 'EMAIL', 'email.sent', { emailType: 'welcomeNonReferred' });
    await record(h.pid, h.cat.id, 'EMAIL', 'email.skipped', { emailType: 'welcomeReferred' });
    await record(h.pid, h.ann.id, 'INVITE', 'invite.sent', { emailType: 'invite' });
    const res = await analytics(h.key, h.pid, '?days=7&interval=day&include=email');
    expect(res.status, res.text).toBe(200);
    expect(res.body.email).toMatchObject({ sent: 4, delivered: 0, opened: 0, coverageStartDate: null, isPartial: true });
    expect(res.body.email.byType.map((t: { emailType: string; sent: number }) => [t.emailType, t.sent])).toEqual([
      ['invite', 1],
      ['welcomeNonReferred', 2],
      ['welcomeReferred', 1],
    ]);
    expect(res.body.series[7].email).toEqual({ sent: 4, delivered: 0, opened: 0, clicked: 0, bounced: 0, spamComplaints: 0 });
    expect(res.body.series[6].email.sent).toBe(0);
  });

  it('reports share engagement as available and portal-based metrics as unavailable, never zero, with include=engagement', async () => {
    const h = await history();
    app.clock.advance(DAY);
    await record(h.pid, h.ann.id, 'SHARE', 'share.twitter');
    const res = await analytics(h.key, h.pid, `?days=30&include=engagement&platform=WEB&timezone=${encodeURIComponent('America/Los_Angeles')}`);
    expect(res.status, res.text).toBe(200);
    const e = res.body.engagement;
    expect(e).toMatchObject({
      coverageStartAt: h.day0,
      metricContractVersion: 1,
      programType: 'REFERRAL',
      timezone: 'America/Los_Angeles',
      interval: 'day',
      platform: { requested: 'WEB', applied: 'ALL', state: 'UNAVAILABLE' },
      state: 'PARTIAL',
      reason: 'PARTIAL_COVERAGE',
      series: [],
    });
    expect(e.period.effectiveFrom).toBe(h.day0);
    expect(e.totals.activeParticipants).toEqual({ state: 'UNAVAILABLE', value: null, reason: 'COVERAGE_UNAVAILABLE' });
    expect(e.totals.portalViews).toEqual({ state: 'UNAVAILABLE', value: null, reason: 'COVERAGE_UNAVAILABLE' });
    expect(e.totals.sharingParticipants).toEqual({ state: 'AVAILABLE', value: 2, reason: null });
    expect(e.totals.shareActions).toEqual({ state: 'AVAILABLE', value: 4, reason: null });
    // ann shared on three different days, bob on one.
    expect(e.totals.repeatSharingParticipants).toEqual({ state: 'AVAILABLE', value: 1, reason: null });
    expect(e.previousPeriod).toEqual({ state: 'UNAVAILABLE', reason: 'PRE_COVERAGE', totals: null });
    expect(e.comparison).toEqual({ state: 'UNAVAILABLE', reason: 'PRE_COVERAGE', metrics: null });
    expect(e.breakdowns.shareChannels).toEqual(
      expect.arrayContaining([
        { key: 'facebook', sharingParticipants: 1, shareActions: 1 },
        { key: 'copyRefLink', sharingParticipants: 1, shareActions: 1 },
      ]),
    );
    expect(e.breakdowns.firstShareChannels).toEqual(
      expect.arrayContaining([
        { key: 'facebook', sharingParticipants: 1 },
        { key: 'copyRefLink', sharingParticipants: 1 },
      ]),
    );
    const all = await analytics(h.key, h.pid, '?days=30&include=engagement');
    expect(all.body.engagement.platform).toEqual({ requested: 'ALL', applied: 'ALL', state: 'AVAILABLE' });
  });

  it('compares share engagement with the previous period once it is covered', async () => {
    const h = await history();
    app.clock.advance(3 * DAY);
    await record(h.pid, h.ann.id, 'SHARE', 'share.sms');
    const res = await analytics(h.key, h.pid, '?days=3&include=engagement');
    expect(res.status, res.text).toBe(200);
    expect(res.body.engagement.comparison.metrics.shareActions).toEqual({ state: 'AVAILABLE', value: 1, reason: null, delta: 1 - 3 });
    expect(res.body.engagement.previousPeriod.state).toBe('PARTIAL');
  });

  it('answers 400 for an unknown include token, a bad time zone, a date without its pair and other bad windows', async () => {
    const s = await setup();
    const cases: Array<[string, string]> = [
      ['?include=statusCounts,bogus', 'query.include'],
      ['?timezone=Mars/Olympus_Mons', 'query.timezone'],
      ['?startDate=1700000000000', 'query.endDate'],
      ['?endDate=1700000000000', 'query.startDate'],
      ['?startDate=1700000000000&endDate=1600000000000', 'query.endDate'],
      ['?startDate=1000&endDate=1700000000000', 'query.endDate'],
      ['?days=7&startDate=1600000000000&endDate=1700000000000', 'query.days'],
      ['?days=0', 'query.days'],
      ['?days=1826', 'query.days'],
      ['?interval=year', 'query.interval'],
      ['?platform=TV', 'query.platform'],
    ];
    for (const [query, field] of cases) {
      const res = await analytics(s.key, s.pid, query);
      expect(res.status, query).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field), query).toContain(field);
    }
  });

  it('answers 403 without analytics:read or outside the program grant, and 404 for an unknown program', async () => {
    const s = await setup();
    expect((await analytics(await limitedKey(s.teamId, ['program:read', 'participant:read']), s.pid)).status).toBe(403);
    expect((await analytics(await limitedKey(s.teamId, ['analytics:read'], ['someotherprogram']), s.pid)).status).toBe(403);
    expect((await analytics(await limitedKey(s.teamId, ['analytics:read'], [s.pid]), s.pid)).status).toBe(200);
    expect((await analytics(s.key, 'doesnotexist')).status).toBe(404);
  });
});

describe('GET /campaign/{id}/analytics/activation', () => {
  /** Cohort of 2026-01-15 (UTC): ann, bob, cat; ann shares, gets a unique visit and a referral (dan, next day) later credited; bob shares. */
  async function cohort() {
    const s = await setup();
    const day0 = app.clock.now();
    const ann = await add(s.key, s.pid, { email: 'ann@alpha.test' });
    const bob = await add(s.key, s.pid, { email: 'bob@bravo.test' });
    await add(s.key, s.pid, { email: 'cat@charlie.test' });
    app.clock.advance(HOUR);
    await record(s.pid, ann.id, 'SHARE', 'share.email');
    app.clock.advance(HOUR);
    await record(s.pid, bob.id, 'SHARE', 'share.facebook');
    await record(s.pid, ann.id, 'VISIT', 'visit.unique');
    app.clock.advance(DAY);
    const dan = await add(s.key, s.pid, { email: 'dan@delta.test', referredBy: ann.id });
    app.clock.advance(HOUR);
    await update(s.key, s.pid, dan.id, { referralStatus: 'CREDIT_AWARDED' });
    return { ...s, day0, ann, bob, dan };
  }

  it('follows each cohort through share, unique visit, lead and credited referral', async () => {
    const c = await cohort();
    const from = Date.UTC(2026, 0, 15);
    const res = await activation(c.key, c.pid, `?cohortFrom=${from}&cohortTo=${from + 2 * DAY}&cohortInterval=day&observationWindowDays=7`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      coverageStartAt: c.day0,
      metricContractVersion: 1,
      programType: 'REFERRAL',
      timezone: 'UTC',
      cohortInterval: 'day',
      observationWindowDays: 7,
      portalViewedLabel: 'Referral portal viewed',
      portalViewedHelperText: 'Signed-in participant view.',
    });
    expect(res.body.cohorts).toHaveLength(2);
    const [first, second] = res.body.cohorts;
    expect(first).toMatchObject({
      state: 'PARTIAL',
      reason: 'PARTIAL_COVERAGE',
      cohort: { from, to: from + DAY, effectiveFrom: c.day0, maturedAt: from + 8 * DAY, asOf: app.clock.now(), anchorField: 'enrolledAsAdvocateAt' },
      rawStageCounts: null,
    });
    expect(first.strictStages.map((s: { key: string; count: number }) => [s.key, s.count])).toEqual([
      ['ELIGIBLE', 3],
      ['SHARE_ACTION', 2],
      ['UNIQUE_REFERRAL_VISIT', 1],
      ['LEAD', 1],
      ['CREDITED_REFERRAL', 1],
    ]);
    const share = first.strictStages[1];
    expect(share).toEqual({
      key: 'SHARE_ACTION',
      count: 2,
      conversionRateFromPrior: 2 / 3,
      conversionRateFromEligible: 2 / 3,
      dropOffRate: 1 / 3,
      dropOffCount: 1,
      medianTimeToStageMs: 1.5 * HOUR,
      stalledSegmentKey: null,
    });
    expect(first.strictStages[4]).toMatchObject({ medianTimeToStageMs: 2 * HOUR + DAY + HOUR, stalledSegmentKey: 'LEAD_NO_CREDITED_REFERRAL', dropOffCount: 0 });
    expect(first.stalledSegments).toEqual([
      { key: 'SHARED_NO_UNIQUE_REFERRAL_VISIT', fromStage: 'SHARE_ACTION', toStage: 'UNIQUE_REFERRAL_VISIT', count: 1 },
      { key: 'UNIQUE_VISIT_NO_LEAD', fromStage: 'UNIQUE_REFERRAL_VISIT', toStage: 'LEAD', count: 0 },
      { key: 'LEAD_NO_CREDITED_REFERRAL', fromStage: 'LEAD', toStage: 'CREDITED_REFERRAL', count: 0 },
    ]);
    expect(first.largestDrop).toMatchObject({ fromStage: 'SHARE_ACTION', toStage: 'UNIQUE_REFERRAL_VISIT', count: 1, rate: 0.5, improvementAreaKey: 'SHARE_EFFECTIVENESS' });
    expect(first.outcomes).toEqual({ FIRST_REWARD: { count: 0 } });
    expect(second.strictStages[0]).toMatchObject({ key: 'ELIGIBLE', count: 1 });
    expect(second.cohort).toMatchObject({ from: from + DAY, to: from + 2 * DAY, effectiveFrom: null });
    expect(res.body.aggregate.strictStages.map((s: { count: number }) => s.count)).toEqual([4, 2, 1, 1, 1]);
    expect(res.body.aggregate.cohort).toMatchObject({ from, to: from + 2 * DAY });
  });

  it('reports empty cohorts and cohorts before coverage as unavailable with null stages', async () => {
    const c = await cohort();
    const from = Date.UTC(2026, 0, 10);
    const res = await activation(c.key, c.pid, `?cohortFrom=${from}&cohortTo=${from + DAY}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.cohortInterval).toBe('day');
    expect(res.body.observationWindowDays).toBe(30);
    expect(res.body.aggregate).toMatchObject({ state: 'UNAVAILABLE', reason: 'PRE_COVERAGE', strictStages: null, rawStageCounts: null, stalledSegments: null, outcomes: null, largestDrop: null });
    const later = Date.UTC(2026, 0, 20);
    const empty = await activation(c.key, c.pid, `?cohortFrom=${later}&cohortTo=${later + DAY}`);
    expect(empty.body.aggregate).toMatchObject({ state: 'UNAVAILABLE', reason: 'EMPTY_DENOMINATOR', strictStages: null });
  });

  it('answers the latest fully matured cohort when no bounds are sent', async () => {
    const c = await cohort();
    app.clock.advance(8 * DAY); // now 2026-01-24 15:00: the 7-day window of Jan 16 has passed, Jan 17's has not
    const res = await activation(c.key, c.pid, '?observationWindowDays=7');
    expect(res.status, res.text).toBe(200);
    expect(res.body.cohorts).toHaveLength(1);
    expect(res.body.cohorts[0].cohort).toMatchObject({ from: Date.UTC(2026, 0, 16), to: Date.UTC(2026, 0, 17) });
    expect(res.body.cohorts[0].strictStages[0]).toMatchObject({ key: 'ELIGIBLE', count: 1 });
    const weekly = await activation(c.key, c.pid, '?observationWindowDays=7&cohortInterval=week');
    // The week of Monday Jan 12 ends Jan 19; its window ended Jan 26, after now: the week before is the latest matured.
    expect(weekly.body.cohorts[0]).toMatchObject({ state: 'UNAVAILABLE', reason: 'PRE_COVERAGE', cohort: { from: Date.UTC(2026, 0, 5), to: Date.UTC(2026, 0, 12) } });
  });

  it('answers 400 for one bound alone, cohortTo not after cohortFrom, a window other than 7 or 30, a bad interval or time zone', async () => {
    const s = await setup();
    const cases: Array<[string, string]> = [
      ['?cohortFrom=1754006400000', 'query.cohortTo'],
      ['?cohortTo=1754006400000', 'query.cohortFrom'],
      ['?cohortFrom=1754006400000&cohortTo=1754006400000', 'query.cohortTo'],
      ['?cohortFrom=1754006400000&cohortTo=1700000000000', 'query.cohortTo'],
      ['?observationWindowDays=14', 'query.observationWindowDays'],
      ['?cohortInterval=year', 'query.cohortInterval'],
      ['?timezone=Nowhere/Special', 'query.timezone'],
      ['?cohortFrom=1600000000000&cohortTo=1700000000000', 'query.cohortTo'],
      [`?cohortFrom=${Date.UTC(2025, 0, 1)}&cohortTo=${Date.UTC(2026, 6, 1)}`, 'query.cohortTo'],
    ];
    for (const [query, field] of cases) {
      const res = await activation(s.key, s.pid, query);
      expect(res.status, query).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field), query).toContain(field);
    }
  });

  it('takes the RB wire example with a time zone and weekly cohorts', async () => {
    const s = await setup();
    const res = await activation(s.key, s.pid, '?cohortFrom=1754006400000&cohortTo=1756684800000&cohortInterval=week&observationWindowDays=30&timezone=America%2FLos_Angeles');
    expect(res.status, res.text).toBe(200);
    expect(res.body.timezone).toBe('America/Los_Angeles');
    expect(res.body.cohorts.length).toBe(5);
    // Weeks start on Monday at local midnight (PDT, UTC-7), clipped to the requested range.
    expect(res.body.cohorts[0].cohort).toMatchObject({ from: 1754006400000, to: Date.UTC(2025, 7, 4, 7) });
    expect(res.body.cohorts.every((x: { reason: string }) => x.reason === 'PRE_COVERAGE')).toBe(true);
  });

  it('answers 403 without analytics:read and 404 for an unknown program', async () => {
    const s = await setup();
    expect((await activation(await limitedKey(s.teamId, ['participant:read']), s.pid)).status).toBe(403);
    expect((await activation(await limitedKey(s.teamId, ['analytics:read'], ['someotherprogram']), s.pid)).status).toBe(403);
    expect((await activation(s.key, 'doesnotexist')).status).toBe(404);
  });
});

describe('GET /campaign/{id}/participant/{participantIdOrEmail}/analytics', () => {
  async function referrers() {
    const s = await setup();
    const zed = await add(s.key, s.pid, { email: 'zed@zulu.test' });
    const ann = await add(s.key, s.pid, { email: 'ann@alpha.test' });
    for (const email of ['z1@one.test', 'z2@two.test']) await add(s.key, s.pid, { email, referredBy: zed.id, referralStatus: 'CREDIT_AWARDED' });
    const bob = await add(s.key, s.pid, { email: 'bob@bravo.test', referredBy: ann.id, referralStatus: 'CREDIT_AWARDED' });
    await add(s.key, s.pid, { email: 'cat@charlie.test', referredBy: ann.id });
    const eve = await add(s.key, s.pid, { email: 'eve@echo.test', referredBy: ann.id });
    await update(s.key, s.pid, eve.id, { referralStatus: 'CREDIT_EXPIRED' });
    return { ...s, zed, ann, bob };
  }

  it('answers all-time counters, ranks (null when unranked) and shares per channel', async () => {
    const r = await referrers();
    await app.deps.db.knex.transaction((trx) => app.deps.participants.adjustCounters(trx, r.pid, r.ann.id, { impression_count: 5, unique_impression_count: 3, invite_count: 2 }));
    await app.deps.db.knex('participants').where({ id: r.ann.id }).update({ share_count: JSON.stringify({ email: 2, facebook: 1 }) });
    await app.deps.db.knex('participant_rewards').insert({
      id: 'pr1',
      program_id: r.pid,
      participant_id: r.ann.id,
      reward_config_id: 'crew_test',
      issue_key: `${r.pid}:pr1`,
      status: 'PENDING',
      approved: false,
      is_available: false,
      is_referrer: true,
      created_at: app.clock.now(),
    });
    const res = await participantAnalytics(r.key, r.pid, r.ann.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      analytics: {
        referrals: 1,
        monthlyReferrals: 1,
        leads: 1,
        expiredReferrals: 1,
        impressions: 5,
        uniqueImpressions: 3,
        invitesSent: 2,
        rewardStatus: { unapproved: 1, unfulfilled: 0, completed: 0 },
        currencyISO: 'USD',
      },
      ranks: { rank: 2, monthlyRank: 2, prevMonthlyRank: null },
      shareCount: { email: 2, facebook: 1 },
    });
    const zed = await participantAnalytics(r.key, r.pid, encodeURIComponent('ZED@zulu.test'));
    expect(zed.status, zed.text).toBe(200);
    expect(zed.body.ranks).toEqual({ rank: 1, monthlyRank: 1, prevMonthlyRank: null });
    expect((await participantAnalytics(r.key, r.pid, r.bob.id)).body.ranks).toEqual({ rank: null, monthlyRank: null, prevMonthlyRank: null });
  });

  it('adds a series, email metrics and activation milestones with include=series,email,activation', async () => {
    const r = await referrers();
    await record(r.pid, r.ann.id, 'SHARE', 'share.copyRefLink');
    await record(r.pid, r.ann.id, 'VISIT', 'visit.unique');
    await record(r.pid, r.ann.id, 'EMAIL', 'email.sent', { emailType: 'welcomeNonReferred' });
    await record(r.pid, r.ann.id, 'INVITE', 'invite.sent', { emailType: 'invite' });
    const t0 = app.clock.now();
    app.clock.advance(DAY);
    await record(r.pid, r.ann.id, 'SHARE', 'share.twitter');
    const res = await participantAnalytics(r.key, r.pid, r.ann.id, '?include=activation,series,email&days=3');
    expect(res.status, res.text).toBe(200);
    const now = app.clock.now();
    expect(res.body).toMatchObject({ startDate: now + 1 - 3 * DAY, endDate: now });
    const series = res.body.series as Array<Record<string, unknown>>;
    expect(series.map((s) => s.periodStart)).toEqual([Date.UTC(2026, 0, 13), Date.UTC(2026, 0, 14), Date.UTC(2026, 0, 15), Date.UTC(2026, 0, 16)]);
    expect(series[2]).toMatchObject({ participants: 3, referrals: 1, referralCreditPendings: 1, referralCreditExpireds: 1, impressions: 1, uniqueImpressions: 1, copyRefLinkShares: 1, shareActions: 1, portalViews: null });
    expect(series[2]!.email).toMatchObject({ sent: 2 });
    expect(series[3]).toMatchObject({ twitterShares: 1, shareActions: 1, participants: 0 });
    expect(res.body.email).toMatchObject({ sent: 2, coverageStartDate: null, isPartial: true });
    expect(res.body.activation).toEqual({
      coverageStartAt: expect.any(Number),
      metricContractVersion: 1,
      programType: 'REFERRAL',
      state: 'PARTIAL',
      reason: 'PARTIAL_COVERAGE',
      cohort: { anchorField: 'enrolledAsAdvocateAt', anchorAt: t0 },
      enrolledAsAdvocateAt: t0,
      milestones: {
        firstPortalViewedAt: null,
        firstReferralLinkCopiedAt: t0,
        firstShareAt: t0,
        firstUniqueClickAt: t0,
        firstLeadAt: t0,
        firstReferralAt: t0,
        firstRewardAt: null,
        firstCommissionAt: null,
        payoutSetupCompletedAt: null,
      },
      firstShareChannel: 'copyRefLink',
    });
  });

  it('buckets a participant series by week with startDate and endDate', async () => {
    const r = await referrers();
    const start = Date.UTC(2026, 0, 1);
    const res = await participantAnalytics(r.key, r.pid, r.ann.id, `?include=series&interval=week&startDate=${start}&endDate=${Date.UTC(2026, 0, 31) - 1}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.series[0].periodStart).toBe(Date.UTC(2025, 11, 29));
    expect(res.body.series.reduce((n: number, s: { participants: number }) => n + s.participants, 0)).toBe(3);
    expect(res.body.series[0]).not.toHaveProperty('portalViews');
  });

  it('answers 400 for an unknown include token, a date without its pair and an unknown participant', async () => {
    const r = await referrers();
    for (const [query, field] of [
      ['?include=series,engagement', 'query.include'],
      ['?include=series&startDate=1700000000000', 'query.endDate'],
      ['?include=series&interval=total', 'query.interval'],
    ] as const) {
      const res = await participantAnalytics(r.key, r.pid, r.ann.id, query);
      expect(res.status, query).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field), query).toContain(field);
    }
    const unknown = await participantAnalytics(r.key, r.pid, 'nobody@nowhere.test');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('participantIdOrEmail');
  });

  it('answers 403 without analytics:read or outside the program grant, and 404 for an unknown program', async () => {
    const r = await referrers();
    expect((await participantAnalytics(await limitedKey(r.teamId, ['participant:read']), r.pid, r.ann.id)).status).toBe(403);
    expect((await participantAnalytics(await limitedKey(r.teamId, ['analytics:read'], ['someotherprogram']), r.pid, r.ann.id)).status).toBe(403);
    expect((await participantAnalytics(r.key, 'doesnotexist', r.ann.id)).status).toBe(404);
  });
});

describe('GET /campaign/{id}/participant/{participantIdOrEmail}/activity-logs', () => {
  it('pages newest first with offset, null once exhausted', async () => {
    const s = await setup();
    const p = await add(s.key, s.pid, { email: 'ann@alpha.test' });
    for (let i = 1; i <= 4; i++) {
      app.clock.advance(1000);
      await app.deps.activity.record(app.deps.db.knex, { programId: s.pid, participantId: p.id, type: 'SHARE', action: 'share.email', text: `Shared ${i}` });
    }
    // Other engines log too (the welcome email skipped while the team is unverified): compare with the table.
    const stored = (await app.deps.db.knex('activity_logs').where({ participant_id: p.id }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }])).map(
      (r: { text: string }) => r.text,
    );
    expect(stored.slice(0, 4)).toEqual(['Shared 4', 'Shared 3', 'Shared 2', 'Shared 1']);
    expect(stored).toContain('Joined the program');
    const texts: string[] = [];
    let offset: number | null = 0;
    const offsets: Array<number | null> = [];
    while (offset !== null) {
      const res = await logs(s.key, s.pid, p.id, `?limit=2&offset=${offset}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.limit).toBe(2);
      texts.push(...res.body.activityLogs.map((l: { text: string }) => l.text));
      offset = res.body.offset;
      offsets.push(offset);
    }
    expect(texts).toEqual(stored);
    expect(offsets).toEqual(Array.from({ length: Math.ceil(stored.length / 2) }, (_, i) => ((i + 1) * 2 < stored.length ? (i + 1) * 2 : null)));
    const first = await logs(s.key, s.pid, encodeURIComponent('ANN@alpha.test'));
    expect(first.body).toMatchObject({ limit: 20, offset: null });
    expect(first.body.activityLogs[0]).toEqual({ type: 'SHARE', text: 'Shared 4', createdAt: app.clock.now() });
  });

  it('records joins, referrals, referral status changes and deletions from the participants core', async () => {
    const s = await setup();
    const ann = await add(s.key, s.pid, { email: 'ann@alpha.test' });
    app.clock.advance(1000);
    const bob = await add(s.key, s.pid, { email: 'bob@bravo.test', referredBy: ann.id });
    app.clock.advance(1000);
    await update(s.key, s.pid, bob.id, { referralStatus: 'CREDIT_AWARDED' });
    app.clock.advance(1000);
    const cat = await add(s.key, s.pid, { email: 'cat@charlie.test', referredBy: ann.id, referralStatus: 'CREDIT_AWARDED' });
    app.clock.advance(1000);
    await update(s.key, s.pid, cat.id, { referralStatus: 'CREDIT_EXPIRED' });
    const core = (l: { type: string }) => l.type === 'REFERRAL' || l.type === 'COMMON';
    const annLog = (await logs(s.key, s.pid, ann.id)).body.activityLogs.filter(core).map((l: { type: string; text: string }) => [l.type, l.text]);
    expect(annLog).toEqual([
      ['REFERRAL', 'Referral cat@charlie.test: credit awarded → credit expired'],
      ['REFERRAL', 'Referral credit awarded for cat@charlie.test'],
      ['REFERRAL', 'Referral credit awarded for bob@bravo.test'],
      ['REFERRAL', 'Referred bob@bravo.test (credit pending)'],
      ['COMMON', 'Joined the program'],
    ]);
    expect((await logs(s.key, s.pid, bob.id)).body.activityLogs.filter(core)).toEqual([{ type: 'COMMON', text: 'Joined the program, referred by ann@alpha.test', createdAt: expect.any(Number) }]);

    app.clock.advance(1000);
    expect((await app.request('DELETE', `/v2/campaign/${s.pid}/participant/${bob.id}`, { key: s.key })).status).toBe(200);
    const after = (await logs(s.key, s.pid, ann.id)).body.activityLogs.filter(core).map((l: { text: string }) => l.text);
    expect(after[0]).toBe('Referral removed: the referred participant was deleted');
    expect(after.join('\n')).not.toContain('bob@bravo.test');
    const deleted = await app.deps.db.knex('activity_logs').where({ program_id: s.pid, action: 'participant.deleted' });
    expect(deleted.map((r: { participant_id: string | null; text: string }) => [r.participant_id, r.text])).toEqual([[null, `Participant ${bob.id} deleted`]]);
    expect(await app.deps.db.knex('activity_logs').where({ participant_id: bob.id })).toEqual([]);
  });

  it('answers 400 for a limit outside 1–100, a negative offset and an unknown participant', async () => {
    const s = await setup();
    const p = await add(s.key, s.pid, { email: 'ann@alpha.test' });
    for (const [query, field] of [
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?offset=-1', 'query.offset'],
      ['?limit=abc', 'query.limit'],
    ]) {
      const res = await logs(s.key, s.pid, p.id, query);
      expect(res.status, query).toBe(400);
      expect(res.body.errors[0].field, query).toBe(field);
    }
    const unknown = await logs(s.key, s.pid, 'nobody123');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('participantIdOrEmail');
  });

  it('answers 403 without participant:read or outside the program grant, and 404 for an unknown program', async () => {
    const s = await setup();
    const p = await add(s.key, s.pid, { email: 'ann@alpha.test' });
    expect((await logs(await limitedKey(s.teamId, ['analytics:read']), s.pid, p.id)).status).toBe(403);
    expect((await logs(await limitedKey(s.teamId, ['participant:read'], ['someotherprogram']), s.pid, p.id)).status).toBe(403);
    expect((await logs(await limitedKey(s.teamId, ['participant:read'], [s.pid]), s.pid, p.id)).status).toBe(200);
    expect((await logs(s.key, 'doesnotexist', p.id)).status).toBe(404);
  });
});
