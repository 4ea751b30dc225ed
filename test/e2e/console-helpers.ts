import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, launch, seriousA11yViolations } from './helpers.ts';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../helpers/app.ts';
import { buildConsole } from '../../scripts/build-console.ts';
import { buildWidget } from '../../scripts/build-widget.ts';

// What every console suite does (issue #23): an owner who signs in the way a person does, axe on
// each page, and screenshots saved as test artifacts.

export const PASSWORD = 'correct horse battery staple';

/** The page's level-one heading, which every console page has. */
export const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

/** The first polite status message (what a save or an action announces). */
export const status = (page: Page) => page.getByRole('status').first().textContent();

/** Saves a full-page screenshot as test-artifacts/console-<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}.png`), fullPage: true });
}

/** Screenshots the page at 1366 and 390 px wide (console-<name>-1366.png, -390.png), then restores its size. */
export async function shotWidths(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await shot(page, `${name}-${width}`);
  }
  if (size) await page.setViewportSize(size);
}

/**
 * The console's side navigation, as a person reaches it: below 800 px it is a drawer behind the
 * "Menu" button, which this opens first (issue #32).
 */
export async function consoleNav(page: Page) {
  const nav = page.getByRole('navigation', { name: 'Console' });
  const menu = page.getByRole('button', { name: 'Menu' });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  return nav;
}

/** Content-Security-Policy refusals Chromium reported on each page watched (issue #35: the browser surface stays hardened). */
const cspRefusals = new WeakMap<Page, string[]>();

/** Records the CSP refusals Chromium reports on `page` (it logs each as a console error). */
export function watchCsp(page: Page): void {
  const seen: string[] = [];
  cspRefusals.set(page, seen);
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
}

/** Fails on any serious or critical axe-core violation of the page as shown, and on any CSP refusal since the page opened. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousA11yViolations(page)).toEqual([]);
  expect(cspRefusals.get(page) ?? [], 'Content-Security-Policy refusals').toEqual([]);
}

/** The newest API key the keys page shows once (after the first sign-in replaced the account-creation key). */
export async function shownKey(page: Page, baseUrl: string): Promise<string> {
  const keysPage = await page.context().newPage();
  await keysPage.goto(`${baseUrl}/keys`);
  const key = (await keysPage.locator('code.secret').first().textContent())!.trim();
  await keysPage.close();
  return key;
}

/**
 * A new verified owner who sets a password from the welcome email's link and signs in through the
 * console's own sign-in prompt; returns the account (its `key` is replaced at this first sign-in:
 * use `shownKey` for a working one) and the console page; `deviceScaleFactor` 2 is a high-density screen.
 */
export async function signedInConsole(app: TestApp, browser: Browser, width = 1440, deviceScaleFactor = 1) {
  const acct = await verifiedAccount(app);
  const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor });
  context.setDefaultTimeout(15_000);
  // Every page of the owner's browser, the console and the owner pages alike, is watched for CSP refusals.
  context.on('page', watchCsp);
  const page = await context.newPage();
  await page.goto(app.local(acct.passwordLink));
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the new password').fill(PASSWORD);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Set password' }).click()]);
  await page.goto(`${app.url}/console`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to the console');
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Sign in' }).click()]);
  await page.getByLabel('Email address').fill(acct.email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await Promise.all([page.waitForURL(/\/console$/), page.getByRole('button', { name: 'Sign in' }).click()]);
  return { acct, page, context };
}

/**
 * The suite's server and browser: the console and the widget built, the real app on a free port (its
 * `PUBLIC_URL` that address) with `env` added, one Chromium; both closed after the suite.
 */
export function consoleSuite(ready: (app: TestApp, browser: Browser) => void, env: Record<string, string> = {}): void {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    // The widget too: the design page's live preview and the journey's store page load it.
    await Promise.all([buildConsole({ ifStale: true }), buildWidget({ ifStale: true, log: () => {} })]);
    const port = await freePort();
    app = await startApp({ ...RAISED_LIMITS, PUBLIC_URL: `http://127.0.0.1:${port}`, ...env }, { port });
    browser = await launch();
    ready(app, browser);
  }, 180_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && browser) await reportPages(browser, ctx.task.name);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
}

/**
 * After a failed test: what each open page showed (its address, its main text and each frame's
 * text) on stderr, which CI's log keeps, and a screenshot per page as test-artifacts/failed-*.png.
 */
async function reportPages(browser: Browser, test: string): Promise<void> {
  const slug = test.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60);
  const pages = browser.contexts().flatMap((c) => c.pages());
  for (const [i, page] of pages.entries()) {
    const lines = [`--- page ${i + 1} of ${pages.length} after "${test}" failed: ${page.url()}`];
    for (const frame of page.frames()) {
      const text = await frame.evaluate(() => document.body?.innerText ?? '').catch((e: Error) => `(unreadable: ${e.message})`);
      lines.push(`[frame ${frame === page.mainFrame() ? 'main' : frame.url()}]`, text.replace(/\n{2,}/g, '\n').slice(0, 3000));
    }
    console.error(lines.join('\n'));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `failed-${slug}-${i + 1}.png`), fullPage: true }).catch(() => {});
  }
}
