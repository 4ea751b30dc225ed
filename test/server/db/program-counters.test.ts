import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import * as m034 from '../../../server/db/migrations/034_program_counters.ts';

// Issue #26 goal 4: a program's counters live on a narrow `program_counters` row, not on the wide
// `programs` row with its documents. Migration 034 moves the stored values there.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

const db = () => app.deps.db.knex;

describe('migration 034_program_counters', () => {
  it('moves every program’s counters from the programs row to program_counters, and back down', async () => {
    const acct = await verifiedAccount(app);
    const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
    expect(created.status).toBe(200);
    const pid = created.body.id as string;
    const person = await app.request('POST', `/v2/campaign/${pid}/participant`, { key: acct.key, body: { email: 'ann@example.com' } });
    expect(person.status).toBe(200);
    expect(await db()('program_counters').where({ program_id: pid }).first('participant_count')).toMatchObject({ participant_count: 1 });

    // Down: the counters go back onto the programs row, with their values.
    await m034.down(db());
    expect(await db().schema.hasTable('program_counters')).toBe(false);
    expect(Number((await db()('programs').where({ id: pid }).first('participant_count')).participant_count)).toBe(1);
    await db()('programs').where({ id: pid }).update({ referral_count: 7, impression_count: 40, invite_count: 3, winner_count: 2 });

    // Up (twice: safe to run again): the values move, the programs columns are gone.
    await m034.up(db());
    await m034.up(db());
    expect(await db().schema.hasColumn('programs', 'referral_count')).toBe(false);
    const moved = await db()('program_counters').where({ program_id: pid }).first();
    expect(Object.fromEntries(Object.entries(moved).map(([k, v]) => [k, k === 'program_id' ? v : Number(v)]))).toEqual({
      program_id: pid,
      referral_count: 7,
      participant_count: 1,
      impression_count: 40,
      invite_count: 3,
      winner_count: 2,
    });
    // The wire shows them as before.
    const campaign = await app.request('GET', `/v2/campaign/${pid}`, { key: acct.key });
    expect(campaign.body).toMatchObject({ referralCount: 7, participantCount: 1, impressionCount: 40, inviteCount: 3, winnerCount: 2 });
  });
});
