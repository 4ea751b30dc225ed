import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { ambient, ambientInUse, detached, withinTransaction } from '../../../server/db/ambient.ts';

// The request transaction (server/db/ambient.ts): statements join it while it is open, work started
// with `detached` does not, and its AsyncLocalStorage (with Node's promise hooks, a tax on every
// promise) is enabled only while a request transaction is open.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('the request transaction', () => {
  it('routes statements into the open transaction, not detached work, and is off once it settles', async () => {
    const knex = app.deps.db.knex;
    const id = `ambient-${Date.now()}`;
    let inside: boolean | null = null;
    let detachedSaw: unknown = 'unset';
    await expect(
      knex.transaction(async (trx) =>
        withinTransaction(trx, async () => {
          inside = ambientInUse();
          expect(ambient()?.trx).toBe(trx);
          detachedSaw = detached(() => ambient());
          // Plain `knex`, not `trx`: it joins the transaction and rolls back with it.
          await knex('instance_secrets').insert({ name: id, value: 'x' });
          expect(await trx('instance_secrets').where({ name: id }).first()).toBeTruthy();
          throw new Error('roll back');
        }),
      ),
    ).rejects.toThrow('roll back');
    expect(inside).toBe(true);
    expect(detachedSaw).toBeUndefined();
    expect(await knex('instance_secrets').where({ name: id }).first()).toBeUndefined();
    expect(ambientInUse()).toBe(false);
    expect(ambient()).toBeUndefined();
  });

  it('is off again after REST writes that succeed, are refused, are keyed or run side by side', async () => {
    const { key } = await verifiedAccount(app);
    const ok = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Ambient' } });
    expect(ok.status).toBe(200);
    expect(ambientInUse()).toBe(false);
    const refused = await app.request('POST', '/v2/campaigns', { key, body: { type: 'NOT_A_TYPE' } });
    expect(refused.status).toBe(400);
    expect(ambientInUse()).toBe(false);
    const keyed = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Keyed' }, headers: { 'idempotency-key': `ambient-${Date.now()}` } });
    expect(keyed.status).toBe(200);
    expect(ambientInUse()).toBe(false);
    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) => app.request('POST', `/v2/campaign/${ok.body.id}/participant`, { key, body: { email: `side-${i}@example.com` } })),
    );
    expect(many.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(ambientInUse()).toBe(false);
  });
});
