import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';

// Issued rewards (rest-v2 §2.11, §3.9 PR1–PR4) and the rules that issue them (issue #4).

const LIMITS = {
  ...RAISED_LIMITS,
  WEBHOOK_ALLOW_PRIVATE: 'true',
};

let app: TestApp;
beforeAll(async () => {
  app = await startApp(LIMITS);
});
afterAll(async () => {
  await app.close();
});

const DOUBLE = { type: 'DOUBLE_SIDED', title: 'Give $10, get $10', description: '$10 credit' };
const DAY = 86_400_000;

/** Milliseconds at the start of the test clock's next UTC month. */
function nextMonth(): number {
  const d = new Date(app.clock.now());
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Writes program options directly, so these tests do not depend on the options endpoint. */
async function setOptions(pid: string, options: Record<string, unknown>) {
  const row = await app.deps.db.knex('programs').where({ id: pid }).first('options');
  await app.deps.db.knex('programs').where({ id: pid }).update({ options: JSON.stringify({ ...JSON.parse(row.options), ...options }) });
}

async function setup(rewards: Array<Record<string, unknown>> = [DOUBLE], type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL', options?: Record<string, unknown>) {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: type === 'REFERRAL' ? { type, rewards } : { type } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  if (options) await setOptions(pid, options);
  const configs = (res.body.rewards as Array<{ id: string; type: string }>).map((r) => r.id);
  return { key: acct.key, teamId: acct.teamId, pid, configs };
}

async function add(key: string, pid: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; email: string };
}

/** A referrer plus `n` friends they referred, credited at sign-up (the default ON_SIGNUP trigger). */
async function referrals(key: string, pid: string, n: number, status: 'CREDIT_AWARDED' | 'CREDIT_PENDING' = 'CREDIT_AWARDED', tag = 'a') {
  const referrer = await add(key, pid, { email: `ref-${tag}@example.com` });
  const friends = [];
  for (let i = 0; i < n; i++) friends.push(await add(key, pid, { email: `friend-${tag}${i}@example.com`, referredBy: referrer.id, referralStatus: status }));
  return { referrer, friends };
}

const rewardsOf = (key: string, pid: string, who: string, query = '') => app.request('GET', `/v2/campaign/${pid}/participant/${encodeURIComponent(who)}/rewards${query}`, { key });
const participant = async (key: string, pid: string, who: string) => (await app.request('GET', `/v2/campaign/${pid}/participant/${who}`, { key })).body;
const campaign = async (key: string, pid: string) => (await app.request('GET', `/v2/campaign/${pid}`, { key })).body;

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

/** Subscribes a webhook to PARTICIPANT_REACHED_A_GOAL (private addresses allowed in this suite). */
async function subscribe(key: string, pid: string) {
  const res = await app.request('POST', `/v2/campaign/${pid}/webhooks`, { key, body: { payloadUrl: 'http://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] } });
  expect(res.status, res.text).toBe(200);
}

async function goalEvents(pid: string) {
  const rows = await app.deps.db.knex('webhook_events').where({ program_id: pid, event: 'PARTICIPANT_REACHED_A_GOAL' }).orderBy('created_at');
  return rows.map((r: { id: string; payload: string }) => ({ id: r.id, ...JSON.parse(r.payload) }));
}

/** One reward awaiting approval (manual approval on), with its program. */
async function pendingReward() {
  const s = await setup([{ type: 'SINGLE_SIDED', title: 'Thanks' }], 'REFERRAL', { requireManualRewardApproval: true });
  const { referrer } = await referrals(s.key, s.pid, 1);
  const list = await rewardsOf(s.key, s.pid, referrer.id);
  expect(list.body.rewards).toHaveLength(1);
  return { ...s, referrer, rewardId: list.body.rewards[0].id as string };
}

describe('Issuing rewards when credit is awarded', () => {
  it('issues a double-sided reward as two rows, one for each side', async () => {
    const { key, pid, configs } = await setup();
    const { referrer, friends } = await referrals(key, pid, 1);
    const mine = (await rewardsOf(key, pid, referrer.id)).body;
    const theirs = (await rewardsOf(key, pid, friends[0]!.id)).body;
    expect(mine).toEqual({
      rewards: [
        {
          id: expect.stringMatching(/^[a-z0-9]{20}$/),
          rewardId: configs[0],
          status: 'PENDING',
          approved: true,
          amount: null,
          currencyISO: null,
          approvedAt: app.clock.now(),
          fulfilledAt: null,
          isFulfilled: false,
          isAvailable: true,
          isReferrer: true,
          referrerId: referrer.id,
          referredId: friends[0]!.id,
          unread: true,
          commissionStructure: null,
        },
      ],
      limit: 20,
      nextId: null,
    });
    expect(theirs.rewards).toHaveLength(1);
    expect(theirs.rewards[0]).toMatchObject({ rewardId: configs[0], isReferrer: false, referrerId: referrer.id, referredId: friends[0]!.id });
  });

  it('shows issued rewards in Participant.rewards and makes the recipients winners', async () => {
    const { key, pid } = await setup();
    const { referrer, friends } = await referrals(key, pid, 1);
    const p = await participant(key, pid, referrer.id);
    expect(p.rewards).toEqual((await rewardsOf(key, pid, referrer.id)).body.rewards);
    expect(p.isWinner).toBe(true);
    expect((await participant(key, pid, friends[0]!.id)).isWinner).toBe(true);
    expect((await campaign(key, pid)).winnerCount).toBe(2);
  });

  it('gives the friend no reward row when the friend’s reward is upfront', async () => {
    const { key, pid } = await setup([{ ...DOUBLE, referredRewardUpfront: true }]);
    const { referrer, friends } = await referrals(key, pid, 1);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(1);
    expect((await rewardsOf(key, pid, friends[0]!.id)).body.rewards).toEqual([]);
    expect((await participant(key, pid, friends[0]!.id)).isWinner).toBe(false);
  });

  it('gives a single-sided reward to the referrer only', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED' }]);
    const { referrer, friends } = await referrals(key, pid, 2);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(2);
    expect((await rewardsOf(key, pid, friends[1]!.id)).body.rewards).toEqual([]);
  });

  it('issues nothing for a pending referral, for hidden configurations or for deleted ones', async () => {
    const { key, pid, configs } = await setup([DOUBLE, { type: 'SINGLE_SIDED', isVisible: false }, { type: 'SINGLE_SIDED', title: 'gone' }]);
    await app.request('DELETE', `/v2/campaign/${pid}/reward-configs/${configs[2]}`, { key });
    const { referrer } = await referrals(key, pid, 1, 'CREDIT_PENDING');
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toEqual([]);
    await app.request('POST', `/v2/campaign/${pid}/participant/friend-a0@example.com`, { key, body: { referralStatus: 'CREDIT_AWARDED' } });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards.map((r: { rewardId: string }) => r.rewardId)).toEqual([configs[0]]);
  });

  it('issues a milestone exactly when the referrer reaches conversionsRequired and emits PARTICIPANT_REACHED_A_GOAL', async () => {
    const { key, pid, configs } = await setup([{ type: 'MILESTONE', conversionsRequired: 3, title: 'Three friends' }]);
    await subscribe(key, pid);
    const { referrer } = await referrals(key, pid, 2);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toEqual([]);
    expect(await goalEvents(pid)).toEqual([]);
    const third = await add(key, pid, { email: 'third@example.com', referredBy: referrer.id });
    const rewards = (await rewardsOf(key, pid, referrer.id)).body.rewards;
    expect(rewards).toHaveLength(1);
    expect(rewards[0]).toMatchObject({ rewardId: configs[0], isReferrer: true, referrerId: referrer.id });
    const events = await goalEvents(pid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event: 'PARTICIPANT_REACHED_A_GOAL',
      data: {
        campaign: { id: pid },
        participant: { id: referrer.id, referralCount: 3, isWinner: true, referee: { id: third.id, email: 'third@example.com', referralStatus: 'CREDIT_AWARDED' } },
        reward: { ...rewards[0], type: 'MILESTONE', title: 'Three friends', conversionsRequired: 3 },
      },
    });
    const deliveries = await app.deps.db.knex('webhook_deliveries').where({ program_id: pid, event_id: events[0].id });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].status).toBe('PENDING');
    // Once by default: the fourth and the sixth referral earn nothing more.
    for (const n of [4, 5, 6]) await add(key, pid, { email: `more${n}@example.com`, referredBy: referrer.id });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(1);
  });

  it('repeats an unlimited milestone at every multiple of conversionsRequired', async () => {
    const { key, pid } = await setup([{ type: 'MILESTONE', conversionsRequired: 2, isUnlimited: true }]);
    const { referrer } = await referrals(key, pid, 5);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(2);
  });

  it('emits one PARTICIPANT_REACHED_A_GOAL per reward of a double-sided issue', async () => {
    const { key, pid } = await setup();
    await subscribe(key, pid);
    const { referrer, friends } = await referrals(key, pid, 1);
    const events = await goalEvents(pid);
    expect(events.map((e) => [e.data.participant.id, e.data.reward.isReferrer]).sort()).toEqual([
      [friends[0]!.id, false],
      [referrer.id, true],
    ].sort());
  });

  it('sends GrowSurf’s PARTICIPANT_REACHED_A_GOAL data: the recipient without a rewards list, who they referred or were referred by, and the configuration combined with the reward', async () => {
    const config = { ...DOUBLE, couponCode: 'THANKS10', referralCouponCode: 'WELCOME10', referralDescription: '$10 off your first order', imageUrl: 'https://cdn.example.com/gift.png', metadata: { sku: 'CREDIT-10' } };
    const { key, pid, configs } = await setup([config]);
    await subscribe(key, pid);
    const { referrer, friends } = await referrals(key, pid, 1);
    const friend = friends[0]!;
    const events = await goalEvents(pid);
    const mine = events.find((e) => e.data.reward.isReferrer)!.data;
    const theirs = events.find((e) => !e.data.reward.isReferrer)!.data;
    const [myReward] = (await rewardsOf(key, pid, referrer.id)).body.rewards;
    const [theirReward] = (await rewardsOf(key, pid, friend.id)).body.rewards;
    // The reward: the CampaignReward's fields (its id as rewardId), then the ParticipantReward's, and when it was issued.
    const { id: _configId, ...configFields } = (await campaign(key, pid)).rewards[0];
    expect(mine.reward).toEqual({ ...configFields, ...myReward, createdAt: app.clock.now() });
    expect(mine.reward).toMatchObject({ rewardId: configs[0], couponCode: 'THANKS10', referralCouponCode: 'WELCOME10', imageUrl: 'https://cdn.example.com/gift.png', metadata: { sku: 'CREDIT-10' }, type: 'DOUBLE_SIDED' });
    expect(theirs.reward).toEqual({ ...configFields, ...theirReward, createdAt: app.clock.now() });
    // The participant: the REST Participant without `rewards`, with the referee on the referrer's side.
    const { rewards: _r1, ...referrerWire } = await participant(key, pid, referrer.id);
    const { rewards: _r2, referrer: friendsReferrer, ...friendWire } = await participant(key, pid, friend.id);
    expect(mine.participant).not.toHaveProperty('rewards');
    expect(mine.participant).toEqual({ ...referrerWire, referee: expect.objectContaining({ id: friend.id, email: friend.email, referralStatus: 'CREDIT_AWARDED' }) });
    expect(theirs.participant).toEqual({ ...friendWire, referrer: friendsReferrer });
    expect(theirs.participant.referrer).toMatchObject({ id: referrer.id, referralCount: 1, rank: 1 });
    // The referee summary has the Referrer shape (§2.9).
    expect(Object.keys(mine.participant.referee).sort()).toEqual(Object.keys(friendsReferrer).filter((k) => k !== 'referralStatus').concat('referralStatus').sort());
    // The program as the trigger left it: counters include this referral and both new winners.
    expect(mine.campaign).toEqual(await campaign(key, pid));
    expect(mine.campaign).toMatchObject({ id: pid, referralCount: 1, participantCount: 2, winnerCount: 2 });
  });

  it('names the referred friend as referee for a single-sided reward too', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED', title: 'Thanks', couponCode: 'ONLY-YOU' }]);
    await subscribe(key, pid);
    const { referrer, friends } = await referrals(key, pid, 1);
    const events = await goalEvents(pid);
    expect(events).toHaveLength(1);
    expect(events[0].data.participant).toMatchObject({ id: referrer.id, referee: { id: friends[0]!.id, referralCount: 0 } });
    expect(events[0].data.reward).toMatchObject({ couponCode: 'ONLY-YOU', isReferrer: true, referredId: friends[0]!.id });
  });

  it('keeps a limited reward within its limit per month and issues again in the next month', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED', isUnlimited: false, limit: 2, limitDuration: 'PER_MONTH' }]);
    const { referrer } = await referrals(key, pid, 3);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(2);
    app.clock.advance(31 * DAY);
    await add(key, pid, { email: 'next-month@example.com', referredBy: referrer.id });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(3);
    await add(key, pid, { email: 'next-month-2@example.com', referredBy: referrer.id });
    await add(key, pid, { email: 'next-month-3@example.com', referredBy: referrer.id });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(4);
  });

  it('keeps an IN_TOTAL limit across months', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED', isUnlimited: false, limit: 1, limitDuration: 'IN_TOTAL' }]);
    const { referrer } = await referrals(key, pid, 2);
    app.clock.advance(40 * DAY);
    await add(key, pid, { email: 'later@example.com', referredBy: referrer.id });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(1);
  });

  it('never issues twice for the same referral, however often it is credited', async () => {
    const { key, pid } = await setup();
    const { referrer, friends } = await referrals(key, pid, 1);
    const friend = friends[0]!.id;
    for (const status of ['CREDIT_PENDING', 'CREDIT_AWARDED', 'CREDIT_EXPIRED', 'CREDIT_AWARDED']) {
      const res = await app.request('POST', `/v2/campaign/${pid}/participant/${friend}`, { key, body: { referralStatus: status } });
      expect(res.status, res.text).toBe(200);
    }
    expect((await app.request('POST', `/v2/campaign/${pid}/participant/${friend}/ref`, { key, body: {} })).body.success).toBe(true);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(1);
    expect((await rewardsOf(key, pid, friend)).body.rewards).toHaveLength(1);
    const stored = await app.deps.db.knex('participant_rewards').where({ program_id: pid }).count({ n: '*' }).first();
    expect(Number(stored?.n)).toBe(2);
  });

  it('holds rewards for approval when options.requireManualRewardApproval is on, and fulfils automatically with autoFulfillRewards', async () => {
    const manual = await setup([{ type: 'SINGLE_SIDED' }], 'REFERRAL', { requireManualRewardApproval: true });
    const a = await referrals(manual.key, manual.pid, 1);
    const held = (await rewardsOf(manual.key, manual.pid, a.referrer.id)).body.rewards[0];
    expect(held).toMatchObject({ approved: false, approvedAt: null, isAvailable: false, status: 'PENDING' });
    expect((await participant(manual.key, manual.pid, a.referrer.id)).isWinner).toBe(false);
    expect((await campaign(manual.key, manual.pid)).winnerCount).toBe(0);

    const auto = await setup([{ type: 'SINGLE_SIDED' }], 'REFERRAL', { autoFulfillRewards: true });
    const b = await referrals(auto.key, auto.pid, 1);
    expect((await rewardsOf(auto.key, auto.pid, b.referrer.id)).body.rewards[0]).toMatchObject({
      approved: true,
      status: 'FULFILLED',
      isFulfilled: true,
      fulfilledAt: app.clock.now(),
    });
  });

  it('records an activity row for every reward issued', async () => {
    const { key, pid } = await setup();
    const { referrer } = await referrals(key, pid, 1);
    const rows = await app.deps.db.knex('activity_logs').where({ program_id: pid, type: 'REWARD' });
    expect(rows).toHaveLength(2);
    const mine = rows.find((r: { participant_id: string }) => r.participant_id === referrer.id);
    expect(mine.action).toBe('reward.issued');
    expect(mine.text).toBe('Earned reward "Give $10, get $10" for referring friend-a0@example.com');
  });

  it('issues LEAD rewards when a referred friend signs up pending', async () => {
    const { key, pid } = await setup([]);
    expect((await app.request('PATCH', `/v2/campaign/${pid}/installation`, { key, body: { referralTrigger: 'CUSTOM' } })).status).toBe(200);
    const created = await app.request('POST', `/v2/campaign/${pid}/reward-configs`, { key, body: { type: 'SINGLE_SIDED', event: 'LEAD' } });
    expect(created.status, created.text).toBe(200);
    const { referrer, friends } = await referrals(key, pid, 1, 'CREDIT_PENDING');
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(1);
    await app.request('POST', `/v2/campaign/${pid}/participant/${friends[0]!.id}/ref`, { key, body: {} });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(1);
  });

  it('takes a deleted winner off the program’s winnerCount', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED' }]);
    const { referrer } = await referrals(key, pid, 1);
    expect((await campaign(key, pid)).winnerCount).toBe(1);
    expect((await app.request('DELETE', `/v2/campaign/${pid}/participant/${referrer.id}`, { key })).status).toBe(200);
    expect((await campaign(key, pid)).winnerCount).toBe(0);
  });
});

describe('Leaderboard prizes', () => {
  it('awards the top numberOfWinners all-time referrers when the program ends, ties to the earlier participant', async () => {
    const { key, pid, configs } = await setup([{ type: 'LEADERBOARD', numberOfWinners: 2, title: 'Top referrers' }]);
    const first = await referrals(key, pid, 1, 'CREDIT_AWARDED', 'first');
    app.clock.advance(1000);
    const second = await referrals(key, pid, 1, 'CREDIT_AWARDED', 'second');
    const best = await referrals(key, pid, 3, 'CREDIT_AWARDED', 'best');
    expect((await rewardsOf(key, pid, best.referrer.id)).body.rewards).toEqual([]);
    const ended = await app.request('PATCH', `/v2/campaign/${pid}`, { key, body: { status: 'COMPLETE' } });
    expect(ended.status, ended.text).toBe(200);
    expect((await campaign(key, pid)).winnerCount).toBe(2);
    expect((await rewardsOf(key, pid, best.referrer.id)).body.rewards).toEqual([
      expect.objectContaining({ rewardId: configs[0], isReferrer: true, referrerId: best.referrer.id, approved: true }),
    ]);
    expect((await rewardsOf(key, pid, first.referrer.id)).body.rewards).toHaveLength(1);
    expect((await rewardsOf(key, pid, second.referrer.id)).body.rewards).toEqual([]);
    expect((await rewardsOf(key, pid, best.referrer.id)).body.rewards[0].referredId).toBeUndefined();
  });

  it('awards a PER_MONTH leaderboard for each month through the job runner', async () => {
    const { key, pid } = await setup([{ type: 'LEADERBOARD', numberOfWinners: 1, limitDuration: 'PER_MONTH' }]);
    const jan = await referrals(key, pid, 2, 'CREDIT_AWARDED', 'jan');
    const pending = await app.deps.db.knex('jobs').where({ type: 'rewards.monthly-leaderboard' }).where('unique_key', 'like', `%${pid}%`);
    expect(pending).toHaveLength(1);
    await referrals(key, pid, 1, 'CREDIT_AWARDED', 'jan2');
    app.clock.advance(nextMonth() - app.clock.now() + 3_600_000);
    await app.deps.jobs.runDue();
    expect((await rewardsOf(key, pid, jan.referrer.id)).body.rewards).toHaveLength(1);
    const feb = await referrals(key, pid, 1, 'CREDIT_AWARDED', 'feb');
    await app.request('PATCH', `/v2/campaign/${pid}`, { key, body: { status: 'COMPLETE' } });
    expect((await rewardsOf(key, pid, feb.referrer.id)).body.rewards).toHaveLength(1);
    expect((await rewardsOf(key, pid, jan.referrer.id)).body.rewards).toHaveLength(1);
  });
});

describe('GET /campaign/{id}/participant/{participantIdOrEmail}/rewards', () => {
  it('pages newest first with limit and nextId, by id or email', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED' }]);
    const { referrer } = await referrals(key, pid, 3);
    const first = await rewardsOf(key, pid, referrer.email, '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.rewards).toHaveLength(2);
    expect(first.body.limit).toBe(2);
    const second = await rewardsOf(key, pid, referrer.id, `?limit=2&nextId=${first.body.nextId}`);
    expect(second.body.rewards).toHaveLength(1);
    expect(second.body.nextId).toBeNull();
    const all = [...first.body.rewards, ...second.body.rewards].map((r: { id: string }) => r.id);
    expect(new Set(all).size).toBe(3);
  });

  it('answers 400 for a bad limit or a nextId that is not the participant’s reward', async () => {
    const { key, pid } = await setup();
    const { referrer } = await referrals(key, pid, 1);
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?nextId=nope']) {
      const res = await rewardsOf(key, pid, referrer.id, q);
      expect(res.status, q).toBe(400);
    }
  });

  it('answers 400 for an unknown participant and 404 for an unknown program', async () => {
    const { key, pid } = await setup();
    expect((await rewardsOf(key, pid, 'nobody@example.com')).status).toBe(400);
    expect((await rewardsOf(key, 'nosuchprogram', 'x')).status).toBe(404);
  });

  it('answers 403 without reward:read or for a program the key is not granted', async () => {
    const { key, pid, teamId } = await setup();
    const { referrer } = await referrals(key, pid, 1);
    expect((await rewardsOf(await limitedKey(teamId, ['participant:read']), pid, referrer.id)).status).toBe(403);
    const other = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } });
    expect((await rewardsOf(await limitedKey(teamId, ['reward:read'], [other.body.id]), pid, referrer.id)).status).toBe(403);
    expect((await rewardsOf(await limitedKey(teamId, ['reward:read'], [pid]), pid, referrer.id)).status).toBe(200);
  });

  it('answers 422 on an affiliate program', async () => {
    const { key, pid } = await setup([], 'AFFILIATE');
    const p = await add(key, pid, { email: 'aff@example.com' });
    const res = await rewardsOf(key, pid, p.id);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('WRONG_PROGRAM_TYPE_ERROR');
  });
});

describe('POST /campaign/{id}/reward/{rewardId}/approve', () => {
  const approve = (key: string, pid: string, id: string, body: unknown = {}) => app.request('POST', `/v2/campaign/${pid}/reward/${id}/approve`, { key, body });

  it('approves a reward awaiting approval and makes its recipient a winner', async () => {
    const { key, pid, referrer, rewardId } = await pendingReward();
    app.clock.advance(5000);
    const res = await approve(key, pid, rewardId);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    const reward = (await rewardsOf(key, pid, referrer.id)).body.rewards[0];
    expect(reward).toMatchObject({ approved: true, approvedAt: app.clock.now(), isAvailable: true, status: 'PENDING', isFulfilled: false });
    expect((await participant(key, pid, referrer.id)).isWinner).toBe(true);
    expect((await campaign(key, pid)).winnerCount).toBe(1);
    const log = await app.deps.db.knex('activity_logs').where({ participant_id: referrer.id, action: 'reward.approved' });
    expect(log).toHaveLength(1);
  });

  it('sends PARTICIPANT_REACHED_A_GOAL again, approved, when a reward that awaited approval is approved (once)', async () => {
    const { key, pid, referrer, rewardId } = await pendingReward();
    await subscribe(key, pid);
    // pendingReward issued before the subscription: approve a second one issued after it.
    const friend = await add(key, pid, { email: 'late-friend@example.com', referredBy: referrer.id });
    const held = (await rewardsOf(key, pid, referrer.id)).body.rewards.find((r: { id: string; referredId: string }) => r.referredId === friend.id);
    let events = await goalEvents(pid);
    expect(events.map((e) => [e.data.reward.id, e.data.reward.approved])).toEqual([[held.id, false]]);
    app.clock.advance(5000);
    expect((await approve(key, pid, held.id)).status).toBe(200);
    events = await goalEvents(pid);
    expect(events.map((e) => [e.data.reward.id, e.data.reward.approved])).toEqual([
      [held.id, false],
      [held.id, true],
    ]);
    expect(events[1].data.reward).toMatchObject({ approvedAt: app.clock.now(), isAvailable: true, title: 'Thanks' });
    expect(events[1].data.participant).toMatchObject({ id: referrer.id, isWinner: true, referee: { id: friend.id } });
    // Approving again, fulfilling, or approving the first reward (issued unheard) adds no second "approved" event for held.
    await approve(key, pid, held.id);
    expect((await app.request('POST', `/v2/campaign/${pid}/reward/${held.id}/fulfill`, { key })).status).toBe(200);
    expect((await goalEvents(pid)).filter((e) => e.data.reward.id === held.id)).toHaveLength(2);
    await approve(key, pid, rewardId);
    expect((await goalEvents(pid)).filter((e) => e.data.reward.id === rewardId).map((e) => e.data.reward.approved)).toEqual([true]);
  });

  it('changes nothing when the reward is already approved', async () => {
    const { key, pid, referrer, rewardId } = await pendingReward();
    await approve(key, pid, rewardId);
    const before = (await rewardsOf(key, pid, referrer.id)).body.rewards[0];
    app.clock.advance(5000);
    expect((await approve(key, pid, rewardId)).status).toBe(200);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards[0]).toEqual(before);
    expect((await campaign(key, pid)).winnerCount).toBe(1);
  });

  it('approves and fulfils in one call with fulfill: true when the key also has reward:fulfill', async () => {
    const { key, pid, teamId, referrer, rewardId } = await pendingReward();
    const writeOnly = await limitedKey(teamId, ['reward:write']);
    const denied = await approve(writeOnly, pid, rewardId, { fulfill: true });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain('reward:fulfill');
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards[0].approved).toBe(false);
    expect((await approve(writeOnly, pid, rewardId, { fulfill: false })).status).toBe(200);
    const both = await limitedKey(teamId, ['reward:write', 'reward:fulfill']);
    expect((await approve(both, pid, rewardId, { fulfill: true })).status).toBe(200);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards[0]).toMatchObject({ status: 'FULFILLED', isFulfilled: true, fulfilledAt: app.clock.now() });
  });

  it('answers 406 for a fulfilled reward', async () => {
    const { key, pid, rewardId } = await pendingReward();
    await approve(key, pid, rewardId, { fulfill: true });
    for (const body of [{}, { fulfill: true }]) {
      const res = await approve(key, pid, rewardId, body);
      expect(res.status).toBe(406);
      expect(res.body.code).toBe('INVALID_STATE_ERROR');
    }
  });

  it('answers 400 for an invalid body', async () => {
    const { key, pid, rewardId } = await pendingReward();
    expect((await approve(key, pid, rewardId, { fulfill: 'yes' })).status).toBe(400);
    const unknown = await approve(key, pid, rewardId, { fulfil: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].code).toBe('UNKNOWN_FIELD');
  });

  it('answers 404 for an unknown reward or another program’s reward', async () => {
    const a = await pendingReward();
    const b = await setup();
    expect((await approve(a.key, a.pid, 'nosuchreward')).status).toBe(404);
    expect((await approve(b.key, b.pid, a.rewardId)).status).toBe(404);
    const sameTeam = await app.request('POST', '/v2/campaigns', { key: a.key, body: { type: 'REFERRAL' } });
    expect((await approve(a.key, sameTeam.body.id, a.rewardId)).status).toBe(404);
  });

  it('answers 403 without reward:write', async () => {
    const { pid, teamId, rewardId } = await pendingReward();
    expect((await approve(await limitedKey(teamId, ['reward:read', 'reward:fulfill']), pid, rewardId)).status).toBe(403);
  });

  it('answers 422 on an affiliate program', async () => {
    const { key, pid } = await setup([], 'AFFILIATE');
    expect((await approve(key, pid, 'whatever')).status).toBe(422);
  });
});

describe('POST /campaign/{id}/reward/{rewardId}/fulfill', () => {
  const fulfill = (key: string, pid: string, id: string, body: unknown = {}) => app.request('POST', `/v2/campaign/${pid}/reward/${id}/fulfill`, { key, body });

  it('marks an approved reward fulfilled', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED' }]);
    const { referrer } = await referrals(key, pid, 1);
    const id = (await rewardsOf(key, pid, referrer.id)).body.rewards[0].id;
    app.clock.advance(1000);
    const res = await fulfill(key, pid, id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards[0]).toMatchObject({ status: 'FULFILLED', isFulfilled: true, fulfilledAt: app.clock.now(), approved: true });
  });

  it('answers 406 when fulfilled again, and for a reward still awaiting approval', async () => {
    const { key, pid, rewardId } = await pendingReward();
    const early = await fulfill(key, pid, rewardId);
    expect(early.status).toBe(406);
    await app.request('POST', `/v2/campaign/${pid}/reward/${rewardId}/approve`, { key, body: {} });
    expect((await fulfill(key, pid, rewardId)).status).toBe(200);
    const again = await fulfill(key, pid, rewardId);
    expect(again.status).toBe(406);
    expect(again.body.code).toBe('INVALID_STATE_ERROR');
  });

  it('answers 400 for a body with fields', async () => {
    const { key, pid, rewardId } = await pendingReward();
    expect((await fulfill(key, pid, rewardId, { now: true })).status).toBe(400);
  });

  it('answers 403 without reward:fulfill and 404 for an unknown reward', async () => {
    const { key, pid, teamId, rewardId } = await pendingReward();
    expect((await fulfill(await limitedKey(teamId, ['reward:write']), pid, rewardId)).status).toBe(403);
    expect((await fulfill(key, pid, 'nosuchreward')).status).toBe(404);
  });
});

describe('DELETE /campaign/{id}/reward/{rewardId}', () => {
  const del = (key: string, pid: string, id: string, body?: unknown) => app.request('DELETE', `/v2/campaign/${pid}/reward/${id}`, { key, body });

  it('deletes a reward awaiting approval, for good', async () => {
    const { key, pid, referrer, rewardId } = await pendingReward();
    const res = await del(key, pid, rewardId);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toEqual([]);
    expect((await participant(key, pid, referrer.id)).rewards).toEqual([]);
    expect((await del(key, pid, rewardId)).status).toBe(404);
    // Crediting the same referral again does not bring it back.
    const friend = 'friend-a0@example.com';
    await app.request('POST', `/v2/campaign/${pid}/participant/${friend}`, { key, body: { referralStatus: 'CREDIT_PENDING' } });
    await app.request('POST', `/v2/campaign/${pid}/participant/${friend}`, { key, body: { referralStatus: 'CREDIT_AWARDED' } });
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toEqual([]);
  });

  it('answers 406 for an approved reward', async () => {
    const { key, pid } = await setup([{ type: 'SINGLE_SIDED' }]);
    const { referrer } = await referrals(key, pid, 1);
    const id = (await rewardsOf(key, pid, referrer.id)).body.rewards[0].id;
    const res = await del(key, pid, id);
    expect(res.status).toBe(406);
    expect((await rewardsOf(key, pid, referrer.id)).body.rewards).toHaveLength(1);
  });

  it('answers 400 for a body that is neither JSON nor a form', async () => {
    const { key, pid, rewardId } = await pendingReward();
    const res = await app.request('DELETE', `/v2/campaign/${pid}/reward/${rewardId}`, { key, raw: 'force', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect((await del(key, pid, rewardId)).status).toBe(200);
  });

  it('answers 403 without reward:delete and 404 for an unknown reward', async () => {
    const { key, pid, teamId, rewardId } = await pendingReward();
    expect((await del(await limitedKey(teamId, ['reward:write', 'reward:fulfill']), pid, rewardId)).status).toBe(403);
    expect((await del(key, pid, 'nosuchreward')).status).toBe(404);
  });
});

describe('goalAchieved email (issue #4: program emails)', () => {
  it('emails each recipient of a newly issued reward when the team is verified, and skips (logged) otherwise', async () => {
    const s = await setup([DOUBLE]);
    await app.deps.teams.approveVerification(s.teamId);
    const { referrer, friends } = await referrals(s.key, s.pid, 1, 'CREDIT_AWARDED', 'goal');
    const toReferrer = (await app.deps.mailer.list({ to: referrer.email })).filter((m) => m.kind.includes('goalAchieved'));
    const toFriend = (await app.deps.mailer.list({ to: friends[0]!.email })).filter((m) => m.kind.includes('goalAchieved'));
    expect(toReferrer).toHaveLength(1);
    expect(toFriend).toHaveLength(1);
    expect(toReferrer[0]!.text).toContain('$10 credit');

    const unverified = await setup([DOUBLE]);
    const other = await referrals(unverified.key, unverified.pid, 1, 'CREDIT_AWARDED', 'goal2');
    expect((await app.deps.mailer.list({ to: other.referrer.email })).filter((m) => m.kind.includes('goalAchieved'))).toHaveLength(0);
    const skipped = await app.deps.db.knex('activity_logs').where({ participant_id: other.referrer.id, action: 'email.skipped' });
    expect(skipped.some((r: { text: string }) => r.text.includes('The “reward earned” email was not sent'))).toBe(true);
  });

  it('gives each side its own description and coupon code, adding a code line when the template places no {{couponCode}}', async () => {
    const config = { ...DOUBLE, couponCode: 'THANKS10', referralCouponCode: 'WELCOME<10>', referralDescription: '$10 off your first order' };
    const s = await setup([config]);
    await app.deps.teams.approveVerification(s.teamId);
    const { referrer, friends } = await referrals(s.key, s.pid, 1, 'CREDIT_AWARDED', 'coupon');
    const [toReferrer] = (await app.deps.mailer.list({ to: referrer.email })).filter((m) => m.kind.includes('goalAchieved'));
    const [toFriend] = (await app.deps.mailer.list({ to: friends[0]!.email })).filter((m) => m.kind.includes('goalAchieved'));
    expect(toReferrer!.text).toContain('you earned a reward:\n\n$10 credit\n');
    expect(toReferrer!.text).toContain('Your code: THANKS10');
    expect(toReferrer!.html).toContain('<p>Your code: <strong>THANKS10</strong></p>');
    expect(toReferrer!.text).not.toContain('WELCOME');
    expect(toFriend!.text).toContain('you earned a reward:\n\n$10 off your first order\n');
    expect(toFriend!.html).toContain('<strong>WELCOME&lt;10&gt;</strong>');
    expect(toFriend!.text).not.toContain('THANKS10');

    // A template that places the code itself gets no extra line; a reward without a code gets none either.
    const placed = await setup([config]);
    await app.deps.teams.approveVerification(placed.teamId);
    const body = '<p>Hi {{firstName}}, use {{couponCode|no code needed}} at checkout.</p>';
    expect((await app.request('PATCH', `/v2/campaign/${placed.pid}/emails`, { key: placed.key, body: { goalAchieved: { body } } })).status).toBe(200);
    const two = await referrals(placed.key, placed.pid, 1, 'CREDIT_AWARDED', 'placed');
    const [mine] = (await app.deps.mailer.list({ to: two.referrer.email })).filter((m) => m.kind.includes('goalAchieved'));
    expect(mine!.text).toContain('use THANKS10 at checkout.');
    expect(mine!.text.match(/THANKS10/g)).toHaveLength(1);
    const bare = await setup([DOUBLE]);
    await app.deps.teams.approveVerification(bare.teamId);
    const three = await referrals(bare.key, bare.pid, 1, 'CREDIT_AWARDED', 'bare');
    const [plain] = (await app.deps.mailer.list({ to: three.referrer.email })).filter((m) => m.kind.includes('goalAchieved'));
    expect(plain!.text).not.toContain('Your code');
  });
});
