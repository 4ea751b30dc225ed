import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleSuite, expectAccessible, shot, signedInConsole } from './console-helpers.ts';
import { SCOPES } from '../../shared/scopes.ts';

// Issue #25: the Stripe page's "On your pages" card in Chromium. The owner reads the default
// (Automatic), picks "Always, replacing yours" with the keyboard, saves, and the installation
// document and the window payload the attribution script reads both say so.

describe.skipIf(SKIP_BROWSER)('console Stripe page: the referral code on the owner’s pages (issue #25)', () => {
  let app: TestApp;
  let browser: Browser;
  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  it('shows Automatic, saves another choice, and the window payload follows', async () => {
    const { acct, page } = await signedInConsole(app, browser, 1280);
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const program = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Store partners' } })).body;
    const flag = async () => {
      const s = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': program.id, origin: 'https://shop.example' }, body: { instanceId: crypto.randomUUID() } });
      app.deps.mobilePrograms.forget(program.id);
      return (await app.request('GET', '/mobile/v2/window', { headers: { 'x-session-token': s.body.sessionToken, origin: 'https://shop.example' } })).body.stripeClientReferenceId;
    };
    expect(await flag()).toBeNull();

    await page.goto(`${app.url}/console/programs/${program.id}/integrations/stripe`);
    const card = page.getByRole('form', { name: 'On your pages' });
    await expect.poll(() => card.getByRole('radio', { name: /^Automatic/ }).isChecked(), { timeout: 15_000 }).toBe(true);
    expect(await card.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await expectAccessible(page);

    // With the keyboard: focus the checked radio, arrow to "Always", then "Always, replacing yours".
    await card.getByRole('radio', { name: /^Automatic/ }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => card.getByRole('radio', { name: /^Always, replacing yours/ }).isChecked()).toBe(true);
    await card.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Saved.');
    await expect.poll(async () => (await app.request('GET', `/v2/campaign/${program.id}/installation`, { key })).body.stripe).toEqual({ clientReferenceId: 'OVERWRITE' });
    expect(await flag()).toBe('OVERWRITE');
    await shot(page, 'issue-25-console-stripe-pages');

    // Read again after a reload: the page shows what is stored.
    await page.reload();
    await expect.poll(() => card.getByRole('radio', { name: /^Always, replacing yours/ }).isChecked(), { timeout: 15_000 }).toBe(true);
    await card.getByRole('radio', { name: /^Off/ }).check();
    await card.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await app.request('GET', `/v2/campaign/${program.id}/installation`, { key })).body.stripe).toEqual({ clientReferenceId: 'OFF' });
    expect(await flag()).toBeNull();
    await page.context().close();
  });
});
