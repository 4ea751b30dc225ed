import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { ARTIFACTS, demoInBrowser, eventually, SKIP_BROWSER } from './helpers.ts';

// Issue #19, item 7, in real Chromium on the demo store: what a person sees of the unread badge
// (nothing at 0, the number above it, nothing again once read) and of the window's tab strip
// (every tab on screen at a phone's and a desktop's width, with every section the design can show).

type Design = Record<string, any>;

describe.skipIf(SKIP_BROWSER)('widget visibility in Chromium (issue #19)', () => {
  const env = demoInBrowser();
  let context: BrowserContext;
  let page: Page;
  const designs: Record<'referral' | 'affiliate', Design> = { referral: {}, affiliate: {} };

  beforeAll(async () => {
    const { referralProgramId: referral, affiliateProgramId: affiliate } = env.demo.state;
    // Every section either program type can show as a tab, switched on.
    const on = { share: { invite: { isEnabled: true } }, leaderboard: { isEnabled: true }, trafficInsights: { isPublicDisplayed: true }, resources: { isPublicDisplayed: true } };
    designs.referral = await env.demo.rest('PATCH', `/campaign/${referral}/design`, { ...on, referralSummary: { isEnabled: true } });
    designs.affiliate = await env.demo.rest('PATCH', `/campaign/${affiliate}/design`, {
      ...on,
      // A title as long as the design allows (100 characters): its tab is cut short with an ellipsis (its name stays whole), never wider than the strip.
      resources: { isPublicDisplayed: true, title: 'Brand assets, banners, product photos and ready-made posts to share with everyone in your audience!!' },
      affiliateSummary: { isEnabled: true },
      commissions: { isEnabled: true },
      payouts: { isEnabled: true },
      participantSettings: { taxDetails: { isEnabled: true } },
    });
    expect(designs.affiliate.resources.title).toHaveLength(100);
    for (const id of [referral, affiliate]) env.demo.app.deps.mobilePrograms.forget(id);
    context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await context?.close();
  });

  /** How the launcher's badge is drawn: whether it takes up room on screen, its text when it does, and the launcher's text as rendered (innerText skips what is not shown). */
  const badgeOf = (launcher: Locator) =>
    launcher.evaluate((el: HTMLElement) => {
      const b = el.querySelector<HTMLElement>('[data-grsf-badge]');
      const box = b?.getBoundingClientRect();
      const shown = !!box && box.width > 0 && box.height > 0 && getComputedStyle(b!).visibility === 'visible';
      return { exists: !!b, shown, text: shown ? b!.innerText : null, launcher: el.innerText.trim() };
    });

  const signIn = async (who: string) => {
    await page.getByRole('button', { name: `Sign in as ${who}` }).click();
    await eventually(async () => /Signed in as/.test((await page.locator('#signin-out').textContent()) ?? ''), 15_000, 'the sign-in');
  };

  it('issue #19: the unread badge is hidden at 0, shows the count when there is one, and hides again after mark-read', async () => {
    await page.goto(`${env.demo.url}/`);
    const launcher = page.locator('header .growsurf-unread-notifications-badge');
    // A visitor has nothing unread: the badge exists (the window bundle booted) but nothing of it is on screen.
    await eventually(async () => (await badgeOf(launcher)).exists, 15_000, 'the badge to be painted');
    expect(await badgeOf(launcher)).toEqual({ exists: true, shown: false, text: null, launcher: 'Refer a friend' });
    expect(await launcher.locator('[data-grsf-badge]').isVisible()).toBe(false);
    // A screen reader hears the launcher's own name, not "Refer a friend 0".
    expect(await page.locator('header').getByRole('button', { name: 'Refer a friend', exact: true }).count()).toBe(1);
    await launcher.screenshot({ path: path.join(ARTIFACTS, 'badge-0.png') });

    // The referrer has unread rewards: the badge shows how many.
    await signIn(env.demo.state.people.referrer);
    const unread = await page.evaluate(async () => ((await (window as any).growsurf.getParticipantRewards({ limit: 50 })).rewards as Array<{ unread: boolean }>).filter((r) => r.unread).length);
    expect(unread).toBeGreaterThan(0);
    const shown = await eventually(async () => {
      const b = await badgeOf(launcher);
      return b.shown && b;
    }, 15_000, 'the badge to show');
    expect(shown).toEqual({ exists: true, shown: true, text: String(unread), launcher: `Refer a friend${unread}` });
    expect(await launcher.locator('[data-grsf-badge]').isVisible()).toBe(true);
    expect(await page.locator('header').getByRole('button', { name: `Refer a friend ${unread}`, exact: true }).count()).toBe(1);
    await launcher.screenshot({ path: path.join(ARTIFACTS, 'badge-unread.png') });

    // Reading them in the window clears it: hidden again, not "0".
    await launcher.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('tab', { name: designs.referral.rewards.title, exact: true }).click();
    await dialog.getByRole('button', { name: 'Mark all as read' }).click();
    await eventually(async () => !(await badgeOf(launcher)).shown, 15_000, 'the badge to hide');
    await page.keyboard.press('Escape');
    expect(await badgeOf(launcher)).toEqual({ exists: true, shown: false, text: null, launcher: 'Refer a friend' });
    expect(await launcher.getAttribute('data-grsf-unread')).toBe('0');
    expect(await page.locator('header').getByRole('button', { name: 'Refer a friend', exact: true }).count()).toBe(1);
  }, 90_000);

  /**
   * Opens the window and checks its one row of tabs at each width (issue #32, which replaced #19's
   * wrapping strip): every tab on the same row inside the dialog, the strip scrolling sideways where
   * the tabs do not fit, and the arrow keys walking every tab, each selected, focused and scrolled
   * fully into view in turn.
   */
  async function everyTabOnScreen(program: 'referral' | 'affiliate', launcherName: string, titles: string[]) {
    for (const width of [320, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.locator('header').getByRole('button', { name: launcherName }).click();
      const dialog = page.getByRole('dialog');
      const strip = dialog.getByRole('tablist');
      await strip.waitFor({ state: 'visible' });
      await eventually(async () => (await strip.getByRole('tab').count()) === titles.length, 15_000, `${titles.length} tabs`);
      expect(await strip.getByRole('tab').allTextContents()).toEqual(titles);
      const geometry = () =>
        strip.evaluate((el: HTMLElement) => {
          const s = el.getBoundingClientRect();
          const d = el.closest('[role=dialog]')!.getBoundingClientRect();
          const tabs = [...el.querySelectorAll<HTMLElement>('[role=tab]')].map((tab) => {
            const r = tab.getBoundingClientRect();
            return { name: tab.textContent, top: Math.round(r.top), inStrip: r.left >= s.left - 0.5 && r.right <= s.right + 0.5, selected: tab.getAttribute('aria-selected') === 'true' };
          });
          return { scrolls: el.scrollWidth > el.clientWidth + 1, stripInDialog: s.left >= d.left - 0.5 && s.right <= d.right + 0.5 && s.right <= innerWidth, rows: new Set(tabs.map((t) => t.top)).size, tabs };
        });
      const first = await geometry();
      expect(first.rows, `the ${program} tabs share one row at ${width} px`).toBe(1);
      expect(first.stripInDialog).toBe(true);
      // At 320 px the tabs do not fit: the strip scrolls instead of wrapping.
      if (width === 320) expect(first.scrolls, `the ${program} tab strip scrolls at 320 px`).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, `window-tabs-${program}-${width}.png`) });
      // Keyboard: the arrow keys walk every tab, each selected, focused and scrolled into view in turn.
      await strip.getByRole('tab').first().focus();
      for (const title of titles.slice(1)) {
        await page.keyboard.press('ArrowRight');
        const tab = strip.getByRole('tab', { name: title, exact: true });
        // The window moves focus on the next animation frame, after the selection.
        await eventually(async () => (await tab.getAttribute('aria-selected')) === 'true' && (await tab.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)), 5_000, `${title} selected and focused`);
        await eventually(async () => (await geometry()).tabs.find((t) => t.selected)?.inStrip === true, 5_000, `${title} scrolled into view at ${width} px`);
      }
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
  }

  it('issue #19: at 320 px and 1280 px every tab of a referral program with every section on is on one row and reachable', async () => {
    const d = designs.referral;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${env.demo.url}/`);
    await signIn(env.demo.state.people.referrer);
    // The progress panel (issue #24) takes the design's `stats` title unless it repeats the referral list's.
    const progress = d.stats.title === d.referralStatus.title ? 'Your progress' : d.stats.title;
    // The first tab is the participant's home (issue #32), which holds the share section.
    const titles = ['Home', progress, d.share.invite.title, d.rewards.title, d.referralStatus.title, d.referralSummary.title, d.trafficInsights.title, d.leaderboard.title, d.resources.title];
    await everyTabOnScreen('referral', 'Refer a friend', titles);
  }, 90_000);

  it('issue #19: at 320 px and 1280 px every tab of an affiliate program with every section on is on one row and reachable', async () => {
    const d = designs.affiliate;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${env.demo.url}/partners`);
    await signIn(env.demo.state.people.affiliate);
    const titles = [
      'Home',
      d.share.invite.title,
      d.referralStatus.title,
      d.affiliateSummary.title,
      d.commissions.title,
      d.payouts.title,
      d.participantSettings.title,
      d.participantSettings.taxDetails.label,
      d.trafficInsights.title,
      d.leaderboard.title,
      d.resources.title,
    ];
    await everyTabOnScreen('affiliate', 'Partner portal', titles);
  }, 90_000);
});
