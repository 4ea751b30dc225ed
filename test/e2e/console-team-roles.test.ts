import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, PASSWORD, expectAccessible, heading, shotWidths, signedInConsole, watchCsp } from './console-helpers.ts';

// Issue #35 in Chromium: "Sessions rotate on privilege change". The Owner makes a Member an Admin
// on the Team page (a keyboard, after confirming it is them); the member's own browser, at its
// next click, says their access changed and asks them to sign in again, and after signing in shows
// what an Admin may do.

describe.skipIf(SKIP_BROWSER)('changing a member’s role in Chromium (issue #35)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  it('the Owner makes a Member an Admin; the member’s other browser is signed out at its next click and signs in again as an Admin', async () => {
    const { page } = await signedInConsole(app, browser);
    await (await consoleNav(page)).getByRole('link', { name: 'Team' }).click();
    await expect.poll(() => heading(page)).toBe('Team');
    const mate = `mate-${Date.now().toString(36)}@northwind-roasters.com`;
    await page.getByLabel('Email address').fill(mate);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').getByText(`Invitation sent to ${mate}.`).waitFor();

    // The teammate joins and works in their own browser, as a Member: no invitations, no keys.
    const [mail] = await app.deps.mailer.list({ to: mate, limit: 1 });
    const mateContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    mateContext.setDefaultTimeout(15_000);
    mateContext.on('page', watchCsp);
    const matePage = await mateContext.newPage();
    await matePage.goto(app.local(mail!.links.find((l) => l.includes('/invite/accept?'))!));
    await matePage.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await matePage.getByLabel('Repeat the new password').fill(PASSWORD);
    await Promise.all([matePage.waitForURL(/\/signin/), matePage.getByRole('button', { name: /Join/ }).click()]);
    const signInMate = async () => {
      await matePage.getByLabel('Email address').fill(mate);
      await matePage.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await Promise.all([matePage.waitForURL(/\/console/), matePage.getByRole('button', { name: 'Sign in' }).click()]);
    };
    await signInMate();
    await (await consoleNav(matePage)).getByRole('link', { name: 'Team' }).click();
    await expect.poll(() => heading(matePage)).toBe('Team');
    await matePage.getByText('Only Owners, Admins and Members with “Manage API” can manage API keys.').waitFor();
    expect(await matePage.getByRole('button', { name: 'Send invitation' }).count()).toBe(0);

    // The Owner, more than five minutes after signing in, changes the role with the keyboard.
    app.clock.advance(6 * 60_000);
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Team');
    const members = page.getByRole('table', { name: /^Members of/ });
    await members.getByRole('rowheader', { name: mate }).waitFor();
    await page.getByRole('button', { name: `Change role of ${mate}` }).focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('region', { name: `Change the role of ${mate}` });
    await form.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('role-form-title');
    await form.getByText('Saving signs them out of every browser at once', { exact: false }).waitFor();
    expect(await form.getByRole('radio', { name: /^Member:/ }).isChecked()).toBe(true);
    await expectAccessible(page);
    await shotWidths(page, 'team-role');
    await form.getByRole('radio', { name: /^Member:/ }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await form.getByRole('radio', { name: /^Admin:/ }).isChecked()).toBe(true);
    // An Admin manages keys by role: the Member-only "Manage API" choice goes.
    expect(await form.getByRole('checkbox', { name: /^Manage API/ }).count()).toBe(0);
    await form.getByRole('button', { name: 'Save role' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText(`${mate} is now an Admin. Their session ended: they sign in again to use it.`).waitFor();
    const row = members.getByRole('row').filter({ has: page.getByRole('rowheader', { name: mate }) });
    await expect.poll(() => row.getByRole('cell').first().textContent()).toBe('Admin');
    expect(await page.getByRole('region', { name: `Change the role of ${mate}` }).count()).toBe(0);
    await expectAccessible(page);

    // The member's browser, at its next click: the old session opens nothing and says why.
    await (await consoleNav(matePage)).getByRole('link', { name: 'Programs' }).click();
    await expect.poll(() => heading(matePage)).toBe('Your access changed');
    await matePage.getByText('The team’s Owner changed your role or API access, so you were signed out everywhere.', { exact: false }).waitFor();
    await expectAccessible(matePage);
    await shotWidths(matePage, 'signed-out-role');
    await Promise.all([matePage.waitForURL(/\/signin\?next=/), matePage.getByRole('link', { name: 'Sign in' }).click()]);
    await matePage.getByText('Your role or API access in a team changed, so you were signed out everywhere.', { exact: false }).waitFor();
    await signInMate();
    await expect.poll(() => heading(matePage)).toBe('Programs');
    await (await consoleNav(matePage)).getByRole('link', { name: 'Team' }).click();
    await expect.poll(() => heading(matePage)).toBe('Team');
    await matePage.getByRole('button', { name: 'Send invitation' }).waitFor();
    await matePage.getByRole('heading', { name: 'Create a key' }).waitFor();
    await mateContext.close();
  });
});
