import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config.ts';
import { openDb, type Db } from '../../../server/db/connect.ts';
import type { CheckpointerOptions } from '../../../server/db/checkpointer.ts';
import { onPostgres, RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { moneyProgram, sale } from '../../helpers/money.ts';

// Issue #26 goal 5: an acknowledged write survives an OS crash or power cut, not only a process
// crash. SQLite runs `synchronous = FULL` by default (each COMMIT syncs the WAL before it returns;
// the group commits share that sync), on the request connection and the checkpointer thread's alike;
// NORMAL is an explicit opt-in through SQLITE_SYNCHRONOUS.

const dirs: string[] = [];
const dbs: Db[] = [];
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const db of dbs.splice(0)) await db.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-sync-'));
  dirs.push(dir);
  return path.join(dir, 'refloop.db');
}

function open(env: Record<string, string>, checkpointer?: CheckpointerOptions): Db {
  const db = openDb(loadConfig({ DATABASE_URL: tempFile(), ...env }).database, { checkpointer });
  dbs.push(db);
  return db;
}

/** What SQLite answers for `PRAGMA synchronous` on the connection queries run on: 2 FULL, 1 NORMAL. */
const synchronous = async (db: Db) => (await db.knex.raw('PRAGMA synchronous'))[0].synchronous as number;

/** Writes until the WAL passes the checkpointer's threshold and its thread has reported its connection. */
async function startCheckpointer(db: Db): Promise<number> {
  await db.knex.schema.createTable('probe', (t) => {
    t.integer('id').primary();
    t.text('body').notNullable();
  });
  const filler = 'x'.repeat(1024);
  const end = Date.now() + 30_000;
  for (let i = 0; db.checkpointer!.state.synchronous === null; i++) {
    if (Date.now() > end) throw new Error('the checkpointer thread did not start');
    await db.grouped((trx) => trx('probe').insert(Array.from({ length: 20 }, (_, k) => ({ id: i * 20 + k, body: filler }))));
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(db.checkpointer!.state.failure).toBeNull();
  return db.checkpointer!.state.synchronous!;
}

describe('SQLITE_SYNCHRONOUS configuration', () => {
  it('is FULL unless NORMAL is asked for, in any case, and refuses anything else by name', () => {
    const file = path.join(os.tmpdir(), 'never-opened.db');
    expect(loadConfig({ DATABASE_URL: file }).database).toMatchObject({ client: 'better-sqlite3', synchronous: 'FULL' });
    expect(loadConfig({}).database).toMatchObject({ client: 'better-sqlite3', synchronous: 'FULL' });
    expect(loadConfig({ DATABASE_URL: file, SQLITE_SYNCHRONOUS: 'NORMAL' }).database).toMatchObject({ synchronous: 'NORMAL' });
    expect(loadConfig({ DATABASE_URL: file, SQLITE_SYNCHRONOUS: 'normal' }).database).toMatchObject({ synchronous: 'NORMAL' });
    expect(loadConfig({ DATABASE_URL: file, SQLITE_SYNCHRONOUS: 'full' }).database).toMatchObject({ synchronous: 'FULL' });
    for (const bad of ['OFF', 'EXTRA', '0', '1']) {
      expect(() => loadConfig({ DATABASE_URL: file, SQLITE_SYNCHRONOUS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: file, SQLITE_SYNCHRONOUS: bad })).toThrow(/SQLITE_SYNCHRONOUS must be FULL .* or NORMAL/);
    }
    // PostgreSQL has durability of its own (synchronous_commit); the SQLite setting does not reach it.
    expect(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1/db', SQLITE_SYNCHRONOUS: 'NORMAL' }).database).toEqual({ client: 'pg', url: 'postgres://u@127.0.0.1/db' });
  });
});

describe.skipIf(onPostgres)('SQLite synchronous pragma (SQLite: PostgreSQL commits durably by its own settings)', () => {
  it('is FULL on the running server by default', async () => {
    const app = await startApp();
    apps.push(app);
    expect(app.deps.db.dialect).toBe('sqlite');
    expect(await synchronous(app.deps.db)).toBe(2);
    // And every write path still works and is read back (a sign-up through the API).
    const account = await app.request('POST', '/v2/accounts', { body: { email: 'durable@acme-widgets.com', company: 'Durable Co' } });
    expect(account.status).toBe(200);
    expect(await synchronous(app.deps.db)).toBe(2);
  });

  it('is NORMAL on the running server only when SQLITE_SYNCHRONOUS=NORMAL', async () => {
    const app = await startApp({ SQLITE_SYNCHRONOUS: 'NORMAL' });
    apps.push(app);
    expect(await synchronous(app.deps.db)).toBe(1);
  });

  it('is FULL for a database opened without a setting (scripts, the bench seeding a file)', async () => {
    const db = openDb({ client: 'better-sqlite3', filename: tempFile() }, { checkpointer: false });
    dbs.push(db);
    expect(await synchronous(db)).toBe(2);
  });

  it('shares one synced COMMIT among concurrent sales (group commit), each answered exactly once', async () => {
    const app = await startApp(RAISED_LIMITS);
    apps.push(app);
    const p = await moneyProgram(app);
    const billing = { plan: 'UNLIMITED', hasPaymentMethod: true, trialEndsAt: null };
    const program = await app.deps.programs.forRequest(p.teamId, p.pid, billing as never);
    let commits = 0;
    app.deps.db.knex.on('query', (q: { sql: string }) => {
      if (/^commit\b/i.test(q.sql.trim())) commits++;
    });
    // 30 new sales and one repeat of an order id among them, recorded at once (AF8's domain call: over
    // HTTP from this same process the requests reach the server one event-loop turn apart, while a
    // load from other processes queues them during a COMMIT's sync, as the bench's rows (m) do).
    const bodies = [...Array.from({ length: 30 }, (_, i) => ({ currency: 'USD', grossAmount: 1000 + i, orderId: `grouped-${i}` })), { currency: 'USD', grossAmount: 5000, orderId: 'grouped-7' }];
    const answers = await Promise.all(bodies.map((body) => app.deps.transactions.record(program, p.customer.id, body)));
    expect(answers.filter((a) => a.duplicate === true)).toHaveLength(1);
    expect(answers.filter((a) => a.duplicate === false)).toHaveLength(30);
    const stored = await app.deps.db.knex('commissions').where({ program_id: p.pid }).count({ n: '*' }).first();
    expect(Number(stored!.n)).toBe(30);
    // Far fewer COMMITs than sales: callers that queued while one ran shared the next transaction.
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThanOrEqual(3);
    // And over REST a sale still answers (the group of one).
    const res = await sale(app, p, { grossAmount: 700, orderId: 'grouped-rest' });
    expect(res.status, res.text).toBe(200);
  });

  it('shares one synced COMMIT among concurrent referred sign-ups, each added once with exact counts', async () => {
    const app = await startApp(RAISED_LIMITS);
    apps.push(app);
    const acct = await verifiedAccount(app);
    const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] } });
    expect(created.status, created.text).toBe(200);
    const billing = { plan: 'UNLIMITED', hasPaymentMethod: true, trialEndsAt: null };
    const program = await app.deps.programs.forRequest(acct.teamId, created.body.id, billing as never);
    const referrer = await app.deps.participants.create(program, billing as never, { email: 'referrer@example.com' } as never);
    let commits = 0;
    app.deps.db.knex.on('query', (q: { sql: string }) => {
      if (/^commit\b/i.test(q.sql.trim())) commits++;
    });
    // 20 referred friends and one of them twice, at once (P3's domain call, as for sales above).
    const emails = [...Array.from({ length: 20 }, (_, i) => `friend-${i}@example.com`), 'friend-3@example.com'];
    const added = await Promise.all(emails.map((email) => app.deps.participants.create(program, billing as never, { email, referredBy: referrer.id } as never)));
    expect(added.filter((p) => p.isNew)).toHaveLength(20);
    expect(new Set(added.map((p) => p.id)).size).toBe(20);
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThanOrEqual(3);
    const read = await app.request('GET', `/v2/campaign/${program.id}/participant/${referrer.id}`, { key: acct.key });
    expect(read.body.referralCount).toBe(20);
    const campaign = await app.request('GET', `/v2/campaign/${program.id}`, { key: acct.key });
    expect(campaign.body).toMatchObject({ participantCount: 21, referralCount: 20 });
  });

  it("is the same on the checkpointer thread's connection as on the request connection", async () => {
    const tiny = { startAtBytes: 64 * 1024, watchMs: 10, intervalMs: 20 };
    const full = open({}, tiny);
    expect(await startCheckpointer(full)).toBe(2);
    expect(await synchronous(full)).toBe(2);
    const normal = open({ SQLITE_SYNCHRONOUS: 'NORMAL' }, tiny);
    expect(await startCheckpointer(normal)).toBe(1);
    expect(await synchronous(normal)).toBe(1);
  }, 60_000);
});
