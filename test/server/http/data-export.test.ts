import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { addParticipant, limitedKey, moneyProgram, sale } from '../../helpers/money.ts';
import { parseCsv } from '../../../shared/csv.ts';
import { PARTICIPANT_EXPORT_HEADER, REFERRAL_EXPORT_HEADER } from '../../../server/domain/participants/participant-export.ts';
import { REWARD_EXPORT_HEADER } from '../../../server/domain/referral/reward-export.ts';
import { COMMISSION_EXPORT_HEADER } from '../../../server/domain/affiliate/commission-export.ts';
import { COMMISSION_CODES_HEADER, PARTICIPANT_CODES_HEADER } from '../../../server/domain/billing/code-export.ts';
import { seedParticipants } from '../../../scripts/seed.ts';

// DX1–DX4, the streamed CSV exports (refloop extensions, issue #23), over HTTP with API keys.

let app: TestApp;
let key: string;
let teamId: string;
let pid: string;
const ids: Record<string, string> = {};

/** An export's rows as objects keyed by its header, checking the header first. */
function rowsOf(text: string, header: readonly string[]): Array<Record<string, string>> {
  const [head, ...rest] = parseCsv(text);
  expect(head!.cells).toEqual([...header]);
  return rest.map((r) => Object.fromEntries(header.map((h, i) => [h, r.cells[i]!])));
}

beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
  const acct = await verifiedAccount(app);
  key = acct.key;
  teamId = acct.teamId;
  const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] } });
  expect(created.status, created.text).toBe(200);
  pid = created.body.id;
  app.clock.advance(1000);
  ids.ada = (await addParticipant(app, key, pid, { email: 'ada@example.com', firstName: 'Ada "Countess", of\nLovelace', lastName: '=HYPERLINK("http://evil.example")', metadata: { plan: 'pro' } })).id;
  app.clock.advance(1000);
  ids.grace = (await addParticipant(app, key, pid, { email: 'grace@example.com', firstName: '@SUM(A1)', lastName: '+1-2', referredBy: ids.ada, referralStatus: 'CREDIT_PENDING' })).id;
  const triggered = await app.request('POST', `/v2/campaign/${pid}/participant/${ids.grace}/ref`, { key });
  expect(triggered.status, triggered.text).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

describe('GET /campaign/{id}/export/participants.csv', () => {
  it('downloads every participant as RFC 4180 CSV with quotes doubled, line breaks kept and formulas defused', async () => {
    const res = await app.request('GET', `/v2/campaign/${pid}/export/participants.csv`, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="participants-${pid}.csv"`);
    expect(res.text).toMatch(/^"id","email","firstName",/);
    expect(res.text.endsWith('\r\n')).toBe(true);
    // The raw cells: quotes doubled, the formula prefixed with an apostrophe inside the quotes.
    expect(res.text).toContain('"Ada ""Countess"", of\nLovelace","\'=HYPERLINK(""http://evil.example"")"');
    expect(res.text).toContain('"\'@SUM(A1)","\'+1-2"');
    const rows = rowsOf(res.text, [...PARTICIPANT_EXPORT_HEADER, ...PARTICIPANT_CODES_HEADER]);
    expect(rows.map((r) => r.email)).toEqual(['ada@example.com', 'grace@example.com']);
    expect(rows[0]).toMatchObject({ id: ids.ada, firstName: 'Ada "Countess", of\nLovelace', referralCount: '1', metadata: '{"plan":"pro"}', referrerId: '', isAffiliate: 'false' });
    expect(rows[1]).toMatchObject({ id: ids.grace, referrerId: ids.ada, referrerEmail: 'ada@example.com', referralStatus: 'CREDIT_AWARDED', referralSource: 'PARTICIPANT', lastName: "'+1-2" });
    expect(Date.parse(rows[0]!.createdAt!)).toBeLessThan(Date.parse(rows[1]!.createdAt!));
  });

  it('answers 403 without participant:read, 400 for an unknown parameter, and refuses another team’s program as P1 does', async () => {
    const rewardsOnly = await limitedKey(app, teamId, ['reward:read']);
    expect((await app.request('GET', `/v2/campaign/${pid}/export/participants.csv`, { key: rewardsOnly })).status).toBe(403);
    expect((await app.request('GET', `/v2/campaign/${pid}/export/referrals.csv`, { key: rewardsOnly })).status).toBe(403);
    const bad = await app.request('GET', `/v2/campaign/${pid}/export/participants.csv?limit=5`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('UNKNOWN_FIELD');
    // Another team's program answers exactly as P1 does.
    const other = await verifiedAccount(app);
    const p1 = await app.request('GET', `/v2/campaign/${pid}/participants`, { key: other.key });
    expect(p1.status).toBeGreaterThanOrEqual(400);
    expect((await app.request('GET', `/v2/campaign/${pid}/export/participants.csv`, { key: other.key })).status).toBe(p1.status);
  });
});

describe('GET /campaign/{id}/export/referrals.csv and rewards.csv', () => {
  it('lists each referral with both emails, and each issued reward with its recipient', async () => {
    const refs = await app.request('GET', `/v2/campaign/${pid}/export/referrals.csv`, { key });
    expect(refs.status, refs.text).toBe(200);
    expect(rowsOf(refs.text, REFERRAL_EXPORT_HEADER)).toEqual([
      expect.objectContaining({ referredId: ids.grace, referredEmail: 'grace@example.com', referrerId: ids.ada, referrerEmail: 'ada@example.com', referralStatus: 'CREDIT_AWARDED' }),
    ]);
    const participantOnly = await limitedKey(app, teamId, ['participant:read']);
    expect((await app.request('GET', `/v2/campaign/${pid}/export/rewards.csv`, { key: participantOnly })).status).toBe(403);
    const rewards = await app.request('GET', `/v2/campaign/${pid}/export/rewards.csv`, { key });
    expect(rewards.status, rewards.text).toBe(200);
    expect(rewards.headers.get('content-disposition')).toContain(`rewards-${pid}.csv`);
    const rows = rowsOf(rewards.text, REWARD_EXPORT_HEADER);
    expect(rows.map((r) => [r.participantEmail, r.isReferrer]).sort()).toEqual([
      ['ada@example.com', 'true'],
      ['grace@example.com', 'false'],
    ]);
    expect(rows.every((r) => r.referrerId === ids.ada && r.referredId === ids.grace && r.status === 'PENDING')).toBe(true);
  });
});

describe('GET /campaign/{id}/export/commissions.csv', () => {
  it('writes money in integer minor units beside its currency, and is for affiliate programs only', async () => {
    const p = await moneyProgram(app);
    expect((await sale(app, p, { grossAmount: 12345, orderId: 'dx-1' })).status).toBe(200);
    const res = await app.request('GET', `/v2/campaign/${p.pid}/export/commissions.csv`, { key: p.key });
    expect(res.status, res.text).toBe(200);
    const rows = rowsOf(res.text, [...COMMISSION_EXPORT_HEADER, ...COMMISSION_CODES_HEADER]);
    expect(rows).toEqual([
      expect.objectContaining({ affiliateId: p.affiliate.id, affiliateEmail: p.affiliate.email, referredId: p.customer.id, event: 'SALE', amount: '1235', saleAmount: '12345', currencyISO: 'USD', amountInCampaignCurrency: '1235', campaignCurrencyISO: 'USD', affiliateCodes: '', attributedCode: '' }),
    ]);
    expect((await app.request('GET', `/v2/campaign/${pid}/export/commissions.csv`, { key })).status).toBe(422);
  });
});

describe('streaming', () => {
  it('sends the first rows while later pages are still unread, and every row once in the end', async () => {
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } });
    const big = created.body.id as string;
    const N = 50_000;
    await seedParticipants(app.deps.db, { programId: big, count: N, now: app.clock.now(), seed: 7 });
    // Count the export's page queries as the server runs them (same process).
    let pages = 0;
    const onQuery = (q: { sql: string }) => {
      if (/from ["`]participants["`] as ["`]p["`]/i.test(q.sql) && /limit/i.test(q.sql)) pages++;
    };
    app.deps.db.knex.on('query', onQuery);
    try {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${app.url}/v2/campaign/${big}/export/participants.csv`, { headers: { authorization: `Bearer ${key}` } }, resolve).on('error', reject),
      );
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.headers['transfer-encoding']).toBe('chunked');
      const first = await new Promise<Buffer>((resolve) =>
        res.once('data', (c: Buffer) => {
          res.pause();
          resolve(c);
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
      const pagesWhilePaused = pages;
      // A reader that stops reading stops the export: far fewer than the 51 pages have been read.
      expect(pagesWhilePaused).toBeGreaterThanOrEqual(1);
      expect(pagesWhilePaused).toBeLessThan(25);
      const chunks: Buffer[] = [first];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.resume();
      await new Promise((r) => res.on('end', r));
      const rows = parseCsv(Buffer.concat(chunks).toString('utf8'));
      expect(rows).toHaveLength(N + 1);
      expect(new Set(rows.map((r) => r.cells[0])).size).toBe(N + 1);
      expect(pages).toBe(Math.floor(N / 1000) + 1);
    } finally {
      app.deps.db.knex.off('query', onQuery);
    }
  }, 120_000);
});
