import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleSuite, expectAccessible, heading, shot, shownKey, signedInConsole, status } from './console-helpers.ts';

// Issue #32: what an owner could not do from the console. A program's Participants page adds a
// participant (P3, with a referrer and metadata) and, with nobody in it yet, says how people join;
// guided setup needs a name (offered, editable, refused when empty); Settings › Options renames a
// program (C4) and the frame's program switcher shows the new name. Driven in Chromium at 1366 and
// 390 px, axe on each state, screenshots as test artifacts.

describe.skipIf(SKIP_BROWSER)('console owner actions in Chromium (issue #32)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  const emails = (page: Page) => page.getByRole('table').getByRole('rowheader').allTextContents();
  /** The plain message a field shows below itself (its `-error` description). */
  const fieldMessage = async (page: Page, label: string) => {
    const control = page.getByLabel(label, { exact: true });
    await expect.poll(() => control.getAttribute('aria-invalid')).toBe('true');
    const id = (await control.getAttribute('aria-describedby'))!.split(' ').find((x) => x.endsWith('-error'))!;
    return (await page.locator(`[id="${id}"]`).textContent())!.trim();
  };
  const noHorizontalScroll = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  it('POST /campaign/:id/participant: the empty page says how people join, and the owner adds participants with a referrer', async () => {
    const { page, context } = await signedInConsole(app, browser, 1366);
    const key = await shownKey(page, app.url);
    const rest = (method: string, path: string, body?: unknown) => app.request(method, `/v2${path}`, { key, body });
    const created = await rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Corner shop' });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    const list = `${app.url}/console/programs/${pid}/participants`;

    // No participants at all: how people join, and the two ways to add some.
    await page.goto(list);
    await expect.poll(() => heading(page)).toBe('Participants');
    await expect.poll(() => page.getByRole('heading', { name: 'No participants yet' }).count()).toBe(1);
    expect(await page.locator('.empty-state').textContent()).toContain('People join when they sign up through your site’s referral window or a share link.');
    expect(await page.getByText('No participants match.').count()).toBe(0);
    expect(await page.locator('.empty-state').getByRole('link', { name: 'Import a CSV file' }).getAttribute('href')).toBe(`/console/programs/${pid}/data`);
    const open = page.locator('.page-header').getByRole('button', { name: 'Add participant' });
    expect(await open.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByLabel('Email', { exact: true }).count()).toBe(0);
    await expectAccessible(page);
    await shot(page, 'owner-participants-empty-1366');

    // The disclosure opens the form, its email field focused.
    await open.click();
    expect(await open.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('pa-email');
    const form = page.getByRole('region', { name: 'Add a participant' });

    // An invalid email: the API's refusal as the field's own plain message; nothing is added.
    await page.getByLabel('Email', { exact: true }).fill('not-an-email');
    await form.getByRole('button', { name: 'Save participant' }).click();
    const badEmail = await fieldMessage(page, 'Email');
    expect(badEmail).toMatch(/email address/i);
    expect(badEmail).not.toMatch(/invalid|expected|string|regex/i);
    expect(await form.getByRole('alert').textContent()).toContain('One field needs attention');
    expect((await rest('GET', `/campaign/${pid}/participants`)).body.participants).toHaveLength(0);
    await expectAccessible(page);
    await shot(page, 'owner-participants-refused-1366');

    // Ada, without a referrer: announced, the form closes and resets, the list shows her.
    await page.getByLabel('Email', { exact: true }).fill('ada@example.com');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await form.getByRole('button', { name: 'Save participant' }).click();
    await expect.poll(() => status(page)).toBe('ada@example.com was added.');
    await expect.poll(() => emails(page)).toEqual(['ada@example.com']);
    expect(await page.getByRole('heading', { name: 'No participants yet' }).count()).toBe(0);
    expect(await open.getAttribute('aria-expanded')).toBe('false');

    // A referrer nobody has is refused next to its field (P3 would add Grace without one).
    await open.click();
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('Email', { exact: true }).fill('grace@example.com');
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Referred by (optional)').fill('nobody@example.com');
    await page.getByLabel('Metadata key 1').fill('plan');
    await page.getByLabel('Metadata value 1').fill('pro');
    await form.getByRole('button', { name: 'Save participant' }).click();
    expect(await fieldMessage(page, 'Referred by (optional)')).toBe('No participant of this program has that email or id.');
    expect((await rest('GET', `/campaign/${pid}/participants`)).body.participants).toHaveLength(1);

    // Ada as the referrer, with a second metadata row: Grace is added, referred by Ada (and joins later, so is listed first).
    app.clock.advance(1000);
    await page.getByLabel('Referred by (optional)').fill('ada@example.com');
    await form.getByRole('button', { name: 'Add a metadata row' }).click();
    await page.getByLabel('Metadata key 2').fill('source');
    await page.getByLabel('Metadata value 2').fill('counter');
    await form.getByRole('button', { name: 'Save participant' }).click();
    await expect.poll(() => status(page)).toBe('grace@example.com was added.');
    await expect.poll(() => emails(page)).toEqual(['grace@example.com', 'ada@example.com']);
    const grace = (await rest('GET', `/campaign/${pid}/participant/grace@example.com`)).body;
    expect(grace).toMatchObject({ firstName: 'Grace', metadata: { plan: 'pro', source: 'counter' }, referrer: { email: 'ada@example.com' } });

    // An email the program already has is said so at the email field, not reported as added.
    await open.click();
    await page.getByLabel('Email', { exact: true }).fill('ADA@example.com');
    await form.getByRole('button', { name: 'Save participant' }).click();
    expect(await fieldMessage(page, 'Email')).toBe('This email already belongs to a participant of this program.');
    await expectAccessible(page);
    await shot(page, 'owner-participants-add-1366');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('pa-open');

    // Grace's page names her referrer.
    await page.getByRole('link', { name: 'grace@example.com' }).click();
    await expect.poll(() => heading(page)).toBe('Grace (grace@example.com)');
    await expect.poll(() => page.locator('.facts').getByRole('link', { name: 'ada@example.com' }).count()).toBe(1);

    // A search that finds nobody still says so.
    await page.goto(`${list}?search=zzz`);
    await expect.poll(() => page.getByText('No participants match.').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'No participants yet' }).count()).toBe(0);

    // 390 px: the side navigation is a drawer behind Menu; the empty page of a new program and the open form fit.
    const other = await rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Second shop' });
    const small = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
    const phone = await small.newPage();
    await phone.goto(`${app.url}/console/programs/${other.body.id}/participants`);
    await expect.poll(() => phone.getByRole('heading', { name: 'No participants yet' }).count()).toBe(1);
    expect(await phone.getByRole('navigation', { name: 'Console' }).isVisible()).toBe(false);
    expect(await phone.getByRole('button', { name: 'Menu' }).isVisible()).toBe(true);
    await noHorizontalScroll(phone);
    await expectAccessible(phone);
    await shot(phone, 'owner-participants-empty-390');
    await phone.goto(list);
    await expect.poll(() => emails(phone)).toEqual(['grace@example.com', 'ada@example.com']);
    await phone.locator('.page-header').getByRole('button', { name: 'Add participant' }).click();
    await phone.getByLabel('Email', { exact: true }).fill('nope');
    await phone.getByRole('region', { name: 'Add a participant' }).getByRole('button', { name: 'Save participant' }).click();
    expect(await fieldMessage(phone, 'Email')).toBe(badEmail);
    await noHorizontalScroll(phone);
    await expectAccessible(phone);
    await shot(phone, 'owner-participants-add-390');
    await phone.getByRole('button', { name: 'Menu' }).click();
    await expect.poll(() => phone.getByRole('navigation', { name: 'Console' }).isVisible()).toBe(true);
    await shot(phone, 'owner-participants-menu-390');
    await small.close();
    await context.close();
  }, 120_000);

  it('POST /campaigns and PATCH /campaign/:id: setup and quick create offer a name and refuse an empty one; Settings › Options renames the program', async () => {
    const { page, context } = await signedInConsole(app, browser, 1366);
    const key = await shownKey(page, app.url);
    const programs = async () => (await app.request('GET', '/v2/campaigns', { key })).body.campaigns as Array<{ id: string; name: string }>;
    // The programs list's quick create offers the same name and refuses an empty one the same way.
    await expect.poll(() => heading(page)).toBe('Programs');
    expect(await page.getByLabel('Program name').inputValue()).toBe('Referral program');
    await page.getByLabel('Affiliate').check();
    expect(await page.getByLabel('Program name').inputValue()).toBe('Affiliate program');
    await page.getByLabel('Program name').fill('');
    await page.getByRole('button', { name: 'Create program' }).click();
    expect(await fieldMessage(page, 'Program name')).toBe('This cannot be empty.');
    expect(await programs()).toEqual([]);

    await page.goto(`${app.url}/console/setup`);
    await expect.poll(() => heading(page)).toBe('New program, step 1 of 5: Type and name');
    const name = page.getByLabel('Program name');
    expect(await name.inputValue()).toBe('Referral program');
    expect(await name.getAttribute('required')).not.toBeNull();
    // The offered name follows the type until the owner writes their own.
    await page.getByLabel('Affiliate').check();
    expect(await name.inputValue()).toBe('Affiliate program');
    await page.getByLabel('Referral').check();
    expect(await name.inputValue()).toBe('Referral program');

    // Cleared: refused next to the field in plain words; no program is created.
    await name.fill('');
    await page.getByRole('button', { name: 'Next' }).click();
    expect(await fieldMessage(page, 'Program name')).toBe('This cannot be empty.');
    expect(await heading(page)).toBe('New program, step 1 of 5: Type and name');
    expect(await programs()).toEqual([]);
    await expectAccessible(page);
    await shot(page, 'owner-setup-empty-name-1366');
    await name.fill('   ');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('One field needs attention');
    expect(await programs()).toEqual([]);

    await name.fill('Corner bakery');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => heading(page)).toBe('New program, step 2 of 5: Reward');
    const pid = /\/console\/programs\/([^/]+)\/setup\/reward$/.exec(page.url())![1]!;
    expect((await programs()).map((p) => p.name)).toEqual(['Corner bakery']);

    // Settings › Options: the name field, an empty name refused, then a rename.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Options' }).click();
    await expect.poll(() => heading(page)).toBe('Program options');
    const switcherName = page.locator('.switcher-name');
    await expect.poll(() => switcherName.textContent()).toBe('Corner bakery');
    const rename = page.getByLabel('Program name', { exact: true });
    expect(await rename.inputValue()).toBe('Corner bakery');
    await rename.fill('');
    await page.getByRole('button', { name: 'Save name' }).click();
    expect(await fieldMessage(page, 'Program name')).toBe('This cannot be empty.');
    expect((await programs()).map((p) => p.name)).toEqual(['Corner bakery']);
    await expectAccessible(page);
    await shot(page, 'owner-rename-refused-1366');

    await rename.fill('Bakery friends');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => status(page)).toBe('The program is now called Bakery friends.');
    expect(await page.locator('.page-header-meta').textContent()).toBe('Bakery friends');
    await expect.poll(() => switcherName.textContent()).toBe('Bakery friends');
    expect(await rename.getAttribute('aria-invalid')).toBeNull();
    expect((await programs()).map((p) => p.name)).toEqual(['Bakery friends']);
    // A second program: its mark (which reads its design) is asked for only when the menu opens, not on every page load.
    const other = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Cake club' } });
    expect(other.status, other.text).toBe(200);
    const designs: string[] = [];
    page.on('request', (r) => void (/\/design$/.test(new URL(r.url()).pathname) && designs.push(new URL(r.url()).pathname)));
    await page.reload();
    await expect.poll(() => switcherName.textContent()).toBe('Bakery friends');
    expect(designs.filter((d) => d.includes(other.body.id))).toEqual([]);
    await page.locator('.switcher-button').click();
    expect(await page.locator('#program-menu').getByRole('link', { name: 'Bakery friends' }).getAttribute('aria-current')).toBe('page');
    await expect.poll(() => designs.filter((d) => d.includes(other.body.id)).length).toBe(1);
    await page.locator('.switcher-button').click();
    // Hovered (the pointer is still on it), the button keeps its name readable: button:hover's white text once hid it.
    expect(await switcherName.evaluate((el) => getComputedStyle(el).color)).not.toBe('rgb(255, 255, 255)');
    await expectAccessible(page);
    await shot(page, 'owner-rename-1366');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Home' }).click();
    await expect.poll(() => heading(page)).toBe('Bakery friends');

    // 390 px: the options page fits; the top bar names the renamed program.
    const small = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
    const phone = await small.newPage();
    await phone.goto(`${app.url}/console/programs/${pid}/settings/options`);
    await expect.poll(() => heading(phone)).toBe('Program options');
    await expect.poll(() => phone.locator('.topbar-program').textContent()).toBe('Bakery friends');
    await phone.getByLabel('Program name', { exact: true }).fill('Bakery friends club');
    await phone.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => phone.locator('.topbar-program').textContent()).toBe('Bakery friends club');
    await noHorizontalScroll(phone);
    await expectAccessible(phone);
    await shot(phone, 'owner-rename-390');
    await phone.goto(`${app.url}/console/setup`);
    await expect.poll(() => phone.getByLabel('Program name').inputValue()).toBe('Referral program');
    await noHorizontalScroll(phone);
    await shot(phone, 'owner-setup-390');
    await small.close();
    await context.close();
  }, 120_000);
});
