import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, mobile, mobileProgram, session } from '../../helpers/mobile.ts';

// Issue #5: "Tokens can be revoked by rotating the program's signing secret" — the owner's REST way to do it.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const rotate = (key: string, pid: string, opts: { body?: unknown } = {}) => app.request('POST', `/v2/campaign/${pid}/participant-token-secret/rotate`, { key, ...opts });
const mint = async (key: string, pid: string, email: string) => {
  const res = await app.request('POST', `/v2/campaign/${pid}/mobile-participant-token`, { key, body: { email } });
  expect(res.status, res.text).toBe(200);
  return res.body.participantToken as string;
};

describe('POST /campaign/{id}/participant-token-secret/rotate', () => {
  it('revokes every token minted before the rotation while tokens minted after it work', async () => {
    const p = await mobileProgram(app);
    const ann = await mint(p.key, p.pid, 'ann@example.com');
    const bob = await mint(p.key, p.pid, 'bob@example.com');
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: ann })).status).toBe(200);

    app.clock.advance(5000);
    const res = await rotate(p.key, p.pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, rotatedAt: app.clock.now() });

    for (const old of [ann, bob]) {
      const refused = await mobile(app, 'GET', '/participant', s, { participantToken: old });
      expect(refused.status).toBe(403);
      expect(refused.body.errors[0]).toMatchObject({ field: 'Authorization', code: 'INVALID' });
    }
    const fresh = await mint(p.key, p.pid, 'ann@example.com');
    const ok = await mobile(app, 'GET', '/participant', s, { participantToken: fresh });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.email).toBe('ann@example.com');
  });

  it('leaves the tokens of the owner’s other programs working', async () => {
    const p = await mobileProgram(app);
    const created = await app.request('POST', '/v2/campaigns', { key: p.key, body: { type: 'AFFILIATE' } });
    expect(created.status, created.text).toBe(200);
    const other = { ...p, pid: created.body.id as string };
    expect((await app.request('PATCH', `/v2/campaign/${other.pid}/installation`, { key: p.key, body: { mobile: { isEnabled: true } } })).status).toBe(200);
    const otherToken = await mint(p.key, other.pid, 'carl@example.com');
    const publicKey = (await app.request('GET', `/v2/campaign/${other.pid}/installation`, { key: p.key })).body.mobile.publicKey as string;
    expect((await rotate(p.key, p.pid)).status).toBe(200);
    const s = await session(app, { ...other, publicKey });
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: otherToken })).status).toBe(200);
    // An affiliate program rotates the same way.
    expect((await rotate(p.key, other.pid)).status).toBe(200);
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: otherToken })).status).toBe(403);
  });

  it('answers 400 for a body, 403 without program:write or for a program outside the key’s grant, and 404 for an unknown program', async () => {
    const p = await mobileProgram(app);
    const token = await mint(p.key, p.pid, 'ann@example.com');
    const withBody = await rotate(p.key, p.pid, { body: { secret: 'mine' } });
    expect(withBody.status).toBe(400);
    const keys = app.deps.keys;
    const readOnly = (await keys.create(app.deps.db.knex, { teamId: p.teamId, scopes: ['program:read', 'participant:write'] as never, programIds: null, origin: 'CLI' })).secret;
    const denied = await rotate(readOnly, p.pid);
    expect(denied.status).toBe(403);
    const elsewhere = (await keys.create(app.deps.db.knex, { teamId: p.teamId, scopes: ['program:write'] as never, programIds: ['someotherprogram'], origin: 'CLI' })).secret;
    expect((await rotate(elsewhere, p.pid)).status).toBe(403);
    const stranger = await mobileProgram(app);
    expect((await rotate(stranger.key, p.pid)).status).toBe(403); // another team's program, as everywhere in REST
    expect((await rotate(p.key, 'nosuchprogram')).status).toBe(404);
    // None of the refused calls rotated anything.
    const s = await session(app, p);
    expect((await mobile(app, 'GET', '/participant', s, { participantToken: token })).status).toBe(200);
  });
});
