import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleSuite, expectAccessible, shot, shownKey, signedInConsole, heading, status } from './console-helpers.ts';

// Issue #23: the guided first-program setup in Chromium, from the console's home to a live
// program: type and name, the starter reward edited, the design with the live preview, the snippet
// copied, launch. Every step has its own address; Back, the browser's Back and Enter work.

describe.skipIf(SKIP_BROWSER)('console guided setup in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  const currentStep = (page: Page) => page.getByRole('list', { name: 'Setup progress' }).locator('[aria-current="step"]').textContent();

  it('walks from the home page through the five steps to a live program', async () => {
    const { page, context } = await signedInConsole(app, browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    const key = await shownKey(page, app.url);
    await expect.poll(() => heading(page)).toBe('Programs');
    await page.getByRole('link', { name: 'Start the guided setup' }).click();

    // Step 1, by keyboard: the type is a radio group, then the name; Enter goes on.
    await expect.poll(() => heading(page)).toBe('New program, step 1 of 5: Type and name');
    expect(page.url()).toBe(`${app.url}/console/setup`);
    expect(await currentStep(page)).toContain('Type and name');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('page-title');
    await expectAccessible(page);
    await shot(page, 'setup-1-1440');
    await page.getByLabel('Referral').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    expect(await page.getByLabel('Referral').isChecked()).toBe(true);
    await page.getByLabel('Program name').fill('Bakery friends');
    await page.getByLabel('Program name').press('Enter');

    // Step 2: the starter reward, edited.
    await expect.poll(() => heading(page)).toBe('New program, step 2 of 5: Reward');
    const pid = /\/console\/programs\/([^/]+)\/setup\/reward$/.exec(page.url())![1]!;
    // The heading takes focus, which says where the owner is; the status line does not repeat it on screen (issue #32).
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('page-title');
    expect(await page.getByText('New program, step 2 of 5: Reward', { exact: true }).count()).toBe(1);
    await expect.poll(() => page.getByText('Your program starts with this reward').count()).toBe(1);
    const starter = ((await app.request('GET', `/v2/campaign/${pid}/reward-configs`, { key })).body.rewards as Array<{ id: string; title: string }>)[0]!;
    expect(await page.getByLabel('Name').inputValue()).toBe(starter.title);
    await expectAccessible(page);
    await shot(page, 'setup-2-1440');
    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    // An empty name is refused by the API, next to the field.
    await expect.poll(() => page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Name').fill('A free croissant for both');
    await page.getByLabel('What the friend gets').fill('A free croissant');
    await page.getByRole('button', { name: 'Save and continue' }).click();

    // Step 3: the design, with the real widget changing before anything is saved.
    await expect.poll(() => heading(page)).toBe('New program, step 3 of 5: Design');
    expect(page.url()).toBe(`${app.url}/console/programs/${pid}/setup/design`);
    const frame = page.frameLocator('iframe.widget-frame');
    const previewColour = () => frame.locator('[role="dialog"]').first().evaluate((el) => (el.closest('.r') as HTMLElement).style.getPropertyValue('--p'));
    await expect.poll(previewColour, { timeout: 15_000 }).toMatch(/^#/);
    await page.getByLabel('Main colour (buttons and links) (colour code)').fill('#7a3e00');
    await expect.poll(previewColour).toBe('#7a3e00');
    await expectAccessible(page);
    await shot(page, 'setup-3-1440');

    // Back goes to the reward step's address (a new history entry, like a link); the browser's Back returns.
    await page.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => heading(page)).toBe('New program, step 2 of 5: Reward');
    expect(page.url()).toBe(`${app.url}/console/programs/${pid}/setup/reward`);
    expect(await page.getByLabel('Name').inputValue()).toBe('A free croissant for both');
    await page.goBack();
    await expect.poll(() => heading(page)).toBe('New program, step 3 of 5: Design');
    expect(page.url()).toBe(`${app.url}/console/programs/${pid}/setup/design`);
    await page.getByLabel('Main colour (buttons and links) (colour code)').fill('#7a3e00');
    await page.getByRole('button', { name: 'Save and continue' }).click();

    // Step 4: the snippet, copied.
    await expect.poll(() => heading(page)).toBe('New program, step 4 of 5: Installation');
    const snippet = await page.getByLabel('Code for your website').inputValue();
    expect(snippet).toContain(`campaignId:"${pid}"`);
    await page.getByRole('button', { name: 'Copy code' }).click();
    await expect.poll(() => status(page)).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    await expectAccessible(page);
    await shot(page, 'setup-4-1440');
    await page.getByRole('button', { name: 'Next' }).click();

    // Step 5: launch.
    await expect.poll(() => heading(page)).toBe('New program, step 5 of 5: Launch');
    await expect.poll(() => page.getByRole('list', { name: 'Setup progress' }).getByText('(done)').count()).toBe(4);
    // The team is not verified yet: the launch step says its emails are held, and where to act (issue #32).
    expect(await page.getByRole('note').textContent()).toContain('Participant emails are held');
    expect(await page.getByRole('note').getByRole('link', { name: 'Request verification on the Team page' }).getAttribute('href')).toBe('/console/team');
    await expectAccessible(page);
    await shot(page, 'setup-5-1440');
    await page.getByRole('button', { name: 'Launch program' }).click();
    await expect.poll(() => heading(page)).toBe('Bakery friends');
    expect(page.url()).toBe(`${app.url}/console/programs/${pid}`);
    expect(await status(page)).toBe('The program Bakery friends is live.');

    const program = await app.request('GET', `/v2/campaign/${pid}`, { key });
    expect(program.body).toMatchObject({ status: 'IN_PROGRESS', name: 'Bakery friends', type: 'REFERRAL' });
    const rewards = (await app.request('GET', `/v2/campaign/${pid}/reward-configs`, { key })).body.rewards;
    expect(rewards[0]).toMatchObject({ id: starter.id, title: 'A free croissant for both', referralDescription: 'A free croissant' });
    expect((await app.request('GET', `/v2/campaign/${pid}/design`, { key })).body.theme.primaryColor).toBe('#7a3e00');
    await context.close();
  }, 120_000);

  it('works at 390 px, and a reload keeps the step', async () => {
    const { page, context } = await signedInConsole(app, browser, 390);
    await page.goto(`${app.url}/console/setup`);
    await expect.poll(() => heading(page)).toBe('New program, step 1 of 5: Type and name');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'setup-1-390');
    await page.getByLabel('Affiliate').check();
    await page.getByLabel('Program name').fill('Partner shop');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => heading(page)).toBe('New program, step 2 of 5: Reward');
    // An affiliate program's starter is a commission.
    await expect.poll(() => page.getByLabel('Commission basis').count()).toBe(1);
    await page.reload();
    await expect.poll(() => heading(page)).toBe('New program, step 2 of 5: Reward');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'setup-2-390');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await expect.poll(() => heading(page)).toBe('New program, step 3 of 5: Design');
    // The live preview (a framed widget) may keep a connection open, so "network idle" need not come: wait for what is measured.
    await page.frameLocator('iframe').first().locator('body').waitFor();
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'setup-3-390');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await expect.poll(() => heading(page)).toBe('New program, step 4 of 5: Installation');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'setup-4-390');
    await context.close();
  }, 60_000);
});
