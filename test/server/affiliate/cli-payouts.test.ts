import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { commissionsOf, moneyProgram, referralProgram, sale } from '../../helpers/money.ts';

// `refloop payouts list|run|export|mark` (issue #6): the manual payout provider from a shell,
// against the test app's database, checked over REST.

let app: TestApp;
let dir: string;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
  dir = await mkdtemp(join(tmpdir(), 'refloop-cli-payouts-'));
});
afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `refloop …` in-process against the test app's database. */
const cli = (...argv: string[]) => runCli(app, ...argv);

describe('refloop payouts', () => {
  it('prints help for each payouts command', async () => {
    for (const sub of ['list', 'run', 'export', 'mark']) {
      const r = await cli('payouts', sub, '--help');
      expect(r.code, sub).toBe(0);
      expect(r.out).toMatch(new RegExp(`Usage: refloop payouts ${sub}`));
    }
    expect((await cli('--help')).out).toMatch(/payouts mark PAYOUT/);
  });

  it('runs, lists, exports and marks payouts as REST sees them', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 12_345, orderId: 'cli-1' });
    const ran = await cli('payouts', 'run', '--program', p.pid, '--json');
    expect(ran.code, ran.err).toBe(0);
    const result = JSON.parse(ran.out);
    expect(result).toMatchObject({ success: true, payoutsCreated: 1 });
    const id = result.payouts[0].id as string;
    expect((await cli('payouts', 'run', '--program', p.pid)).out).toMatch(/^0 payouts created\./);

    const listed = await cli('payouts', 'list', '--program', p.pid, '--status', 'upcoming');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(id);
    expect(listed.out).toMatch(/UPCOMING\s+1235 USD/);
    expect((await cli('payouts', 'list', '--program', p.pid, '--status', 'ISSUED')).out).toMatch(/No payouts\./);

    const file = join(dir, 'batch.csv');
    const exported = await cli('payouts', 'export', '--program', p.pid, '--out', file);
    expect(exported.code, exported.err).toBe(0);
    expect(exported.err).toMatch(/Wrote 1 payout to/);
    const csv = await readFile(file, 'utf8');
    const rest = await app.request('GET', `/v2/campaign/${p.pid}/payouts/export.csv`, { key: p.key });
    expect(csv).toBe(rest.text);
    expect((await stat(file)).mode & 0o077).toBe(0);
    // A PayPal file without destinations lists nothing and says why on standard error.
    const paypal = await cli('payouts', 'export', '--program', p.pid, '--format', 'paypal');
    expect(paypal.code).toBe(0);
    expect(paypal.out.trim()).toBe('');
    expect(paypal.err).toContain(`Left out ${id}: destination is missing.`);

    const queued = await cli('payouts', 'mark', id, '--program', p.pid, '--status', 'queued');
    expect(queued.code, queued.err).toBe(0);
    expect(queued.out).toBe(`Payout ${id} is QUEUED.\n`);
    const issued = await cli('payouts', 'mark', id, '--program', p.pid, '--status', 'ISSUED', '--reason', 'PayPal batch 42', '--json');
    expect(issued.code, issued.err).toBe(0);
    expect(JSON.parse(issued.out)).toMatchObject({ id, status: 'ISSUED', issuedAt: expect.any(Number) }); // the CLI runs on the wall clock
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'PAID' });
    const rows = (await app.request('GET', `/v2/campaign/${p.pid}/payouts?status=ISSUED`, { key: p.key })).body.payouts;
    expect(rows.map((x: { id: string }) => x.id)).toEqual([id]);
    const log = await app.request('GET', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}/activity-logs`, { key: p.key });
    expect(JSON.stringify(log.body)).toContain(`Payout ${id} ISSUED: PayPal batch 42`);
    // REST's rules hold: ISSUED cannot become FAILED.
    const refused = await cli('payouts', 'mark', id, '--program', p.pid, '--status', 'FAILED');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/is ISSUED; it cannot become FAILED/);
  });

  it('rejects a bad status, a missing payout or program, and referral programs with a clear message', async () => {
    const p = await moneyProgram(app);
    const bad = await cli('payouts', 'mark', 'x', '--program', p.pid, '--status', 'PAID');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/Unknown --status PAID: use QUEUED, ISSUED, FAILED or REVERSED/);
    expect((await cli('payouts', 'mark', 'x', '--program', p.pid, '--status', 'UPCOMING')).code).toBe(2);
    expect((await cli('payouts', 'mark', 'x', '--program', p.pid)).err).toMatch(/Missing --status/);
    expect((await cli('payouts', 'mark', '--program', p.pid, '--status', 'ISSUED')).err).toMatch(/Missing PAYOUT/);
    expect((await cli('payouts', 'list', '--program', p.pid, '--status', 'LOST')).code).toBe(2);
    expect((await cli('payouts', 'export', '--program', p.pid, '--format', 'swift')).code).toBe(2);
    expect((await cli('payouts', 'list')).err).toMatch(/Missing --program/);

    const unknown = await cli('payouts', 'mark', 'nosuchpayout0000000', '--program', p.pid, '--status', 'ISSUED');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/No payout nosuchpayout0000000/);
    const noProgram = await cli('payouts', 'run', '--program', 'nosuchprogram');
    expect(noProgram.code).toBe(1);
    expect(noProgram.err).toMatch(/No program nosuchprogram/);
    const r = await referralProgram(app);
    const wrong = await cli('payouts', 'list', '--program', r.pid);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/payouts are for affiliate programs/);
  });
});
