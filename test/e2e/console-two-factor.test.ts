import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, PASSWORD, expectAccessible, heading, shotWidths, signedInConsole, watchCsp } from './console-helpers.ts';
import { totpCode } from '../../server/domain/platform/totp.ts';

// Issue #35 parts 2 and 3 in Chromium, as a person: enrol two-factor sign-in by reading the setup
// key shown on the Security page and computing the code, sign out, sign in with a code, then with a
// recovery code; create a key after re-authenticating; end a session of a second browser, which is
// signed out at its next click; require 2FA of the team (a teammate without it sees only Security)
// and remove that teammate after re-authenticating.

describe.skipIf(SKIP_BROWSER)('two-factor sign-in and sessions in Chromium (issue #35)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  /** The code the authenticator app shows now (the app's clock moves a step first: each code works once). */
  const codeFor = (secret: string) => {
    app.clock.advance(30_000);
    return totpCode(secret, app.clock.now());
  };

  /** The sign-in form, then the code step with `second`; ends on the console. */
  async function signInWithCode(page: Page, email: string, second: string, shots = false) {
    await page.goto(`${app.url}/signin`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/signin\/code$/), page.getByRole('button', { name: 'Sign in' }).click()]);
    await expect.poll(() => heading(page)).toBe('Two-factor sign-in');
    if (shots) {
      await expectAccessible(page);
      await shotWidths(page, 'signin-code');
    }
    await page.getByLabel('Authentication code or recovery code').fill(second);
    await Promise.all([page.waitForURL(/\/console$/), page.getByRole('button', { name: 'Continue' }).click()]);
  }

  it('enrols by the shown key, signs in with a code and a recovery code, re-authenticates for a key, and ends another browser’s session', async () => {
    const { acct, page } = await signedInConsole(app, browser);
    // The first sign-in's key waits; five minutes later it is shown only after the password again.
    app.clock.advance(6 * 60_000);
    const keysPage = await page.context().newPage();
    await keysPage.goto(`${app.url}/keys`);
    await keysPage.getByRole('heading', { name: 'Confirm it is you to see your new API key' }).waitFor();
    await expectAccessible(keysPage);
    await shotWidths(keysPage, 'keys-reveal');
    await keysPage.getByLabel('Password').fill(PASSWORD);
    await Promise.all([keysPage.waitForURL(/\/keys$/), keysPage.getByRole('button', { name: 'Show the key' }).click()]);
    await keysPage.locator('code.secret').first().waitFor();
    await keysPage.close();
    await (await consoleNav(page)).getByRole('link', { name: 'Security' }).click();
    await expect.poll(() => heading(page)).toBe('Security');
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const shown = (await page.locator('#totp-secret').textContent())!;
    expect(shown).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
    const secret = shown.replace(/\s/g, '');
    await expectAccessible(page);
    await shotWidths(page, 'security-enrol');
    // A wrong code is refused at the field; the right one turns it on and shows the recovery codes once.
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await page.getByRole('alert').first().waitFor();
    await page.getByLabel('Code from the app').fill(codeFor(secret));
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => codes.count()).toBe(10);
    const recovery = (await codes.first().textContent())!.trim();
    await expectAccessible(page);
    await shotWidths(page, 'security-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Recovery codes' }).count()).toBe(0);

    // Sign out, then in with a code; then again with a recovery code.
    await consoleNav(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin\?notice=signedout$/);
    await signInWithCode(page, acct.email, codeFor(secret), true);
    await consoleNav(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin\?notice=signedout$/);
    await signInWithCode(page, acct.email, recovery);

    // Creating a key more than five minutes after signing in asks for the password and a code first.
    app.clock.advance(6 * 60_000);
    await (await consoleNav(page)).getByRole('link', { name: 'Team' }).click();
    await expect.poll(() => heading(page)).toBe('Team');
    await page.getByRole('checkbox', { name: /^program:read/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await expectAccessible(page);
    await shotWidths(page, 'team-reauth');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Code from the app, or a recovery code').fill(codeFor(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Your new API key' }).waitFor();

    // A second browser signs in; the first ends its session from the Security page.
    const other = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    other.setDefaultTimeout(15_000);
    other.on('page', watchCsp);
    const second = await other.newPage();
    await signInWithCode(second, acct.email, codeFor(secret));
    await expect.poll(() => heading(second)).toBe('Programs');
    await (await consoleNav(page)).getByRole('link', { name: 'Security' }).click();
    const table = page.getByRole('table', { name: 'Your sessions, the most recently seen first' });
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    await table.getByText('This browser').waitFor();
    await expectAccessible(page);
    await shotWidths(page, 'security-sessions');
    await table.getByRole('button', { name: /^End the session of Chrome on Linux from / }).click();
    await page.getByRole('status').getByText('Session ended: that browser is signed out.').waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await (await consoleNav(second)).getByRole('link', { name: 'Team' }).click();
    await expect.poll(() => heading(second)).toBe('Sign in to the console');
    await other.close();

    // The Owner requires two-factor sign-in; a teammate without it is shown only the Security page.
    await (await consoleNav(page)).getByRole('link', { name: 'Team' }).click();
    await page.getByRole('checkbox', { name: 'Require two-factor sign-in of every member' }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    const mate = `mate-${Date.now().toString(36)}@northwind-roasters.com`;
    await page.getByLabel('Email address').fill(mate);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').getByText(`Invitation sent to ${mate}.`).waitFor();
    const [mail] = await app.deps.mailer.list({ to: mate, limit: 1 });
    const mateContext = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    mateContext.setDefaultTimeout(15_000);
    mateContext.on('page', watchCsp);
    const matePage = await mateContext.newPage();
    await matePage.goto(app.local(mail!.links.find((l) => l.includes('/invite/accept?'))!));
    await matePage.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await matePage.getByLabel('Repeat the new password').fill(PASSWORD);
    await Promise.all([matePage.waitForURL(/\/signin/), matePage.getByRole('button', { name: /Join/ }).click()]);
    await matePage.getByLabel('Email address').fill(mate);
    await matePage.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([matePage.waitForURL(/\/console$/), matePage.getByRole('button', { name: 'Sign in' }).click()]);
    await expect.poll(() => heading(matePage)).toBe('Security');
    await matePage.getByText('Your team requires two-factor sign-in.', { exact: false }).waitFor();
    await (await consoleNav(matePage)).getByRole('link', { name: 'Programs' }).click();
    await expect.poll(() => heading(matePage)).toBe('Security');
    await expectAccessible(matePage);
    await shotWidths(matePage, 'security-required');

    // The Owner removes the teammate: a sensitive action, so the password and a code come first.
    app.clock.advance(6 * 60_000);
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Team');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Remove ${mate} from the team` }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await expectAccessible(page);
    await shotWidths(page, 'team-members');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Code from the app, or a recovery code').fill(codeFor(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').getByText(`${mate} was removed from the team.`).waitFor();
    await expect.poll(() => page.getByRole('table', { name: /^Members of/ }).getByRole('rowheader', { name: mate }).count()).toBe(0);
    await (await consoleNav(matePage)).getByRole('link', { name: 'Security' }).click();
    await expect.poll(() => heading(matePage)).toBe('Sign in to the console');
    await mateContext.close();
  });
});
