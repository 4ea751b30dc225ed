import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, heading, shot, shownKey, signedInConsole } from './console-helpers.ts';

// Issue #32: a program's home answers "what needs me today". A referral program whose rewards need
// approval, two referred friends triggered over REST, a team not yet verified and no visit counted:
// the home lists the rewards to approve, the held emails and the missing install, with the headline
// numbers and the trend; each item leads to the page where the owner acts. Once the team is verified
// and the rewards approved, those items go.

describe.skipIf(SKIP_BROWSER)('console program home in Chromium (issue #32)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  const items = (page: import('playwright-core').Page) => page.getByRole('region', { name: 'What needs you today' }).getByRole('listitem').allTextContents();

  it('lists what needs the owner, with numbers and the trend, and each item leads to its page', async () => {
    const { acct, page, context } = await signedInConsole(app, browser, 1366);
    const key = await shownKey(page, app.url);
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Bakery friends', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $5, get $5', description: '$5 off' }] } });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    expect((await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { requireManualRewardApproval: true } })).status).toBe(200);

    // A draft with nobody in it: launch it, install the script, and the team's emails are held.
    await page.goto(`${app.url}/console/programs/${pid}`);
    await expect.poll(() => heading(page)).toBe('Bakery friends');
    await expect.poll(() => items(page)).toEqual([
      expect.stringContaining('Participant emails are held'),
      expect.stringContaining('No visit has been counted yet'),
      expect.stringContaining('This program is a draft'),
    ]);
    // "Go to launch" takes focus to the state card's Launch button, which launches.
    await page.getByRole('button', { name: 'Go to launch' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Launch program');
    await page.keyboard.press('Enter');
    await expect.poll(() => items(page)).toEqual([expect.stringContaining('Participant emails are held'), expect.stringContaining('No visit has been counted yet')]);

    // Two referred friends whose rewards wait for approval (a double-sided reward: four rewards).
    const ann = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: 'ann@example.com', firstName: 'Ann' } });
    for (const email of ['bo@example.com', 'cy@example.com']) {
      app.clock.advance(60_000);
      const friend = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email, referredBy: ann.body.id, referralStatus: 'CREDIT_PENDING' } });
      expect((await app.request('POST', `/v2/campaign/${pid}/participant/${friend.body.id}/ref`, { key, body: {} })).status).toBe(200);
    }
    await page.reload();
    await expect.poll(() => items(page)).toContainEqual('4 rewards are waiting for your approval.Review rewards');
    const kpis = page.getByRole('list', { name: 'Headline numbers' });
    await expect.poll(() => kpis.getByRole('listitem').first().textContent()).toContain('Participants3');
    expect(await kpis.textContent()).toContain('Joined, last 30 days3');
    expect(await kpis.textContent()).toContain('None in the 30 days before');
    await expect.poll(() => page.getByRole('img', { name: /^New participants per day over the last 30 days: 3 in all/ }).count()).toBe(1);
    await expectAccessible(page);
    await shot(page, 'program-home-1366');

    // The rewards item opens the queue, which approves all four; the home no longer lists them.
    await page.getByRole('link', { name: 'Review rewards' }).click();
    await expect.poll(() => heading(page)).toBe('Rewards queue');
    await page.goBack();
    await expect.poll(() => heading(page)).toBe('Bakery friends');
    const rewards = (await app.request('GET', `/v2/campaign/${pid}/rewards?state=AWAITING_APPROVAL`, { key })).body.rewards as Array<{ id: string }>;
    for (const r of rewards) expect((await app.request('POST', `/v2/campaign/${pid}/reward/${r.id}/approve`, { key, body: {} })).status).toBe(200);
    await app.deps.teams.approveVerification(acct.teamId);
    await page.reload();
    await expect.poll(() => items(page)).toEqual([expect.stringContaining('No visit has been counted yet')]);
    // With nothing awaiting approval, the queue opens on all rewards, not on an empty filter; each state shows its count.
    await (await consoleNav(page)).getByRole('link', { name: 'Rewards queue' }).click();
    await expect.poll(() => heading(page)).toBe('Rewards queue');
    const states = page.getByRole('navigation', { name: 'Reward state' });
    await expect.poll(() => states.getByRole('link', { name: 'All (4)' }).getAttribute('aria-current')).toBe('page');
    expect(await states.getByRole('link').allTextContents()).toEqual(['Awaiting approval (0)', 'Approved, not fulfilled (4)', 'Fulfilled (0)', 'All (4)']);
    await expect.poll(() => page.getByRole('table').getByRole('rowheader').count()).toBe(4);
    await page.goBack();
    await expect.poll(() => heading(page)).toBe('Bakery friends');

    // At 390 px the home fits the screen and still passes axe.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'program-home-390');
    await context.close();
  });
});
