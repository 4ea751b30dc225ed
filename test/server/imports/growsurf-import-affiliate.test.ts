import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { restOk } from '../../helpers/programs.ts';
import { addParticipant, moneyProgram, refund, sale, TEN_PERCENT, type MoneyProgram } from '../../helpers/money.ts';
import { mobile, session } from '../../helpers/mobile.ts';
import { GrowSurfSource } from '../../../server/domain/imports/source.ts';
import { ProgramImports } from '../../../server/domain/imports/growsurf-import.ts';

// Issue #33: an affiliate program moved in from a GrowSurf v2 API source keeps its affiliates,
// customers, commissions in every state (with refunds), payouts, affiliate invites and
// applications, with the same ids, amounts, states and times, and its money leaderboards and
// analytics agree with the source's.

const AFFILIATES = 12;
const CUSTOMERS = 40;

/** Every item of a cursor-paged list (`nextId`). */
async function cursorList(app: TestApp, key: string, path: string, field: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let nextId: string | null = null;
  do {
    const page: Record<string, any> = await restOk(app, key, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${nextId ? `&nextId=${nextId}` : ''}`);
    out.push(...page[field]);
    nextId = page.nextId ?? null;
  } while (nextId);
  return out;
}

/** Every item of an offset-paged list (`total`). */
async function offsetList(app: TestApp, key: string, path: string, field: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (;;) {
    const page: Record<string, any> = await restOk(app, key, 'GET', `${path}?limit=100&offset=${out.length}`);
    out.push(...page[field]);
    if (!page[field].length || out.length >= page.total) return out;
  }
}

async function snapshot(app: TestApp, key: string, pid: string, affiliates: string[]) {
  const one = (p: string) => restOk(app, key, 'GET', `/campaign/${pid}${p}`);
  return {
    campaign: await one(''),
    options: await one('/options'),
    rewards: await one('/reward-configs'),
    participants: await cursorList(app, key, `/campaign/${pid}/participants`, 'participants'),
    commissions: await cursorList(app, key, `/campaign/${pid}/commissions`, 'commissions'),
    payouts: await cursorList(app, key, `/campaign/${pid}/payouts`, 'payouts'),
    invites: await offsetList(app, key, `/campaign/${pid}/affiliate-invites`, 'invites'),
    applications: await offsetList(app, key, `/campaign/${pid}/affiliate-applications`, 'applications'),
    byCommissions: await one('/leaderboard?leaderboardType=BY_COMMISSIONS&limit=50'),
    byRevenue: await one('/leaderboard?leaderboardType=BY_REVENUE&limit=50'),
    analytics: await one('/analytics'),
    affiliateAnalytics: await Promise.all(affiliates.slice(0, 3).map((a) => one(`/participant/${a}/analytics`))),
    destinations: await Promise.all(affiliates.slice(0, 3).map((a) => one(`/participant/${a}/payout-destination`))),
    activity: await Promise.all(affiliates.slice(0, 3).map((a) => one(`/participant/${a}/activity-logs?limit=100`))),
  };
}

describe('refloop import growsurf: an affiliate program (issue #33)', () => {
  let source: TestApp;
  let target: TestApp;
  let p: MoneyProgram;
  const affiliates: string[] = [];

  beforeAll(async () => {
    source = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
    target = await startApp(RAISED_LIMITS);
    source.clock.current = Date.now();
    target.clock.current = source.clock.current;
    p = await moneyProgram(source, { ...TEN_PERCENT, approvalRequired: true });
    await source.deps.teams.approveVerification(p.teamId);
    await restOk(source, p.key, 'PATCH', `/campaign/${p.pid}/options`, { affiliateApplicationMode: 'MANUAL_REVIEW', affiliateApplicationForm: { questions: [{ fieldId: 'site', label: 'Your website', type: 'url', isRequired: true }], termsUrl: null } });
    affiliates.push(p.affiliate.id);
    for (let i = 1; i < AFFILIATES; i++) affiliates.push((await addParticipant(source, p.key, p.pid, { email: `aff${i}@partners.example`, firstName: `Aff${i}` })).id);
    const customers: string[] = [p.customer.id];
    for (let i = 1; i < CUSTOMERS; i++) customers.push((await addParticipant(source, p.key, p.pid, { email: `cust${i}@shop.example`, referredBy: affiliates[i % AFFILIATES] })).id);
    // Sales over the customers; some approved, refunded in part or whole, one deleted.
    for (const [i, c] of customers.entries()) {
      const res = await sale(source, p, { grossAmount: 5_000 + i * 250, orderId: `o${i}` }, c);
      expect(res.status, res.text).toBe(200);
    }
    const commissions = (await cursorList(source, p.key, `/campaign/${p.pid}/commissions`, 'commissions')) as Array<{ id: string; referredId: string }>;
    for (const c of commissions.filter((c) => customers.indexOf(c.referredId) < 24)) await restOk(source, p.key, 'POST', `/campaign/${p.pid}/commission/${c.id}/approve`, {});
    expect((await refund(source, p, { orderId: 'o5' }, customers[5])).status).toBe(200);
    expect((await refund(source, p, { orderId: 'o6', amountRefunded: 1_000 }, customers[6])).status).toBe(200);
    const gone = commissions.find((c) => c.referredId === customers[35])!;
    await restOk(source, p.key, 'DELETE', `/campaign/${p.pid}/commission/${gone.id}`);
    // Payouts: one run, then one paid and one failed.
    const run = await restOk(source, p.key, 'POST', `/campaign/${p.pid}/payouts/run`, {});
    expect(run.payoutsCreated).toBeGreaterThan(2);
    await restOk(source, p.key, 'POST', `/campaign/${p.pid}/payouts/${run.payouts[0].id}/status`, { status: 'ISSUED' });
    await restOk(source, p.key, 'POST', `/campaign/${p.pid}/payouts/${run.payouts[1].id}/status`, { status: 'FAILED' });
    // Affiliate invites, one revoked; applications, one approved and one denied.
    const invites = [];
    for (const email of ['new1@partners.example', 'new2@partners.example', 'new3@partners.example']) invites.push(await restOk(source, p.key, 'POST', `/campaign/${p.pid}/affiliate-invites`, { email }));
    await restOk(source, p.key, 'DELETE', `/campaign/${p.pid}/affiliate-invites/${invites[2].id}`);
    const installation = await restOk(source, p.key, 'PATCH', `/campaign/${p.pid}/installation`, { mobile: { isEnabled: true } });
    const fixture = { key: p.key, teamId: p.teamId, pid: p.pid, publicKey: installation.mobile.publicKey as string };
    const applied: string[] = [];
    for (const email of ['ann@apply.example', 'bo@apply.example', 'cy@apply.example']) {
      const res = await mobile(source, 'POST', '/affiliate-applications', await session(source, fixture), { body: { email, firstName: 'A', answers: { site: 'https://blog.example.com' } } });
      expect(res.status, res.text).toBe(200);
      applied.push(res.body.applicationId);
    }
    await restOk(source, p.key, 'PATCH', `/campaign/${p.pid}/affiliate-applications/${applied[0]}`, { status: 'APPROVED' });
    await restOk(source, p.key, 'PATCH', `/campaign/${p.pid}/affiliate-applications/${applied[1]}`, { status: 'DENIED', rejectionReason: 'NOT_A_FIT' });
    // One affiliate confirmed a PayPal payout address (the confirmation link's effect, written as it leaves it).
    await source.deps.db.knex('payout_destinations').insert({ id: 'dest1', program_id: p.pid, participant_id: affiliates[1], provider: 'PAYPAL', account: 'aff1-pay@partners.example', status: 'CONFIRMED', legal_entity_type: 'INDIVIDUAL', confirmed_at: source.clock.now() - 5_000, created_at: source.clock.now() - 5_000, updated_at: source.clock.now() - 5_000 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
  });

  it('imports commissions, payouts, invites and applications as the source lists them', async () => {
    const before = await snapshot(source, p.key, p.pid, affiliates);
    expect(before.commissions.length).toBe(CUSTOMERS);
    const states = new Set((before.commissions as Array<{ status: string }>).map((c) => c.status));
    expect(states).toEqual(new Set(['PENDING', 'APPROVED', 'PAID', 'REVERSED', 'DELETED']));
    const acct = await verifiedAccount(target);
    target.clock.current = source.clock.current;
    const dry = await new ProgramImports(target.deps).importProgram({ source: new GrowSurfSource({ url: source.url, key: p.key }), programId: p.pid, teamId: acct.teamId, dryRun: true });
    const report = await new ProgramImports(target.deps).importProgram({ source: new GrowSurfSource({ url: source.url, key: p.key }), programId: p.pid, teamId: acct.teamId, activity: true });
    // The dry run said exactly what the run then did (issued rewards are counted with their participants only in a real run).
    for (const kind of ['participants', 'payouts', 'commissions', 'affiliateInvites', 'applications', 'rewards'] as const) expect(dry.counts[kind], kind).toEqual(report.counts[kind]);
    expect(report.refusals).toEqual([]);
    expect(report.counts.commissions.created).toBe(CUSTOMERS);
    expect(report.counts.payouts.created).toBe(before.payouts.length);
    expect(report.counts.destinations).toEqual({ created: 1, skipped: 0, refused: 0 });
    expect(report.counts.activity.created).toBeGreaterThan(AFFILIATES + CUSTOMERS);
    const after = await snapshot(target, acct.key, p.pid, affiliates);
    // Documented difference (docs/migrating.md): the installation's mobile key is this refloop's own, and the options carry none.
    for (const k of Object.keys(before) as Array<keyof typeof before>) expect(after[k], k).toEqual(before[k]);
  });
});
