import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';

// P1's refloop extensions (issue #23): search, filters and sort, over HTTP with an API key.

let app: TestApp;
let key: string;
let teamId: string;
let pid: string;
/** Participant ids by first name. */
const ids: Record<string, string> = {};

const list = (query: string, k = key) => app.request('GET', `/v2/campaign/${pid}/participants?${query}`, { key: k });
const names = (res: { body: { participants: Array<{ firstName: string | null }> } }) => res.body.participants.map((p) => p.firstName);

/** Every page of a query, following nextId; the rows' first names in order. */
async function walk(query: string, limit = 2): Promise<string[]> {
  const out: string[] = [];
  let nextId: string | null = null;
  for (let guard = 0; guard < 50; guard++) {
    const res = await list(`${query}&limit=${limit}${nextId ? `&nextId=${nextId}` : ''}`);
    expect(res.status, res.text).toBe(200);
    out.push(...(names(res) as string[]));
    nextId = res.body.nextId;
    if (!nextId) return out;
  }
  throw new Error('no last page');
}

async function add(body: Record<string, unknown>) {
  app.clock.advance(1000);
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  ids[body.firstName as string] = res.body.id;
  return res.body;
}

beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
  const acct = await verifiedAccount(app);
  key = acct.key;
  teamId = acct.teamId;
  pid = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } })).body.id;
  // Oldest to newest: Ada refers three, Grace refers one; Linus is pending; Zed is flagged HIGH.
  await add({ email: 'ada.lovelace@example.com', firstName: 'Ada', lastName: 'Lovelace' });
  await add({ email: 'grace@navy.example', firstName: 'Grace', lastName: 'Hopper', referredBy: 'ada.lovelace@example.com' });
  await add({ email: 'alan@example.org', firstName: 'Alan', lastName: 'Turing', referredBy: ids.Ada });
  await add({ email: 'Edsger@Example.com', firstName: 'Edsger', lastName: 'Dijkstra', referredBy: ids.Ada });
  await add({ email: 'linus@example.net', firstName: 'Linus', lastName: 'Torvalds', referredBy: ids.Grace, referralStatus: 'CREDIT_PENDING' });
  await add({ email: 'adam@example.com', firstName: 'Adam', lastName: 'Smith', referredBy: ids.Ada });
  await add({ email: 'zed@spam.example', firstName: 'Zed', lastName: 'Adams' });
  const zed = await app.request('POST', `/v2/campaign/${pid}/participant/${ids.Zed}`, { key, body: { fraudRiskLevel: 'HIGH', vanityKeys: ['ZedKey'] } });
  expect(zed.status, zed.text).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

describe('GET /campaign/{id}/participants (refloop extensions)', () => {
  it('answers with the same pages for sort=createdAt as without any extension', async () => {
    const plain = await list('limit=3');
    const extended = await list('limit=3&sort=createdAt');
    expect(extended.status).toBe(200);
    expect(extended.body).toEqual(plain.body);
    expect(names(plain)).toEqual(['Zed', 'Adam', 'Linus']);
    expect(await walk('sort=createdAt')).toEqual(['Zed', 'Adam', 'Linus', 'Edsger', 'Alan', 'Grace', 'Ada']);
  });

  it('finds participants by email prefix, case-insensitively', async () => {
    expect(names(await list('search=EDSGER@ex'))).toEqual(['Edsger']);
    expect(names(await list('search=ada.'))).toEqual(['Ada']);
    expect(names(await list('search=nobody'))).toEqual([]);
  });

  it('finds participants by first or last name prefix, and by "first last"', async () => {
    // "ada" is Ada's first name and email, Adam's first name and Zed Adams' last name.
    expect(names(await list('search=ada'))).toEqual(['Zed', 'Adam', 'Ada']);
    expect(names(await list('search=hopp'))).toEqual(['Grace']);
    expect(names(await list(`search=${encodeURIComponent('Ada Love')}`))).toEqual(['Ada']);
    expect(names(await list(`search=${encodeURIComponent('alan tur')}`))).toEqual(['Alan']);
  });

  it('finds a participant by exact id, share key or vanity key, but not by a part of one', async () => {
    const grace = (await app.request('GET', `/v2/campaign/${pid}/participant/${ids.Grace}`, { key })).body;
    const shareKey = new URL(grace.shareUrl).searchParams.get('grsf')!;
    expect(names(await list(`search=${shareKey}`))).toEqual(['Grace']);
    expect(names(await list(`search=${shareKey.slice(0, 6)}`))).toEqual([]);
    expect(names(await list(`search=${ids.Linus}`))).toEqual(['Linus']);
    expect(names(await list('search=zedkey'))).toEqual(['Zed']);
  });

  it('filters by referrer, referral status, fraud risk level and affiliate state', async () => {
    expect(await walk('referred=true')).toEqual(['Adam', 'Linus', 'Edsger', 'Alan', 'Grace']);
    expect(await walk('referred=false')).toEqual(['Zed', 'Ada']);
    expect(await walk('referralStatus=CREDIT_PENDING')).toEqual(['Linus']);
    expect(await walk('referralStatus=CREDIT_AWARDED&sort=email')).toEqual(['Adam', 'Alan', 'Edsger', 'Grace']);
    expect(await walk('fraudRiskLevel=HIGH')).toEqual(['Zed']);
    expect(await walk('fraudRiskLevel=LOW&referred=false')).toEqual(['Ada']);
    expect(await walk('isAffiliate=true')).toEqual([]);
    expect((await walk('isAffiliate=false')).length).toBe(7);
    expect(names(await list('search=ada&referred=true'))).toEqual(['Adam']);
  });

  it('sorts by referral count (most first, ties oldest first) with a cursor that walks every participant once', async () => {
    expect(await walk('sort=referralCount')).toEqual(['Ada', 'Grace', 'Alan', 'Edsger', 'Linus', 'Adam', 'Zed']);
    expect(await walk('sort=referralCount', 1)).toEqual(['Ada', 'Grace', 'Alan', 'Edsger', 'Linus', 'Adam', 'Zed']);
    const first = await list('sort=referralCount&limit=2');
    expect(first.body.participants.map((p: { referralCount: number }) => p.referralCount)).toEqual([4, 0]);
    expect(await walk('sort=referralCount&search=ada')).toEqual(['Ada', 'Adam', 'Zed']);
  });

  it('sorts by email A–Z (case-insensitively) with a cursor', async () => {
    expect(await walk('sort=email')).toEqual(['Ada', 'Adam', 'Alan', 'Edsger', 'Grace', 'Linus', 'Zed']);
    expect(await walk('sort=email&search=ada', 1)).toEqual(['Ada', 'Adam', 'Zed']);
  });

  it('keeps metadata filters working beside the extensions', async () => {
    const res = await app.request('POST', `/v2/campaign/${pid}/participant/${ids.Alan}`, { key, body: { metadata: { plan: 'pro' } } });
    expect(res.status, res.text).toBe(200);
    expect(names(await list('metadata[plan]=pro&sort=email'))).toEqual(['Alan']);
    expect(names(await list('metadata[plan]=pro&search=grace'))).toEqual([]);
  });

  it('answers 400 with the field for a value outside the enums', async () => {
    for (const [query, field] of [
      ['sort=name', 'sort'],
      ['referred=yes', 'referred'],
      ['fraudRiskLevel=SEVERE', 'fraudRiskLevel'],
      ['referralStatus=DONE', 'referralStatus'],
      [`search=${'x'.repeat(300)}`, 'search'],
    ]) {
      const res = await list(query!);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body), query).toContain(field!);
    }
  });

  it('answers 400 for a nextId from another program', async () => {
    const other = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } })).body.id;
    const p = (await app.request('POST', `/v2/campaign/${other}/participant`, { key, body: { email: 'x@example.com' } })).body;
    const res = await list(`sort=email&nextId=${p.id}`);
    expect(res.status).toBe(400);
  });

  it('refuses a key without participant:read with 403', async () => {
    const limited = (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: ['campaign:read'] as never, programIds: null, origin: 'CLI' })).secret;
    const res = await list('search=ada', limited);
    expect(res.status).toBe(403);
  });

  it('documents the parameters in the OpenAPI document as refloop extensions', async () => {
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    const op = doc.paths['/campaign/{id}/participants'].get;
    const params = Object.fromEntries((op.parameters as Array<{ name: string; schema: { description?: string } }>).map((p) => [p.name, p.schema.description ?? '']));
    for (const name of ['search', 'referred', 'referralStatus', 'fraudRiskLevel', 'isAffiliate', 'sort']) {
      expect(params[name], name).toMatch(/^refloop extension/);
    }
  });
});

describe('GET /campaign/{id}/participants?isAffiliate (affiliate program)', () => {
  it('lists affiliates and customers apart', async () => {
    const aff = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE' } })).body.id;
    for (const [email, isAffiliate] of [['partner@example.com', true], ['buyer@example.com', false]] as const) {
      const res = await app.request('POST', `/v2/campaign/${aff}/participant`, { key, body: { email, isAffiliate } });
      expect(res.status, res.text).toBe(200);
    }
    const emails = async (q: string) => (await app.request('GET', `/v2/campaign/${aff}/participants?${q}`, { key })).body.participants.map((p: { email: string }) => p.email);
    expect(await emails('isAffiliate=true')).toEqual(['partner@example.com']);
    expect(await emails('isAffiliate=false')).toEqual(['buyer@example.com']);
  });
});
