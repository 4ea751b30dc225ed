import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleSuite, expectAccessible, shot, signedInConsole } from './console-helpers.ts';
import { SCOPES } from '../../shared/scopes.ts';

// Issue #25: the participant page's "Codes" section in Chromium. The owner adds a code with the
// keyboard, sees a refusal on screen (a taken code), and removes a code.

describe.skipIf(SKIP_BROWSER)('console participant codes in Chromium (issue #25)', () => {
  let app: TestApp;
  let browser: Browser;
  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  it('adds a code to an affiliate, shows a refusal, and removes it', async () => {
    const { acct, page } = await signedInConsole(app, browser, 1280);
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const program = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Store partners' } })).body;
    const ada = (await app.request('POST', `/v2/campaign/${program.id}/participant`, { key, body: { email: 'ada@example.com', firstName: 'Ada' } })).body;
    const bob = (await app.request('POST', `/v2/campaign/${program.id}/participant`, { key, body: { email: 'bob@example.com' } })).body;
    expect((await app.request('POST', `/v2/campaign/${program.id}/participant/${bob.id}/codes`, { key, body: { code: 'BOB10', stripeCouponId: 'bob10' } })).status).toBe(200);

    await page.goto(`${app.url}/console/programs/${program.id}/participants/${ada.id}`);
    const section = page.getByRole('region', { name: 'Codes' });
    await expect.poll(() => section.getByText('This participant has no codes.').count()).toBe(1);

    // By keyboard: focus the code field, type, tab to the promotion code id, submit with Enter.
    await section.getByLabel('Code', { exact: true }).focus();
    await page.keyboard.type('ADA20');
    await page.keyboard.press('Tab');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('pt-code-stripePromotionCodeId');
    await page.keyboard.type('promo_1QAda20');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Code ADA20 added.');
    const table = section.getByRole('table', { name: /This participant’s codes/ });
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect(await table.getByRole('row').nth(1).textContent()).toContain('Stripe promotion code promo_1QAda20');
    await expect.poll(() => section.getByText('1 code', { exact: false }).count()).toBeGreaterThan(0);
    await expectAccessible(page);

    // Bob's code, in another case: refused with the API's message and field; nothing added.
    await section.getByLabel('Code', { exact: true }).fill('bob10');
    await section.getByLabel('Stripe coupon id').fill('another-coupon');
    await section.getByRole('button', { name: 'Add code' }).click();
    const alert = section.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('already used in this program');
    expect(await alert.textContent()).toContain('code');
    await expectAccessible(page);
    await shot(page, 'participant-codes');
    expect(await table.getByRole('row').count()).toBe(2);
    expect((await app.request('GET', `/v2/campaign/${program.id}/codes`, { key })).body.codes.length).toBe(2);

    // Remove by keyboard: the button names the code.
    await section.getByRole('button', { name: 'Remove ADA20' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Code ADA20 removed.');
    await expect.poll(() => section.getByText('This participant has no codes.').count()).toBe(1);
    expect((await app.request('GET', `/v2/campaign/${program.id}/participant/${ada.id}/codes`, { key })).body.codes).toEqual([]);
  });
});
