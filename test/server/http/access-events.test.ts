import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, type TestApp } from '../../helpers/app.ts';
import { consoleCall, consoleCsrf, signedInOwner } from '../../helpers/owner.ts';

// Issue #35 part 1: a refused console write's access events (a wrong password at RA1, the lockout
// it starts) are written outside the request's transaction, which the refusal rolls back, but
// before the refusal is answered: whoever reads the trail right after the 400 or 429 finds them.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app?.close();
});

describe('POST /owner/reauthenticate (RA1) refused', () => {
  it('has its failed attempt, then its lockout, in the audit trail as soon as the 400 and the 429 arrive', async () => {
    const owner = await signedInOwner(app);
    const csrf = await consoleCsrf(owner.b);
    const { id: userId } = await app.deps.db.knex('users').where({ email: owner.email }).first('id');
    const events = async () => (await app.deps.db.knex('audit_log').where({ team_id: owner.teamId, actor_id: userId }).whereIn('action', ['access.reauthenticateFailed', 'access.lockout']).orderBy('seq')).map((r) => r.action);
    for (let i = 1; i <= 4; i++) {
      const res = await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: `wrong password ${i}` });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      // Read at once, no waiting: the entry is there.
      expect(await events()).toEqual(Array(i).fill('access.reauthenticateFailed'));
    }
    const fifth = await consoleCall(owner.b, csrf, 'POST', '/owner/reauthenticate', { password: 'wrong password 5' });
    expect(fifth.status).toBe(429);
    expect(await events()).toEqual([...Array(5).fill('access.reauthenticateFailed'), 'access.lockout']);
    const rows = await app.deps.db.knex('audit_log').where({ team_id: owner.teamId, action: 'access.reauthenticateFailed' });
    expect(JSON.stringify(rows)).not.toContain('wrong password');
    expect((await app.deps.audit.verify(owner.teamId)).breaks).toEqual([]);
  });
});
