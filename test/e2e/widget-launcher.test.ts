import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, demoInBrowser, eventually, seriousA11yViolations, SKIP_BROWSER } from './helpers.ts';
import { universalCode } from '../../demo/pages.ts';

// Issue #24 in real Chromium: the corner launcher (design.widget) and the referred-friend welcome
// (design.referredExperience) on a plain page that carries nothing but the Universal Code, and on
// the demo store. What a person does: click or press Enter on the launcher, dismiss the offer with
// Escape, sign up through it; axe on each piece, and a screenshot of each.

describe.skipIf(SKIP_BROWSER)('corner launcher and referred-friend welcome in Chromium (issue #24)', () => {
  const env = demoInBrowser();
  const pid = () => env.demo.state.referralProgramId;
  const participant = (email: string) => env.demo.rest('GET', `/campaign/${pid()}/participant/${encodeURIComponent(email)}`);

  /** A page with nothing but a heading, a button of its own and the Universal Code, as a site owner pastes it. */
  const plain = `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Plain shop</title>
<script></script></head><body><main><h1>Plain shop</h1><p>Hand-made things.</p><button type="button">Add to cart</button></main></body></html>`;
  const plainUrl = () => `${env.demo.url}/plain-page`;
  const newPage = async (width: number, opts: { motion?: boolean; program?: string; extra?: string; locale?: string } = {}): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await env.browser.newContext({ viewport: { width, height: 640 }, reducedMotion: opts.motion ? 'no-preference' : 'reduce', ...(opts.locale ? { locale: opts.locale } : {}) });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const html = plain.replace('<script></script>', universalCode(env.demo.url, opts.program ?? pid())).replace('</main>', `${opts.extra ?? ''}</main>`);
    await page.route(`${plainUrl()}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
    return { context, page };
  };

  beforeAll(async () => {
    await env.demo.rest('PATCH', `/campaign/${pid()}/design`, {
      widget: { isShownToNewVisitors: true, isShownToParticipants: true, placement: 'BOTTOM_RIGHT' },
      referredExperience: { isOfferPopupEnabled: true, offerPopupDelaySeconds: 0, isBannerEnabled: true, isHeadingEnabled: true, headingText: 'Welcome, friend!', pageTitleReplacement: 'A gift for you' },
    });
    env.demo.app.deps.mobilePrograms.forget(pid());
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  it('the launcher opens the window by mouse and by keyboard, sits in its corner at 320 px and gives focus back', async () => {
    const { context, page } = await newPage(320);
    await page.goto(plainUrl());
    const launcher = page.locator('[data-grsf-launcher]').getByRole('button', { name: 'Refer a friend', exact: true });
    await launcher.waitFor({ state: 'visible' });
    // In the bottom-right corner, small at a phone's width, clear of the page's own button.
    const box = (await launcher.boundingBox())!;
    expect(box.width).toBeLessThanOrEqual(56);
    expect(box.x + box.width).toBeLessThanOrEqual(320 - 8);
    expect(box.y + box.height).toBeLessThanOrEqual(640 - 8);
    const own = (await page.getByRole('button', { name: 'Add to cart' }).boundingBox())!;
    expect(own.y + own.height < box.y || own.x + own.width < box.x).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-launcher-320.png') });
    expect(await seriousA11yViolations(page)).toEqual([]);

    await launcher.click();
    const dialog = page.getByRole('dialog', { name: 'Refer friends' });
    await dialog.waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-grsf-launcher'))).toBe(true);

    // Keyboard only: the launcher is in the tab order after the page's own controls.
    await page.reload();
    await launcher.waitFor({ state: 'visible' });
    const onLauncher = () => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.className === 'o');
    for (let i = 0; i < 6 && !(await onLauncher()); i++) await page.keyboard.press('Tab');
    expect(await onLauncher()).toBe(true);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'visible' });
    await context.close();
  });

  it('a referred visitor sees the welcome once: popup, banner, heading and tab title; Escape closes it and it stays closed', async () => {
    const referrer = await participant(env.demo.state.people.referrer);
    const key = new URL(referrer.shareUrl).searchParams.get('grsf');
    const { context, page } = await newPage(1280);
    await page.goto(`${plainUrl()}?grsf=${key}`);
    // The referrer by name (design referrerNameFormat FIRST: Alice Moreau is "Alice"), through MR1's `name`.
    expect(referrer.firstName).toBe('Alice');
    const offer = page.getByRole('dialog', { name: 'Alice sent you a gift' });
    await offer.waitFor({ state: 'visible' });
    await page.locator('[data-grsf-banner]').getByRole('region').waitFor();
    expect(await page.locator('[data-grsf-banner]').getByRole('region').textContent()).toContain('Alice sent you a special offer');
    expect(await page.locator('h1').textContent()).toContain('Welcome, friend!');
    expect(await page.title()).toBe('A gift for you');
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-welcome-popup.png') });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await offer.waitFor({ state: 'detached' });
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-welcome-banner.png') });
    await page.reload();
    await page.locator('[data-grsf-launcher]').getByRole('button').first().waitFor();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await page.locator('[data-grsf-offer]').count()).toBe(0);
    await context.close();
  });

  it('signing up through the offer popup credits the referrer', async () => {
    const referrer = await participant(env.demo.state.people.referrer);
    const key = new URL(referrer.shareUrl).searchParams.get('grsf');
    const { context, page } = await newPage(390);
    await page.goto(`${plainUrl()}?grsf=${key}`);
    const offer = page.getByRole('dialog', { name: /sent you a gift/ });
    await offer.getByLabel('Email').fill('issue24-friend@example.com');
    await offer.getByRole('button', { name: 'Claim my offer' }).click();
    await offer.getByText('You are in! Check your inbox.').waitFor();
    // Reduced motion: no confetti (it would be drawn before the thank-you).
    expect(await page.locator('[data-grsf-confetti]').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-welcome-thanks-390.png') });
    const friend = await eventually(() => participant('issue24-friend@example.com').catch(() => null), 15_000, 'the friend to be a participant');
    expect(friend.referrer?.id ?? friend.referredBy).toBe(referrer.id);
    await context.close();
  });
  it('confetti greets the friend who claims the offer: one canvas over the page, hidden from assistive technology, never in the way of the pointer', async () => {
    const referrer = await participant(env.demo.state.people.referrer);
    const key = new URL(referrer.shareUrl).searchParams.get('grsf');
    const design = await env.demo.rest('GET', `/campaign/${pid()}/design`);
    expect(design.referredExperience.isOfferPopupConfettiEnabled).toBe(true);
    const { context, page } = await newPage(1024, { motion: true });
    await page.goto(`${plainUrl()}?grsf=${key}`);
    const offer = page.getByRole('dialog', { name: 'Alice sent you a gift' });
    await offer.getByLabel('Email').fill(`issue24-confetti-${Date.now()}@example.com`);
    await offer.getByRole('button', { name: 'Claim my offer' }).click();
    await offer.getByText('You are in! Check your inbox.').waitFor();
    // Drawn before the thank-you, so it is there now; it lasts 150 frames.
    const canvas = page.locator('canvas[data-grsf-confetti]');
    expect(await canvas.count()).toBe(1);
    expect(await canvas.evaluate((c) => ({ hidden: c.getAttribute('aria-hidden'), pointer: getComputedStyle(c).pointerEvents, position: getComputedStyle(c).position }))).toEqual({ hidden: 'true', pointer: 'none', position: 'fixed' });
    // The pointer reaches what is under it: the thank-you's button, not the canvas.
    const done = offer.getByRole('button', { name: 'Done' });
    const box = (await done.boundingBox())!;
    expect(await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.hasAttribute('data-grsf-offer'), [box.x + box.width / 2, box.y + box.height / 2])).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-welcome-confetti.png') });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await done.click();
    await offer.waitFor({ state: 'detached' });
    await eventually(async () => (await canvas.count()) === 0, 20_000, 'the confetti to end');
    await context.close();
  }, 60_000);

  it('a new program: the window opens with its first load alone (window.js and the one first panel its visitor needs), lazy panels arrive by keyboard and mouse with an announced loading state, and the starter reward is named until a REST edit', async () => {
    const created = await env.demo.rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Starter shop' });
    const program = created.id as string;
    const [starter] = created.rewards;
    expect(starter).toMatchObject({ type: 'DOUBLE_SIDED', isStarter: true, isVisible: false });
    await env.demo.rest('PATCH', `/campaign/${program}/installation`, { shareUrl: plainUrl() });
    const design = await env.demo.rest('GET', `/campaign/${program}/design`);
    const { context, page } = await newPage(1024, { program, extra: '<p><a href="#" class="growsurf-open-window">Invite friends</a></p>' });
    const chunks: string[] = [];
    page.on('request', (r) => {
      // The name before the 8-character hash, which may itself start with a dash (`launcher--tIUt7ke.js`).
      const m = /\/widget\/chunks\/([\w-]+)-[\w-]{8}\.js(?:\?|$)/.exec(r.url());
      if (m) chunks.push(m[1]!);
    });
    await page.goto(plainUrl());
    await page.getByRole('link', { name: 'Invite friends' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refer friends' });
    await dialog.getByRole('textbox', { name: 'Email' }).waitFor();
    // The visitor's first paint: window.js and the sign-up form's chunks (the form, the sign-up code, the
    // labelled field and the sign-up words, issue #32), never the share panel's or a lazy panel's (issue #24).
    expect(chunks.filter((c) => !['capture', 'launcher', 'form-capture'].includes(c)).sort()).toEqual(['en-signup', 'field', 'sign-ups', 'signup']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-window-first-load.png') });
    await dialog.getByRole('textbox', { name: 'Email' }).fill(`issue24-starter-${Date.now()}@example.com`);
    await dialog.getByRole('button', { name: design.signup.buttonText }).click();
    await dialog.getByRole('button', { name: design.share.copyButtonText }).waitFor();
    expect(chunks).not.toContain('lists');
    expect(chunks).toContain('share');

    // Keyboard: arrow along the tabs to Rewards; its chunk is held back a moment to see the loading state.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/widget/chunks/lists-*.js', async (route) => {
      await held;
      await route.continue();
    });
    await dialog.getByRole('tab', { selected: true }).focus();
    for (let i = 0; i < 6 && (await dialog.getByRole('tab', { selected: true }).textContent()) !== design.rewards.title; i++) await page.keyboard.press('ArrowRight');
    expect(await dialog.getByRole('tab', { selected: true }).textContent()).toBe(design.rewards.title);
    const panel = dialog.getByRole('tabpanel');
    const loading = panel.getByRole('status');
    await loading.waitFor();
    expect(await loading.textContent()).toBe('Loading…');
    expect(await loading.getAttribute('aria-live')).toBe('polite');
    const before = (await panel.boundingBox())!.height;
    expect(before).toBeGreaterThanOrEqual(240);
    release();
    const note = panel.locator(`[data-grsf-starter="${starter.id}"]`);
    await note.waitFor();
    expect(await note.textContent()).toBe(`“${starter.description}” is this program’s starter reward. It is not switched on yet, so referrals do not earn it until the program sets it up.`);
    expect(chunks).toContain('lists');
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-starter-reward.png') });
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Mouse: another lazy panel from the same chunk.
    await dialog.getByRole('tab', { name: design.referralStatus.title, exact: true }).click();
    await dialog.getByRole('tabpanel').getByText(design.referralStatus.emptyState || 'No referrals yet.').waitFor();

    // The owner edits the reward over REST: the flag goes, and the panel no longer says it.
    const edited = await env.demo.rest('PATCH', `/campaign/${program}/reward-configs/${starter.id}`, { isVisible: true, description: '$10 off for you both' });
    expect(edited.isStarter).toBeUndefined();
    env.demo.app.deps.mobilePrograms.forget(program);
    await dialog.getByRole('tab', { name: design.rewards.title, exact: true }).click();
    await page.evaluate(() => (window as any).growsurf.init());
    await eventually(async () => (await dialog.locator('[data-grsf-starter]').count()) === 0 && (await dialog.getByRole('tabpanel').getByRole('heading', { name: design.rewards.title }).count()) === 1, 15_000, 'the starter notice to go');
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-24-starter-reward-edited.png') });
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Back as a signed-in participant: the first paint is the home's chunk (the offer, the link, Copy
    // and the share buttons, issue #32), never the sign-up form's; the icon sprite's and the home's
    // figures' chunks (the latter with the progress arithmetic) are requested beside it at boot and
    // painted when they arrive, nothing else.
    // The figures' chunk is held back: the offer, the link, Copy and the share buttons paint without
    // it, with no loading note, and the figures' grid already has their height, so nothing below moves.
    chunks.length = 0;
    let showFigures!: () => void;
    const figuresHeld = new Promise<void>((r) => (showFigures = r));
    await page.route('**/widget/chunks/figures-*.js', async (route) => {
      await figuresHeld;
      await route.continue();
    });
    await page.reload();
    await page.getByRole('link', { name: 'Invite friends' }).click();
    const home = page.getByRole('dialog', { name: 'Refer friends' });
    await home.getByRole('button', { name: design.share.copyButtonText }).waitFor();
    expect(await home.locator('[data-grsf-home] .sb .btn').count()).toBeGreaterThan(0);
    // No figure tile yet: only the hidden boxes (<u>) that keep their place.
    expect(await home.locator('[data-grsf-home] .tile:not(u)').count()).toBe(0);
    expect(await home.getByRole('tabpanel').getByRole('status').count()).toBe(0);
    const figuresBox = home.locator('[data-grsf-home] .hs');
    const reserved = (await figuresBox.boundingBox())!.height;
    expect(reserved).toBeGreaterThanOrEqual(74);
    showFigures();
    await home.locator('[data-grsf-home] .tile:not(u)').first().waitFor();
    // One row of tiles here (the count and a one-line way to the next reward at this width): the same height.
    expect(Math.abs((await figuresBox.boundingBox())!.height - reserved)).toBeLessThan(1);
    await page.unroute('**/widget/chunks/figures-*.js');
    expect(chunks.filter((c) => !['capture', 'launcher', 'form-capture'].includes(c)).sort()).toEqual(['figures', 'icons', 'share']);
    await context.close();
  }, 120_000);

  it('speaks the reader’s language (issue #27): a Japanese browser’s launcher reads Japanese; a participant who switches the window to Spanish reads Spanish design texts at once, and the launcher follows on the next page', async () => {
    const created = await env.demo.rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Polyglot shop' });
    const program = created.id as string;
    await env.demo.rest('PATCH', `/campaign/${program}/options`, { languages: { baseLanguage: 'en', additionalLanguages: ['es', 'ja'] } });
    await env.demo.rest('PATCH', `/campaign/${program}/installation`, { shareUrl: plainUrl() });
    // A card whose button text the owner left blank: it falls back to the launcher's own words (MW1 launcherTexts).
    await env.demo.rest('PATCH', `/campaign/${program}/design`, { widget: { isShownToNewVisitors: true, isShownToParticipants: true, appearance: 'CARD', buttonText: '' } });
    env.demo.app.deps.mobilePrograms.forget(program);

    const ja = await newPage(1024, { program, locale: 'ja' });
    await ja.page.goto(plainUrl());
    const jaLauncher = ja.page.locator('[data-grsf-launcher]');
    await jaLauncher.getByRole('button', { name: '紹介して特典ゲット', exact: true }).waitFor();
    await jaLauncher.getByRole('button', { name: 'お友達を紹介', exact: true }).waitFor();
    await jaLauncher.getByRole('button', { name: '非表示: お友達を紹介', exact: true }).waitFor();
    await expect.poll(() => jaLauncher.textContent()).not.toMatch(/Refer|Hide/);
    // Its words are Japanese on an English page: the launcher says so for screen readers.
    expect(await jaLauncher.getByRole('button', { name: 'お友達を紹介', exact: true }).evaluate((el) => el.closest('[lang]')?.getAttribute('lang'))).toBe('ja');
    await ja.page.screenshot({ path: path.join(ARTIFACTS, 'issue-27-launcher-ja.png') });
    expect(await seriousA11yViolations(ja.page)).toEqual([]);
    await ja.context.close();

    // An English visitor signs up through the launcher, then picks Spanish in the window's settings.
    const { context, page } = await newPage(1024, { program });
    await page.goto(plainUrl());
    await page.locator('[data-grsf-launcher]').getByRole('button', { name: 'Refer a friend', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Email' }).fill(`issue27-switch-${Date.now()}@example.com`);
    await dialog.getByRole('button', { name: 'Get my referral link' }).click();
    await dialog.getByRole('textbox', { name: 'Your referral link', exact: true }).waitFor();
    await dialog.getByRole('heading', { name: 'Share your link' }).waitFor();
    const windowLang = () => dialog.evaluate((el) => el.closest('[lang]')?.getAttribute('lang'));
    expect(await windowLang()).toBe('en');
    // No reload in between: a mark on the page survives the switch.
    await page.evaluate(() => ((window as any).__sameDocument = true));
    await dialog.getByRole('combobox', { name: 'Language' }).selectOption('es');
    await dialog.getByRole('heading', { name: 'Comparte tu enlace' }).waitFor();
    await dialog.getByRole('textbox', { name: 'Tu enlace de referido', exact: true }).waitFor();
    await expect.poll(() => dialog.getByRole('heading', { name: 'Share your link' }).count()).toBe(0);
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Idioma' }).inputValue()).toBe('es');
    expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);
    await expect.poll(windowLang).toBe('es');
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-27-window-switched-es.png') });
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The next page: the launcher, read with the participant's token, speaks their new language.
    await page.reload();
    const launcher = page.locator('[data-grsf-launcher]');
    await launcher.getByRole('button', { name: 'Ocultar: Tu enlace de referido', exact: true }).waitFor();
    await launcher.getByRole('button', { name: 'Recomienda y gana', exact: true }).waitFor();
    expect(await launcher.getByRole('button', { name: 'Recomienda y gana', exact: true }).evaluate((el) => el.closest('[lang]')?.getAttribute('lang'))).toBe('es');
    await context.close();
  }, 120_000);
});
