import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobile, mobileProgram, session } from '../../helpers/mobile.ts';
import { autoAuthHash } from '../../../server/domain/participant-api/participant-tokens.ts';

// Issue #5: participant tokens (REST P10, auto-authentication) and the participant-scoped mobile calls they open.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const DAY = 86_400_000;

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

const mint = (key: string, pid: string, body: unknown) => app.request('POST', `/v2/campaign/${pid}/mobile-participant-token`, { key, body });

describe('POST /campaign/{id}/mobile-participant-token', () => {
  it('creates the participant and returns a 30-day token, the participant and isNew true', async () => {
    const p = await mobileProgram(app);
    const res = await mint(p.key, p.pid, { email: 'ann@example.com', firstName: 'Ann', mobileInstanceId: '5F7D0F4C-3E7C-4AA9-8C41-D81D998F0BB1' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ participantToken: expect.any(String), expiresIn: 2592000, participant: expect.objectContaining({ email: 'ann@example.com', firstName: 'Ann' }), isNew: true });
    expect(res.body.participant.isNew).toBeUndefined();
    const [header, payload] = res.body.participantToken.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toEqual({ sub: res.body.participant.id, pid: p.pid, iat: Math.floor(app.clock.now() / 1000), exp: Math.floor(app.clock.now() / 1000) + 2592000, typ: 'participant' });
  });

  it('returns the existing participant with isNew false and a fresh token', async () => {
    const p = await mobileProgram(app);
    const first = await mint(p.key, p.pid, { email: 'bob@example.com' });
    const again = await mint(p.key, p.pid, { email: 'BOB@example.com', firstName: 'Ignored' });
    expect(again.status).toBe(200);
    expect(again.body.isNew).toBe(false);
    expect(again.body.participant.id).toBe(first.body.participant.id);
    expect(again.body.participant.firstName).toBeNull();
  });

  it('answers 406 when the program has not enabled the mobile SDK', async () => {
    const p = await mobileProgram(app, { mobile: false });
    const res = await mint(p.key, p.pid, { email: 'ann@example.com' });
    expect(res.status).toBe(406);
    expect(res.body.code).toBe('INVALID_STATE_ERROR');
    expect(await app.deps.db.knex('participants').where({ program_id: p.pid }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('answers 400 with per-field errors for an invalid body', async () => {
    const p = await mobileProgram(app);
    const res = await mint(p.key, p.pid, { email: 'not-an-email', mobileInstanceId: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'mobileInstanceId']);
  });

  it('answers 403 without participant:write or outside the key’s programs', async () => {
    const p = await mobileProgram(app);
    const readOnly = await limitedKey(p.teamId, ['participant:read']);
    expect((await mint(readOnly, p.pid, { email: 'ann@example.com' })).status).toBe(403);
    const otherProgram = await limitedKey(p.teamId, ['participant:write'], ['someotherprogram']);
    expect((await mint(otherProgram, p.pid, { email: 'ann@example.com' })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const acct = await verifiedAccount(app);
    expect((await mint(acct.key, 'nosuchprogram', { email: 'ann@example.com' })).status).toBe(404);
  });
});

describe('GET /mobile/v2/participant', () => {
  it('returns the signed-in participant’s own record, without fraud, device or owner-only fields', async () => {
    const p = await mobileProgram(app);
    const { body } = await mint(p.key, p.pid, { email: 'own@example.com', ipAddress: '203.0.113.9', metadata: { plan: 'pro' } });
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/participant', s, { participantToken: body.participantToken });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: body.participant.id, email: 'own@example.com', metadata: { plan: 'pro' }, shareUrl: body.participant.shareUrl });
    for (const hidden of ['ipAddress', 'fingerprint', 'mobileInstanceId', 'fraudRiskLevel', 'allMatchingFraudsters', 'notes', 'referrer', 'referrals']) expect(res.body[hidden], hidden).toBeUndefined();
  });

  it('answers 403 naming Authorization without a participant token', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const res = await mobile(app, 'GET', '/participant', s);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'Authorization', code: 'MISSING' })]);
  });

  it('answers 403 for another program’s token', async () => {
    const a = await mobileProgram(app);
    const b = await mobileProgram(app);
    const { body } = await mint(a.key, a.pid, { email: 'ann@example.com' });
    const s = await session(app, b);
    const res = await mobile(app, 'GET', '/participant', s, { participantToken: body.participantToken });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ field: 'Authorization', code: 'INVALID' });
  });

  it('answers 403 for a tampered token naming another participant', async () => {
    const p = await mobileProgram(app);
    const ann = (await mint(p.key, p.pid, { email: 'ann@example.com' })).body;
    const bob = (await mint(p.key, p.pid, { email: 'bob@example.com' })).body;
    const [h, payload, sig] = ann.participantToken.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: bob.participant.id })).toString('base64url')}.${sig}`;
    const noneAlg = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    const s = await session(app, p);
    for (const token of [forged, noneAlg, `${ann.participantToken}x`]) {
      expect((await mobile(app, 'GET', '/participant', s, { participantToken: token })).status).toBe(403);
    }
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: ann.participantToken })).body.id).toBe(ann.participant.id);
  });

  it('answers 403 once the token is 30 days old', async () => {
    const p = await mobileProgram(app);
    const { body } = await mint(p.key, p.pid, { email: 'ann@example.com' });
    app.clock.advance(30 * DAY - 1000);
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: body.participantToken })).status).toBe(200);
    app.clock.advance(1000);
    const later = await session(app, p);
    expect((await mobile(app, 'GET', '/participant', later, { participantToken: body.participantToken })).status).toBe(403);
  });

  it('answers 403 for every earlier token after the program’s signing secret is rotated', async () => {
    const p = await mobileProgram(app);
    const old = (await mint(p.key, p.pid, { email: 'ann@example.com' })).body.participantToken;
    await app.deps.participantTokens.rotateSigningSecret(p.pid);
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: old })).status).toBe(403);
    const fresh = (await mint(p.key, p.pid, { email: 'ann@example.com' })).body.participantToken;
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: fresh })).status).toBe(200);
  });

  it('answers 403 when the participant was deleted', async () => {
    const p = await mobileProgram(app);
    const { body } = await mint(p.key, p.pid, { email: 'gone@example.com' });
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/participant/${body.participant.id}`, { key: p.key })).status).toBe(200);
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: body.participantToken })).status).toBe(403);
  });

  it('answers 403 naming X-Session-Token without a session, and EXPIRED after an hour', async () => {
    const p = await mobileProgram(app);
    const { body } = await mint(p.key, p.pid, { email: 'ann@example.com' });
    const none = await app.request('GET', '/mobile/v2/participant', { headers: { 'x-program-id': p.pid, 'x-public-key': p.publicKey!, authorization: `Bearer ${body.participantToken}` } });
    expect(none.status).toBe(403);
    expect(none.body.errors[0]).toMatchObject({ field: 'X-Session-Token', code: 'MISSING' });
    const s = await session(app, p);
    app.clock.advance(3600_000);
    const expired = await mobile(app, 'GET', '/participant', s, { participantToken: body.participantToken });
    expect(expired.status).toBe(403);
    expect(expired.body.errors[0]).toMatchObject({ field: 'X-Session-Token', code: 'EXPIRED' });
  });
});

describe('POST /mobile/v2/participant-token (auto-authentication)', () => {
  it('computes web-sdk.md’s test vector', () => {
    expect(autoAuthHash('secret', 'Participant@Email.com')).toBe('1d9ecfbe1b6ab47494cff73bd689c8289ecb9977c4d7e89f633c06a5bba3fafa');
  });

  it('exchanges the email and its hash under the auth secret for a participant token', async () => {
    const p = await mobileProgram(app);
    const participant = await addParticipant(app, p, { email: 'Participant@Email.com' });
    await app.deps.participantTokens.createAuthSecret(p.pid, 'secret');
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participant-token', s, { body: { email: 'Participant@Email.com', hash: '1d9ecfbe1b6ab47494cff73bd689c8289ecb9977c4d7e89f633c06a5bba3fafa' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ expiresIn: 2592000, participant: { id: participant.id } });
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: res.body.participantToken })).body.id).toBe(participant.id);
  });

  it('answers 403 for a hash of another spelling of the email, a wrong secret or no secret', async () => {
    const p = await mobileProgram(app);
    await addParticipant(app, p, { email: 'Participant@Email.com' });
    const s = await session(app, p);
    const body = { email: 'Participant@Email.com', hash: autoAuthHash('secret', 'Participant@Email.com') };
    expect((await mobile(app, 'POST', '/participant-token', s, { body })).status).toBe(403);
    await app.deps.participantTokens.createAuthSecret(p.pid, 'secret');
    expect((await mobile(app, 'POST', '/participant-token', s, { body: { ...body, email: 'participant@email.com' } })).status).toBe(403);
    expect((await mobile(app, 'POST', '/participant-token', s, { body: { ...body, hash: autoAuthHash('other', body.email) } })).status).toBe(403);
  });

  it('answers 400 for a malformed hash and for an email with no participant', async () => {
    const p = await mobileProgram(app);
    await app.deps.participantTokens.createAuthSecret(p.pid, 'secret');
    const s = await session(app, p);
    const bad = await mobile(app, 'POST', '/participant-token', s, { body: { email: 'x@example.com', hash: 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('hash');
    const unknown = await mobile(app, 'POST', '/participant-token', s, { body: { email: 'x@example.com', hash: autoAuthHash('secret', 'x@example.com') } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].code).toBe('PARTICIPANT_NOT_FOUND');
  });
});

describe('POST /campaign/{id}/participant-auth-secret', () => {
  it('creates a secret shown once that signs auto-authentication, and a second call replaces it', async () => {
    const p = await mobileProgram(app);
    const participant = await addParticipant(app, p, { email: 'ann@example.com' });
    const first = await app.request('POST', `/v2/campaign/${p.pid}/participant-auth-secret`, { key: p.key });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ participantAuthSecret: expect.stringMatching(/^pas_/), createdAt: app.clock.now() });
    const stored = await app.deps.db.knex('program_secrets').where({ program_id: p.pid, name: 'participant_auth' }).first();
    expect(stored.value_enc).not.toContain(first.body.participantAuthSecret);
    const s = await session(app, p);
    const hash = autoAuthHash(first.body.participantAuthSecret, 'ann@example.com');
    const ok = await mobile(app, 'POST', '/participant-token', s, { body: { email: 'ann@example.com', hash } });
    expect(ok.body.participant.id).toBe(participant.id);
    const second = await app.request('POST', `/v2/campaign/${p.pid}/participant-auth-secret`, { key: p.key });
    expect(second.body.participantAuthSecret).not.toBe(first.body.participantAuthSecret);
    expect((await mobile(app, 'POST', '/participant-token', s, { body: { email: 'ann@example.com', hash } })).status).toBe(403);
  });

  it('answers 400 for a body, 403 without program:write and 404 for an unknown program', async () => {
    const p = await mobileProgram(app);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/participant-auth-secret`, { key: p.key, body: { x: 1 } })).status).toBe(400);
    const readKey = await limitedKey(p.teamId, ['program:read', 'participant:write']);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/participant-auth-secret`, { key: readKey })).status).toBe(403);
    expect((await app.request('POST', '/v2/campaign/nosuchprogram/participant-auth-secret', { key: p.key })).status).toBe(404);
  });
});
