import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, createAccount, verifiedAccount, type TestApp } from '../../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

describe('GET /team', () => {
  it('returns the team bound to the key, with the ownerEmailVerified extension', async () => {
    const acct = await createAccount(app, 'ann@acme-widgets.com', { company: 'Acme Widgets' });
    const res = await app.request('GET', '/v2/team', { key: acct.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Acme Widgets', verificationStatus: 'NOT_REQUESTED', verificationRequestedAt: null, ownerEmailVerified: false });
  });

  it('answers 403 NOT_AUTHORIZED_ERROR saying no key was provided when the header is missing', async () => {
    const res = await app.request('GET', '/v2/team');
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ code: 'NOT_AUTHORIZED_ERROR', status: 403, level: 'error', name: 'NotAuthorizedError' });
    expect(res.body.message).toMatch(/no api key provided/i);
    expect(new Date(res.body.timestamp).toString()).not.toBe('Invalid Date');
  });

  it('answers 403 saying the key is not valid for an unknown key', async () => {
    const res = await app.request('GET', '/v2/team', { key: 'sk_doesnotexist' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect(res.body.message).toMatch(/not valid/i);
  });

  it('answers 403 for a malformed Authorization header', async () => {
    const res = await app.request('GET', '/v2/team', { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/not valid/i);
  });
});

describe('PATCH /team', () => {
  it('renames the team', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'Pied Piper Labs' } });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Pied Piper Labs');
  });

  it('rejects unknown properties and empty names with per-field errors', async () => {
    const acct = await verifiedAccount(app);
    const unknown = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'X', plan: 'free' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('BAD_REQUEST_ERROR');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'plan', code: 'UNKNOWN_FIELD' })]);
    const empty = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0]).toMatchObject({ field: 'name', code: 'TOO_SHORT' });
    const long = await app.request('PATCH', '/v2/team', { key: acct.key, body: { name: 'x'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.errors[0]).toMatchObject({ field: 'name', code: 'TOO_LONG' });
  });

  it('accepts a form-encoded body', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('PATCH', '/v2/team', {
      key: acct.key,
      raw: 'name=Form+Team',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Form Team');
  });
});

describe('POST /team/verification-request', () => {
  it('moves NOT_REQUESTED to REQUESTED and a repeat changes nothing', async () => {
    const acct = await verifiedAccount(app);
    const first = await app.request('POST', '/v2/team/verification-request', { key: acct.key, raw: '', headers: { 'content-type': 'application/json' } });
    expect(first.status).toBe(200);
    expect(first.body.verificationStatus).toBe('REQUESTED');
    expect(first.body.verificationRequestedAt).toBe(app.clock.now());
    app.clock.advance(1000);
    const again = await app.request('POST', '/v2/team/verification-request', { key: acct.key, body: {} });
    expect(again.body).toEqual(first.body);
  });
});

describe('POST /team/owner/verification-email', () => {
  it('sends a fresh verification link while the key is locked, then 400 once verified', async () => {
    const acct = await createAccount(app);
    const res = await app.request('POST', '/v2/team/owner/verification-email', { key: acct.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, status: 'SENT' });
    const [latest] = await app.deps.mailer.list({ to: acct.email, limit: 1 });
    const link = latest!.links.find((l) => l.includes('/verify?'))!;
    expect(link).not.toBe(acct.verifyLink);
    expect((await fetch(app.local(link))).status).toBe(200);
    const after = await app.request('POST', '/v2/team/owner/verification-email', { key: acct.key });
    expect(after.status).toBe(400);
  });
});

describe('POST /team/owner/verification-email limit', () => {
  it('has its own stricter limit: the 4th resend within an hour answers 429', async () => {
    const acct = await createAccount(app);
    for (let i = 0; i < 3; i++) expect((await app.request('POST', '/v2/team/owner/verification-email', { key: acct.key })).status).toBe(200);
    const res = await app.request('POST', '/v2/team/owner/verification-email', { key: acct.key });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'VERIFICATION_EMAIL' });
  });
});

describe('unknown routes and malformed bodies', () => {
  it('answers 404 with the error object for an unknown route', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('GET', '/v2/nothing-here', { key: acct.key });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND_ERROR');
  });

  it('answers 400 INVALID_JSON_ERROR for malformed JSON', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('PATCH', '/v2/team', { key: acct.key, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_JSON_ERROR');
  });

  it('answers 400 with its own code for a JSON body over 1 MiB', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('PATCH', '/v2/team', { key: acct.key, raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('REQUEST_BODY_TOO_LARGE_ERROR');
  });

  it('sends no CORS headers on /v2', async () => {
    const acct = await verifiedAccount(app);
    const res = await app.request('GET', '/v2/team', { key: acct.key, headers: { origin: 'https://evil.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('routing', () => {
  it('finds an operation whatever the case of its path, answers HEAD like GET, and words 404 for unknown paths and methods', async () => {
    const acct = await verifiedAccount(app, 'routing@acme-widgets.com');
    const upper = await app.request('GET', '/v2/TEAM', { key: acct.key });
    expect(upper.status).toBe(200);
    expect(upper.body.name).toBeDefined();
    const head = await fetch(`${app.url}/v2/team`, { method: 'HEAD', headers: { authorization: `Bearer ${acct.key}` } });
    expect(head.status).toBe(200);
    const campaign = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
    expect(campaign.status).toBe(200);
    const participants = await app.request('GET', `/v2/Campaign/${campaign.body.id}/Participants`, { key: acct.key });
    expect(participants.status).toBe(200);
    for (const [method, path] of [
      ['GET', '/v2/nothing-here'],
      ['GET', `/v2/campaign/${campaign.body.id}/nothing-here`],
      ['PUT', '/v2/team'],
      ['DELETE', `/v2/campaign/${campaign.body.id}/participants`],
    ] as const) {
      const res = await app.request(method, path, { key: acct.key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND_ERROR', status: 404 });
      expect(res.body.message).toBe(`No operation ${method} ${path}.`);
    }
  });
});
