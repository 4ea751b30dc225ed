import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../helpers/app.ts';
import { demoRoutes } from '../../demo/routes.ts';
import { ensureDemo, type DemoState } from '../../demo/seed.ts';
import { devSignIn } from '../../demo/dev-sign-in.ts';

// Issue #23: `npm start` ends in the console. The demo team's owner has a password (set through the
// welcome email's link) and a one-click, one-time dev sign-in link, never in production; the demo's
// own REST key survives the owner's first sign-in.

let app: TestApp;
let state: DemoState | null = null;
let signIn: ReturnType<typeof devSignIn>;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS, {
    routes: (deps) => {
      signIn = devSignIn(deps, () => state);
      return [signIn.routes, demoRoutes(deps, () => state, () => app.url)];
    },
  });
  state = await ensureDemo(app.deps, app.url);
});
afterAll(async () => {
  await app.close();
});

const get = (path: string, cookie = '') => fetch(app.url + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });

describe('the demo owner’s one-click console sign-in', () => {
  it('signs in once as the demo team’s Owner and lands on the console; the link then stops working', async () => {
    const link = signIn.link(app.url)!;
    expect(link).toMatch(/\/demo\/console-sign-in\?token=[\w-]{20,}$/);
    const res = await get(new URL(link).pathname + new URL(link).search);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console');
    const cookie = /^(refloop_session=[^;]+)/.exec(res.headers.getSetCookie().join('\n'))![1]!;
    expect(res.headers.getSetCookie()[0]).toMatch(/HttpOnly; SameSite=Lax/);
    const session = await (await get('/console/api/session', cookie)).json();
    expect(session).toMatchObject({ email: state!.owner.email, team: { id: state!.teamId, role: 'OWNER' } });
    const again = await get(new URL(link).pathname + new URL(link).search);
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/already used or is not valid/);
    expect((await get('/demo/console-sign-in?token=guess')).status).toBe(400);
  });

  it('keeps the demo’s REST key working after the owner’s first sign-in (it is not an account-creation key)', async () => {
    const key = app.deps.sealer.open(state!.apiKey)!;
    expect((await app.request('GET', `/v2/campaign/${state!.referralProgramId}`, { key })).status).toBe(200);
    expect(await ensureDemo(app.deps, app.url)).toEqual(state);
    expect(JSON.stringify(state)).not.toMatch(/sk_/);
  });

  it('gives no link and no route in production', async () => {
    const prod = devSignIn({ ...app.deps, config: { ...app.deps.config, env: 'production' } }, () => state);
    expect(prod.link(app.url)).toBeNull();
    let passed = false;
    await prod.routes({ path: '/demo/console-sign-in', method: 'GET', query: { token: 'x' } } as never, async () => void (passed = true));
    expect(passed).toBe(true);
  });
});
