import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, startApp, createAccount, verifiedAccount, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

/** Runs `refloop …` in-process against the test app's database. */
const cli = (...argv: string[]) => runCli(app, ...argv);

describe('refloop CLI', () => {
  it('prints help for every command', async () => {
    for (const cmd of [[], ['serve'], ['migrate'], ['mail', 'list'], ['team', 'list'], ['team', 'verify'], ['team', 'plan'], ['team', 'disable'], ['team', 'enable'], ['keys', 'create'], ['keys', 'revoke']]) {
      const r = await cli(...cmd, '--help');
      expect(r.code, cmd.join(' ')).toBe(0);
      expect(r.out).toMatch(/Usage: refloop/);
    }
  });

  it('answers 2 for an unknown command or option', async () => {
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('team', 'list', '--bogus')).code).toBe(2);
  });

  it('migrate is safe to run twice', async () => {
    expect((await cli('migrate')).code).toBe(0);
    expect((await cli('migrate')).out).toMatch(/up to date/);
  });

  it('mail list shows the outbox with every link, as text and JSON', async () => {
    const acct = await createAccount(app, 'cli-mail@acme-cli.com');
    const text = await cli('mail', 'list', '--to', acct.email);
    expect(text.code).toBe(0);
    expect(text.out).toContain(acct.verifyLink);
    expect(text.out).toContain(acct.passwordLink);
    const json = JSON.parse((await cli('mail', 'list', '--to', acct.email, '--json')).out);
    expect(json[0].links).toEqual([acct.verifyLink, acct.passwordLink]);
  });

  it('team list, verify, plan, disable and enable act on the team', async () => {
    const acct = await verifiedAccount(app, 'cli-team@acme-cli.com');
    const list = JSON.parse((await cli('team', 'list', '--json')).out);
    expect(list.find((t: { id: string }) => t.id === acct.teamId)).toMatchObject({ ownerEmail: acct.email, ownerEmailVerified: true, plan: 'TRIAL' });
    expect((await cli('team', 'verify', acct.teamId)).code).toBe(0);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).body.verificationStatus).toBe('VERIFIED');
    expect((await cli('team', 'plan', acct.teamId, '--plan', 'business', '--payment-method', 'on')).code).toBe(0);
    const row = await app.deps.db.knex('teams').where({ id: acct.teamId }).first();
    expect(row.plan).toBe('BUSINESS');
    expect(Boolean(row.has_payment_method)).toBe(true);
    expect((await cli('team', 'plan', acct.teamId, '--plan', 'gold')).code).toBe(1);
    expect((await cli('team', 'disable', acct.teamId)).code).toBe(0);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).body.code).toBe('ACCOUNT_DISABLED_ERROR');
    expect((await cli('team', 'enable', acct.teamId)).code).toBe(0);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
    expect((await cli('team', 'verify', 'no-such-team')).code).toBe(1);
  });

  it('keys create prints the key once with its scopes, and keys revoke kills it', async () => {
    const acct = await verifiedAccount(app, 'cli-keys@acme-cli.com');
    const created = await cli('keys', 'create', '--team', acct.teamId, '--scopes', 'team:read', '--json');
    expect(created.code).toBe(0);
    const { apiKey, prefix } = JSON.parse(created.out);
    expect((await app.request('GET', '/v2/team', { key: apiKey })).status).toBe(200);
    expect((await app.request('PATCH', '/v2/team', { key: apiKey, body: { name: 'x' } })).status).toBe(403);
    expect((await cli('keys', 'revoke', prefix)).code).toBe(0);
    expect((await app.request('GET', '/v2/team', { key: apiKey })).status).toBe(403);
    expect((await cli('keys', 'revoke', prefix)).code).toBe(1);
    expect((await cli('keys', 'create', '--team', acct.teamId, '--scopes', 'team:fly')).code).toBe(1);
    expect((await cli('keys', 'create', '--team', acct.teamId)).code).toBe(2);
  });
});

describe('issue #21: refloop … | head', () => {
  /** Runs bin/refloop.js with its standard output already closed by the reader, as `| head` leaves it. */
  function withClosedStdout(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    const root = path.resolve(import.meta.dirname, '../..');
    const child = spawn(process.execPath, [path.join(root, 'bin/refloop.js'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  }

  it('ends quietly with status 0 when standard output is closed, for help and for a database command', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-epipe-'));
    try {
      for (const args of [['--help'], ['team', 'list']]) {
        const r = await withClosedStdout(args, { DATA_DIR: dataDir, DATABASE_URL: '' });
        expect(r, args.join(' ')).toEqual({ code: 0, stderr: '' });
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
