import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, demoInBrowser, openPage, seriousA11yViolations, SKIP_BROWSER } from './helpers.ts';
import { universalCode } from '../../demo/pages.ts';

// Issue #32, defect 3, in real Chromium: the brand chosen in setup (a brown main colour, a heading
// for visitors, a logo, a serif font) is what the hosted landing page shows: its heading, the
// colour of its main button and of the window's sign-up button, the logo. Screenshots at 390 and
// 1366 px (test-artifacts/brand-landing-*.png).

const BROWN = '#8b4513';
const BROWN_RGB = 'rgb(139, 69, 19)';
const HEADING = 'Brew with us and earn free coffee';
const LOGO = 'https://cdn.example.com/acme-coffee-logo.svg';
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40" viewBox="0 0 200 40"><rect width="40" height="40" rx="8" fill="${BROWN}"/><text x="50" y="27" font-family="Georgia,serif" font-size="20" fill="#3b1d0a">Acme Coffee</text></svg>`;

describe.skipIf(SKIP_BROWSER)('the brand on the hosted landing page in Chromium (issue #32)', () => {
  const env = demoInBrowser();
  let pid = '';

  beforeAll(async () => {
    const { rest } = env.demo;
    const created = await rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Brown Beans', companyName: 'Acme Coffee' });
    pid = created.id;
    await rest('POST', `/campaign/${pid}/reward-configs`, { type: 'DOUBLE_SIDED', title: 'Give a bag, get a bag', description: 'A free bag of beans for each friend', referralDescription: '$5 off your first bag', isVisible: true });
    // What setup's design step sends (main colour, heading), then the logo and font from Settings › Design.
    await rest('PATCH', `/campaign/${pid}/design`, { theme: { primaryColor: BROWN }, header: { preText: HEADING } });
    await rest('PATCH', `/campaign/${pid}/design`, { theme: { fontFamily: 'SERIF' }, landingPages: { isEnabled: true, company: { logoUrl: LOGO } }, widget: { isShownToNewVisitors: true } });
    env.demo.app.deps.mobilePrograms.forget(pid);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  it('draws the corner launcher on a site in the brand colour', async () => {
    const { context, page, problems } = await openPage(env.browser, { viewport: { width: 1366, height: 700 }, reducedMotion: 'reduce' }, { strict: true });
    const site = `${env.demo.url}/brand-shop`;
    const html = `<!doctype html><html lang="en"><head><title>Shop</title>${universalCode(env.demo.url, pid)}</head><body><main><h1>Shop</h1></main></body></html>`;
    await page.route(`${site}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
    await page.goto(site);
    const launcher = page.locator('[data-grsf-launcher]').getByRole('button', { name: 'Refer a friend', exact: true });
    await launcher.waitFor({ state: 'visible' });
    expect(await launcher.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe(BROWN_RGB);
    expect(await launcher.evaluate((b) => getComputedStyle(b).color)).toBe('rgb(255, 255, 255)');
    await page.screenshot({ path: path.join(ARTIFACTS, 'brand-launcher-1366.png') });
    expect(problems).toEqual([]);
    await context.close();
  });

  for (const width of [390, 1366]) {
    it(`shows the heading, the brown main button and the logo at ${width} px`, async () => {
      const { context, page, problems } = await openPage(env.browser, { viewport: { width, height: 900 }, reducedMotion: 'reduce' }, { strict: true });
      await page.route(LOGO, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
      const res = await page.goto(`${env.demo.url}/p/${pid}`);
      expect(res?.status()).toBe(200);
      const h1 = page.getByRole('heading', { level: 1 });
      expect(await h1.innerText()).toBe(HEADING);
      expect(await page.getByText('Refer friends, earn rewards').count()).toBe(0);

      const cta = page.getByRole('link', { name: 'Get my link' });
      expect(await cta.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe(BROWN_RGB);
      expect(await cta.evaluate((a) => getComputedStyle(a).color)).toBe('rgb(255, 255, 255)');
      expect(await h1.evaluate((e) => getComputedStyle(e).fontFamily)).toMatch(/^Georgia/);

      const logo = page.getByRole('img', { name: 'Acme Coffee' });
      await expect.poll(() => logo.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);

      // The window's sign-up button, drawn in its shadow root, wears the same brown.
      const join = page.getByRole('region', { name: 'Sign up' });
      const submit = join.getByRole('button', { name: 'Get my referral link', exact: true });
      await submit.waitFor();
      expect(await submit.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe(BROWN_RGB);

      await page.screenshot({ path: path.join(ARTIFACTS, `brand-landing-${width}.png`), fullPage: true });
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
