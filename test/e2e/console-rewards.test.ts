import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleSuite, expectAccessible, shot, shotWidths, shownKey, signedInConsole, heading } from './console-helpers.ts';

// Issue #23: the rewards queue in Chromium. A referral program holds rewards for approval; referred
// sign-ups and referral triggers over REST (the key the keys page shows) make rewards appear; the
// owner approves, fulfils and deletes them one by one and in bulk, and reads each result.

describe.skipIf(SKIP_BROWSER)('console rewards queue in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  /** A live referral program whose double-sided reward needs approval, and `friends` referred sign-ups triggered over REST. */
  async function programWithRewards(page: Page, friends: string[]) {
    const key = await shownKey(page, app.url);
    const created = await app.request('POST', '/v2/campaigns', {
      key,
      body: { type: 'REFERRAL', name: 'Friends get $10', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10', description: '$10 credit' }] },
    });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    expect((await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { requireManualRewardApproval: true } })).status).toBe(200);
    expect((await app.request('PATCH', `/v2/campaign/${pid}`, { key, body: { status: 'IN_PROGRESS' } })).status).toBe(200);
    const ann = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: 'ann@example.com', firstName: 'Ann' } });
    expect(ann.status, ann.text).toBe(200);
    for (const email of friends) {
      app.clock.advance(60_000);
      const friend = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email, referredBy: ann.body.id, referralStatus: 'CREDIT_PENDING' } });
      expect(friend.status, friend.text).toBe(200);
      const trigger = await app.request('POST', `/v2/campaign/${pid}/participant/${friend.body.id}/ref`, { key, body: {} });
      expect(trigger.status, trigger.text).toBe(200);
    }
    return { key, pid, annId: ann.body.id as string };
  }

  // Both rewards of one referral are issued in the same instant, so their order is the id's: compared sorted.
  const rowHeaders = async (page: Page) => (await page.getByRole('table').getByRole('rowheader').allTextContents()).sort();
  const results = async (page: Page) => (await page.getByRole('region', { name: 'Results' }).getByRole('listitem').allTextContents()).sort();

  it('shows triggered rewards awaiting approval, approves one, approves two in bulk, refuses to fulfil one not approved, deletes one, then fulfils all approved', async () => {
    const { page, context } = await signedInConsole(app, browser);
    const { key, pid, annId } = await programWithRewards(page, ['bo@example.com', 'cy@example.com']);

    // From the program page to the queue through the program's navigation.
    await page.goto(`${app.url}/console/programs/${pid}`);
    await expect.poll(() => heading(page)).toBe('Friends get $10');
    const nav = page.getByRole('navigation', { name: 'Console' });
    await expect.poll(() => nav.getByRole('link', { name: 'Rewards queue' }).count()).toBe(1);
    await nav.getByRole('link', { name: 'Rewards queue' }).click();
    await expect.poll(() => heading(page)).toBe('Rewards queue');
    expect(await page.getByRole('navigation', { name: 'Reward state' }).getByRole('link', { name: 'Awaiting approval' }).getAttribute('aria-current')).toBe('page');
    // Two referrals of a double-sided reward: four rewards, newest first (cy's pair, then bo's).
    await expect.poll(() => rowHeaders(page)).toEqual(['ann@example.com', 'ann@example.com', 'bo@example.com', 'cy@example.com']);
    const firstTwo = (await page.getByRole('table').getByRole('rowheader').allTextContents()).slice(0, 2).sort();
    expect(firstTwo).toEqual(['ann@example.com', 'cy@example.com']);
    expect(await page.getByRole('table').locator('caption').textContent()).toContain('4 rewards shown');
    expect(await page.getByRole('table').getByRole('row').nth(1).textContent()).toContain('Give $10, get $10');
    // The rule is written next to the buttons of a reward awaiting approval.
    expect(await page.getByRole('table').getByRole('row').nth(1).textContent()).toContain('Cannot be marked fulfilled until it is approved.');
    await expect.poll(() => page.getByRole('button', { name: /^Mark fulfilled: / }).count()).toBe(0);
    await expectAccessible(page);
    await shot(page, 'rewards-awaiting-1440');

    // One reward approved by its own button.
    await page.getByRole('button', { name: 'Approve the Give $10, get $10 reward of bo@example.com' }).click();
    await expect.poll(() => results(page)).toEqual(['bo@example.com, Give $10, get $10: Approved']);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('1 of 1 rewards changed.');
    await expect.poll(() => rowHeaders(page)).toEqual(['ann@example.com', 'ann@example.com', 'cy@example.com']);

    // Two selected (cy's pair), approved in one go: each is its own request and its own result.
    await page.getByRole('checkbox', { name: 'Select the Give $10, get $10 reward of cy@example.com' }).check();
    await page.getByRole('checkbox', { name: 'Select the Give $10, get $10 reward of ann@example.com' }).first().check();
    await expect.poll(() => page.getByText('2 rewards selected').count()).toBe(1);
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await expect.poll(() => results(page)).toEqual(['ann@example.com, Give $10, get $10: Approved', 'cy@example.com, Give $10, get $10: Approved']);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('2 of 2 rewards changed.');
    await expect.poll(() => rowHeaders(page)).toEqual(['ann@example.com']);

    // Fulfilling a reward that is not approved: the API's 406 message is the result shown.
    await page.getByRole('checkbox', { name: 'Select every reward shown' }).check();
    await page.getByRole('button', { name: 'Mark selected fulfilled' }).click();
    await expect.poll(() => results(page)).toEqual([expect.stringMatching(/^ann@example\.com, Give \$10, get \$10: Not changed: Reward \w+ is not approved yet; approve it first/)]);
    await expectAccessible(page);
    await shot(page, 'rewards-refused-1440');

    // Deleting it after confirming.
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete the Give $10, get $10 reward of ann@example.com' }).click();
    await expect.poll(() => results(page)).toEqual(['ann@example.com, Give $10, get $10: Deleted']);
    await expect.poll(() => page.getByText('No rewards in this state.').count()).toBe(1);
    // Nothing awaits approval, but the queue has rows: the empty state offers all of them (issue #32).
    await expect.poll(() => page.getByRole('link', { name: 'Show all (3)' }).count()).toBe(1);
    await shotWidths(page, 'rewards-none-in-state');

    // The approved tab holds the three approved rewards; all fulfilled in bulk.
    await page.getByRole('link', { name: 'Approved, not fulfilled' }).click();
    await expect.poll(() => rowHeaders(page)).toEqual(['ann@example.com', 'bo@example.com', 'cy@example.com']);
    expect(await page.getByRole('table').getByRole('row').nth(1).textContent()).toContain('Approved rewards cannot be deleted.');
    await expect.poll(() => page.getByRole('button', { name: /^Delete the/ }).count()).toBe(0);
    await expectAccessible(page);
    await shot(page, 'rewards-approved-1440');
    await page.getByRole('checkbox', { name: 'Select every reward shown' }).check();
    await page.getByRole('button', { name: 'Mark selected fulfilled' }).click();
    await expect.poll(() => results(page)).toHaveLength(3);
    expect((await results(page)).every((r) => r.endsWith(': Marked fulfilled'))).toBe(true);
    await expect.poll(() => page.getByText('No rewards in this state.').count()).toBe(1);

    await page.getByRole('link', { name: 'Fulfilled (3)', exact: true }).click();
    await expect.poll(() => rowHeaders(page)).toEqual(['ann@example.com', 'bo@example.com', 'cy@example.com']);
    await expectAccessible(page);
    await shot(page, 'rewards-fulfilled-1440');

    // What the console did is what the REST API reads back.
    const annRewards = (await app.request('GET', `/v2/campaign/${pid}/participant/${annId}/rewards`, { key })).body.rewards;
    expect(annRewards.map((r: { status: string; approved: boolean }) => [r.status, r.approved])).toEqual([['FULFILLED', true]]);

    // Issue #32: the queue of a program nobody was rewarded in yet says how rewards arrive, and
    // its next action leads to the reward settings.
    const fresh = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Quiet program' } })).body.id as string;
    await page.goto(`${app.url}/console/programs/${fresh}`);
    await expect.poll(() => heading(page)).toBe('Quiet program');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Rewards queue' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'No rewards yet' }).count()).toBe(1);
    expect(await page.getByText('A reward appears here when a referral is credited').count()).toBe(1);
    // Nothing to filter: no state links beside it.
    expect(await page.getByRole('navigation', { name: 'Reward state' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'See participants' }).count()).toBe(1);
    await expectAccessible(page);
    await shotWidths(page, 'rewards-empty');
    await page.getByRole('link', { name: 'Set up rewards' }).click();
    await expect.poll(() => heading(page)).toBe('Reward settings');
    expect(page.url()).toBe(`${app.url}/console/programs/${fresh}/settings/rewards`);
    await context.close();
  });

  it('works at 390 px by keyboard: approve and fulfil from the row, no sideways page scroll', async () => {
    const { page, context } = await signedInConsole(app, browser, 390);
    const { pid } = await programWithRewards(page, ['dee@example.com']);
    await page.goto(`${app.url}/console/programs/${pid}/rewards`);
    await expect.poll(() => rowHeaders(page)).toEqual(['ann@example.com', 'dee@example.com']);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'rewards-390');
    await page.getByRole('button', { name: 'Approve and fulfil the Give $10, get $10 reward of dee@example.com' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => results(page)).toEqual(['dee@example.com, Give $10, get $10: Approved and fulfilled']);
    await page.getByRole('button', { name: 'Approve the Give $10, get $10 reward of ann@example.com' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => results(page)).toEqual(['ann@example.com, Give $10, get $10: Approved']);
    await page.goto(`${app.url}/console/programs/${pid}/rewards?state=APPROVED`);
    await page.getByRole('button', { name: 'Mark fulfilled: the Give $10, get $10 reward of ann@example.com' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => results(page)).toEqual(['ann@example.com, Give $10, get $10: Marked fulfilled']);
    await page.goto(`${app.url}/console/programs/${pid}/rewards?state=FULFILLED`);
    await expect.poll(() => rowHeaders(page)).toEqual(['ann@example.com', 'dee@example.com']);
    await expectAccessible(page);
    await shot(page, 'rewards-fulfilled-390');
    await context.close();
  });
});
