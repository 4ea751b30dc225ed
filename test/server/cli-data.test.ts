import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, startApp, verifiedAccount, type TestApp } from '../helpers/app.ts';
import { parseCsv } from '../../shared/csv.ts';

// `refloop export …` and `refloop import participants …` (issue #23): the Data extensions from a shell.

let app: TestApp;
let key: string;
let pid: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-cli-data-'));

/** Runs `refloop …` in-process against the test app's database. */
const cli = (...argv: string[]) => runCli(app, ...argv);

beforeAll(async () => {
  app = await startApp();
  const acct = await verifiedAccount(app);
  key = acct.key;
  pid = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL' } })).body.id;
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('refloop export / import', () => {
  it('prints help for both commands and answers 2 for missing arguments', async () => {
    for (const cmd of [['export'], ['export', 'participants'], ['import', 'participants']]) {
      const r = await cli(...cmd, '--help');
      expect(r.code, cmd.join(' ')).toBe(0);
      expect(r.out).toMatch(/Usage: refloop (export|import participants)/);
    }
    expect((await cli('--help')).out).toMatch(/export TABLE/);
    expect((await cli('export', 'participants')).code).toBe(2);
    expect((await cli('export', 'payouts', '--program', pid)).code).toBe(2);
    expect((await cli('import', 'participants', '--program', pid)).code).toBe(2);
    expect((await cli('export', 'participants', '--program', 'nope')).code).toBe(1);
    expect((await cli('export', 'commissions', '--program', pid)).code).toBe(1);
  });

  it('dry-runs a file with problems (each listed by line and field), then imports a good one, then exports it', async () => {
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, 'email,referredBy\r\nann@example.com,\r\nbroken,\r\nbob@example.com,nobody@example.com\r\n');
    const dry = await cli('import', 'participants', '--program', pid, '--file', bad, '--dry-run');
    expect(dry.code).toBe(1);
    expect(dry.err).toContain('line 3  email');
    expect(dry.err).toContain('line 4  referredBy');
    expect(dry.out).toMatch(/2 of 3 rows are invalid; nothing would be imported/);
    const real = await cli('import', 'participants', '--program', pid, '--file', bad);
    expect(real.code).toBe(1);
    expect(real.err).toMatch(/line 3: email/);
    const good = path.join(dir, 'good.csv');
    fs.writeFileSync(good, 'email,firstName,referredBy,metadata.plan\r\nann@example.com,Ann,,pro\r\nbob@example.com,=cmd(),ann@example.com,\r\n');
    const json = await cli('import', 'participants', '--program', pid, '--file', good, '--dry-run', '--json');
    expect(JSON.parse(json.out)).toMatchObject({ dryRun: true, created: 2, errors: [] });
    const done = await cli('import', 'participants', '--program', pid, '--file', good);
    expect(done.code, done.err).toBe(0);
    expect(done.out).toMatch(/Added 2 participants/);

    const file = path.join(dir, 'participants.csv');
    const exported = await cli('export', 'participants', '--program', pid, '--out', file);
    expect(exported.code, exported.err).toBe(0);
    expect(exported.err).toMatch(/Wrote 2 participants/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const rows = parseCsv(fs.readFileSync(file, 'utf8'));
    expect(rows.map((r) => r.cells[1])).toEqual(['email', 'ann@example.com', 'bob@example.com']);
    expect(rows[2]!.cells[2]).toBe("'=cmd()");
    // The same bytes as the REST export.
    const rest = await app.request('GET', `/v2/campaign/${pid}/export/participants.csv`, { key });
    expect(fs.readFileSync(file, 'utf8')).toBe(rest.text);
    const stdout = await cli('export', 'referrals', '--program', pid);
    expect(stdout.out).toMatch(/^"referredId",.*\r\n".*","bob@example.com",".*","ann@example.com","CREDIT_AWARDED"/s);
  });
});
