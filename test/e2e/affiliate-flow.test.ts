import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, demoInBrowser, eventually, SKIP_BROWSER } from './helpers.ts';

// The demo's affiliate program in Chromium (issue #7 with #6): the store's backend records a sale
// for a referred customer over REST; the affiliate signs in on /partners and finds the commission
// in the partner portal.

describe.skipIf(SKIP_BROWSER)('affiliate flow in Chromium', () => {
  const env = demoInBrowser();

  it('a recorded sale shows up as a commission in the affiliate’s portal', async () => {
    const pid = env.demo.state.affiliateProgramId;
    const commissions = async () => (await env.demo.rest('GET', `/campaign/${pid}/commissions`)).commissions as Array<{ amount: number }>;
    const before = (await commissions()).length;
    const context = await env.browser.newContext({ viewport: { width: 1024, height: 800 }, reducedMotion: 'reduce' });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(`${env.demo.url}/partners`);
    await page.getByRole('button', { name: 'Record a $24.00 sale' }).click();
    await eventually(async () => /"success": true/.test((await page.locator('#sale-out').textContent()) ?? ''), 15_000, 'the sale answer');
    const after = await commissions();
    expect(after.length).toBe(before + 1);
    // 20 % of $24.00, in minor units.
    expect(after.some((c) => c.amount === 480)).toBe(true);

    await page.getByRole('button', { name: `Sign in as ${env.demo.state.people.affiliate}` }).click();
    await eventually(async () => /Signed in as/.test((await page.locator('#signin-out').textContent()) ?? ''), 15_000, 'the sign-in');
    await page.locator('header').getByRole('button', { name: 'Partner portal' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    // The dialog is named for what it is in an affiliate program.
    expect(await dialog.getAttribute('aria-labelledby')).toBeTruthy();
    await dialog.getByRole('heading', { name: 'Partner portal' }).waitFor();
    const design = await env.demo.rest('GET', `/campaign/${pid}/design`);
    await dialog.getByRole('tab', { name: design.commissions?.title ?? 'Commissions' }).click();
    await eventually(async () => ((await dialog.textContent()) ?? '').includes('4.80'), 15_000, 'the commission in the portal');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'partner-portal.png') });
    await context.close();
  }, 120_000);
});
