import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, demoInBrowser, languageProgram, openPage, seriousA11yViolations, SKIP_BROWSER } from './helpers.ts';

// Issue #27 in real Chromium: a visitor whose browser speaks German, Japanese or Polish opens the
// program's hosted landing page and reads the page's own words in that language (the owner's texts
// stay as the owner wrote them), follows the sign-in link to the portal in the same language, and
// the page passes axe. Screenshots at 1280 px for each language and at 320 px for German, the
// longest words.

describe.skipIf(SKIP_BROWSER)('the hosted landing page in the visitor’s language (issue #27)', () => {
  const env = demoInBrowser();
  let pid = '';

  beforeAll(async () => {
    pid = await languageProgram(env.demo, ['de', 'ja', 'pl'], {
      landingPages: {
        company: { websiteUrl: 'https://coffee.example.com' },
        content: { headline: 'Acme Coffee', subheadline: 'Frisch geröstet.', body: '', buttonText: 'Los geht’s' },
        styles: { backgroundColor: '#fffbeb', textColor: '#1c1917', accentColor: '#92400e' },
      },
    });
    // Adding a reward config drops the program from the participant API's cache itself.
    await env.demo.rest('POST', `/campaign/${pid}/reward-configs`, { type: 'DOUBLE_SIDED', title: 'Bohnen-Bonus', description: 'Eine Tüte Bohnen pro Freund', referralDescription: '5 € Rabatt', isVisible: true });
  }, 60_000);

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `languages-${name}.png`), fullPage: true });

  const CASES = [
    { locale: 'de-DE', lang: 'de', offer: 'Dein Angebot', join: 'Registrieren', friendGets: 'Deine Freunde bekommen: 5 € Rabatt', have: 'Schon dabei?', signIn: 'Im Portal anmelden', portal: 'Empfehlungsportal', visit: 'Acme Coffee besuchen' },
    { locale: 'ja-JP', lang: 'ja', offer: '特典', join: '登録する', friendGets: 'お友達の特典：5 € Rabatt', have: 'すでに参加済みの方は', signIn: 'ポータルにログイン', portal: '紹介ポータル', visit: 'Acme Coffee のサイトへ' },
    { locale: 'pl-PL', lang: 'pl', offer: 'Twoja oferta', join: 'Zarejestruj się', friendGets: 'Znajomi dostają: 5 € Rabatt', have: 'Już uczestniczysz?', signIn: 'Zaloguj się do portalu', portal: 'Portal poleceń', visit: 'Odwiedź Acme Coffee' },
  ] as const;

  for (const c of CASES) {
    it(`${c.lang}: the page’s own words, its lang, the way to the portal, and axe`, async () => {
      const { context, page, problems } = await openPage(env.browser, { viewport: { width: 1280, height: 900 }, locale: c.locale, reducedMotion: 'reduce' });
      const res = await page.goto(`${env.demo.url}/p/${pid}`);
      expect(res?.status()).toBe(200);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(c.lang);
      const offer = page.getByRole('region', { name: c.offer });
      await offer.waitFor();
      expect(await offer.innerText()).toContain(c.friendGets);
      // The owner's texts stay as written (German here, whatever the visitor reads).
      await page.getByRole('heading', { level: 3, name: 'Bohnen-Bonus' }).waitFor();
      expect(await page.locator('footer').innerText()).toContain(c.have);
      await page.getByRole('link', { name: c.visit }).waitFor();
      // The sign-up region is named in the visitor's language; the window draws its form into it.
      await page.getByRole('region', { name: c.join }).getByRole('textbox').first().waitFor();
      await shot(page, `landing-${c.lang}-1280`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      await page.getByRole('link', { name: c.signIn }).click();
      await page.getByRole('heading', { level: 1, name: c.portal }).waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(c.lang);
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }, 90_000);
  }

  it('de: the layout holds at 320 px with German’s long words', async () => {
    const context = await env.browser.newContext({ viewport: { width: 320, height: 800 }, locale: 'de-DE', reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.goto(`${env.demo.url}/p/${pid}`);
    await page.getByRole('region', { name: 'Dein Angebot' }).waitFor();
    await page.getByRole('region', { name: 'Registrieren' }).getByRole('textbox').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await shot(page, 'landing-de-320');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.goto(`${env.demo.url}/p/${pid}/portal`);
    await page.getByRole('heading', { level: 1, name: 'Empfehlungsportal' }).waitFor();
    await page.getByRole('region', { name: 'Empfehlungsportal' }).getByRole('textbox').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await shot(page, 'portal-de-320');
    await context.close();
  }, 60_000);
});
