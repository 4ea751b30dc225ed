import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, shownKey, signedInConsole } from './console-helpers.ts';

// Issue #23: the owner console driven the way an owner drives it, in Chromium: sign in from the
// console's own prompt, create a program, launch it, find its participants; every page by mouse
// and by keyboard, at 390 px and at 1440 px, with axe and screenshots.

describe.skipIf(SKIP_BROWSER)('owner console in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  const ownerInConsole = (width?: number) => signedInConsole(app, browser, width);

  it('signs in from the console, creates and launches a program, and lists its participants', async () => {
    const { acct, page, context } = await ownerInConsole();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Programs');
    await expect.poll(() => page.getByText('Create your first program').count()).toBe(1);
    await expectAccessible(page);
    await shot(page, 'home-empty-1440');

    // Create by keyboard: the type is a radio group, the name a text field, then Enter submits.
    await page.getByLabel('Affiliate').check();
    await page.getByLabel('Referral').check();
    await page.getByLabel('Program name').fill('Spring referrals');
    await page.getByLabel('Program name').press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Spring referrals');
    expect(page.url()).toMatch(/\/console\/programs\/[A-Za-z0-9_-]+$/);
    expect(await page.getByRole('status').first().textContent()).toContain('Program Spring referrals created.');
    await expect.poll(() => page.getByText('Draft', { exact: true }).count()).toBe(1);
    // The focus moved to the new page's heading, so a screen reader hears where it is.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('page-title');
    await expectAccessible(page);
    await shot(page, 'program-draft-1440');

    await page.getByRole('button', { name: 'Launch program' }).click();
    await expect.poll(() => page.getByText('Live', { exact: true }).count()).toBe(1);
    expect(await page.getByRole('status').first().textContent()).toContain('The program is live.');
    await expect.poll(() => page.getByRole('button', { name: 'Launch program' }).count()).toBe(0);
    const programId = page.url().split('/').pop()!;
    const viaRest = await app.deps.db.knex('programs').where({ id: programId }).first('status', 'name');
    expect(viaRest).toEqual({ status: 'IN_PROGRESS', name: 'Spring referrals' });

    // Participants joined over REST (with the key the keys page shows once), then found in the console.
    const key = await shownKey(page, app.url);
    for (const email of ['ana@example.com', 'bo@example.com', 'cy@example.com']) {
      const res = await app.request('POST', `/v2/campaign/${programId}/participant`, { key, body: { email, firstName: email.split('@')[0] } });
      expect(res.status).toBe(200);
    }
    // To the participants page by keyboard: focus the link and press Enter.
    await (await consoleNav(page)).getByRole('link', { name: 'Participants' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Participants');
    await expect.poll(() => page.getByRole('table').getByRole('rowheader').allTextContents()).toEqual(expect.arrayContaining(['ana@example.com', 'bo@example.com', 'cy@example.com']));
    expect(await page.getByRole('table').locator('caption').textContent()).toContain('3 participants shown');
    await page.getByLabel('Search by email').fill('bo@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('table').getByRole('rowheader').allTextContents()).toEqual(['bo@example.com']);
    expect(await page.getByRole('table').locator('caption').textContent()).toContain('1 participant shown');
    await expectAccessible(page);
    await shot(page, 'participants-1440');

    // Back in the browser's history, the program page again; the home page lists the program with its numbers.
    await page.goBack();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Spring referrals');
    await page.getByRole('link', { name: 'Programs' }).click();
    const row = page.getByRole('row', { name: /Spring referrals/ });
    await expect.poll(() => row.textContent()).toContain('Live');
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('3');
    await context.close();
    void acct;
  });

  it('works at 390 px, ends a program after confirming, and clones it', async () => {
    const { page, context } = await ownerInConsole(390);
    await page.getByLabel('Program name').fill('Small screen');
    await page.getByRole('button', { name: 'Create program' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Small screen');
    // Nothing wider than the screen: no sideways scrolling of the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'program-390');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'End program' }).click();
    await expect.poll(() => page.getByText('Ended', { exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Clone program' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Cloned as/);
    await expect.poll(() => page.getByText('Draft', { exact: true }).count()).toBe(1);
    await context.close();
  });

  it('shows a signed-out visitor the sign-in prompt and an unknown address a way back', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${app.url}/console/programs/nope/participants`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to the console');
    expect(await page.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/signin?next=%2Fconsole%2Fprograms%2Fnope%2Fparticipants');
    await expectAccessible(page);
    await context.close();
  });
});
