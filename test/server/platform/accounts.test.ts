import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, createAccount, type TestApp } from '../../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

describe('POST /accounts', () => {
  it('creates a team on a 14-day trial, an owner who accepted the terms, and returns exactly email, apiKey, verificationStatus', async () => {
    const res = await app.request('POST', '/v2/accounts', {
      body: { email: 'Richard@PiedPiper.com', firstName: 'Richard', lastName: 'Hendricks', company: 'Pied Piper' },
      headers: { 'x-stainless-lang': 'python' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['apiKey', 'email', 'verificationStatus']);
    expect(res.body).toMatchObject({ email: 'richard@piedpiper.com', verificationStatus: 'NOT_REQUESTED' });
    expect(res.body.apiKey).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    const user = await app.deps.db.knex('users').where({ email: 'richard@piedpiper.com' }).first();
    expect(Number(user.terms_accepted_at)).toBe(app.clock.now());
    expect(user.terms_version).toBeTruthy();
    expect(user.terms_ip).toMatch(/127\.0\.0\.1/);
    const team = await app.deps.db.knex('teams').join('memberships', 'memberships.team_id', 'teams.id').where('memberships.user_id', user.id).first('teams.*', 'memberships.role');
    expect(team.role).toBe('OWNER');
    expect(team.plan).toBe('TRIAL');
    expect(Number(team.trial_ends_at)).toBe(app.clock.now() + 14 * 24 * 3600 * 1000);
  });

  it('sends the welcome email with a verification link under /verify and a set-password link', async () => {
    const acct = await createAccount(app, 'dinesh@piedpiper-labs.com');
    expect(new URL(acct.verifyLink).pathname).toBe('/verify');
    expect(new URL(acct.passwordLink).pathname).toBe('/set-password');
    const [mail] = await app.deps.mailer.list({ to: acct.email });
    expect(mail!.subject).toMatch(/verify/i);
    expect(mail!.text).not.toContain(acct.key);
  });

  it('rejects personal and disposable addresses with a per-field error', async () => {
    for (const [email, code] of [
      ['someone@gmail.com', 'PERSONAL_EMAIL'],
      ['someone@yahoo.co.uk', 'PERSONAL_EMAIL'],
      ['someone@mailinator.com', 'DISPOSABLE_EMAIL'],
      ['someone@sub.mailinator.com', 'DISPOSABLE_EMAIL'],
    ]) {
      const res = await app.request('POST', '/v2/accounts', { body: { email } });
      expect(res.status, email).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'email', code })]);
    }
  });

  it('rejects unknown properties, bad emails and over-long names', async () => {
    const extra = await app.request('POST', '/v2/accounts', { body: { email: 'a@acme-co.com', plan: 'free' } });
    expect(extra.status).toBe(400);
    expect(extra.body.errors[0]).toMatchObject({ field: 'plan', code: 'UNKNOWN_FIELD' });
    const bad = await app.request('POST', '/v2/accounts', { body: { email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('email');
    const missing = await app.request('POST', '/v2/accounts', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ field: 'email', code: 'REQUIRED' });
    for (const field of ['firstName', 'lastName', 'company']) {
      const long = await app.request('POST', '/v2/accounts', { body: { email: 'b@acme-co.com', [field]: 'x'.repeat(256) } });
      expect(long.status).toBe(400);
      expect(long.body.errors[0]).toMatchObject({ field, code: 'TOO_LONG' });
    }
    expect(await app.deps.db.knex('users').where({ email: 'b@acme-co.com' }).first()).toBeUndefined();
  });

  it('answers 409 when the email already has an account, and writes nothing', async () => {
    await createAccount(app, 'gilfoyle@hooli-xyz.com');
    const before = await app.deps.db.knex('teams').count({ n: '*' }).first();
    const res = await app.request('POST', '/v2/accounts', { body: { email: 'GILFOYLE@hooli-xyz.com' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('ACCOUNT_EXISTS_ERROR');
    const after = await app.deps.db.knex('teams').count({ n: '*' }).first();
    expect(Number(after!.n)).toBe(Number(before!.n));
  });

  it('needs no credential even when an Authorization header is sent', async () => {
    const res = await app.request('POST', '/v2/accounts', { key: 'sk_whatever', body: { email: 'jared@hooli-xyz.com' } });
    expect(res.status).toBe(200);
  });
});

describe('POST /accounts limit', () => {
  it('has its own per-IP limit: the 6th account in an hour answers 429', async () => {
    const strict = await startApp({ ACCOUNT_CREATION_PER_HOUR: '5' });
    try {
      for (let i = 0; i < 5; i++) expect((await strict.request('POST', '/v2/accounts', { body: { email: `u${i}@acme-limits.com` } })).status).toBe(200);
      const res = await strict.request('POST', '/v2/accounts', { body: { email: 'u6@acme-limits.com' } });
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'RATE_LIMIT', name: 'RateLimit' });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await strict.close();
    }
  });
});

describe('unverified account purge', () => {
  it('deletes an unverified account and its key 7 days after creation, and keeps verified ones', async () => {
    const doomed = await createAccount(app, 'doomed@acme-purge.com');
    const kept = await createAccount(app, 'kept@acme-purge.com');
    expect((await fetch(app.local(kept.verifyLink))).status).toBe(200);
    app.clock.advance(7 * 24 * 3600 * 1000 - 1);
    await app.deps.jobs.runDue();
    expect((await app.request('GET', '/v2/team', { key: doomed.key })).status).toBe(200);
    app.clock.advance(2);
    await app.deps.jobs.runDue();
    const gone = await app.request('GET', '/v2/team', { key: doomed.key });
    expect(gone.status).toBe(403);
    expect(gone.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect(await app.deps.db.knex('users').where({ email: 'doomed@acme-purge.com' }).first()).toBeUndefined();
    expect(await app.deps.db.knex('teams').where({ id: doomed.teamId }).first()).toBeUndefined();
    expect((await app.request('GET', '/v2/team', { key: kept.key })).status).toBe(200);
  });
});
