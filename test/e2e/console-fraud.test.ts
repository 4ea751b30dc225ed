import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, shotWidths, shownKey, signedInConsole, heading } from './console-helpers.ts';

// Issue #23: the fraud review in Chromium. Sign-ups over REST (the key the keys page shows) put a
// self-referral and a same-IP referral under review; the owner reads why in plain words, marks one
// safe and keeps the other blocked, and sees each decision afterwards (and the API agrees).

describe.skipIf(SKIP_BROWSER)('console fraud review in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  /** A live referral program that holds flagged sign-ups for review, with a self-referral (HIGH) and a same-IP friend (MEDIUM). */
  async function flaggedProgram(page: Page) {
    const key = await shownKey(page, app.url);
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Watchful referrals' } });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    expect((await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { requireManualFraudApproval: true } })).status).toBe(200);
    expect((await app.request('PATCH', `/v2/campaign/${pid}`, { key, body: { status: 'IN_PROGRESS' } })).status).toBe(200);
    const join = async (body: Record<string, unknown>) => {
      app.clock.advance(60_000);
      const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
      expect(res.status, res.text).toBe(200);
      return res.body as { id: string; fraudRiskLevel: string };
    };
    const ann = await join({ email: 'ann@example.com', ipAddress: '203.0.113.7' });
    await join({ email: 'bo@example.org', referredBy: ann.id, ipAddress: '198.51.100.1' });
    const self = await join({ email: 'ann+deals@example.com', referredBy: ann.id, ipAddress: '198.51.100.2' });
    const sameIp = await join({ email: 'cy@example.net', referredBy: ann.id, ipAddress: '203.0.113.7' });
    expect([self.fraudRiskLevel, sameIp.fraudRiskLevel]).toEqual(['HIGH', 'MEDIUM']);
    // A blocked email is refused outright (422): nothing is stored, so nothing waits for review.
    expect((await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { fraud: { blockedEmails: ['mallory@example.com'] } } })).status).toBe(200);
    expect((await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: 'mallory@example.com', referredBy: ann.id } })).status).toBe(422);
    return { key, pid, self, sameIp };
  }

  const cards = (page: Page) => page.locator('.fraud-list').getByRole('heading', { level: 2 }).allTextContents();
  const card = (page: Page, email: string) => page.getByRole('article', { name: email });

  it('shows why each participant was flagged, records the owner’s decisions through P5 and shows them under Decided', async () => {
    const { page, context } = await signedInConsole(app, browser);
    const { key, pid, self, sameIp } = await flaggedProgram(page);

    await page.goto(`${app.url}/console/programs/${pid}`);
    await expect.poll(() => heading(page)).toBe('Watchful referrals');
    await (await consoleNav(page)).getByRole('link', { name: 'Fraud review' }).click();
    await expect.poll(() => heading(page)).toBe('Fraud review');
    await expect.poll(() => cards(page)).toEqual(['cy@example.net', 'ann+deals@example.com']);
    await expect.poll(() => page.getByText('mallory@example.com').count()).toBe(0);

    const high = card(page, 'ann+deals@example.com');
    expect(await high.textContent()).toContain('High risk');
    expect(await high.getByRole('list').first().textContent()).toBe('Self-referral: the email address reaches the same mailbox as the referrer’s.');
    expect(await high.textContent()).toContain('Referral: waiting for credit');
    expect(await high.textContent()).toContain('Matched participants');
    expect(await high.textContent()).toContain('ann@example.com');
    const medium = card(page, 'cy@example.net');
    expect(await medium.textContent()).toContain('Medium risk');
    expect(await medium.getByRole('list').first().textContent()).toBe('Signed up from the same internet address (IP) as the referrer.');
    // The server's own sentences are one click away.
    await medium.getByText('Decisions, newest first').click();
    await medium.getByText('Details').click();
    await expect.poll(() => medium.textContent()).toContain('Same IP address as the referrer.');
    await expectAccessible(page);
    await shot(page, 'fraud-open-1440');

    await page.getByRole('button', { name: 'Mark safe: cy@example.net' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('cy@example.net is marked safe (low risk). Find it under “Decided”.');
    await expect.poll(() => cards(page)).toEqual(['ann+deals@example.com']);
    await page.getByRole('button', { name: 'Keep blocked: ann+deals@example.com' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('ann+deals@example.com is kept blocked (high risk). Find it under “Decided”.');
    await expect.poll(() => page.getByText('Nobody to review in this state.').count()).toBe(1);
    // Nobody is left to review, but the list has rows: the empty state links to all of them (issue #32).
    await page.getByRole('link', { name: 'Show all (2)' }).click();
    await expect.poll(() => cards(page)).toEqual(['cy@example.net', 'ann+deals@example.com']);
    expect(page.url()).toBe(`${app.url}/console/programs/${pid}/fraud?state=ALL`);

    await page.getByRole('link', { name: 'Decided' }).click();
    await expect.poll(() => cards(page)).toEqual(['cy@example.net', 'ann+deals@example.com']);
    expect(await card(page, 'cy@example.net').textContent()).toMatch(/Low risk.*Marked safe by you on /);
    expect(await card(page, 'ann+deals@example.com').textContent()).toMatch(/High risk.*Kept blocked by you on /);
    // The decision already taken is not offered again; the other one still is.
    expect(await card(page, 'cy@example.net').getByRole('button').allTextContents()).toEqual(['Keep blocked']);
    expect(await card(page, 'ann+deals@example.com').getByRole('button').allTextContents()).toEqual(['Mark safe']);
    await expectAccessible(page);
    await shot(page, 'fraud-decided-1440');

    const read = async (id: string) => (await app.request('GET', `/v2/campaign/${pid}/participant/${id}`, { key })).body;
    expect(await read(sameIp.id)).toMatchObject({ fraudRiskLevel: 'LOW', fraudReasonCode: 'MANUAL_UPDATE' });
    expect(await read(self.id)).toMatchObject({ fraudRiskLevel: 'HIGH', fraudReasonCode: 'MANUAL_UPDATE' });

    // Issue #32: a program none of whose sign-ups was flagged says when one would be, and leads to the checks' settings.
    const fresh = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Calm referrals' } })).body.id as string;
    await page.goto(`${app.url}/console/programs/${fresh}`);
    await expect.poll(() => heading(page)).toBe('Calm referrals');
    await (await consoleNav(page)).getByRole('link', { name: 'Fraud review' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'Nobody flagged yet' }).count()).toBe(1);
    expect(await page.getByText('A participant appears here when the anti-fraud checks flag their sign-up').count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Review state' }).count()).toBe(0);
    await expectAccessible(page);
    await shotWidths(page, 'fraud-empty');
    await page.getByRole('link', { name: 'Anti-fraud settings' }).click();
    await expect.poll(() => heading(page)).toBe('Program options');
    expect(page.url()).toBe(`${app.url}/console/programs/${fresh}/settings`);
    await context.close();
  });

  it('works at 390 px by keyboard, and a refused decision shows the API’s message', async () => {
    const { page, context } = await signedInConsole(app, browser, 390);
    const { pid, sameIp, key } = await flaggedProgram(page);
    await page.goto(`${app.url}/console/programs/${pid}/fraud`);
    await expect.poll(() => cards(page)).toEqual(['cy@example.net', 'ann+deals@example.com']);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'fraud-open-390');

    // Deleted over REST behind the page's back: the decision answers 404 and the page says so.
    expect((await app.request('DELETE', `/v2/campaign/${pid}/participant/${sameIp.id}`, { key })).status).toBe(200);
    await page.getByRole('button', { name: 'Mark safe: cy@example.net' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/cy@example\.net|participant/i);

    await page.getByRole('button', { name: 'Keep blocked: ann+deals@example.com' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('ann+deals@example.com is kept blocked');
    await page.getByRole('link', { name: 'Decided' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => cards(page)).toEqual(['ann+deals@example.com']);
    expect(await card(page, 'ann+deals@example.com').textContent()).toContain('Kept blocked by you on ');
    await expectAccessible(page);
    await shot(page, 'fraud-decided-390');
    await context.close();
  });
});
