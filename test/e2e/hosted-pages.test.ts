import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, demoInBrowser, eventually, openPage, seriousA11yViolations, SKIP_BROWSER } from './helpers.ts';

// Issue #24 in real Chromium: a program without a site hands out share links that land on its
// hosted landing page (design.landingPages); a friend signs up there through the real window drawn
// full-page and reads her own link; the sharer signs in to the hosted portal through the link
// emailed to him (read from the outbox) and reads his stats. axe on both pages, screenshots at 390
// and 1440 px.

describe.skipIf(SKIP_BROWSER)('hosted landing page and participant portal in Chromium (issue #24)', () => {
  const env = demoInBrowser();
  let pid = '';
  let sharer: { id: string; email: string; shareUrl: string };

  beforeAll(async () => {
    const { rest } = env.demo;
    const created = await rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Bean Club', companyName: 'Acme Coffee' });
    pid = created.id;
    await rest('POST', `/campaign/${pid}/reward-configs`, { type: 'DOUBLE_SIDED', title: 'Give a bag, get a bag', description: 'A free bag of beans for each friend', referralDescription: '$5 off your first bag', isVisible: true });
    await rest('PATCH', `/campaign/${pid}/design`, {
      landingPages: {
        content: { headline: 'Share Acme Coffee with friends', subheadline: 'They get $5 off, you get a free bag.', body: 'Fresh beans, roasted weekly.\n\nShare your link anywhere.', buttonText: 'Get my link' },
        styles: { backgroundColor: '#fffbeb', textColor: '#1c1917', accentColor: '#92400e' },
        seo: { title: 'Coffee referrals', description: 'Give a bag, get a bag.' },
      },
      referralSummary: { isEnabled: true },
    });
    sharer = await rest('POST', `/campaign/${pid}/participant`, { email: 'sam.sharer@example.com', firstName: 'Sam' });
    env.demo.app.deps.mobilePrograms.forget(pid);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  /** A fresh visitor's page that collects console errors, page errors and failed responses. */
  function visitor(width: number): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    return openPage(env.browser, { viewport: { width, height: 900 }, reducedMotion: 'reduce' }, { strict: true });
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `hosted-${name}.png`), fullPage: true });

  it('a friend opens the share link, lands on the landing page, signs up through it as the sharer’s referral and reads her link', async () => {
    const design = await env.demo.rest('GET', `/campaign/${pid}/design`);
    const label = (key: string) => design.signup.fields.find((f: { key: string }) => f.key === key).label as string;
    const { context, page, problems } = await visitor(1440);
    const res = await page.goto(sharer.shareUrl);
    expect(res?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Coffee referrals · Acme Coffee');
    await page.getByRole('heading', { level: 1, name: 'Share Acme Coffee with friends' }).waitFor();
    expect(await page.getByRole('region', { name: 'Your offer' }).innerText()).toContain('Your friend gets: $5 off your first bag');

    // The call to action jumps to the sign-up, which the window draws (JavaScript-rendered) in its shadow root.
    const join = page.getByRole('region', { name: 'Sign up' });
    const email = join.getByLabel(label('email'), { exact: true });
    await email.waitFor();
    await page.getByRole('link', { name: 'Get my link' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#join');
    await shot(page, 'landing-1440');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The window wears the landing page's accent (#92400e), so its buttons match the page's.
    const submit = join.getByRole('button', { name: design.signup.buttonText, exact: true });
    expect(await submit.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(146, 64, 14)');
    await email.click();
    await email.pressSequentially('fran.friend@example.com');
    await join.getByLabel(label('firstName'), { exact: true }).pressSequentially('Fran');
    await join.getByRole('button', { name: design.signup.buttonText, exact: true }).click();

    // Signed up: the window's share panel, full-page, shows her own link.
    const link = join.getByLabel('Your referral link', { exact: true });
    await expect.poll(() => link.inputValue().catch(() => ''), { timeout: 15_000 }).toMatch(new RegExp(`^${env.demo.url}/r/${pid}\\?grsf=`));
    const friend = await eventually(() => env.demo.rest('GET', `/campaign/${pid}/participant/${encodeURIComponent('fran.friend@example.com')}`).catch(() => null), 15_000, 'the friend to be a participant');
    expect(await link.inputValue()).toBe(friend.shareUrl);
    expect(friend.referrer?.id ?? friend.referredBy).toBe(sharer.id);
    expect(friend.firstName).toBe('Fran');
    // The landing page recorded the share link's visit, as the attribution script does on a site.
    await expect.poll(async () => (await env.demo.rest('GET', `/campaign/${pid}/participant/${sharer.id}`)).impressionCount, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => join.getByText('Signed in as Fran').count()).toBe(1);
    await shot(page, 'landing-signed-up-1440');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // Every share button's icon shows: its colour is not its background's (the portal's link colour once hid
    // the email icon, accent on accent).
    const shareButtons = join.locator('.sb .btn');
    await expect.poll(() => shareButtons.count()).toBeGreaterThan(1);
    const colours = await shareButtons.evaluateAll((els) => els.map((el) => ({ color: getComputedStyle(el).color, background: getComputedStyle(el).backgroundColor })));
    for (const c of colours) expect(c.color).not.toBe(c.background);
    expect(problems, 'console errors (a CSP refusal shows here)').toEqual([]);
    await context.close();
  }, 120_000);

  it('the landing page fits a 390 px phone', async () => {
    const { context, page, problems } = await visitor(390);
    await page.goto(`${env.demo.url}/p/${pid}`);
    const email = page.getByRole('region', { name: 'Sign up' }).getByRole('textbox').first();
    await email.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'landing-390');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('runs the design’s tag ids in a sandboxed frame with an opaque origin, loading only the vendor’s script', async () => {
    await env.demo.rest('PATCH', `/campaign/${pid}/design`, { landingPages: { scripts: { googleAnalyticsId: 'G-TEST1234' } } });
    env.demo.app.deps.mobilePrograms.forget(pid);
    const { context, page, problems } = await visitor(1440);
    // The vendor's script, served by the test (no network here): it reports what the bootstrap queued.
    const requested: string[] = [];
    await context.route('https://www.googletagmanager.com/**', (route) => {
      requested.push(route.request().url());
      return route.fulfill({ contentType: 'text/javascript', body: 'window.parent.postMessage({ queued: window.dataLayer.length, origin: self.origin }, "*");' });
    });
    await page.addInitScript(() => {
      const w = window as unknown as { said: unknown[] };
      w.said = [];
      addEventListener('message', (e) => w.said.push(e.data));
    });
    await page.goto(`${env.demo.url}/p/${pid}`);
    await expect.poll(() => page.evaluate(() => (window as unknown as { said: unknown[] }).said), { timeout: 15_000 }).toEqual([{ queued: 2, origin: 'null' }]);
    expect(requested).toEqual(['https://www.googletagmanager.com/gtag/js?id=G-TEST1234']);
    // The frame cannot reach the page's storage, where participant tokens live.
    const frame = page.frames().find((f) => f.url().endsWith(`/p/${pid}/tags`))!;
    expect(await frame.evaluate(() => { try { return typeof indexedDB.open('refloop'); } catch (e) { return (e as Error).name; } })).toBe('SecurityError');
    await page.getByRole('region', { name: 'Sign up' }).getByRole('textbox').first().waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
    await env.demo.rest('PATCH', `/campaign/${pid}/design`, { landingPages: { scripts: { googleAnalyticsId: null } } });
    env.demo.app.deps.mobilePrograms.forget(pid);
  }, 60_000);

  it('the sharer signs in to the portal through the emailed link and reads his stats, at 1440 and 390 px', async () => {
    for (const width of [1440, 390]) {
      const { context, page, problems } = await visitor(width);
      await page.goto(`${env.demo.url}/p/${pid}/portal`);
      await page.getByRole('heading', { level: 1, name: 'Referral portal' }).waitFor();
      const portal = page.getByRole('region', { name: 'Referral portal' });
      const field = portal.getByLabel('Email', { exact: true });
      await field.waitFor();
      if (width === 1440) {
        await shot(page, 'portal-signin-1440');
        expect(await seriousA11yViolations(page)).toEqual([]);
      }
      const before = await env.demo.app.deps.mailer.count({ to: sharer.email });
      await field.click();
      await field.pressSequentially(sharer.email);
      await field.press('Enter');
      await portal.getByRole('heading', { name: 'Check your inbox' }).waitFor();

      // The sign-in email, read from the outbox, links back to this portal (the test runs the job worker's due jobs itself).
      await expect
        .poll(
          async () => {
            await env.demo.app.deps.jobs.runDue();
            return env.demo.app.deps.mailer.count({ to: sharer.email });
          },
          { timeout: 15_000 },
        )
        .toBeGreaterThan(before);
      const [mail] = await env.demo.app.deps.mailer.list({ to: sharer.email, limit: 1 });
      expect(mail!.kind).toBe('program.loginLink');
      const signIn = mail!.links.find((l: string) => l.includes('grsfLogin='))!;
      expect(new URL(signIn).pathname).toBe(`/p/${pid}/portal`);
      await page.goto(signIn);

      // Signed in: the window's panels, full-page; the token left the address bar.
      await expect.poll(() => portal.getByText('Signed in as Sam').count(), { timeout: 15_000 }).toBe(1);
      expect(new URL(page.url()).searchParams.has('grsfLogin')).toBe(false);
      expect(await page.locator('[data-grsf-window]').count()).toBe(0);
      await expect.poll(() => portal.getByLabel('Your referral link', { exact: true }).inputValue().catch(() => '')).toBe(sharer.shareUrl);
      const summary = portal.getByRole('tab', { name: 'Summary' });
      await summary.focus();
      await summary.press('Enter');
      const tile = (name: string) => portal.locator('.tile').filter({ hasText: name });
      await expect.poll(() => tile('Referrals').innerText().catch(() => ''), { timeout: 15_000 }).toMatch(/^1\s*Referrals$|^Referrals\s*1$/);
      await expect.poll(() => tile('Clicks').innerText().catch(() => '')).toMatch(/1/);
      // Arrow keys move between the tabs, as in the window.
      await portal.getByRole('tab', { selected: true }).press('Home');
      // Home goes to the first tab. The portal draws the participant's home (issue #32: the link, the
      // figures) above its side list, so the list starts with the next section; the link stays in view.
      await expect.poll(() => portal.getByRole('tab', { selected: true }).innerText()).toBe('Your progress');
      expect(await portal.getByRole('tab').first().getAttribute('aria-selected')).toBe('true');
      expect(await portal.getByRole('tab', { name: 'Home' }).count()).toBe(0);
      expect(await portal.getByLabel('Your referral link', { exact: true }).inputValue()).toBe(sharer.shareUrl);
      await portal.getByRole('tab', { name: 'Summary' }).click();
      await expect.poll(() => tile('Referrals').count()).toBe(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await shot(page, `portal-signed-in-${width}`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      // Signing out returns to the sign-in form.
      await portal.getByRole('button', { name: 'Sign out' }).click();
      await portal.getByLabel('Email', { exact: true }).waitFor();
      expect(problems, 'console errors').toEqual([]);
      await context.close();
    }
  }, 180_000);

  it('an affiliate of a program whose design turns the hosted pages on signs in to the partner portal and finds commissions and payouts', async () => {
    const { state, rest, app } = env.demo;
    const aff = state.affiliateProgramId;
    await rest('PATCH', `/campaign/${aff}/design`, { landingPages: { isEnabled: true } });
    app.deps.mobilePrograms.forget(aff);
    const { context, page, problems } = await visitor(1440);
    await page.goto(`${env.demo.url}/p/${aff}/portal`);
    const portal = page.getByRole('region', { name: 'Partner portal' });
    const field = portal.getByLabel('Email', { exact: true });
    await field.click();
    await field.pressSequentially(state.people.affiliate);
    await portal.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await portal.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    let mail: Awaited<ReturnType<typeof app.deps.mailer.list>>[number] | undefined;
    await expect
      .poll(
        async () => {
          await app.deps.jobs.runDue();
          [mail] = await app.deps.mailer.list({ to: state.people.affiliate, limit: 1 });
          return mail?.kind === 'program.loginLink' && mail.links.some((l: string) => l.includes('grsfLogin='));
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    // The design asks for the hosted pages: the email's footer links to the portal too.
    expect(mail!.links).toContain(`${env.demo.url}/p/${aff}/portal`);
    await page.goto(mail!.links.find((l: string) => l.includes('grsfLogin='))!);
    await expect.poll(() => portal.getByText(/^Signed in as /).count(), { timeout: 15_000 }).toBe(1);
    const design = await rest('GET', `/campaign/${aff}/design`);
    for (const title of [design.commissions.title, design.payouts.title]) await portal.getByRole('tab', { name: title, exact: true }).waitFor();
    await portal.getByRole('tab', { name: design.commissions.title, exact: true }).click();
    await expect.poll(() => portal.getByRole('tabpanel').innerText(), { timeout: 15_000 }).not.toContain('Loading');
    await shot(page, 'portal-affiliate-1440');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems, 'console errors').toEqual([]);
    await context.close();
  }, 120_000);
});
