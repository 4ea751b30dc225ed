import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { addParticipant, limitedKey } from '../../helpers/money.ts';
import { seedParticipants } from '../../../scripts/seed.ts';

// DI1, the participants CSV import (refloop extension, issue #23), over HTTP with API keys.

let app: TestApp;
let key: string;
let teamId: string;
let pid: string;

const csv = (...lines: string[]) => lines.join('\r\n') + '\r\n';
const post = (body: string, query = '', k = key, program = pid) =>
  app.request('POST', `/v2/campaign/${program}/import/participants${query}`, { key: k, raw: body, headers: { 'content-type': 'text/csv' } });
const count = async (program = pid) => Number((await app.deps.db.knex('participants').where({ program_id: program }).count({ n: '*' }))[0]!.n);

beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
  const acct = await verifiedAccount(app);
  key = acct.key;
  teamId = acct.teamId;
  pid = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } })).body.id;
  const existing = await addParticipant(app, key, pid, { email: 'existing@example.com' });
  const v = await app.request('POST', `/v2/campaign/${pid}/participant/${existing.id}`, { key, body: { vanityKeys: ['TAKEN'] } });
  expect(v.status, v.text).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

const BAD = csv(
  'email,firstName,referredBy,vanityKeys,metadata.plan',
  'ok@example.com,Ok,,,pro',
  'not-an-email,Bad,,,',
  'early@example.com,Early,late@example.com,,',
  'late@example.com,Late,,,',
  'ghost@example.com,Ghost,nobody@example.com,,',
  'ok@example.com,Twice,,,',
  'keys@example.com,Keys,,taken bad!key,',
  '"quoted@example.com","Multi',
  'line",existing@example.com,,basic',
);

describe('POST /campaign/{id}/import/participants?dryRun=true', () => {
  it('reports every invalid row by line and field and writes nothing', async () => {
    const before = await count();
    const res = await post(BAD, '?dryRun=true');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ dryRun: true, rows: 8, created: 0, unchanged: 0, invalidRows: 5 });
    expect(res.body.errors.map((e: { line: number; field: string; code: string }) => [e.line, e.field, e.code])).toEqual([
      [3, 'email', 'INVALID_EMAIL'],
      [4, 'referredBy', 'REFERRER_LATER'],
      [6, 'referredBy', 'REFERRER_NOT_FOUND'],
      [7, 'email', 'DUPLICATE_EMAIL'],
      [8, 'vanityKeys', 'INVALID_VALUE'],
    ]);
    expect(res.body.errors[3].message).toBe('ok@example.com is already on line 2.');
    expect(await count()).toBe(before);
  });

  it('checks the header, the cell count, taken vanity keys and P3’s program rules', async () => {
    const header = await post(csv('email,nickname', 'a@example.com,A'), '?dryRun=true');
    expect(header.body.errors).toEqual([expect.objectContaining({ line: 1, field: 'nickname', code: 'UNKNOWN_FIELD' })]);
    const rows = await post(csv('email,vanityKeys,isAffiliate,language', 'a@example.com,taken,,', 'b@example.com,,true,', 'c@example.com,,,xx', 'd@example.com'), '?dryRun=true');
    expect(rows.body.errors.map((e: { line: number; field: string; code: string }) => [e.line, e.field, e.code])).toEqual([
      [2, 'vanityKeys', 'VANITY_KEY_TAKEN'],
      [3, 'isAffiliate', 'INVALID'],
      [4, 'language', 'INVALID_VALUE'],
      [5, 'row', 'WRONG_CELL_COUNT'],
    ]);
    const broken = await post('email\r\n"open@example.com\r\n', '?dryRun=true');
    expect(broken.body.errors).toEqual([expect.objectContaining({ line: 2, field: 'row', code: 'INVALID_CSV' })]);
  });

  it('answers what a clean file would do', async () => {
    const res = await post(csv('email', 'new1@example.com', 'existing@example.com'), '?dryRun=true');
    expect(res.body).toEqual({ dryRun: true, rows: 2, created: 1, unchanged: 1, invalidRows: 0, errors: [] });
    expect(await count()).toBe(2 - 1);
  });
});

describe('POST /campaign/{id}/import/participants', () => {
  it('imports nothing from a file with any problem, listing each one', async () => {
    const before = await count();
    const res = await post(BAD);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^5 rows are invalid, so nothing was imported\./);
    expect(res.body.errors[0]).toEqual({ field: 'line 3: email', code: 'INVALID_EMAIL', message: expect.any(String) });
    expect(res.body.errors).toHaveLength(5);
    expect(await count()).toBe(before);
  });

  it('adds a clean file through P3: referrers on earlier rows, vanity keys and metadata, existing emails unchanged', async () => {
    const file = csv(
      'email,firstName,lastName,referredBy,vanityKeys,metadata.plan,metadata',
      'Mary@Example.com,Mary,"Shelley, née Godwin",,MARY m-2,pro,"{""source"":""fair""}"',
      'percy@example.com,Percy,,mary@example.com,,,',
      'existing@example.com,Changed,,,,,',
      'claire@example.com,,,MARY,,basic,',
    );
    const res = await post(file);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ dryRun: false, rows: 4, created: 3, unchanged: 1, invalidRows: 0, errors: [] });
    const mary = (await app.request('GET', `/v2/campaign/${pid}/participant/mary@example.com`, { key })).body;
    expect(mary).toMatchObject({ firstName: 'Mary', lastName: 'Shelley, née Godwin', vanityKeys: ['MARY', 'm-2'], metadata: { plan: 'pro', source: 'fair' }, referralCount: 2 });
    const percy = (await app.request('GET', `/v2/campaign/${pid}/participant/percy@example.com`, { key })).body;
    expect(percy.referrer?.id ?? percy.referredBy).toBe(mary.id);
    const claire = (await app.request('GET', `/v2/campaign/${pid}/participant/claire@example.com`, { key })).body;
    expect(claire).toMatchObject({ metadata: { plan: 'basic' } });
    expect((await app.request('GET', `/v2/campaign/${pid}/participant/existing@example.com`, { key })).body.firstName).toBeNull();
  });

  it('takes JSON {"csv": …} too, and answers 403 without participant:write', async () => {
    const res = await app.request('POST', `/v2/campaign/${pid}/import/participants`, { key, body: { csv: csv('email', 'json@example.com') } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.created).toBe(1);
    const readOnly = await limitedKey(app, teamId, ['participant:read']);
    expect((await post(csv('email', 'x@example.com'), '', readOnly)).status).toBe(403);
  });

  it('states the size limit when a file is over it', async () => {
    const rows = Array.from({ length: 10_001 }, (_, i) => `p${i}@example.com`);
    const res = await post(csv('email', ...rows), '?dryRun=true');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/at most 10,000 rows and 5 MiB/);
    const huge = await post('email\r\n' + 'x'.repeat(5 * 1024 * 1024 + 1));
    expect(huge.status).toBe(400);
    expect(huge.body.message).toMatch(/larger than 5 MiB/);
    // Another operation does not take a CSV body.
    const other = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, raw: 'email\r\na@example.com\r\n', headers: { 'content-type': 'text/csv' } });
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/Unsupported Content-Type/);
  });
});

describe('all or nothing', () => {
  it('rolls back every row when one fails while adding (the plan’s participant limit)', async () => {
    const billed = await startApp({ ...RAISED_LIMITS, BILLING: 'on' });
    try {
      const acct = await verifiedAccount(billed);
      await billed.deps.teams.setPlan(acct.teamId, 'STARTER', true);
      const program = (await billed.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body.id as string;
      await seedParticipants(billed.deps.db, { programId: program, count: 4_998, now: billed.clock.now(), seed: 3 });
      const res = await billed.request('POST', `/v2/campaign/${program}/import/participants`, {
        key: acct.key,
        raw: csv('email', 'one@example.com', 'two@example.com', 'three@example.com'),
        headers: { 'content-type': 'text/csv' },
      });
      expect(res.status).toBe(402);
      expect(res.body.message).toMatch(/^Line 4: The STARTER plan allows 5000 participants\..*Nothing was imported\.$/);
      expect(res.body.errors[0].field).toBe('line 4: row');
      const n = Number((await billed.deps.db.knex('participants').where({ program_id: program }).count({ n: '*' }))[0]!.n);
      expect(n).toBe(4_998);
    } finally {
      await billed.close();
    }
  }, 60_000);
});
