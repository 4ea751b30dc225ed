import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, createAccount, runCli, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { TEN_PERCENT, commissionsOf, moneyProgram, sale } from '../../helpers/money.ts';
import { expectChainIntact, lastSeq, refuseAuditAction, systemEntries } from '../../helpers/audit.ts';
import { RETRY_DELAYS_MS } from '../../../server/domain/messaging/webhook-delivery.ts';

// Issue #35 part 1: changes the background jobs make, with no person or key acting at that moment,
// are recorded as SYSTEM entries (the job as actor), once, in the change's own transaction. Every
// job here runs on the real job runner (`jobs.runDue`) after the test clock moves past its time.

const DAY = 86_400_000;

let app: TestApp;
let failing: http.Server;
let failingUrl = '';
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' });
  failing = http.createServer((_req, res) => res.writeHead(500).end('down'));
  await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
  failingUrl = `http://127.0.0.1:${(failing.address() as { port: number }).port}/hook`;
});
afterAll(async () => {
  await app?.close();
  await new Promise((r) => failing?.close(r));
});

async function ok(key: string, method: string, path: string, body?: unknown) {
  const res = await app.request(method, path, { key, body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
  return res.body;
}

/** A verified team with a referral program (rewards as given, options merged into the stored document). */
async function referralProgram(rewards: unknown[] = [{ type: 'DOUBLE_SIDED', title: 'Both get $10' }], options?: Record<string, unknown>) {
  const acct = await verifiedAccount(app);
  const pid = (await ok(acct.key, 'POST', '/v2/campaigns', { type: 'REFERRAL', rewards })).id as string;
  if (options) {
    const row = await app.deps.db.knex('programs').where({ id: pid }).first('options');
    await app.deps.db.knex('programs').where({ id: pid }).update({ options: JSON.stringify({ ...JSON.parse(row.options), ...options }) });
  }
  const referrer = await ok(acct.key, 'POST', `/v2/campaign/${pid}/participant`, { email: `ref-${pid}@example.com` });
  const friend = await ok(acct.key, 'POST', `/v2/campaign/${pid}/participant`, { email: `friend-${pid}@example.com`, referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
  return { ...acct, pid, referrer, friend };
}

describe('issue #35: SYSTEM entries of the background jobs', () => {
  it('records a delayed referral credit once, as the referral.trigger job, and a cancelled one not at all', async () => {
    const t = await referralProgram();
    await ok(t.key, 'POST', `/v2/campaign/${t.pid}/participant/${t.friend.id}/ref`, { delayInDays: 2 });
    const before = await lastSeq(app, t.teamId);
    app.clock.advance(2 * DAY);
    await app.deps.jobs.runDue(100);
    expect((await ok(t.key, 'GET', `/v2/campaign/${t.pid}/participant/${t.friend.id}`)).referralStatus).toBe('CREDIT_AWARDED');
    const entries = await systemEntries(app, t.teamId, before);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor_id: 'referral.trigger',
      actor_label: 'Delayed referral credit',
      action: 'system.referral.delayed_credit',
      resource_type: 'participants',
      resource_id: t.friend.id,
      ip: null,
      changes: { ids: { id: t.pid, participantId: t.friend.id }, fields: { referralStatus: { before: 'CREDIT_PENDING', after: 'CREDIT_AWARDED' }, referredBy: { after: t.referrer.id } } },
    });
    // A second run of the same job (a re-claim after a crash) finds it done and records nothing.
    await app.deps.jobs.runDue(100);
    expect(await systemEntries(app, t.teamId, before)).toHaveLength(1);

    const other = await ok(t.key, 'POST', `/v2/campaign/${t.pid}/participant`, { email: `late-${t.pid}@example.com`, referredBy: t.referrer.id, referralStatus: 'CREDIT_PENDING' });
    await ok(t.key, 'POST', `/v2/campaign/${t.pid}/participant/${other.id}/ref`, { delayInDays: 1 });
    await ok(t.key, 'DELETE', `/v2/campaign/${t.pid}/participant/${other.id}/ref`);
    const cancelled = await lastSeq(app, t.teamId);
    app.clock.advance(DAY);
    await app.deps.jobs.runDue(100);
    expect(await systemEntries(app, t.teamId, cancelled)).toEqual([]);
    await expectChainIntact(app, t.teamId);
  });

  it('leaves neither the credit nor its entry when the entry cannot be written (one transaction)', async () => {
    const t = await referralProgram();
    await ok(t.key, 'POST', `/v2/campaign/${t.pid}/participant/${t.friend.id}/ref`, { delayInDays: 1 });
    const before = await lastSeq(app, t.teamId);
    const allow = await refuseAuditAction(app, 'system.referral.delayed_credit');
    try {
      app.clock.advance(DAY);
      await app.deps.jobs.runDue(100);
      expect((await ok(t.key, 'GET', `/v2/campaign/${t.pid}/participant/${t.friend.id}`)).referralStatus).toBe('CREDIT_PENDING');
      expect((await ok(t.key, 'GET', `/v2/campaign/${t.pid}/participant/${t.referrer.id}`)).referralCount).toBe(0);
      expect(await systemEntries(app, t.teamId, before)).toEqual([]);
    } finally {
      await allow();
    }
    // The job's retry (backoff) then applies both.
    app.clock.advance(DAY);
    await app.deps.jobs.runDue(100);
    expect((await ok(t.key, 'GET', `/v2/campaign/${t.pid}/participant/${t.friend.id}`)).referralStatus).toBe('CREDIT_AWARDED');
    expect((await systemEntries(app, t.teamId, before)).map((e) => e.action)).toEqual(['system.referral.delayed_credit']);
  });

  it('records each referral the credit window expires, as the referral.credit-window job', async () => {
    const t = await referralProgram(undefined, { referralCreditWindowDays: 7 });
    const before = await lastSeq(app, t.teamId);
    app.clock.advance(8 * DAY);
    await app.deps.jobs.runDue(100);
    expect((await ok(t.key, 'GET', `/v2/campaign/${t.pid}/participant/${t.friend.id}`)).referralStatus).toBe('CREDIT_EXPIRED');
    const entries = await systemEntries(app, t.teamId, before);
    expect(entries).toMatchObject([
      { actor_id: 'referral.credit-window', action: 'system.referral.credit_expired', resource_type: 'participants', resource_id: t.friend.id, changes: { fields: { referralStatus: { before: 'CREDIT_PENDING', after: 'CREDIT_EXPIRED' }, creditWindowDays: { after: 7 } } } },
    ]);
    await expectChainIntact(app, t.teamId);
  });

  it('records each monthly leaderboard prize the month-end job issues', async () => {
    const t = await referralProgram([{ type: 'LEADERBOARD', numberOfWinners: 1, limitDuration: 'PER_MONTH' }]);
    await ok(t.key, 'POST', `/v2/campaign/${t.pid}/participant/${t.friend.id}/ref`, {});
    const before = await lastSeq(app, t.teamId);
    const d = new Date(app.clock.now());
    app.clock.current = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) + 3_600_000;
    await app.deps.jobs.runDue(100);
    const rewards = (await ok(t.key, 'GET', `/v2/campaign/${t.pid}/participant/${t.referrer.id}/rewards`)).rewards as Array<{ id: string }>;
    expect(rewards).toHaveLength(1);
    const entries = await systemEntries(app, t.teamId, before);
    expect(entries).toMatchObject([{ actor_id: 'rewards.leaderboard-month', action: 'system.reward.leaderboard_month', resource_type: 'rewards', resource_id: rewards[0]!.id, changes: { ids: { participantId: t.referrer.id } } }]);
    await expectChainIntact(app, t.teamId);
  });

  it('records each commission whose hold ended, once, when a read finds it due', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 7 });
    await sale(app, p, { grossAmount: 10_000, orderId: 'held' });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'PENDING' });
    const before = await lastSeq(app, p.teamId);
    app.clock.advance(8 * DAY);
    const [c] = await commissionsOf(app, p);
    expect(c).toMatchObject({ status: 'APPROVED', amount: 1000 });
    // Read again, and through another list: already approved, nothing more.
    await commissionsOf(app, p);
    await ok(p.key, 'GET', `/v2/campaign/${p.pid}/commissions/counts`);
    const entries = await systemEntries(app, p.teamId, before);
    expect(entries).toMatchObject([
      { actor_id: 'commissions.hold', action: 'system.commission.auto_approve', resource_type: 'commissions', resource_id: c!.id, changes: { fields: { status: { before: 'PENDING', after: 'APPROVED' }, amount: { after: 1000 }, currencyISO: { after: 'USD' } } } },
    ]);
    await expectChainIntact(app, p.teamId);
  });

  it('records each payout the monthly run makes, and a REST run as its operation only', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'month-end' });
    const rest = await moneyProgram(app);
    await sale(app, rest, { grossAmount: 10_000, orderId: 'by-hand' });
    const restBefore = await lastSeq(app, rest.teamId);
    await ok(rest.key, 'POST', `/v2/campaign/${rest.pid}/payouts/run`);
    expect(await systemEntries(app, rest.teamId, restBefore)).toEqual([]);
    expect((await app.deps.db.knex('audit_log').where({ team_id: rest.teamId }).where('seq', '>', restBefore)).map((r) => r.action)).toEqual(['PO1']);
    const before = await lastSeq(app, p.teamId);
    const d = new Date(app.clock.now());
    app.clock.current = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    await app.deps.jobs.runDue(100);
    const payouts = (await ok(p.key, 'GET', `/v2/campaign/${p.pid}/payouts`)).payouts as Array<{ id: string; amount: number }>;
    expect(payouts).toMatchObject([{ amount: 1000 }]);
    const entries = await systemEntries(app, p.teamId, before);
    expect(entries).toMatchObject([
      { actor_id: 'payouts.monthly-run', actor_label: 'Monthly payout run', action: 'system.payout.monthly_run', resource_type: 'payouts', resource_id: payouts[0]!.id, changes: { ids: { participantId: p.affiliate.id }, fields: { status: { after: 'UPCOMING' }, amount: { after: 1000 }, currencyISO: { after: 'USD' }, commissions: { after: 1 } } } },
    ]);
    await expectChainIntact(app, p.teamId);
  });

  it('records the switch-off of a webhook that kept failing, once', async () => {
    const t = await referralProgram();
    const base = `/v2/campaign/${t.pid}/webhooks`;
    await ok(t.key, 'POST', base, { payloadUrl: failingUrl, events: ['NEW_PARTICIPANT_ADDED'] });
    const before = await lastSeq(app, t.teamId);
    await ok(t.key, 'POST', `/v2/campaign/${t.pid}/participant`, { email: `hooked-${t.pid}@example.com` });
    await app.deps.jobs.runDue(100);
    let hook = (await ok(t.key, 'GET', base)).webhooks[0];
    for (let round = 0; hook.isEnabled && round < RETRY_DELAYS_MS.length; round++) {
      app.clock.advance(RETRY_DELAYS_MS[round]!);
      await app.deps.jobs.runDue(100);
      hook = (await ok(t.key, 'GET', base)).webhooks[0];
    }
    expect(hook).toMatchObject({ isEnabled: false, autoDisabledDueToFailures: true });
    // More rounds find it off: nothing more is recorded.
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue(100);
    const entries = (await systemEntries(app, t.teamId, before)).filter((e) => e.actor_id === 'webhook.deliver');
    expect(entries).toMatchObject([
      { actor_label: 'Webhook delivery', action: 'system.webhook.auto_disable', resource_type: 'webhooks', resource_id: hook.id, changes: { fields: { isEnabled: { before: true, after: false }, autoDisabled: { before: false, after: true } } } },
    ]);
    expect(entries[0]!.changes.fields.failureCount.after).toBeGreaterThanOrEqual(15);
    await expectChainIntact(app, t.teamId);
  });

  it('records an unverified account’s purge in the trail of the team it removes, which still verifies', async () => {
    const doomed = await createAccount(app, `doomed-${Date.now()}@acme-purge.com`);
    app.clock.advance(7 * DAY + 1);
    await app.deps.jobs.runDue(100);
    expect(await app.deps.db.knex('teams').where({ id: doomed.teamId }).first()).toBeUndefined();
    expect(await systemEntries(app, doomed.teamId)).toMatchObject([{ actor_id: 'account.purge_unverified', action: 'system.account.purge_unverified', resource_type: 'team', resource_id: doomed.teamId }]);
    await expectChainIntact(app, doomed.teamId);
  });

  it('shows SYSTEM entries in AU1 with their actor, filtered by the job’s name', async () => {
    const t = await referralProgram();
    await ok(t.key, 'POST', `/v2/campaign/${t.pid}/participant/${t.friend.id}/ref`, { delayInDays: 1 });
    app.clock.advance(DAY);
    await app.deps.jobs.runDue(100);
    const page = await ok(t.key, 'GET', '/v2/team/audit-log?actor=referral.trigger');
    expect(page.entries).toMatchObject([
      { actor: { type: 'SYSTEM', id: 'referral.trigger', label: 'Delayed referral credit' }, action: 'system.referral.delayed_credit', resource: { type: 'participants', id: t.friend.id }, ip: null, changes: { fields: { referralStatus: { after: 'CREDIT_AWARDED' } } } },
    ]);
    expect((await ok(t.key, 'GET', '/v2/team/audit-log?action=system.referral.delayed_credit')).entries).toHaveLength(1);
    expect((await runCli(app, 'audit', 'verify', '--team', t.teamId)).code).toBe(0);
  });
});
