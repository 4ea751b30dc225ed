import { afterEach, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../../server/config.ts';
import { createDeps } from '../../../server/deps.ts';
import { freshDatabase, startApp, createAccount, TestClock, type TestApp } from '../../helpers/app.ts';

let app: TestApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** A real local SMTP server that keeps every message it receives. */
async function smtpSink(): Promise<{ port: number; messages: Array<{ to: string[]; raw: string }>; close(): Promise<void> }> {
  const messages: Array<{ to: string[]; raw: string }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as { port: number }).port;
  return { port, messages, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('mailer', () => {
  it('keeps messages in the outbox with every link when no SMTP_URL is set', async () => {
    app = await startApp();
    const acct = await createAccount(app);
    const [mail] = await app.deps.mailer.list({ to: acct.email });
    expect(mail).toMatchObject({ status: 'OUTBOX', transport: 'outbox', kind: 'account.welcome' });
    expect(mail!.links).toEqual([acct.verifyLink, acct.passwordLink]);
    const page = await fetch(`${app.url}/_dev/mail`, { headers: { accept: 'application/json' } });
    const json = await page.json();
    expect(json.messages.some((m: { to: string }) => m.to === acct.email)).toBe(true);
  });

  it('delivers through a real SMTP server when SMTP_URL is set', async () => {
    const sink = await smtpSink();
    try {
      app = await startApp({ SMTP_URL: `smtp://127.0.0.1:${sink.port}` });
      const acct = await createAccount(app, 'smtp-owner@acme-mail.com');
      const [queued] = await app.deps.mailer.list({ to: acct.email });
      expect(queued).toMatchObject({ status: 'QUEUED', transport: 'smtp' });
      await app.deps.jobs.runDue();
      expect(sink.messages).toHaveLength(1);
      expect(sink.messages[0]!.to).toEqual(['smtp-owner@acme-mail.com']);
      expect(sink.messages[0]!.raw).toMatch(/Subject: Welcome to refloop/);
      expect(sink.messages[0]!.raw.replace(/=\r?\n/g, '')).toContain('/verify?token=');
      const [sent] = await app.deps.mailer.list({ to: acct.email });
      expect(sent!.status).toBe('SENT');
    } finally {
      await sink.close();
    }
  });

  it('retries a failed SMTP delivery with backoff', async () => {
    const sink = await smtpSink();
    const port = sink.port;
    await sink.close();
    app = await startApp({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    const acct = await createAccount(app, 'retry-owner@acme-mail.com');
    await app.deps.jobs.runDue();
    expect((await app.deps.mailer.list({ to: acct.email }))[0]!.status).toBe('FAILED');
    const job = await app.deps.db.knex('jobs').where({ type: 'mail.deliver' }).first();
    expect(job.status).toBe('QUEUED');
    expect(Number(job.run_at)).toBeGreaterThan(app.clock.now());
  });
});

describe('job runner', () => {
  it('keeps jobs across a restart and runs them when due', async () => {
    const db = await freshDatabase();
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: db.url, JOBS: 'false' });
    const clock = new TestClock();
    try {
      const first = await createDeps(config, { clock });
      await first.jobs.enqueue(first.db.knex, 'test.note', { text: 'hello' }, { runAt: clock.now() + 60_000 });
      await first.close();
      const second = await createDeps(config, { clock });
      const seen: string[] = [];
      second.jobs.register('test.note', async (p: { text: string }) => {
        seen.push(p.text);
      });
      expect(await second.jobs.runDue()).toBe(0);
      clock.advance(60_000);
      expect(await second.jobs.runDue()).toBe(1);
      expect(seen).toEqual(['hello']);
      await second.close();
    } finally {
      await db.cleanup();
    }
  });

  it('retries a job whose process crashed once its lease expires, and a failing job with backoff', async () => {
    app = await startApp();
    const { jobs, db } = app.deps;
    let runs = 0;
    jobs.register('test.flaky', async () => {
      runs++;
      if (runs === 1) throw new Error('transient');
    });
    await jobs.enqueue(db.knex, 'test.flaky', {});
    await jobs.runDue();
    expect(runs).toBe(1);
    expect(await jobs.runDue()).toBe(0);
    app.clock.advance(10_000);
    await jobs.runDue();
    expect(runs).toBe(2);
    expect((await db.knex('jobs').where({ type: 'test.flaky' }).first()).status).toBe('DONE');

    jobs.register('test.crashed', async () => {
      runs++;
    });
    // A claim left behind by a process that died mid-job.
    await jobs.enqueue(db.knex, 'test.crashed', {});
    await db.knex('jobs').where({ type: 'test.crashed' }).update({ status: 'RUNNING', locked_by: 'dead', locked_until: app.clock.now() + 1000, attempts: 1 });
    expect(await jobs.runDue()).toBe(0);
    app.clock.advance(1001);
    expect(await jobs.runDue()).toBe(1);
    expect((await db.knex('jobs').where({ type: 'test.crashed' }).first()).status).toBe('DONE');
  });

  it('prunes expired idempotency records and sessions every hour, scheduling the next run once', async () => {
    app = await startApp();
    const { db, maintenance, jobs, clock } = { ...app.deps, clock: app.clock };
    await db.knex('idempotency_records').insert({ api_key_id: 'k', idempotency_key: 'old', fingerprint: 'f', status: 200, body_enc: 'x', created_at: clock.now() - 25 * 3600_000 });
    await db.knex('idempotency_records').insert({ api_key_id: 'k', idempotency_key: 'new', fingerprint: 'f', status: 200, body_enc: 'x', created_at: clock.now() });
    await maintenance.schedule();
    await maintenance.schedule();
    expect(await jobs.runDue()).toBe(1);
    expect((await db.knex('idempotency_records').select('idempotency_key')).map((r: { idempotency_key: string }) => r.idempotency_key)).toEqual(['new']);
    expect(await jobs.runDue()).toBe(0);
    clock.advance(3600_000);
    expect(await jobs.runDue()).toBe(1);
  });

  it('enqueues a unique job once', async () => {
    app = await startApp();
    await app.deps.jobs.enqueue(app.deps.db.knex, 'test.once', {}, { uniqueKey: 'k1' });
    await app.deps.jobs.enqueue(app.deps.db.knex, 'test.once', {}, { uniqueKey: 'k1' });
    expect(await app.deps.db.knex('jobs').where({ type: 'test.once' })).toHaveLength(1);
  });
});
