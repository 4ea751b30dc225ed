import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, onPostgres, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { inlineLimit } from '../../../server/db/sqlite.ts';
import { rankKey } from '../../../server/domain/participants/boards.ts';
import { ScoreLedger } from '../../../server/domain/participants/score-ledger.ts';

// Issue #4 (trigger-referral throughput): concurrent triggers share one SQLite transaction, each in
// its own savepoint; bound LIMITs become literals; program documents are parsed once per text.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

describe('Db.grouped', () => {
  it('undoes only the failing caller’s work and settles every caller', async () => {
    const knex = app.deps.db.knex;
    await knex.schema.createTable('grouped_probe', (t) => {
      t.string('id').primary();
    });
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((id) =>
        app.deps.db.grouped(async (trx) => {
          await trx('grouped_probe').insert({ id });
          if (id === 'b') throw new Error('b fails after writing');
          return id;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('b fails after writing');
    expect((await knex('grouped_probe').orderBy('id').pluck('id'))).toEqual(['a', 'c', 'd']);
  });

  it('rejects a lone caller whose work fails, leaving nothing behind', async () => {
    await expect(
      app.deps.db.grouped(async (trx) => {
        await trx('grouped_probe').insert({ id: 'lone' });
        throw new Error('lone fails');
      }),
    ).rejects.toThrow('lone fails');
    expect(await app.deps.db.knex('grouped_probe').where({ id: 'lone' }).first()).toBeUndefined();
  });
});

describe('ranks inside one group transaction', () => {
  it('follow the scores its callers move, and forget a rolled-back caller’s moves', async () => {
    const acct = await verifiedAccount(app);
    const pid = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body.id as string;
    await app.deps.db.knex('leaderboard_scores').insert([
      { program_id: pid, board: 'ALL_TIME', score: 5, n: 2 },
      { program_id: pid, board: 'ALL_TIME', score: 3, n: 1 },
    ]);
    const board = app.deps.participants.leaderboard;
    type Q = Parameters<typeof board.higherCounts>[0];
    const above = async (q: Q, score: number) => (await board.higherCounts(q, pid, [['ALL_TIME', score]])).get(rankKey('ALL_TIME', score));
    const move = async (trx: Q, from: number, to: number) => {
      const ledger = new ScoreLedger(pid);
      ledger.move('ALL_TIME', from, to);
      await ledger.flush(trx as never);
    };
    // Queued together, so on SQLite the four share one transaction (and its copy of the board). On
    // PostgreSQL each is a transaction of its own, which would run side by side: one after another there.
    const callers: Array<(trx: Q) => Promise<number[]>> = [
      async (trx) => {
        const before = await above(trx, 3);
        await move(trx, 0, 10);
        return [before!, (await above(trx, 3))!, (await above(trx, 5))!];
      },
      async (trx) => {
        await above(trx, 0);
        await move(trx, 0, 7);
        await move(trx, 5, 6);
        throw new Error('rolled back after moving scores');
      },
      async (trx) => [(await above(trx, 3))!, (await above(trx, 6))!],
      async (trx) => {
        await move(trx, 3, 4);
        return [(await above(trx, 3))!, (await above(trx, 4))!];
      },
    ];
    const outcomes: Array<PromiseSettledResult<number[]>> = [];
    if (onPostgres) for (const fn of callers) outcomes.push(...(await Promise.allSettled([app.deps.db.grouped(fn)])));
    else outcomes.push(...(await Promise.allSettled(callers.map((fn) => app.deps.db.grouped(fn)))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[0] as PromiseFulfilledResult<number[]>).value).toEqual([2, 3, 1]);
    expect((outcomes[2] as PromiseFulfilledResult<number[]>).value).toEqual([3, 1]);
    expect((outcomes[3] as PromiseFulfilledResult<number[]>).value).toEqual([4, 3]);
    expect(await above(app.deps.db.knex, 0)).toBe(4);
    expect(await above(app.deps.db.knex, 4)).toBe(3);
  });
});

describe('POST /campaign/{id}/participant/{p}/ref, many at once', () => {
  it('credits every concurrent trigger once, and a failing one changes nothing', async () => {
    const acct = await verifiedAccount(app);
    const program = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Both get $10' }] } })).body;
    const add = async (body: Record<string, unknown>) => (await app.request('POST', `/v2/campaign/${program.id}/participant`, { key: acct.key, body })).body;
    const referrer = await add({ email: 'busy-referrer@example.com' });
    const friends = [];
    for (let i = 0; i < 12; i++) friends.push(await add({ email: `friend-${i}@example.com`, referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' }));
    const loner = await add({ email: 'not-referred@example.com' });
    const targets = [...friends.map((f) => f.id), loner.id];
    const results = await Promise.all(targets.map((id) => app.request('POST', `/v2/campaign/${program.id}/participant/${id}/ref`, { key: acct.key, body: {} })));
    expect(results.slice(0, 12).map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(results[12]!.status).toBe(400);
    // A retried trigger (an identical one in flight at the same moment is a 409 of its own) issues nothing more.
    const retry = await app.request('POST', `/v2/campaign/${program.id}/participant/${friends[0].id}/ref`, { key: acct.key, body: {} });
    expect(retry.status).toBe(200);
    const after = (await app.request('GET', `/v2/campaign/${program.id}/participant/${referrer.id}`, { key: acct.key })).body;
    expect(after.referralCount).toBe(12);
    // Double-sided: one reward for the referrer and one for the friend, per credited referral, never twice.
    const rewards = await app.deps.db.knex('participant_rewards').where({ program_id: program.id }).count({ n: '*' }).first();
    expect(Number(rewards!.n)).toBe(24);
    const lonerAfter = (await app.request('GET', `/v2/campaign/${program.id}/participant/${loner.id}`, { key: acct.key })).body;
    expect(lonerAfter.referralStatus).toBe(loner.referralStatus);
  });
});

describe('program documents', () => {
  it('sees a document written by another process on the very next request', async () => {
    const acct = await verifiedAccount(app);
    const program = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body;
    const read = async () => (await app.request('GET', `/v2/campaign/${program.id}/options`, { key: acct.key })).body;
    const before = await read();
    // A write that bypasses this process entirely (same text length, so nothing but content changes).
    const row = await app.deps.db.knex('programs').where({ id: program.id }).first('options');
    const options = JSON.parse(row.options);
    options.referralCookieWindowDays = before.referralCookieWindowDays === 30 ? 60 : 30;
    await app.deps.db.knex('programs').where({ id: program.id }).update({ options: JSON.stringify(options) });
    expect((await read()).referralCookieWindowDays).toBe(options.referralCookieWindowDays);
  });

  it('shares parsed documents between requests, frozen against accidental changes', async () => {
    const acct = await verifiedAccount(app);
    const program = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body;
    const key = (await app.deps.keys.lookup(acct.key))!;
    const a = await app.deps.programs.forRequest(acct.teamId, program.id, key);
    const b = await app.deps.programs.forRequest(acct.teamId, program.id, key);
    expect(b.documents).toBe(a.documents);
    expect(() => {
      (a.documents.options as Record<string, unknown>).referralCookieWindowDays = 1;
    }).toThrow(TypeError);
  });
});

describe('inlineLimit', () => {
  it('writes a small bound LIMIT at the end into the SQL text', () => {
    expect(inlineLimit('select * from t where id = ? limit ?', ['x', 1])).toEqual(['select * from t where id = ? limit 1', ['x']]);
    expect(inlineLimit('SELECT 1 FROM t ORDER BY a LIMIT ? ', [50])).toEqual(['SELECT 1 FROM t ORDER BY a LIMIT 50 ', []]);
  });
  it('answers the same text again with each call’s own limit (the answer per text is remembered)', () => {
    const sql = 'select * from remembered where id = ? limit ?';
    expect(inlineLimit(sql, ['a', 1])).toEqual(['select * from remembered where id = ? limit 1', ['a']]);
    expect(inlineLimit(sql, ['b', 7])).toEqual(['select * from remembered where id = ? limit 7', ['b']]);
    expect(inlineLimit(sql, ['c', 1])).toEqual(['select * from remembered where id = ? limit 1', ['c']]);
    expect(inlineLimit(sql, ['d', 5000])).toEqual([sql, ['d', 5000]]);
    expect(inlineLimit('select * from remembered', [])).toEqual(['select * from remembered', []]);
  });
  it('leaves other statements and values bound', () => {
    expect(inlineLimit('select * from t limit ? offset ?', [10, 20])).toEqual(['select * from t limit ? offset ?', [10, 20]]);
    expect(inlineLimit('select * from t limit ?', [100_000])).toEqual(['select * from t limit ?', [100_000]]);
    expect(inlineLimit('select * from t limit ?', ['5'])).toEqual(['select * from t limit ?', ['5']]);
    expect(inlineLimit('select * from t limit ?', [-1])).toEqual(['select * from t limit ?', [-1]]);
    expect(inlineLimit('select * from t where a = ?', [3])).toEqual(['select * from t where a = ?', [3]]);
  });
});
