import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { moneyProgram, refund, sale, TEN_PERCENT } from '../../helpers/money.ts';
import { formatMoney } from '../../../server/domain/platform/exchange-rates.ts';
import { SWEEP_EVERY_MS } from '../../../server/domain/messaging/team-notifications.ts';
import type { OutboxMessage } from '../../../server/domain/platform/mail.ts';
import { mobile, session, type MobileProgramFixture } from '../../helpers/mobile.ts';

// Team notification emails (rest-v2 §2.20 options.notificationEmails): the 10-minute sweep on the
// real job runner, read back from the real outbox.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const MINUTE = 60_000;
const DAY = 86_400_000;

/** Runs the sweep through the job runner: the first call queues it, later ones move to the next 10-minute bucket, where the previous run rescheduled it. */
let scheduled = false;
async function sweep(): Promise<void> {
  if (!scheduled) {
    await app.deps.teamNotifications.schedule();
    scheduled = true;
  } else {
    app.clock.current = (Math.floor(app.clock.now() / SWEEP_EVERY_MS) + 1) * SWEEP_EVERY_MS + 1000;
  }
  await app.deps.jobs.runDue();
}

/** Team notification emails of one program (matched by the `[name]` subject prefix), oldest first. */
async function teamMails(name: string, to?: string): Promise<OutboxMessage[]> {
  const all = await app.deps.mailer.list({ to, limit: 10_000 });
  return all.filter((m) => m.kind.startsWith('team.') && m.subject.startsWith(`[${name}]`)).reverse();
}

async function program(type: 'REFERRAL' | 'AFFILIATE', name: string, notificationEmails: Record<string, unknown>, body: Record<string, unknown> = {}) {
  const acct = await verifiedAccount(app);
  const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type, name, ...body } });
  expect(created.status, created.text).toBe(200);
  const pid = created.body.id as string;
  const res = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: { notificationEmails } });
  expect(res.status, res.text).toBe(200);
  return { ...acct, pid };
}

async function add(key: string, pid: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; email: string };
}

describe('team notification sweep', () => {
  it('sends one referred and one non-referred digest to the owner, listing 20 and counting the rest, and nothing again for the same window', async () => {
    const p = await program('REFERRAL', 'Digest One', { events: { NEW_PARTICIPANT_ADDED_NON_REFERRED: true, NEW_PARTICIPANT_ADDED_REFERRED: true } });
    await sweep(); // first sight: the cursor starts here
    const referrer = await add(p.key, p.pid, { email: 'lead@example.com', firstName: 'Lead', lastName: 'Person' });
    for (let i = 0; i < 23; i++) await add(p.key, p.pid, { email: `friend${i}@example.com`, referredBy: referrer.id });
    await sweep();
    const mails = await teamMails('Digest One');
    const referred = mails.filter((m) => m.kind === 'team.new_participant_added_referred');
    const direct = mails.filter((m) => m.kind === 'team.new_participant_added_non_referred');
    expect(referred).toHaveLength(1);
    expect(direct).toHaveLength(1);
    expect(referred[0]!.to).toBe(p.email);
    expect(referred[0]!.subject).toBe('[Digest One] 23 new referred participants');
    expect(referred[0]!.text.match(/^- friend\d+@example\.com, referred by Lead Person <lead@example.com>$/gm)).toHaveLength(20);
    expect(referred[0]!.text).toContain('and 3 more');
    expect(referred[0]!.html).toContain('Lead Person &lt;lead@example.com&gt;');
    expect(direct[0]!.subject).toBe('[Digest One] 1 new participant');
    expect(direct[0]!.text).toContain('- Lead Person <lead@example.com>');
    expect(direct[0]!.text).not.toContain('more');

    await sweep();
    await sweep();
    expect(await teamMails('Digest One')).toHaveLength(2);
    // A new participant later lands in the next window, alone.
    await add(p.key, p.pid, { email: 'late@example.com' });
    await sweep();
    const late = (await teamMails('Digest One')).filter((m) => m.kind === 'team.new_participant_added_non_referred');
    expect(late).toHaveLength(2);
    expect(late[1]!.subject).toBe('[Digest One] 1 new participant');
    expect(late[1]!.text).toContain('late@example.com');
    expect(late[1]!.text).not.toContain('lead@example.com');
  });

  it('sends nothing for a disabled event', async () => {
    const p = await program('REFERRAL', 'Digest Off', { events: { NEW_PARTICIPANT_ADDED_NON_REFERRED: true, NEW_PARTICIPANT_ADDED_REFERRED: false } });
    await sweep();
    const referrer = await add(p.key, p.pid, { email: 'r@example.com' });
    await add(p.key, p.pid, { email: 'f@example.com', referredBy: referrer.id });
    await sweep();
    const mails = await teamMails('Digest Off');
    expect(mails.map((m) => m.kind)).toEqual(['team.new_participant_added_non_referred']);
  });

  it('writes to every configured recipient instead of the owner, with every value escaped in the HTML', async () => {
    const p = await program('REFERRAL', 'Digest List & <Co>', { recipients: ['ops@acme-widgets.com', 'growth@acme-widgets.com'], events: { NEW_PARTICIPANT_ADDED_NON_REFERRED: true } });
    await sweep();
    await add(p.key, p.pid, { email: 'x@example.com' });
    await sweep();
    const mails = await teamMails('Digest List & <Co>');
    expect(mails.map((m) => m.to).sort()).toEqual(['growth@acme-widgets.com', 'ops@acme-widgets.com']);
    expect(await teamMails('Digest List & <Co>', p.email)).toHaveLength(0);
    expect(mails[0]!.subject).toBe('[Digest List & <Co>] 1 new participant');
    expect(mails[0]!.html).toContain('1 new participant joined Digest List &amp; &lt;Co&gt; without a referral:');
    expect(mails[0]!.html).not.toContain('<Co>');
  });

  it('does not back-fill what happened before a program was first swept', async () => {
    const p = await program('REFERRAL', 'Digest Fresh', { events: { NEW_PARTICIPANT_ADDED_NON_REFERRED: true } });
    await add(p.key, p.pid, { email: 'early@example.com' });
    app.clock.advance(2 * MINUTE);
    await sweep();
    await sweep();
    expect(await teamMails('Digest Fresh')).toHaveLength(0);
  });

  it('sends nothing to a disabled team', async () => {
    const p = await program('REFERRAL', 'Digest Disabled', { events: { NEW_PARTICIPANT_ADDED_NON_REFERRED: true } });
    await sweep();
    await add(p.key, p.pid, { email: 'y@example.com' });
    await app.deps.teams.setDisabled(p.teamId, true);
    await sweep();
    expect(await teamMails('Digest Disabled')).toHaveLength(0);
  });

  it('names the participant and the reward for PARTICIPANT_REACHED_A_GOAL', async () => {
    const p = await program('REFERRAL', 'Digest Goal', { events: { PARTICIPANT_REACHED_A_GOAL: true } }, { rewards: [{ type: 'SINGLE_SIDED', title: 'Ten dollar credit' }] });
    await sweep();
    const referrer = await add(p.key, p.pid, { email: 'winner@example.com', firstName: 'Win' });
    await add(p.key, p.pid, { email: 'friend@example.com', referredBy: referrer.id, referralStatus: 'CREDIT_AWARDED' });
    await app.deps.jobs.runDue();
    const issued = await app.deps.db.knex('participant_rewards').where({ program_id: p.pid }).count({ n: '*' });
    expect(Number(issued[0]!.n)).toBe(1);
    await sweep();
    const mails = (await teamMails('Digest Goal')).filter((m) => m.kind === 'team.participant_reached_a_goal');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('[Digest Goal] 1 reward earned');
    expect(mails[0]!.text).toContain('- Win <winner@example.com> earned Ten dollar credit');
  });

  it('announces an affiliate commission with NEW_COMMISSION_ADDED', async () => {
    const p = await moneyProgram(app);
    const renamed = await app.request('PATCH', `/v2/campaign/${p.pid}`, { key: p.key, body: { name: 'Digest Money' } });
    expect(renamed.status, renamed.text).toBe(200);
    await sweep();
    const res = await sale(app, p, { grossAmount: 12_345, orderId: 'o1' });
    expect(res.status, res.text).toBe(200);
    await sweep();
    const mails = (await teamMails('Digest Money')).filter((m) => m.kind === 'team.new_commission_added');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('[Digest Money] 1 new commission');
    expect(mails[0]!.text).toContain(`- ${p.affiliate.email}: $12.35 (sale)`);
  });

  it('lists new affiliate applications waiting for review, with how many wait in all', async () => {
    const p = await program('AFFILIATE', 'Digest Apply', { events: { AFFILIATE_APPLICATIONS_PENDING_REVIEW: true } });
    const opts = await app.request('PATCH', `/v2/campaign/${p.pid}/options`, { key: p.key, body: { affiliateApplicationMode: 'MANUAL_REVIEW' } });
    expect(opts.status, opts.text).toBe(200);
    const inst = await app.request('PATCH', `/v2/campaign/${p.pid}/installation`, { key: p.key, body: { mobile: { isEnabled: true } } });
    expect(inst.status, inst.text).toBe(200);
    const s = await session(app, { pid: p.pid, publicKey: inst.body.mobile.publicKey } as MobileProgramFixture);
    const apply = async (email: string, firstName?: string) => {
      const res = await mobile(app, 'POST', '/affiliate-applications', s, { body: { email, ...(firstName ? { firstName } : {}) } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe('PENDING');
    };
    await apply('early@example.com');
    await sweep(); // first sight: the early application is before the cursor
    await apply('maria@example.com', 'Maria');
    await apply('li@example.com');
    await sweep();
    const mails = (await teamMails('Digest Apply')).filter((m) => m.kind === 'team.affiliate_applications_pending_review');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe(p.email);
    expect(mails[0]!.subject).toBe('[Digest Apply] 2 new affiliate applications to review');
    expect(mails[0]!.text).toContain('maria@example.com');
    expect(mails[0]!.text).toContain('li@example.com');
    expect(mails[0]!.text).not.toContain('early@example.com');
    expect(mails[0]!.text).toContain('3 applications in all wait for review');
    await sweep();
    expect((await teamMails('Digest Apply')).filter((m) => m.kind === 'team.affiliate_applications_pending_review')).toHaveLength(1);
  });

  it('sends the weekly report once, on the Monday after the week, with the week’s numbers', async () => {
    // The test clock starts on Thursday 2026-01-15; the report covers Monday 12th to Sunday 18th.
    const p = await program('REFERRAL', 'Digest Weekly', { events: { WEEKLY_PERFORMANCE_REPORT: true } });
    await sweep();
    const referrer = await add(p.key, p.pid, { email: 'wr@example.com' });
    for (let i = 0; i < 3; i++) await add(p.key, p.pid, { email: `wf${i}@example.com`, referredBy: referrer.id, referralStatus: i < 2 ? 'CREDIT_AWARDED' : 'CREDIT_PENDING' });
    await sweep();
    const weekly = async () => (await teamMails('Digest Weekly')).filter((m) => m.kind === 'team.weekly_performance_report');
    expect(await weekly()).toHaveLength(0);
    app.clock.current = Date.UTC(2026, 0, 19, 0, 0, 0) - 5 * MINUTE;
    await sweep(); // Monday 00:00:01: the window has not reached the week's end yet (60 s lag)
    expect(await weekly()).toHaveLength(0);
    await sweep();
    const reports = await weekly();
    expect(reports.map((m) => m.subject)).toEqual(['[Digest Weekly] Weekly performance report']);
    expect(reports[0]!.text).toContain('the week of 2026-01-12 to 2026-01-18');
    expect(reports[0]!.text).toContain('- New participants: 4');
    expect(reports[0]!.text).toContain('- Referrals: 3');
    expect(reports[0]!.text).toContain('- Credited referrals: 2');
    for (let i = 0; i < 3; i++) await sweep();
    app.clock.advance(DAY);
    await sweep();
    expect(await weekly()).toHaveLength(1);
  });

  it('reports a refunded commission, the monthly totals of an affiliate program and its end', async () => {
    // Runs after the weekly test: the clock is in the week of 2026-01-19.
    const events = { COMMISSION_ADJUSTED: true, MONTHLY_PERFORMANCE_REPORT: true, CAMPAIGN_ENDED: true, NEW_COMMISSION_ADDED: false };
    const p = await moneyProgram(app, TEN_PERCENT, { options: { notificationEmails: { events } } });
    const renamed = await app.request('PATCH', `/v2/campaign/${p.pid}`, { key: p.key, body: { name: 'Digest Refund' } });
    expect(renamed.status, renamed.text).toBe(200);
    await sweep();
    expect((await sale(app, p, { grossAmount: 10_000, orderId: 'r1' })).status).toBe(200);
    expect((await sale(app, p, { grossAmount: 4_000, orderId: 'r2' })).status).toBe(200);
    await sweep();
    expect((await refund(app, p, { orderId: 'r1', amountRefunded: 5_000 })).status).toBe(200);
    await sweep();
    const of = async (kind: string) => (await teamMails('Digest Refund')).filter((m) => m.kind === kind);
    expect(await of('team.new_commission_added')).toHaveLength(0);
    const adjusted = await of('team.commission_adjusted');
    expect(adjusted).toHaveLength(1);
    expect(adjusted[0]!.subject).toBe('[Digest Refund] 1 commission adjusted');
    expect(adjusted[0]!.text).toContain(`- ${p.affiliate.email}: $10.00 is now $5.00`);
    // A later change that leaves the amount alone (an approval, a payout) is not another adjustment.
    await app.deps.db.knex('commissions').where({ program_id: p.pid }).update({ updated_at: app.clock.now() + 1000 });
    await sweep();
    expect(await of('team.commission_adjusted')).toHaveLength(1);

    app.clock.current = Date.UTC(2026, 1, 1, 0, 5, 0);
    await sweep();
    const monthly = await of('team.monthly_performance_report');
    expect(monthly.map((m) => m.subject)).toEqual(['[Digest Refund] Monthly performance report']);
    const rows = await app.deps.db.knex('commissions').where({ program_id: p.pid }).whereNot('status', 'DELETED');
    const total = rows.reduce((sum: number, r: { amount_in_campaign_currency: number | string }) => sum + Number(r.amount_in_campaign_currency), 0);
    expect(rows).toHaveLength(2);
    expect(monthly[0]!.text).toContain('January 2026');
    expect(monthly[0]!.text).toContain('- New participants: 2');
    expect(monthly[0]!.text).toContain('- Commissions: 2');
    expect(monthly[0]!.text).toContain(`- Commission total: ${formatMoney(total, 'USD')}`);
    await sweep();
    expect(await of('team.monthly_performance_report')).toHaveLength(1);

    expect((await app.request('PATCH', `/v2/campaign/${p.pid}`, { key: p.key, body: { status: 'COMPLETE' } })).status).toBe(200);
    await sweep();
    const ended = await of('team.campaign_ended');
    expect(ended.map((m) => m.subject)).toEqual(['[Digest Refund] The program has ended']);
    await sweep();
    expect(await of('team.campaign_ended')).toHaveLength(1);
  });

  it('reminds of unpaid money on the 1st, then announces the issued payout and the finished batch', async () => {
    // Runs after the monthly test: the clock is in February 2026.
    const events = { MONTHLY_PAYOUT_REMINDER: true, NEW_PAYOUT_ISSUED: true, AFFILIATE_BATCH_PAYOUT_COMPLETED: true, NEW_COMMISSION_ADDED: false, MONTHLY_PERFORMANCE_REPORT: false };
    const p = await moneyProgram(app, TEN_PERCENT, { options: { notificationEmails: { events } } });
    const renamed = await app.request('PATCH', `/v2/campaign/${p.pid}`, { key: p.key, body: { name: 'Digest Payout' } });
    expect(renamed.status, renamed.text).toBe(200);
    await sweep();
    expect((await sale(app, p, { grossAmount: 25_000, orderId: 'p1' })).status).toBe(200);
    const of = async (kind: string) => (await teamMails('Digest Payout')).filter((m) => m.kind === kind);
    // February's reminder counted as sent when the program was first seen; March 1st sends one.
    app.clock.current = Date.UTC(2026, 2, 1, 0, 5, 0);
    await sweep();
    const reminders = await of('team.monthly_payout_reminder');
    expect(reminders.map((m) => m.subject)).toEqual(['[Digest Payout] Monthly payout reminder']);
    // The month's scheduled payout run may have grouped the commission into an UPCOMING payout first (job order).
    expect(reminders[0]!.text).toMatch(/^- (Approved commissions not yet in a payout|Upcoming payouts): 1 \(\$25\.00\)$/m);
    await sweep();
    expect(await of('team.monthly_payout_reminder')).toHaveLength(1);

    // The month's payout run (a scheduled job the sweeps above ran too) has grouped the commission already; run again in case it has not.
    await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    const listed = await app.request('GET', `/v2/campaign/${p.pid}/payouts`, { key: p.key });
    expect(listed.body.payouts, listed.text).toHaveLength(1);
    const payout = listed.body.payouts[0];
    expect((await app.request('POST', `/v2/campaign/${p.pid}/payouts/${payout.id}/status`, { key: p.key, body: { status: 'ISSUED' } })).status).toBe(200);
    await sweep();
    const issued = await of('team.new_payout_issued');
    expect(issued.map((m) => m.subject)).toEqual(['[Digest Payout] 1 payout issued']);
    expect(issued[0]!.text).toContain(`- ${p.affiliate.email}: $25.00`);
    const batch = await of('team.affiliate_batch_payout_completed');
    expect(batch.map((m) => m.subject)).toEqual(['[Digest Payout] Payout batch completed: 1 payout']);
    expect(batch[0]!.text).toContain('- 1 payout issued: $25.00');
    await sweep();
    expect(await of('team.new_payout_issued')).toHaveLength(1);
  });
});
