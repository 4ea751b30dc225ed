import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, demoInBrowser, languageProgram, openPage, seriousA11yViolations, SKIP_BROWSER } from './helpers.ts';

// Issue #27 in real Chromium: a program that kept its default design texts, opened by a German
// browser: the hosted landing page's headline and the window's sign-up form (labels, button, the
// sign-in prompt) are the German defaults, and a text the owner wrote stays as written.

describe.skipIf(SKIP_BROWSER)('default design texts in the visitor’s language (issue #27)', () => {
  const env = demoInBrowser();
  let pid = '';

  beforeAll(async () => {
    pid = await languageProgram(env.demo, ['de'], { landingPages: { content: { subheadline: 'Frisch geröstet, von Acme.' } } });
  }, 60_000);

  it('de: German headline, German sign-up labels and button in the window, the owner’s subheadline as written, axe', async () => {
    const { context, page, problems } = await openPage(env.browser, { viewport: { width: 1280, height: 900 }, locale: 'de-DE', reducedMotion: 'reduce' });
    const res = await page.goto(`${env.demo.url}/p/${pid}`);
    expect(res?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Freunde einladen, Prämien sichern' }).waitFor();
    await page.getByText('Frisch geröstet, von Acme.').waitFor();
    const join = page.getByRole('region', { name: 'Registrieren' });
    await join.getByRole('textbox', { name: 'Vorname' }).waitFor();
    await join.getByRole('textbox', { name: /E-Mail/ }).waitFor();
    await join.getByRole('button', { name: 'Meinen Empfehlungslink holen' }).waitFor();
    await join.getByText('Schon dabei?').waitFor();
    // The window draws into a shadow root: locators (not innerText) see into it.
    for (const english of ['First name', 'Get my referral link', 'Already signed up?', 'Refer friends, earn rewards', 'Sign in']) expect(await page.getByText(english).count(), english).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'languages-design-landing-de-1280.png'), fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
