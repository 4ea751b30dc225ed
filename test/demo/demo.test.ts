import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../helpers/app.ts';
import { demoRoutes } from '../../demo/routes.ts';
import { DEMO_THEME, ensureDemo, type DemoState } from '../../demo/seed.ts';

// The demo store of `npm start` (issue #7, "Demo and preview"): seeded through the REST API, the
// Universal Code pasted as a website owner would, and a backend that keeps the REST key server-side.

let app: TestApp;
let state: DemoState | null = null;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS, { routes: (deps) => [demoRoutes(deps, () => state, () => app.url)] });
});
afterAll(async () => {
  await app.close();
});

const post = (path: string, body: unknown) => app.request('POST', path, { body });

describe('demo store', () => {
  it('serves the plain site until the demo data exists', async () => {
    const res = await app.request('GET', '/');
    expect(res.text).not.toContain('grsf-campaign');
    expect((await post('/demo/api/sign-in', {})).status).toBe(404);
  });

  it('seeds a verified team with a referral and an affiliate program, once', async () => {
    state = await ensureDemo(app.deps, app.url);
    const again = await ensureDemo(app.deps, app.url);
    expect(again).toEqual(state);
    const team = await app.deps.teams.get(state.teamId);
    expect(team.verificationStatus).toBe('VERIFIED');
    const programs = await app.deps.db.knex('programs').whereIn('id', [state.referralProgramId, state.affiliateProgramId]).pluck('type');
    expect(programs.sort()).toEqual(['AFFILIATE', 'REFERRAL']);
    // The key and secrets are kept sealed, never in clear text.
    expect(JSON.stringify(state)).not.toMatch(/sk_|pas_/);
  });

  it('pastes the Universal Code with only the host changed, and never a REST key', async () => {
    const res = await app.request('GET', '/');
    expect(res.status).toBe(200);
    expect(res.text).toContain(`campaignId:"${state!.referralProgramId}"`);
    expect(res.text).toContain('http://refloop.test/growsurf.js"+"?v="+g.grsfSettings.version');
    expect(res.text).toContain('f.setAttribute("grsf-campaign",g.grsfSettings.campaignId)');
    for (const block of ['form', 'rewards', 'referral-status', 'referral-summary', 'invite']) expect(res.text).toContain(`data-grsf-block-${block}`);
    expect(res.text).not.toMatch(/sk_[A-Za-z0-9]/);
    const partners = await app.request('GET', '/partners');
    expect(partners.text).toContain(`campaignId:"${state!.affiliateProgramId}"`);
    for (const block of ['affiliate-summary', 'commissions', 'payouts']) expect(partners.text).toContain(`data-grsf-block-${block}`);
  });

  it('gives both programs the store’s design, and leaves the embedded blocks’ headings to them (issue #21)', async () => {
    const key = app.deps.sealer.open(state!.apiKey)!;
    for (const pid of [state!.referralProgramId, state!.affiliateProgramId]) {
      const design = (await app.request('GET', `/v2/campaign/${pid}/design`, { key })).body;
      expect(design.theme).toMatchObject(DEMO_THEME);
    }
    // The theme's colours are the store page's own.
    const page = (await app.request('GET', '/')).text;
    expect(page).toContain(`--accent:${DEMO_THEME.primaryColor}`);
    expect(page).toContain(`--ink:${DEMO_THEME.textColor}`);
    expect(page).toContain(`--muted:${DEMO_THEME.mutedTextColor}`);
    for (const path of ['/', '/partners']) {
      const html = (await app.request('GET', path)).text;
      // A card holding an embedded block has no heading of its own: the block's title is the heading.
      for (const m of html.matchAll(/<section>([\s\S]*?)<\/section>/g)) if (m[1]!.includes('data-grsf-block-')) expect(m[1]).not.toContain('<h2');
      expect(html).not.toContain('Become a partner');
      // After "Place order" / "Record a sale" the page asks the widget to reload its data (docs/widget.md).
      expect(html).toContain('window.growsurf.init()');
    }
  });

  it('sends a visitor in through the referrer’s share link', async () => {
    const res = await fetch(`${app.url}/demo/as-friend`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^http:\/\/refloop\.test\/\?grsf=[a-z0-9]+$/);
  });

  it('signs in as the seeded referrer with a hash the participant API accepts', async () => {
    const res = await post('/demo/api/sign-in', {});
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(state!.people.referrer);
    expect(await app.deps.participantTokens.checkAutoAuth(state!.referralProgramId, res.body.email, res.body.hash)).toBe(true);
    expect(await app.deps.participantTokens.checkAutoAuth(state!.referralProgramId, res.body.email, res.body.hash.replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a')))).toBe(false);
  });

  it('credits a purchase through the REST API, and passes the API’s errors through', async () => {
    const key = app.deps.sealer.open(state!.apiKey)!;
    const referrer = async () => (await app.request('GET', `/v2/campaign/${state!.referralProgramId}/participant/${state!.people.referrer}`, { key })).body;
    const before = (await referrer()).referralCount;
    const res = await post('/demo/api/purchase', { email: state!.people.friendPending });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await referrer()).referralCount).toBe(before + 1);
    const unknown = await post('/demo/api/purchase', { email: 'nobody@example.com' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('BAD_REQUEST_ERROR');
    expect((await post('/demo/api/purchase', {})).status).toBe(400);
  });
});
