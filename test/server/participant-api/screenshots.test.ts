import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';

// C6 referral-flow screenshots without a browser (issue #7): a clear 503, the usual gates, and the
// signed preview and image links refusing anything they did not sign. The capture itself runs in
// Chromium: test/e2e/screenshots.test.ts.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, CHROMIUM_PATH: '/nonexistent/chromium' });
});
afterAll(async () => {
  await app.close();
});

async function program() {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
  return { key: acct.key, teamId: acct.teamId, pid: res.body.id as string };
}

describe('POST /campaign/{id}/referral-flow-screenshots', () => {
  it('answers 503 with a clear message when the server has no Chromium, on both paths', async () => {
    const { key, pid } = await program();
    for (const path of [`/v2/campaign/${pid}/referral-flow-screenshots`, `/api/v2/mcp/campaign/${pid}/referral-flow-screenshots`]) {
      const res = await app.request('POST', path, { key });
      expect(res.status, path).toBe(503);
      expect(res.body.message).toMatch(/Chromium/);
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE_ERROR');
    }
  });

  it('needs program:read', async () => {
    const { teamId, pid } = await program();
    const limited = (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: ['participant:read'], origin: 'CLI' })).secret;
    const res = await app.request('POST', `/v2/campaign/${pid}/referral-flow-screenshots`, { key: limited });
    expect(res.status).toBe(403);
  });

  it('answers 404 for an unknown program and 400 for a body', async () => {
    const { key, pid } = await program();
    expect((await app.request('POST', '/v2/campaign/nope123/referral-flow-screenshots', { key })).status).toBe(404);
    expect((await app.request('POST', `/v2/campaign/${pid}/referral-flow-screenshots`, { key, body: { url: 'https://evil.example' } })).status).toBe(400);
  });
});

describe('preview pages and screenshot links', () => {
  it('serves a preview page only with a valid token', async () => {
    const { pid } = await program();
    const token = app.deps.screenshots.previewToken(pid, Date.now() + 60_000);
    const ok = await app.request('GET', `/preview/${encodeURIComponent(token)}/referrer`);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain(`data-program="${pid}"`);
    expect(ok.text).toContain('window.grsfPreview=');
    // The sample participant exists nowhere.
    expect(await app.deps.db.knex('participants').where({ program_id: pid }).first()).toBeUndefined();
    const forged = token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await app.request('GET', `/preview/${encodeURIComponent(forged)}/referrer`)).status).toBe(403);
    const expired = app.deps.screenshots.previewToken(pid, Date.now() - 1);
    expect((await app.request('GET', `/preview/${encodeURIComponent(expired)}/referredFriend`)).status).toBe(403);
  });

  it('refuses an image link it did not sign or that expired', async () => {
    const url = new URL(app.deps.screenshots.imageUrl('0123456789abcdef01234567', app.clock.now() + 60_000));
    const missing = await app.request('GET', `${url.pathname}${url.search}`);
    expect(missing.status).toBe(404);
    const bad = await app.request('GET', `${url.pathname}?exp=${url.searchParams.get('exp')}&sig=AAAA`);
    expect(bad.status).toBe(403);
    const old = new URL(app.deps.screenshots.imageUrl('0123456789abcdef01234567', app.clock.now() - 1));
    expect((await app.request('GET', `${old.pathname}${old.search}`)).status).toBe(403);
  });
});
