import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { seedParticipants } from '../../../scripts/seed.ts';
import { monthBoard, monthKey } from '../../../server/domain/participants/boards.ts';
import * as m018 from '../../../server/db/migrations/018_rank_histogram.ts';

const LIMITS = RAISED_LIMITS;
const DAY = 24 * 3600 * 1000;

let app: TestApp;
beforeAll(async () => {
  app = await startApp(LIMITS);
});
afterAll(async () => {
  await app.close();
});

interface P {
  id: string;
  email: string;
  createdAt: number;
  referralCount: number;
  monthlyReferralCount: number;
  prevMonthlyReferralCount: number;
  leadCount: number;
  rank: number;
  monthlyRank: number;
  prevMonthlyRank: number;
  referredBy?: string;
  referralStatus?: string;
}

async function setup(type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL', trigger?: 'ON_SIGNUP' | 'CUSTOM') {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  if (trigger) {
    const row = await app.deps.db.knex('programs').where({ id: pid }).first();
    await app.deps.db.knex('programs').where({ id: pid }).update({ installation: JSON.stringify({ ...JSON.parse(row.installation), referralTrigger: trigger }) });
  }
  return { key: acct.key, teamId: acct.teamId, pid };
}

async function add(key: string, pid: string, body: Record<string, unknown>): Promise<P> {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  app.clock.advance(1);
  return res.body;
}

async function board(key: string, pid: string, qs = ''): Promise<{ status: number; body: { participants: P[]; nextId: string | null; limit: number } }> {
  return app.request('GET', `/v2/campaign/${pid}/leaderboard${qs ? `?${qs}` : ''}`, { key });
}

/** Every row of a board, following nextId. */
async function wholeBoard(key: string, pid: string, type: string, limit: number): Promise<P[]> {
  const out: P[] = [];
  let nextId: string | null = null;
  do {
    const res = await board(key, pid, `leaderboardType=${type}&limit=${limit}${nextId ? `&nextId=${nextId}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.participants);
    nextId = res.body.nextId;
  } while (nextId);
  return out;
}

async function everyone(key: string, pid: string): Promise<P[]> {
  const out: P[] = [];
  let nextId: string | null = null;
  do {
    const res: { body: { participants: P[]; nextId: string | null } } = await app.request('GET', `/v2/campaign/${pid}/participants?limit=100${nextId ? `&nextId=${nextId}` : ''}`, { key });
    out.push(...res.body.participants);
    nextId = res.body.nextId;
  } while (nextId);
  return out;
}

/** Competition ranking by brute force: 1 + how many score strictly higher. */
function bruteRank(scores: number[], score: number): number {
  return 1 + scores.filter((s) => s > score).length;
}

/** Expected board order: score descending, then oldest, then id. */
function bruteOrder(ps: P[], score: (p: P) => number): string[] {
  return [...ps].sort((a, b) => score(b) - score(a) || a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map((p) => p.id);
}

describe('GET /campaign/{id}/leaderboard', () => {
  it('orders by referral count (ALL_TIME by default), ties oldest first, with competition ranks', async () => {
    const { key, pid } = await setup('REFERRAL', 'ON_SIGNUP');
    const [a, b, c, d, e] = [await add(key, pid, { email: 'a@example.com' }), await add(key, pid, { email: 'b@example.com' }), await add(key, pid, { email: 'c@example.com' }), await add(key, pid, { email: 'd@example.com' }), await add(key, pid, { email: 'e@example.com' })];
    for (const [who, n] of [[c!, 3], [b!, 2], [d!, 2]] as const) {
      for (let i = 0; i < n; i++) await add(key, pid, { email: `${who.email.split("@")[0]}-friend${i}@example.com`, referredBy: who.id });
    }
    const res = await board(key, pid, 'limit=6');
    expect(res.status).toBe(200);
    expect(res.body.limit).toBe(6);
    expect(res.body.participants.map((p) => [p.id, p.referralCount, p.rank])).toEqual([
      [c!.id, 3, 1],
      [b!.id, 2, 2],
      [d!.id, 2, 2],
      [a!.id, 0, 4],
      [e!.id, 0, 4],
      [expect.any(String), 0, 4],
    ]);
    expect(res.body.nextId).toBe(res.body.participants[5]!.id);
    const byReferrals = await board(key, pid, 'leaderboardType=BY_REFERRALS&limit=6');
    expect(byReferrals.body.participants.map((p) => p.id)).toEqual(res.body.participants.map((p) => p.id));
    // Default limit.
    expect((await board(key, pid)).body.participants).toHaveLength(10);
  });

  it('pages with nextId through the scored rows and the zero-score tail without duplicates or gaps', async () => {
    const { key, pid } = await setup('REFERRAL', 'ON_SIGNUP');
    const people: P[] = [];
    for (let i = 0; i < 9; i++) people.push(await add(key, pid, { email: `p${i}@example.com` }));
    for (const [i, n] of [[0, 1], [3, 2], [5, 1], [8, 3]] as const) {
      for (let j = 0; j < n; j++) await add(key, pid, { email: `f${i}-${j}@example.com`, referredBy: people[i]!.id });
    }
    const all = await everyone(key, pid);
    for (const limit of [1, 2, 3, 5, 100]) {
      const rows = await wholeBoard(key, pid, 'ALL_TIME', limit);
      expect(rows.map((p) => p.id), `limit ${limit}`).toEqual(bruteOrder(all, (p) => p.referralCount));
      const scores = all.map((p) => p.referralCount);
      for (const p of rows) expect(p.rank).toBe(bruteRank(scores, p.referralCount));
    }
  });

  it('ranks this month and last month from lazily reset monthly counts (isMonthly is CURRENT_MONTH)', async () => {
    const { key, pid } = await setup('REFERRAL', 'ON_SIGNUP');
    const a = await add(key, pid, { email: 'a@example.com' });
    const b = await add(key, pid, { email: 'b@example.com' });
    for (let i = 0; i < 2; i++) await add(key, pid, { email: `a${i}@example.com`, referredBy: a.id });
    await add(key, pid, { email: 'b0@example.com', referredBy: b.id });
    const month = await board(key, pid, 'isMonthly=true&limit=2');
    expect(month.body.participants.map((p) => [p.id, p.monthlyReferralCount, p.rank, p.monthlyRank])).toEqual([
      [a.id, 2, 1, 1],
      [b.id, 1, 2, 2],
    ]);
    const explicit = await board(key, pid, 'leaderboardType=CURRENT_MONTH&limit=2');
    expect(explicit.body.participants.map((p) => p.id)).toEqual([a.id, b.id]);

    app.clock.advance(31 * DAY); // into February: nothing runs at month end
    const readA = (await app.request('GET', `/v2/campaign/${pid}/participant/${a.id}`, { key })).body;
    expect(readA).toMatchObject({ referralCount: 2, monthlyReferralCount: 0, prevMonthlyReferralCount: 2, rank: 1, monthlyRank: 1, prevMonthlyRank: 1, monthlyReferrals: [] });
    await add(key, pid, { email: 'b1@example.com', referredBy: b.id });
    const prev = await board(key, pid, 'leaderboardType=PREV_MONTH&limit=2');
    expect(prev.body.participants.map((p) => [p.id, p.prevMonthlyReferralCount, p.rank])).toEqual([
      [a.id, 2, 1],
      [b.id, 1, 2],
    ]);
    const cur = await board(key, pid, 'leaderboardType=CURRENT_MONTH&limit=1');
    expect(cur.body.participants.map((p) => [p.id, p.monthlyReferralCount, p.prevMonthlyReferralCount, p.rank])).toEqual([[b.id, 1, 1, 1]]);
    const allTime = await board(key, pid, 'limit=2');
    expect(allTime.body.participants.map((p) => [p.id, p.referralCount, p.rank])).toEqual([
      [a.id, 2, 1],
      [b.id, 2, 1],
    ]);
  });

  it('orders BY_LEADS by pending referrals and the impression boards by join order while nobody has views', async () => {
    const { key, pid } = await setup('REFERRAL', 'CUSTOM');
    const a = await add(key, pid, { email: 'a@example.com' });
    const b = await add(key, pid, { email: 'b@example.com' });
    await add(key, pid, { email: 'b0@example.com', referredBy: b.id });
    const leads = await board(key, pid, 'leaderboardType=BY_LEADS&limit=2');
    expect(leads.body.participants.map((p) => [p.id, p.leadCount, p.rank])).toEqual([
      [b.id, 1, 1],
      [a.id, 0, 2],
    ]);
    for (const type of ['TOTAL_IMPRESSION_COUNT', 'UNIQUE_IMPRESSION_COUNT']) {
      const res = await board(key, pid, `leaderboardType=${type}&limit=3`);
      expect(res.body.participants.map((p) => [p.email, p.rank]), type).toEqual([
        ['a@example.com', 1],
        ['b@example.com', 1],
        ['b0@example.com', 1],
      ]);
    }
    // The visits engine adds views through adjustCounters; the boards follow.
    await app.deps.db.knex.transaction((trx) => app.deps.participants.adjustCounters(trx, pid, b.id, { impression_count: 5, unique_impression_count: 2 }));
    await app.deps.db.knex.transaction((trx) => app.deps.participants.adjustCounters(trx, pid, a.id, { impression_count: 1, unique_impression_count: 2 }));
    const views = await board(key, pid, 'leaderboardType=TOTAL_IMPRESSION_COUNT&limit=3');
    expect(views.body.participants.map((p) => [p.email, (p as P & { impressionCount: number }).impressionCount, p.rank])).toEqual([
      ['b@example.com', 5, 1],
      ['a@example.com', 1, 2],
      ['b0@example.com', 0, 3],
    ]);
    const unique = await board(key, pid, 'leaderboardType=UNIQUE_IMPRESSION_COUNT&limit=3');
    expect(unique.body.participants.map((p) => [p.email, p.rank])).toEqual([
      ['a@example.com', 1],
      ['b@example.com', 1],
      ['b0@example.com', 3],
    ]);
  });

  it('answers 422 for BY_COMMISSIONS and BY_REVENUE on a referral program and lists them on an affiliate program', async () => {
    const ref = await setup();
    expect((await board(ref.key, ref.pid, 'leaderboardType=BY_COMMISSIONS')).status).toBe(422);
    expect((await board(ref.key, ref.pid, 'leaderboardType=BY_REVENUE')).status).toBe(422);
    const aff = await setup('AFFILIATE');
    await add(aff.key, aff.pid, { email: 'x@example.com' });
    const res = await board(aff.key, aff.pid, 'leaderboardType=BY_REVENUE');
    expect(res.status).toBe(200);
    expect(res.body.participants).toHaveLength(1);
  });

  it('rejects an unknown type, a conflicting isMonthly, a limit over 100 and an unknown nextId with 400', async () => {
    const { key, pid } = await setup();
    for (const qs of ['leaderboardType=WEEKLY', 'isMonthly=true&leaderboardType=ALL_TIME', 'isMonthly=yes', 'limit=101', 'limit=0', 'nextId=nosuchparticipant']) {
      expect((await board(key, pid, qs)).status, qs).toBe(400);
    }
  });

  it('answers 403 without participant:read or outside the grant and 404 for an unknown program', async () => {
    const { key, teamId, pid } = await setup();
    const noRead = (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: ['participant:write'], programIds: null, origin: 'CLI' })).secret;
    expect((await board(noRead, pid)).status).toBe(403);
    const elsewhere = (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: ['participant:read'], programIds: ['another'], origin: 'CLI' })).secret;
    expect((await board(elsewhere, pid)).status).toBe(403);
    expect((await board(key, 'doesnotexist')).status).toBe(404);
  });
});

describe('participant ranks', () => {
  it('match a brute-force ranking after a random sequence of credits, status changes, referrer moves, deletes and month turns', async () => {
    const { key, pid } = await setup('REFERRAL', 'CUSTOM');
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    // The test's own model of every referral: referred id → referrer, status and when it was last credited.
    const links = new Map<string, { referrer: string; status: string; awardedAt: number | null }>();
    const alive: string[] = [];
    const statuses = ['CREDIT_PENDING', 'CREDIT_AWARDED', 'CREDIT_EXPIRED'];
    for (let i = 0; i < 12; i++) alive.push((await add(key, pid, { email: `seed${i}@example.com` })).id);

    const check = async () => {
      const ps = await everyone(key, pid);
      expect(ps.map((p) => p.id).sort()).toEqual([...alive].sort());
      const cur = monthKey(app.clock.now());
      const count = (id: string, month?: number) =>
        [...links.values()].filter((l) => l.referrer === id && l.status === 'CREDIT_AWARDED' && (month === undefined || monthKey(l.awardedAt!) === month)).length;
      const all = ps.map((p) => count(p.id));
      const monthly = ps.map((p) => count(p.id, cur));
      const prev = ps.map((p) => count(p.id, cur - 1));
      for (const [i, p] of ps.entries()) {
        expect(p.referralCount, `referralCount ${p.email}`).toBe(all[i]);
        expect(p.monthlyReferralCount, `monthly ${p.email}`).toBe(monthly[i]);
        expect(p.prevMonthlyReferralCount, `prev ${p.email}`).toBe(prev[i]);
        expect(p.leadCount).toBe([...links.values()].filter((l) => l.referrer === p.id && l.status === 'CREDIT_PENDING').length);
        expect(p.rank).toBe(bruteRank(all, all[i]!));
        expect(p.monthlyRank).toBe(bruteRank(monthly, monthly[i]!));
        expect(p.prevMonthlyRank).toBe(bruteRank(prev, prev[i]!));
        const link = links.get(p.id);
        expect(p.referredBy).toBe(link?.referrer);
        expect(p.referralStatus).toBe(link?.status);
      }
      const ordered = await wholeBoard(key, pid, 'ALL_TIME', 7);
      expect(ordered.map((p) => p.id)).toEqual(bruteOrder(ps, (p) => p.referralCount));
      const prevBoard = await wholeBoard(key, pid, 'PREV_MONTH', 5);
      expect(prevBoard.map((p) => p.id)).toEqual(bruteOrder(ps, (p) => p.prevMonthlyReferralCount));
      const campaign = await app.request('GET', `/v2/campaign/${pid}`, { key });
      expect(campaign.body).toMatchObject({ participantCount: ps.length, referralCount: all.reduce((s, n) => s + n, 0) });
    };

    for (let step = 0; step < 90; step++) {
      const r = rand();
      const now = app.clock.now();
      if (r < 0.35 || alive.length < 4) {
        const referrer = pick(alive);
        const status = pick(statuses.slice(0, 2));
        const p = await add(key, pid, { email: `step${step}@example.com`, referredBy: referrer, referralStatus: status });
        alive.push(p.id);
        links.set(p.id, { referrer, status, awardedAt: status === 'CREDIT_AWARDED' ? now : null });
      } else if (r < 0.6 && links.size) {
        const id = pick([...links.keys()]);
        const status = pick(statuses);
        const res = await app.request('POST', `/v2/campaign/${pid}/participant/${id}`, { key, body: { referralStatus: status } });
        expect(res.status, res.text).toBe(200);
        const l = links.get(id)!;
        if (status !== l.status) links.set(id, { ...l, status, awardedAt: status === 'CREDIT_AWARDED' ? now : l.awardedAt });
      } else if (r < 0.75) {
        const id = pick(alive);
        const referrer = pick(alive.filter((x) => x !== id));
        const res = await app.request('POST', `/v2/campaign/${pid}/participant/${id}`, { key, body: { referredBy: referrer } });
        expect(res.status, res.text).toBe(200);
        const l = links.get(id);
        if (!l) links.set(id, { referrer, status: 'CREDIT_PENDING', awardedAt: null });
        else if (l.referrer !== referrer) links.set(id, { referrer, status: l.status, awardedAt: l.status === 'CREDIT_AWARDED' ? now : null });
      } else if (r < 0.9) {
        const victims = rand() < 0.5 ? [pick(alive)] : [pick(alive), pick(alive)];
        const res =
          victims.length === 1
            ? await app.request('DELETE', `/v2/campaign/${pid}/participant/${victims[0]}`, { key })
            : await app.request('POST', `/v2/campaign/${pid}/participants/bulk-delete`, { key, body: { participants: victims } });
        expect(res.status, res.text).toBe(200);
        for (const v of new Set(victims)) {
          alive.splice(alive.indexOf(v), 1);
          links.delete(v);
          for (const [id, l] of [...links]) if (l.referrer === v) links.delete(id);
        }
      } else {
        app.clock.advance(Math.floor(rand() * 20 * DAY));
      }
      if (step % 15 === 14) await check();
    }
    await check();
    // The histogram holds exactly the participants' positive scores.
    const ps = await everyone(key, pid);
    const buckets = await app.deps.db.knex('leaderboard_scores').where({ program_id: pid, board: 'ALL_TIME' }).where('n', '>', 0).orderBy('score');
    const expected = new Map<number, number>();
    for (const p of ps) if (p.referralCount > 0) expected.set(p.referralCount, (expected.get(p.referralCount) ?? 0) + 1);
    expect(buckets.map((b: { score: number; n: number }) => [Number(b.score), Number(b.n)])).toEqual([...expected].sort((x, y) => x[0] - y[0]));
  });

  it('keep every histogram bucket when migration 018 rebuilds the table, and running it again changes nothing', async () => {
    const acct = await verifiedAccount(app);
    const pid = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body.id as string;
    await seedParticipants(app.deps.db, { programId: pid, count: 300, now: app.clock.now(), seed: 11 });
    const knex = app.deps.db.knex;
    const buckets = () => knex('leaderboard_scores').where({ program_id: pid }).orderBy(['board', 'score']).select('board', 'score', 'n');
    const before = await buckets();
    expect(before.length).toBeGreaterThan(10);
    const sqliteDdl = async () => (app.deps.db.dialect === 'sqlite' ? (await knex.raw("SELECT sql FROM sqlite_master WHERE name = 'leaderboard_scores'"))[0].sql : null);
    if (app.deps.db.dialect === 'sqlite') expect(await sqliteDdl()).toMatch(/WITHOUT ROWID$/);
    await knex.transaction((trx) => m018.down(trx));
    if (app.deps.db.dialect === 'sqlite') expect(await sqliteDdl()).not.toMatch(/WITHOUT ROWID/);
    expect(await buckets()).toEqual(before);
    for (let i = 0; i < 2; i++) await knex.transaction((trx) => m018.up(trx));
    if (app.deps.db.dialect === 'sqlite') expect(await sqliteDdl()).toMatch(/WITHOUT ROWID$/);
    expect(await buckets()).toEqual(before);
  });

  it('hold for data written by the bulk seeder: counts equal credited referrals and ranks match a brute-force ranking', async () => {
    // A fresh database: seeding an empty participants table takes the rebuild-the-indexes path.
    const fresh = await startApp(LIMITS);
    try {
      await seededProgramChecks(fresh);
    } finally {
      await fresh.close();
    }
    // And into a table that already has rows.
    await seededProgramChecks(app);
  });
});

async function seededProgramChecks(app: TestApp) {
  const indexes = () =>
    app.deps.db.dialect === 'sqlite'
      ? app.deps.db.knex.raw("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'participants' ORDER BY name")
      : app.deps.db.knex.raw("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'participants' ORDER BY indexname").then((r: { rows: unknown[] }) => r.rows);
  const before = await indexes();
  {
    const acct = await verifiedAccount(app);
    const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
    const { key } = acct;
    const pid = created.body.id as string;
    const board = (qs: string) => app.request('GET', `/v2/campaign/${pid}/leaderboard?${qs}`, { key });
    const wholeBoard = async (type: string, limit: number) => {
      const out: P[] = [];
      let nextId: string | null = null;
      do {
        const res: { body: { participants: P[]; nextId: string | null } } = await board(`leaderboardType=${type}&limit=${limit}${nextId ? `&nextId=${nextId}` : ''}`);
        out.push(...res.body.participants);
        nextId = res.body.nextId;
      } while (nextId && out.length < 300);
      return out;
    };
    const now = app.clock.now();
    const res = await seedParticipants(app.deps.db, { programId: pid, count: 1500, now, spanMs: 75 * DAY, seed: 7 });
    expect(res.participants).toBe(1500);
    const rows = await app.deps.db.knex('participants').where({ program_id: pid });
    const credited = new Map<string, number>();
    for (const r of rows) if (r.referral_status === 'CREDIT_AWARDED') credited.set(r.referred_by, (credited.get(r.referred_by) ?? 0) + 1);
    for (const r of rows) expect(Number(r.referral_count)).toBe(credited.get(r.id) ?? 0);
    const top = await wholeBoard('ALL_TIME', 100).then((all) => all.slice(0, 100));
    const scores = rows.map((r: { referral_count: number }) => Number(r.referral_count));
    const ordered = [...rows].sort((a, b) => b.referral_count - a.referral_count || a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
    expect(top.map((p) => p.id)).toEqual(ordered.slice(0, 100).map((r) => r.id));
    for (const p of top) expect(p.rank).toBe(bruteRank(scores, p.referralCount));
    const cur = monthKey(now);
    const month = await app.deps.db.knex('leaderboard_scores').where({ program_id: pid, board: monthBoard(cur) }).sum({ n: 'n' }).first();
    expect(Number(month!.n)).toBe(rows.filter((r: { monthly_referral_count: number }) => r.monthly_referral_count > 0).length);
    const campaign = await app.request('GET', `/v2/campaign/${pid}`, { key });
    expect(campaign.body).toMatchObject({ participantCount: 1500, referralCount: res.credited });
    const one = rows.find((r: { referral_count: number }) => r.referral_count === 0)!;
    expect(await app.deps.participants.leaderboard.rankOfParticipant(pid, one.id, 'ALL_TIME', now)).toBe(bruteRank(scores, 0));
  }
  expect(await indexes()).toEqual(before);
}
