import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { toProgram } from '../../../server/domain/programs/programs.ts';

// Trigger referral and its cancellation (rest-v2 §3.8 P8/P9), delayed triggers on the job runner,
// and credit windows (options.referralCreditWindowDays) — issue #4.

const LIMITS = RAISED_LIMITS;
const DAY = 86_400_000;

let app: TestApp;
beforeAll(async () => {
  app = await startApp(LIMITS);
});
afterAll(async () => {
  await app.close();
});

async function setOptions(pid: string, options: Record<string, unknown>) {
  const row = await app.deps.db.knex('programs').where({ id: pid }).first('options');
  await app.deps.db.knex('programs').where({ id: pid }).update({ options: JSON.stringify({ ...JSON.parse(row.options), ...options }) });
}

async function setup(type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL', options?: Record<string, unknown>) {
  const acct = await verifiedAccount(app);
  const body = type === 'REFERRAL' ? { type, rewards: [{ type: 'DOUBLE_SIDED', title: 'Both get $10' }] } : { type };
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body });
  expect(res.status, res.text).toBe(200);
  if (options) await setOptions(res.body.id, options);
  return { key: acct.key, teamId: acct.teamId, pid: res.body.id as string };
}

async function add(key: string, pid: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; email: string };
}

/** A referrer and one friend whose referral waits for the trigger. */
async function pendingReferral(key: string, pid: string, tag = 'a') {
  const referrer = await add(key, pid, { email: `referrer-${tag}@example.com` });
  const friend = await add(key, pid, { email: `friend-${tag}@example.com`, referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
  return { referrer, friend };
}

const trigger = (key: string, pid: string, who: string, body: unknown = {}) => app.request('POST', `/v2/campaign/${pid}/participant/${encodeURIComponent(who)}/ref`, { key, body });
const cancel = (key: string, pid: string, who: string) => app.request('DELETE', `/v2/campaign/${pid}/participant/${encodeURIComponent(who)}/ref`, { key });
const get = async (key: string, pid: string, who: string) => (await app.request('GET', `/v2/campaign/${pid}/participant/${who}`, { key })).body;

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

describe('POST /campaign/{id}/participant/{participantIdOrEmail}/ref', () => {
  it('emails the rewards it issues by the team verification the API key read, without reading the team again', async () => {
    const mails = async (to: string) => (await app.deps.mailer.list({ to })).map((m) => m.kind).filter((k) => k === 'program.goalAchieved');
    const skipped = async (participantId: string) =>
      (await app.deps.db.knex('activity_logs').where({ participant_id: participantId, action: 'email.skipped' }).select('data')).map((r: { data: string }) => JSON.parse(r.data));
    // Not verified: the reward emails of the trigger are skipped and the skip logged.
    const quiet = await setup();
    const q = await pendingReferral(quiet.key, quiet.pid, 'unverified-team');
    expect((await trigger(quiet.key, quiet.pid, q.friend.id)).status).toBe(200);
    expect(await mails(q.referrer.email)).toEqual([]);
    expect(await skipped(q.referrer.id)).toContainEqual(expect.objectContaining({ emailType: 'goalAchieved', reason: 'TEAM_NOT_VERIFIED' }));
    // Verified: both sides get "You earned a reward!".
    const loud = await setup();
    await app.deps.teams.approveVerification(loud.teamId);
    const l = await pendingReferral(loud.key, loud.pid, 'verified-team');
    expect((await trigger(loud.key, loud.pid, l.friend.id)).status).toBe(200);
    expect(await mails(l.referrer.email)).toEqual(['program.goalAchieved']);
    expect(await mails(l.friend.email)).toEqual(['program.goalAchieved']);
    // The state the credential read is the one used: given VERIFIED for a team whose row says
    // otherwise, the trigger sends, so it did not read the team row again.
    const other = await setup();
    const o = await pendingReferral(other.key, other.pid, 'credential-state');
    const program = toProgram(await app.deps.db.knex('programs').where({ id: other.pid }).first());
    expect(await app.deps.referralTriggers.trigger(program, o.friend.id, undefined, 'VERIFIED')).toEqual({ success: true });
    expect(await mails(o.referrer.email)).toEqual(['program.goalAchieved']);
  });

  it('credits the referral now: status, the referrer’s counts and rank, and both rewards', async () => {
    const { key, pid } = await setup();
    const { referrer, friend } = await pendingReferral(key, pid);
    expect((await get(key, pid, referrer.id)).leadCount).toBe(1);
    const res = await trigger(key, pid, friend.email);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    const f = await get(key, pid, friend.id);
    expect(f.referralStatus).toBe('CREDIT_AWARDED');
    expect(f.rewards).toHaveLength(1);
    const r = await get(key, pid, referrer.id);
    expect(r).toMatchObject({ referralCount: 1, monthlyReferralCount: 1, leadCount: 0, rank: 1, isWinner: true });
    expect(r.rewards).toEqual([expect.objectContaining({ isReferrer: true, referredId: friend.id })]);
    expect((await app.request('GET', `/v2/campaign/${pid}`, { key })).body).toMatchObject({ referralCount: 1, winnerCount: 2 });
  });

  it('answers success with a message and issues nothing again when credit was already awarded', async () => {
    const { key, pid } = await setup();
    const { referrer, friend } = await pendingReferral(key, pid);
    await trigger(key, pid, friend.id);
    const again = await trigger(key, pid, friend.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, message: expect.stringContaining('already awarded') });
    expect((await get(key, pid, referrer.id)).referralCount).toBe(1);
    expect((await get(key, pid, referrer.id)).rewards).toHaveLength(1);
    expect((await trigger(key, pid, friend.id, { delayInDays: 3 })).body.message).toContain('already awarded');
    expect(await app.deps.db.knex('referral_triggers').where({ participant_id: friend.id })).toEqual([]);
  });

  it('credits after delayInDays through the job runner', async () => {
    const { key, pid } = await setup();
    const { referrer, friend } = await pendingReferral(key, pid);
    const res = await trigger(key, pid, friend.id, { delayInDays: 7 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Referral credit will be awarded in 7 days unless cancelled.' });
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_PENDING');
    app.clock.advance(6 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_PENDING');
    app.clock.advance(DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_AWARDED');
    const r = await get(key, pid, referrer.id);
    expect(r.referralCount).toBe(1);
    expect(r.rewards).toHaveLength(1);
    expect((await app.deps.db.knex('referral_triggers').where({ participant_id: friend.id }).first()).status).toBe('DONE');
  });

  it('keeps the first pending delayed trigger when asked again', async () => {
    const { key, pid } = await setup();
    const { friend } = await pendingReferral(key, pid);
    await trigger(key, pid, friend.id, { delayInDays: 2 });
    const again = await trigger(key, pid, friend.id, { delayInDays: 30 });
    expect(again.status).toBe(200);
    expect(again.body.success).toBe(true);
    expect(again.body.message).toContain('already pending');
    app.clock.advance(2 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_AWARDED');
  });

  it('credits at once when asked without a delay while a delayed trigger is pending, and the job then does nothing', async () => {
    const { key, pid } = await setup();
    const { referrer, friend } = await pendingReferral(key, pid);
    await trigger(key, pid, friend.id, { delayInDays: 1 });
    expect((await trigger(key, pid, friend.id)).body).toEqual({ success: true });
    app.clock.advance(DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, referrer.id)).referralCount).toBe(1);
    expect((await get(key, pid, referrer.id)).rewards).toHaveLength(1);
  });

  it('answers 400 for a delayInDays outside 1–90, not a whole number, or unknown fields', async () => {
    const { key, pid } = await setup();
    const { friend } = await pendingReferral(key, pid);
    for (const body of [{ delayInDays: 0 }, { delayInDays: 91 }, { delayInDays: 1.5 }, { delayInDays: '3' }, { delay: 3 }]) {
      const res = await trigger(key, pid, friend.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_PENDING');
  });

  it('answers 400 for a participant who was not referred, or an unknown participant', async () => {
    const { key, pid } = await setup();
    const { referrer } = await pendingReferral(key, pid);
    const res = await trigger(key, pid, referrer.id);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: 'participantIdOrEmail', code: 'NOT_REFERRED' });
    expect((await trigger(key, pid, 'nobody@example.com')).status).toBe(400);
  });

  it('answers 403 without participant:write or for a program the key is not granted, and 404 for an unknown program', async () => {
    const { key, pid, teamId } = await setup();
    const { friend } = await pendingReferral(key, pid);
    expect((await trigger(await limitedKey(teamId, ['participant:read', 'reward:write']), pid, friend.id)).status).toBe(403);
    const other = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } });
    expect((await trigger(await limitedKey(teamId, ['participant:write'], [other.body.id]), pid, friend.id)).status).toBe(403);
    expect((await trigger(key, 'nosuchprogram', friend.id)).status).toBe(404);
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_PENDING');
  });

  it('answers 422 on an affiliate program', async () => {
    const { key, pid } = await setup('AFFILIATE');
    const affiliate = await add(key, pid, { email: 'aff@example.com' });
    const customer = await add(key, pid, { email: 'customer@example.com', referredBy: affiliate.id });
    const res = await trigger(key, pid, customer.id);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('WRONG_PROGRAM_TYPE_ERROR');
  });

  it('awards nothing for a referral whose credit window has passed', async () => {
    const { key, pid } = await setup('REFERRAL', { referralCreditWindowDays: 7 });
    const { referrer, friend } = await pendingReferral(key, pid);
    app.clock.advance(7 * DAY);
    const res = await trigger(key, pid, friend.id);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('credit window');
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_EXPIRED');
    expect((await get(key, pid, referrer.id)).rewards).toEqual([]);
  });
});

describe('DELETE /campaign/{id}/participant/{participantIdOrEmail}/ref', () => {
  it('cancels a pending delayed trigger so the job awards nothing', async () => {
    const { key, pid } = await setup();
    const { referrer, friend } = await pendingReferral(key, pid);
    await trigger(key, pid, friend.id, { delayInDays: 3 });
    const res = await cancel(key, pid, friend.email);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Delayed referral cancelled' });
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_PENDING');
    expect((await get(key, pid, referrer.id)).rewards).toEqual([]);
    // A new delayed trigger can be scheduled after a cancellation.
    expect((await trigger(key, pid, friend.id, { delayInDays: 1 })).body.message).toContain('in 1 day unless');
    app.clock.advance(DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_AWARDED');
  });

  it('answers success false with a message when no delayed trigger is pending', async () => {
    const { key, pid } = await setup();
    const { friend } = await pendingReferral(key, pid);
    const res = await cancel(key, pid, friend.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('No delayed referral trigger') });
  });

  it('answers 400 for a body that is neither JSON nor a form, and for an unknown participant', async () => {
    const { key, pid } = await setup();
    const { friend } = await pendingReferral(key, pid);
    const res = await app.request('DELETE', `/v2/campaign/${pid}/participant/${friend.id}/ref`, { key, raw: 'x', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect((await cancel(key, pid, 'nobody')).status).toBe(400);
  });

  it('answers 403 without participant:write, 404 for an unknown program and 422 on an affiliate program', async () => {
    const { key, pid, teamId } = await setup();
    const { friend } = await pendingReferral(key, pid);
    expect((await cancel(await limitedKey(teamId, ['participant:read']), pid, friend.id)).status).toBe(403);
    expect((await cancel(key, 'nosuchprogram', friend.id)).status).toBe(404);
    const aff = await setup('AFFILIATE');
    const p = await add(aff.key, aff.pid, { email: 'aff@example.com' });
    expect((await cancel(aff.key, aff.pid, p.id)).status).toBe(422);
  });
});

describe('Credit windows', () => {
  it('expires referrals still pending a full window after they were recorded', async () => {
    const { key, pid } = await setup('REFERRAL', { referralCreditWindowDays: 7 });
    const { referrer, friend } = await pendingReferral(key, pid);
    app.clock.advance(3 * DAY);
    const late = await add(key, pid, { email: 'late@example.com', referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
    expect((await get(key, pid, referrer.id)).leadCount).toBe(2);
    app.clock.advance(4 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_PENDING'); // due within this hour: the sweep runs at its end
    app.clock.advance(3_600_000);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_EXPIRED');
    expect((await get(key, pid, late.id)).referralStatus).toBe('CREDIT_PENDING');
    expect((await get(key, pid, referrer.id)).leadCount).toBe(1);
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, late.id)).referralStatus).toBe('CREDIT_EXPIRED');
    expect((await get(key, pid, referrer.id))).toMatchObject({ leadCount: 0, referralCount: 0 });
    const log = await app.deps.db.knex('activity_logs').where({ participant_id: referrer.id, action: 'referral.status' });
    expect(log.map((r: { text: string }) => r.text)).toContain('Referral friend-a@example.com: credit pending → credit expired');
  });

  it('keeps a referral whose delayed trigger is pending, and never expires credited ones', async () => {
    const { key, pid } = await setup('REFERRAL', { referralCreditWindowDays: 1 });
    const a = await pendingReferral(key, pid, 'a');
    const b = await pendingReferral(key, pid, 'b');
    await trigger(key, pid, a.friend.id, { delayInDays: 5 });
    await trigger(key, pid, b.friend.id);
    app.clock.advance(2 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, a.friend.id)).referralStatus).toBe('CREDIT_PENDING');
    expect((await get(key, pid, b.friend.id)).referralStatus).toBe('CREDIT_AWARDED');
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, a.friend.id)).referralStatus).toBe('CREDIT_AWARDED');
  });

  it('leaves referrals pending when the program has no credit window', async () => {
    const { key, pid } = await setup();
    const { friend } = await pendingReferral(key, pid);
    app.clock.advance(400 * DAY);
    await app.deps.jobs.runDue();
    expect((await get(key, pid, friend.id)).referralStatus).toBe('CREDIT_PENDING');
  });
});
