import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { ARTIFACTS, SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleSuite, expectAccessible, heading, shownKey, signedInConsole } from './console-helpers.ts';
import { checkBaseline } from './visual-diff.ts';

// Issue #32: visual regression of the key screens at 390 and 1366 px against committed baselines
// (test/e2e/baselines/*.png, pixelmatch through visual-diff.ts): the console's programs list,
// program home, participants, analytics and the five setup steps; the participant window's home in
// a referral and an affiliate program; the hosted landing page, and the hosted portal of both
// programs signed in through the emailed link. The data is built on the test server's fixed clock
// and the browser's clock is fixed to it, so dates and charts are the same every run; what differs
// by nature (random ids, share links, the generated owner's address) is masked. UPDATE_BASELINES=1
// rewrites the baselines; look at every one before committing it. Each screen is also checked with axe.

const BASELINES = path.resolve('test/e2e/baselines');
const WIDTHS = [390, 1366] as const;

describe.skipIf(SKIP_BROWSER)('visual regression of the key screens (issue #32)', () => {
  let app: TestApp;
  let browser: Browser;
  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  let owner: { page: Page; context: BrowserContext };
  let key = '';
  let referral = '';
  let affiliate = '';
  const differences: string[] = [];

  const rest = async (method: string, p: string, body?: unknown) => {
    const res = await app.request(method, `/v2${p}`, { key, body });
    expect(res.status, `${method} ${p}: ${res.text}`).toBe(200);
    return res.body;
  };

  // The data, built first (expect.poll, which the sign-in uses, works only inside a test).
  it('builds two programs on the fixed clock', async () => {
    owner = await signedInConsole(app, browser, 1366);
    key = await shownKey(owner.page, app.url);
    // A referral program with a reward that waits for approval, a few participants over the past days and two referrals.
    const r = await rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Bean Club', companyName: 'Acme Coffee', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give a bag, get a bag', description: 'A free bag of beans', referralDescription: '$5 off your first bag', isVisible: true }] });
    referral = r.id;
    await rest('PATCH', `/campaign/${referral}/options`, { requireManualRewardApproval: true });
    await rest('PATCH', `/campaign/${referral}`, { status: 'IN_PROGRESS' });
    const DAY = 86_400_000;
    const start = app.clock.now();
    app.clock.current = start - 9 * DAY;
    const ann = await rest('POST', `/campaign/${referral}/participant`, { email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' });
    const people = ['bo@example.com', 'cy@example.com', 'dee@example.com', 'eli@example.com'];
    for (const [i, email] of people.entries()) {
      app.clock.current = start - (7 - i * 2) * DAY;
      const p = await rest('POST', `/campaign/${referral}/participant`, { email, firstName: email.split('@')[0]!.replace(/^./, (c) => c.toUpperCase()), ...(i < 2 ? { referredBy: ann.id, referralStatus: 'CREDIT_PENDING' } : {}) });
      if (i < 2) await rest('POST', `/campaign/${referral}/participant/${p.id}/ref`, {});
    }
    // A minute apart, so lists ordered by creation time have one order.
    app.clock.current = start + 60_000;
    // An affiliate program anyone may join, paying 20 % of each sale.
    const a = await rest('POST', '/campaigns', { type: 'AFFILIATE', name: 'Acme Partners', companyName: 'Acme Coffee' });
    affiliate = a.id;
    await rest('PATCH', `/campaign/${affiliate}/options`, { affiliateApplicationMode: 'OPEN_ENROLLMENT' });
    await rest('PATCH', `/campaign/${affiliate}`, { status: 'IN_PROGRESS' });
    for (const id of [referral, affiliate]) app.deps.mobilePrograms.forget(id);
    app.clock.advance(60_000);
    await owner.context.clock.setFixedTime(app.clock.now());
  }, 120_000);

  afterAll(() => {
    if (differences.length) console.warn(differences.join('\n'));
  });

  /** Screenshots `page` at each width as `name-<width>`, masking `mask`, and compares each with its baseline; axe on each. */
  async function screens(page: Page, name: string, ready: (width: number) => Promise<void>, mask: (page: Page) => Locator[] = () => []) {
    const failed: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await ready(width);
      // Layout settles after the resize (charts follow their box one frame later).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await expectAccessible(page);
      const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide', mask: mask(page), maskColor: '#c026d3' });
      const outcome = checkBaseline(`${name}-${width}`, png, { baselineDir: BASELINES, artifactDir: path.join(ARTIFACTS, 'visual'), update: process.env.UPDATE_BASELINES === '1', ci: process.env.CI === 'true', warn: (l) => console.warn(l) });
      if (outcome.result === 'differs' || outcome.result === 'missing') failed.push(outcome.message);
      differences.push(outcome.message);
    }
    expect(failed).toEqual([]);
  }

  /** What differs by nature in the console: the generated owner's address in the account block, ids. */
  const consoleMask = (page: Page) => [page.locator('.account-block'), page.locator('.page-header-meta code'), page.locator('.topbar-program')];

  it('console: the programs list', async () => {
    const { page } = owner;
    await page.goto(`${app.url}/console`);
    await screens(page, 'console-programs', async () => {
      await expect.poll(() => page.getByRole('table').getByRole('rowheader').count()).toBe(2);
    }, consoleMask);
  });

  it('console: the program home', async () => {
    const { page } = owner;
    await page.goto(`${app.url}/console/programs/${referral}`);
    await screens(page, 'console-program-home', async () => {
      await expect.poll(() => heading(page)).toBe('Bean Club');
      await page.getByRole('img', { name: /^New participants per day/ }).waitFor();
    }, consoleMask);
  });

  it('console: participants', async () => {
    const { page } = owner;
    await page.goto(`${app.url}/console/programs/${referral}/participants`);
    await screens(page, 'console-participants', async () => {
      await expect.poll(() => page.getByRole('table').getByRole('rowheader').count()).toBe(5);
    }, consoleMask);
  });

  it('console: analytics', async () => {
    const { page } = owner;
    await page.goto(`${app.url}/console/programs/${referral}/analytics`);
    await screens(page, 'console-analytics', async () => {
      await page.getByRole('img', { name: /^Participants per day from/ }).waitFor();
    }, consoleMask);
  });

  it('console: the setup steps', async () => {
    const { page } = owner;
    await page.goto(`${app.url}/console/setup`);
    await screens(page, 'console-setup-1', async () => {
      await expect.poll(() => heading(page)).toBe('New program, step 1 of 5: Type and name');
    }, consoleMask);
    await page.getByLabel('Program name').fill('Coffee friends');
    await page.getByRole('button', { name: 'Next' }).click();
    await screens(page, 'console-setup-2', async () => {
      await expect.poll(() => heading(page)).toBe('New program, step 2 of 5: Reward');
    }, consoleMask);
    // The starter reward as it comes; the design as it comes, beside the real window's preview.
    await page.getByRole('button', { name: 'Save and continue' }).click();
    const preview = page.frameLocator('iframe.widget-frame').locator('[role="dialog"]').first();
    await screens(page, 'console-setup-3', async () => {
      await expect.poll(() => heading(page)).toBe('New program, step 3 of 5: Design');
      await preview.waitFor();
      await preview.evaluate(() => document.fonts.ready);
    }, (p) => [...consoleMask(p), p.frameLocator('iframe.widget-frame').locator('input[readonly]')]);
    await page.getByRole('button', { name: 'Save and continue' }).click();
    // The snippet names the program's random id.
    await screens(page, 'console-setup-4', async () => {
      await expect.poll(() => heading(page)).toBe('New program, step 4 of 5: Installation');
    }, (p) => [...consoleMask(p), p.getByLabel('Code for your website')]);
    await page.getByRole('button', { name: 'Next' }).click();
    // Not launched: the program stays a draft, so nothing later in the suite counts it.
    await screens(page, 'console-setup-5', async () => {
      await expect.poll(() => heading(page)).toBe('New program, step 5 of 5: Launch');
      await page.getByRole('note').waitFor();
    }, consoleMask);
  });

  /** A visitor's browser on a shop page of another origin that pastes the program's script. */
  async function shop(programId: string) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, reducedMotion: 'reduce' });
    await context.clock.setFixedTime(app.clock.now());
    const page = await context.newPage();
    // A shop page on the server's own origin (Playwright answers it; the server never sees it), so the program's allowed domains need no entry.
    await page.route(`${app.url}/visual-shop`, (route) =>
      route.fulfill({ contentType: 'text/html', body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Coffee</title><meta name="viewport" content="width=device-width"><script>(function(g,r,s,f){g.grsfSettings={campaignId:"${programId}",version:"2.0.0"};s=r.getElementsByTagName("head")[0];f=r.createElement("script");f.async=1;f.src="${app.url}/growsurf.js"+"?v="+g.grsfSettings.version;f.setAttribute("grsf-campaign",g.grsfSettings.campaignId);!g.grsfInit?s.appendChild(f):"";})(window,document);</script></head><body style="font-family:sans-serif;margin:2rem"><main><h1>Acme Coffee</h1><p>Fresh beans, roasted weekly.</p><button type="button" class="growsurf-open-window">Refer a friend</button></main></body></html>` }),
    );
    await page.goto(`${app.url}/visual-shop`);
    return { context, page };
  }

  /** The window's share link and anything else drawn from a random id. */
  const windowMask = (page: Page) => [page.getByRole('dialog').locator('input[readonly]')];

  for (const kind of ['referral', 'affiliate'] as const) {
    it(`the participant window's home in the ${kind} program`, async () => {
      const programId = kind === 'referral' ? referral : affiliate;
      const { context, page } = await shop(programId);
      await page.getByRole('button', { name: 'Refer a friend' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Email', { exact: true }).fill(`${kind}-visual@example.com`);
      await dialog.getByLabel('First name', { exact: true }).fill('Vic');
      await dialog.getByRole('button', { name: kind === 'referral' ? 'Get my referral link' : /affiliate|Join|partner/i }).click();
      await dialog.locator('input[readonly]').waitFor();
      await screens(page, `window-home-${kind}`, async () => {
        await dialog.locator('input[readonly]').waitFor();
        await page.evaluate(() => document.fonts.ready);
      }, windowMask);
      await context.close();
    });
  }

  it('the hosted landing page and the portal', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, reducedMotion: 'reduce' });
    await context.clock.setFixedTime(app.clock.now());
    const page = await context.newPage();
    await page.goto(`${app.url}/p/${referral}`);
    await screens(page, 'landing', async () => {
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByRole('region', { name: 'Sign up' }).getByLabel('Email', { exact: true }).waitFor();
    });
    const join = page.getByRole('region', { name: 'Sign up' });
    await join.getByLabel('Email', { exact: true }).fill('portal-visual@example.com');
    await join.getByRole('button', { name: 'Get my referral link' }).click();
    await page.locator('input[readonly]').first().waitFor();
    await screens(page, 'portal', async () => {
      await page.locator('input[readonly]').first().waitFor();
    }, (p) => [p.locator('input[readonly]')]);
    await context.close();
  });

  // The portal page itself (/p/{programId}/portal), reached as a person does: the sign-in form, then
  // the link the sign-in email carries (read from the outbox). Ann has two referrals in the referral
  // program; the affiliate is the one who joined through the window above.
  for (const kind of ['referral', 'affiliate'] as const) {
    it(`the hosted portal of the ${kind} program, signed in through the emailed link`, async () => {
      const [programId, email, title] = kind === 'referral' ? [referral, 'ann@example.com', 'Referral portal'] : [affiliate, 'affiliate-visual@example.com', 'Partner portal'];
      // An unverified team emails no participant (the setup's launch step above says so), so the team is verified here, after that step's picture.
      const team = await app.deps.db.knex('programs').where({ id: programId }).first('team_id');
      await app.deps.db.knex('teams').where({ id: team.team_id }).update({ verification_status: 'VERIFIED' });
      const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, reducedMotion: 'reduce' });
      await context.clock.setFixedTime(app.clock.now());
      const page = await context.newPage();
      await page.goto(`${app.url}/p/${programId}/portal`);
      const portal = page.getByRole('region', { name: title });
      const before = await app.deps.mailer.count({ to: email });
      await portal.getByLabel('Email', { exact: true }).fill(email);
      await portal.getByRole('button', { name: 'Email me a sign-in link' }).click();
      await portal.getByRole('heading', { name: 'Check your inbox' }).waitFor();
      await expect
        .poll(async () => {
          await app.deps.jobs.runDue();
          return app.deps.mailer.count({ to: email });
        })
        .toBeGreaterThan(before);
      const [mail] = await app.deps.mailer.list({ to: email, limit: 1 });
      expect(mail!.kind).toBe('program.loginLink');
      await page.goto(app.local(mail!.links.find((l: string) => l.includes('grsfLogin='))!));
      await screens(page, `portal-signed-in-${kind}`, async () => {
        await portal.getByText(/^Signed in as /).waitFor();
        await expect.poll(() => portal.locator('input[readonly]').first().inputValue()).not.toBe('');
        await expect.poll(() => portal.getByRole('tabpanel').innerText()).not.toContain('Loading');
        await page.evaluate(() => document.fonts.ready);
      // The link, and the invitation's message that carries it.
      }, (p) => [p.locator('input[readonly]'), p.locator('textarea')]);
      await context.close();
    });
  }
});
