import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startApp, type TestApp } from '../../helpers/app.ts';
import { moneyProgram, type MoneyProgram } from '../../helpers/money.ts';
import { restOk } from '../../helpers/programs.ts';

// Issue #33 part 4: `refloop import csv` reads the affiliates, referrals and commissions exports of
// Rewardful, FirstPromoter and Tolt (fixtures shaped after each product's export columns and API
// field names, money and dates as their dashboards write them) and a generic CSV through a column
// map. Every outcome is read back through the REST API: participants, who referred whom, and the
// commissions (AF10) with the file's amounts and states. A bad row is refused with its line while
// the rest comes in; a dry run writes nothing; a second run changes nothing.

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/imports');
const fixture = (f: string) => path.join(FIXTURES, f);

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

/** Runs `refloop …` in-process against the test app's database. */
const cli = (...argv: string[]) => runCli(app, ...argv);

/** Every participant of the program by email. */
async function people(p: MoneyProgram): Promise<Map<string, Record<string, any>>> {
  const page = await restOk(app, p.key, 'GET', `/campaign/${p.pid}/participants?limit=100`);
  return new Map((page.participants as Array<Record<string, any>>).map((x) => [x.email, x]));
}

/** Every commission of the program (AF10), with the affiliate's and customer's emails. */
async function commissions(p: MoneyProgram): Promise<Array<Record<string, any>>> {
  const byId = new Map([...(await people(p)).values()].map((x) => [x.id, x.email]));
  const page = await restOk(app, p.key, 'GET', `/campaign/${p.pid}/commissions?limit=100`);
  return (page.commissions as Array<Record<string, any>>)
    .map((c) => ({ affiliate: byId.get(c.referrerId), customer: byId.get(c.referredId), amount: c.amount, status: c.status, currencyISO: c.currencyISO, saleAmount: c.saleAmount, createdAt: c.createdAt, paidAt: c.paidAt }))
    .sort((a, b) => a.createdAt - b.createdAt);
}

describe('refloop import csv --format rewardful', () => {
  let p: MoneyProgram;
  const files = ['--file', fixture('rewardful/commissions.csv'), '--file', fixture('rewardful/affiliates.csv'), '--file', fixture('rewardful/referrals.csv')];
  beforeAll(async () => {
    p = await moneyProgram(app);
    // Verified, so the program's emails would go out: imported people must still get none.
    await app.deps.teams.approveVerification(p.teamId);
  });

  it('a dry run writes nothing and lists every row it would refuse with its line', async () => {
    const before = await people(p);
    const r = await cli('import', 'csv', '--format', 'rewardful', '--program', p.pid, ...files, '--dry-run', '--json');
    expect(r.code, r.err).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.dryRun).toBe(true);
    expect(report.files.map((f: any) => [path.basename(f.file), f.kind, f.rows])).toEqual([
      ['commissions.csv', 'commissions', 6],
      ['affiliates.csv', 'affiliates', 3],
      ['referrals.csv', 'referrals', 3],
    ]);
    expect(report.created).toEqual({ affiliates: 2, referrals: 2, sales: 4, commissions: 4 });
    expect(report.refused.map((x: any) => [path.basename(x.file), x.line])).toEqual([
      ['affiliates.csv', 4],
      ['commissions.csv', 5],
      ['commissions.csv', 6],
      ['referrals.csv', 4],
    ]);
    expect(report.refused[0].reason).toMatch(/not-an-email.*email address/i);
    expect(report.refused[1].reason).toMatch(/12,50.*decimal comma/);
    expect(report.refused[2].reason).toMatch(/Unknown currency "XYZ"/);
    expect(report.refused[3].reason).toMatch(/Unknown affiliate nobody@partners\.example/);
    expect([...(await people(p)).keys()].sort()).toEqual([...before.keys()].sort());
    expect(await commissions(p)).toEqual([]);
  });

  it('imports affiliates, referred customers and commissions with the file amounts and states, refusing only the bad rows', async () => {
    const r = await cli('import', 'csv', '--format', 'rewardful', '--program', p.pid, ...files);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/affiliates\.csv line 4 {2}.*not-an-email/);
    expect(r.err).toMatch(/commissions\.csv line 5 {2}Amount "12,50"/);
    expect(r.out).toMatch(/Added 2 affiliates, 2 referred customers, 4 sales and 4 commissions; 0 participants and 0 sales already here left unchanged; 4 rows refused\./);
    const all = await people(p);
    const joe = all.get('joe@partners.example')!;
    const ann = all.get('ann@partners.example')!;
    expect(joe).toMatchObject({ firstName: 'Joe', lastName: 'Example', isAffiliate: true, affiliateStatus: 'APPROVED' });
    expect(joe.referrer ?? null).toBeNull();
    expect(ann).toMatchObject({ lastName: 'Lee, Jr.', isAffiliate: true });
    expect(all.get('cara@customers.example')).toMatchObject({ firstName: 'Cara', lastName: 'Diaz', referrer: expect.objectContaining({ id: joe.id }), isAffiliate: false });
    expect(all.get('dan@customers.example')).toMatchObject({ referrer: expect.objectContaining({ id: ann.id }) });
    expect(all.has('eve@customers.example')).toBe(false);
    expect(all.has('not-an-email')).toBe(false);
    // History moved in is not lived again: no welcome or referred-sign-up email for anyone imported.
    for (const email of ['joe@partners.example', 'ann@partners.example', 'cara@customers.example', 'dan@customers.example']) expect(await app.deps.mailer.list({ to: email, limit: 10 }), email).toEqual([]);
    expect(await commissions(p)).toEqual([
      { affiliate: 'joe@partners.example', customer: 'cara@customers.example', amount: 3000, status: 'PAID', currencyISO: 'USD', saleAmount: 10000, createdAt: Date.parse('2024-02-10T12:00:00Z'), paidAt: Date.parse('2024-03-15T08:00:00Z') },
      { affiliate: 'joe@partners.example', customer: 'cara@customers.example', amount: 123456, status: 'APPROVED', currencyISO: 'USD', saleAmount: 411520, createdAt: Date.parse('2024-03-10T12:00:00Z'), paidAt: null },
      { affiliate: 'ann@partners.example', customer: 'dan@customers.example', amount: 1250, status: 'PENDING', currencyISO: 'USD', saleAmount: 12500, createdAt: Date.parse('2024-03-12T12:00:00Z'), paidAt: null },
      { affiliate: 'joe@partners.example', customer: 'cara@customers.example', amount: 800, status: 'REVERSED', currencyISO: 'USD', saleAmount: 8000, createdAt: Date.parse('2024-03-15T12:00:00Z'), paidAt: null },
    ]);
    // The affiliate's totals count what is owed or paid, not the voided commission.
    // (The wire shape has no commission total; the leaderboard's counter is read from its row.)
    expect(Number((await app.deps.db.knex('participants').where({ id: joe.id }).first('commission_total')).commission_total)).toBe(3000 + 123456);
  });

  it('a second run of the same files changes nothing', async () => {
    const before = { people: await people(p), commissions: await commissions(p) };
    const r = await cli('import', 'csv', '--format', 'rewardful', '--program', p.pid, ...files, '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.created).toEqual({ affiliates: 0, referrals: 0, sales: 0, commissions: 0 });
    expect(report.unchanged).toEqual({ participants: 4, sales: 4 });
    expect(report.refused).toHaveLength(4);
    expect(await commissions(p)).toEqual(before.commissions);
    expect(await people(p)).toEqual(before.people);
  });
});

describe('refloop import csv --format firstpromoter', () => {
  it('reads promoters, referrals and commissions with title-case headers, is_paid and written dates', async () => {
    const p = await moneyProgram(app, undefined, { currencyISO: 'EUR' });
    const r = await cli('import', 'csv', '--format', 'firstpromoter', '--program', p.pid, '--file', fixture('firstpromoter/promoters.csv'), '--file', fixture('firstpromoter/referrals.csv'), '--file', fixture('firstpromoter/commissions.csv'), '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.files.map((f: any) => f.kind)).toEqual(['affiliates', 'referrals', 'commissions']);
    expect(report.refused).toEqual([
      { file: fixture('firstpromoter/commissions.csv'), line: 5, reason: expect.stringMatching(/day-first or month-first/) },
      { file: fixture('firstpromoter/referrals.csv'), line: 3, reason: expect.stringMatching(/not-an-email/) },
    ]);
    expect(await commissions(p)).toEqual([
      { affiliate: 'mia@promoters.example', customer: 'sam@leads.example', amount: 2000, status: 'PAID', currencyISO: 'EUR', saleAmount: 10000, createdAt: Date.parse('2024-03-01T00:00:00Z'), paidAt: Date.parse('2024-03-01T00:00:00Z') },
      { affiliate: 'mia@promoters.example', customer: 'sam@leads.example', amount: 2000, status: 'APPROVED', currencyISO: 'EUR', saleAmount: 10000, createdAt: Date.parse('2024-04-01T00:00:00Z'), paidAt: null },
      { affiliate: 'leo@promoters.example', customer: 'kim@leads.example', amount: 750, status: 'PENDING', currencyISO: 'EUR', saleAmount: 5000, createdAt: Date.parse('2024-04-02T00:00:00Z'), paidAt: null },
    ]);
  });
});

describe('refloop import csv --format tolt', () => {
  it('resolves partner and customer ids across files; a transaction with a commission row is not counted twice, one without earns the structure', async () => {
    const p = await moneyProgram(app);
    // Given in any order, one file named by its kind.
    const args = ['--file', fixture('tolt/transactions.csv'), '--file', `commissions=${fixture('tolt/commissions.csv')}`, '--file', fixture('tolt/customers.csv'), '--file', fixture('tolt/partners.csv')];
    const r = await cli('import', 'csv', '--format', 'tolt', '--program', p.pid, ...args, '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.created).toEqual({ affiliates: 1, referrals: 2, sales: 2, commissions: 1 });
    expect(report.unchanged.sales).toBe(1);
    expect(report.refused).toEqual([{ file: fixture('tolt/commissions.csv'), line: 3, reason: expect.stringMatching(/Unknown customer cust_nobody/) }]);
    const all = await people(p);
    expect(all.get('jim@customers.example')).toMatchObject({ firstName: 'Jim', lastName: 'Halpert', referrer: expect.objectContaining({ id: all.get('michael@dundermifflin.example')!.id }) });
    expect(await commissions(p)).toEqual([
      { affiliate: 'michael@dundermifflin.example', customer: 'jim@customers.example', amount: 1999, status: 'PENDING', currencyISO: 'USD', saleAmount: 9999, createdAt: Date.parse('2025-01-20T14:30:00Z'), paidAt: null },
      // TEN_PERCENT of $40.00, computed by AF8 at import time.
      expect.objectContaining({ affiliate: 'michael@dundermifflin.example', customer: 'pam@customers.example', amount: 400, status: 'APPROVED', saleAmount: 4000 }),
    ]);
    const again = JSON.parse((await cli('import', 'csv', '--format', 'tolt', '--program', p.pid, ...args, '--json')).out);
    expect(again.created).toEqual({ affiliates: 0, referrals: 0, sales: 0, commissions: 0 });
    expect(await commissions(p)).toHaveLength(2);
  });
});

describe('refloop import csv --format generic', () => {
  it('takes a column map: rows without a referrer are affiliates, with one referred customers, with an amount sales', async () => {
    const p = await moneyProgram(app, undefined, { currencyISO: 'GBP' });
    const map = { email: 'Email Address', name: 'Full Name', referredBy: 'affiliate_email', saleId: 'Order', saleAmount: 'Total', commissionAmount: 'Commission', currency: 'Currency', status: 'Status', date: 'Date' };
    const r = await cli('import', 'csv', '--format', 'generic', '--program', p.pid, '--file', fixture('generic/people.csv'), '--map', JSON.stringify(map));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const all = await people(p);
    expect(all.get('zoe@affiliates.example')).toMatchObject({ firstName: 'Zoe', lastName: 'Quinn', isAffiliate: true });
    expect(all.get('max@shoppers.example')).toMatchObject({ referrer: expect.objectContaining({ id: all.get('zoe@affiliates.example')!.id }) });
    expect((await commissions(p)).map((c) => [c.customer, c.amount, c.status, c.saleAmount])).toEqual([
      ['liz@shoppers.example', 15000, 'APPROVED', 100000],
      ['ray@shoppers.example', 600, 'PAID', 4000],
    ]);
  });

  it('answers 2 for wrong arguments and 1 for a file it cannot read as any export', async () => {
    expect((await cli('import', 'csv', '--program', 'x', '--file', 'y')).code).toBe(2);
    expect((await cli('import', 'csv', '--format', 'generic', '--program', 'x', '--file', 'y')).code).toBe(2);
    expect((await cli('import', 'csv', '--format', 'tolt', '--program', 'x', '--file', 'y', '--map', '{}')).code).toBe(2);
    const p = await moneyProgram(app);
    const r = await cli('import', 'csv', '--format', 'tolt', '--program', p.pid, '--file', fixture('unknown.csv'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is not an affiliates, referrals, commissions or sales export.*Nothing was imported/s);
    expect((await cli('import', 'csv', '--help')).out).toMatch(/Usage: refloop import csv --format rewardful\|firstpromoter\|tolt\|generic/);
  });
});
