import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, createAccount, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { operations } from '../../../server/http/routes.ts';
import { SCOPES, type Scope } from '../../../shared/scopes.ts';
import { assertOperationsDeclared, operation } from '../../../server/http/operation.ts';
import { z } from 'zod';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

/** Creates a key for the team with exactly these scopes. */
async function keyWith(teamId: string, scopes: Scope[], programIds: string[] | null = null): Promise<string> {
  const k = await app.deps.keys.create(app.deps.db.knex, { teamId, scopes, programIds, origin: 'CLI' });
  return k.secret;
}

/** Fills `:param` segments with a placeholder value. */
const concrete = (path: string) => '/v2' + path.replace(/:([A-Za-z0-9_]+)/g, 'x1');

describe('credentials', () => {
  it('never answers 401: missing, unknown, revoked and rotated keys are 403 NOT_AUTHORIZED_ERROR', async () => {
    const acct = await verifiedAccount(app);
    const revoked = await keyWith(acct.teamId, [...SCOPES]);
    await app.deps.keys.revokeByPrefix(revoked.slice(0, 11));
    const rotatedOld = await keyWith(acct.teamId, [...SCOPES]);
    const rotation = await app.request('POST', '/v2/api-key/rotate', { key: rotatedOld });
    expect(rotation.status).toBe(200);
    const cases: Array<[string | undefined, RegExp]> = [
      [undefined, /no api key provided/i],
      ['sk_unknownunknownunknown', /not valid/i],
      [revoked, /not valid/i],
      [rotatedOld, /not valid/i],
    ];
    for (const [key, message] of cases) {
      const res = await app.request('GET', '/v2/team', { key });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
      expect(res.body.message).toMatch(message);
    }
  });

  it('answers 403 account disabled for a disabled team, and works again once enabled', async () => {
    const acct = await verifiedAccount(app);
    await app.deps.teams.setDisabled(acct.teamId, true);
    const res = await app.request('GET', '/v2/team', { key: acct.key });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ACCOUNT_DISABLED_ERROR');
    await app.deps.teams.setDisabled(acct.teamId, false);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
  });

  it('stores keys only as a hash plus a display prefix', async () => {
    const acct = await createAccount(app);
    const rows = await app.deps.db.knex('api_keys').where({ team_id: acct.teamId });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(acct.key);
    expect(rows[0].prefix).toBe(acct.key.slice(0, 11));
  });
});

describe('locked account-creation key', () => {
  it('answers 403 EMAIL_NOT_VERIFIED_ERROR on protected operations until the owner verifies, then the same key works', async () => {
    const acct = await createAccount(app);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(200);
    const locked = await app.request('POST', '/v2/api-key/rotate', { key: acct.key });
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe('EMAIL_NOT_VERIFIED_ERROR');
    const page = await fetch(app.local(acct.verifyLink));
    expect(page.status).toBe(200);
    const team = await app.request('GET', '/v2/team', { key: acct.key });
    expect(team.body.ownerEmailVerified).toBe(true);
    const rotate = await app.request('POST', '/v2/api-key/rotate', { key: acct.key });
    expect(rotate.status).toBe(200);
  });

  it('rejects a bad or reused verification link', async () => {
    const acct = await createAccount(app);
    expect((await fetch(app.local(acct.verifyLink))).status).toBe(200);
    expect((await fetch(app.local(acct.verifyLink))).status).toBe(400);
    expect((await fetch(`${app.url}/verify?token=nope`)).status).toBe(400);
  });
});

describe('scopes', () => {
  it('every operation in the routes table denies a key that lacks one of its scopes', async () => {
    const acct = await verifiedAccount(app);
    for (const op of operations) {
      if (op.access === 'public') continue;
      for (const missing of op.access.scopes) {
        const key = await keyWith(acct.teamId, SCOPES.filter((s) => s !== missing));
        const res = await app.request(op.method, concrete(op.path), { key, body: op.method === 'GET' ? undefined : {} });
        expect(res.status, `${op.method} ${op.path} without ${missing}`).toBe(403);
        expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
        expect(res.body.message).toContain(missing);
      }
    }
  });

  it('a team:read key reads the team but cannot write it', async () => {
    const acct = await verifiedAccount(app);
    const key = await keyWith(acct.teamId, ['team:read']);
    expect((await app.request('GET', '/v2/team', { key })).status).toBe(200);
    expect((await app.request('PATCH', '/v2/team', { key, body: { name: 'Nope' } })).status).toBe(403);
    expect((await app.request('POST', '/v2/team/verification-request', { key })).status).toBe(403);
    expect((await app.request('POST', '/v2/api-key/rotate', { key })).status).toBe(403);
  });

  it('a key only ever sees its own team', async () => {
    const a = await verifiedAccount(app);
    const b = await verifiedAccount(app);
    await app.request('PATCH', '/v2/team', { key: a.key, body: { name: 'Team A' } });
    await app.request('PATCH', '/v2/team', { key: b.key, body: { name: 'Team B' } });
    expect((await app.request('GET', '/v2/team', { key: a.key })).body.name).toBe('Team A');
    expect((await app.request('GET', '/v2/team', { key: b.key })).body.name).toBe('Team B');
  });
});

describe('routes table', () => {
  it('fails at start-up when an operation declares no scope', () => {
    const bad = operation({ id: 'X', name: 'x.y', method: 'GET', path: '/x', access: { scopes: [] }, summary: '', response: z.object({}), handler: async () => ({}) });
    expect(() => assertOperationsDeclared([bad])).toThrow(/declares no scope/);
    const none = { ...bad, access: undefined } as never;
    expect(() => assertOperationsDeclared([none])).toThrow(/declares no scope/);
  });

  it('fails at start-up when two operations share an id, and the routes table has none that do', () => {
    const a = operation({ id: 'X1', name: 'x.a', method: 'GET', path: '/x', access: { scopes: ['team:read'] }, summary: '', response: z.object({}), handler: async () => ({}) });
    expect(() => assertOperationsDeclared([a, { ...a, name: 'x.b', path: '/y' }])).toThrow(/has the id of GET \/x/);
    expect(() => assertOperationsDeclared(operations)).not.toThrow();
    expect(new Set(operations.map((op) => op.id)).size).toBe(operations.length);
  });
});
