import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, signedInConsole, heading } from './console-helpers.ts';
import { SCOPES } from '../../shared/scopes.ts';
import { SIGNING_SECRET, deliver, stripeEvent } from '../server/billing/stripe-helpers.ts';
import { PADDLE_SECRET, deliverPaddle, paddleEvent } from '../server/billing/paddle-helpers.ts';

// Issue #25: the Stripe page in Chromium. The owner connects Stripe with the signing secret (a
// wrong one refused on screen), reads the endpoint URL, Stripe's signed events arrive at that URL
// and show in the log with their outcome, and the owner disconnects.

const DAY = 86_400_000;

describe.skipIf(SKIP_BROWSER)('console Stripe integration page in Chromium (issue #25)', () => {
  let app: TestApp;
  let browser: Browser;
  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });


  it('connects Stripe, shows the endpoint URL, lists the events Stripe sent, and disconnects', async () => {
    const { acct, page } = await signedInConsole(app, browser, 1440);
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const program = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Store partners' } })).body;
    const configId = program.rewards[0].id;
    await app.request('PATCH', `/v2/campaign/${program.id}/reward-configs/${configId}`, { key, body: { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 } } });
    const affiliate = (await app.request('POST', `/v2/campaign/${program.id}/participant`, { key, body: { email: 'ada@example.com' } })).body;

    await page.goto(`${app.url}/console/programs/${program.id}`);
    await (await consoleNav(page)).getByRole('link', { name: 'Stripe' }).click();
    await expect.poll(() => heading(page)).toBe('Stripe');
    await expect.poll(() => page.getByText('Not connected', { exact: true }).count()).toBe(1);
    await expectAccessible(page);

    // Something that is not a signing secret: the API's refusal, with its field.
    await page.getByLabel('Webhook signing secret').fill('sk_live_thisIsAnApiKeyNotASecret');
    await page.getByRole('button', { name: 'Connect Stripe' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('whsec_');
    // In plain words: never the request's field path (issue #32).
    expect(await page.getByRole('alert').first().textContent()).not.toContain('webhookSigningSecret');

    await page.getByLabel('Webhook signing secret').fill(SIGNING_SECRET);
    await page.getByRole('button', { name: 'Connect Stripe' }).click();
    await expect.poll(() => page.getByText('Connected', { exact: true }).count()).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Stripe connected.');
    const endpoint = await page.getByLabel('Endpoint URL').inputValue();
    expect(endpoint).toMatch(new RegExp(`^${app.url}/integrations/stripe/[a-z0-9]{20}/webhook$`));
    // The secret is gone from the form and nowhere on the page.
    expect(await page.getByLabel('Webhook signing secret').inputValue()).toBe('');
    expect(await page.content()).not.toContain(SIGNING_SECRET);
    expect(await page.getByRole('list').filter({ hasText: 'invoice.paid' }).getByRole('listitem').allTextContents()).toEqual([
      'checkout.session.completed',
      'checkout.session.async_payment_succeeded',
      'invoice.paid',
      'charge.refunded',
      'customer.subscription.deleted',
      'refund.created',
      'refund.failed',
      'invoice_payment.paid',
    ]);

    // Stripe sends two payments to that URL: one referred by the affiliate, one nobody can be matched to.
    const path = new URL(endpoint).pathname;
    const sale = stripeEvent('checkout.session.completed.payment', (_e, o) => (o.client_reference_id = affiliate.id));
    expect((await deliver(app, path, sale)).body.outcome).toBe('ACCEPTED');
    const stranger = stripeEvent('checkout.session.completed.payment', (e, o) => {
      e.id = 'evt_stranger';
      o.id = 'cs_test_stranger';
      o.customer = null;
      o.customer_details.email = 'stranger@example.com';
      o.payment_intent = 'pi_stranger';
    });
    expect((await deliver(app, path, stranger)).body.outcome).toBe('UNATTRIBUTED');

    await page.reload();
    await expect.poll(() => heading(page)).toBe('Stripe');
    const log = page.getByRole('region', { name: 'Events received (last 30 days)' });
    await expect.poll(() => log.getByRole('row').count()).toBe(3);
    await expect.poll(() => page.getByText('2 events shown').count()).toBe(1);
    const rows = log.getByRole('row');
    expect(await rows.nth(1).textContent()).toContain('Unattributed');
    expect(await rows.nth(1).textContent()).toContain('evt_stranger');
    expect(await rows.nth(2).textContent()).toContain('Accepted');
    expect(await rows.nth(2).textContent()).toContain('1 commission created');
    // The accepted row links to the customer it was recorded for.
    const customerLink = rows.nth(2).getByRole('link');
    expect(await customerLink.getAttribute('href')).toMatch(new RegExp(`/console/programs/${program.id}/participants/[a-z0-9]+$`));
    await expect.poll(() => page.getByText(/Last event received/).count()).toBe(1);
    await expectAccessible(page);
    await shot(page, 'integrations-stripe-1440');

    // Keyboard: the log region takes focus (it scrolls sideways on small screens).
    await log.focus();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Events received (last 30 days)');

    // Issue #35: a refund whose sale never arrives is reported after 30 days, here and on the program's home.
    const refund = { id: 're_nosale', object: 'refund', amount: 1200, charge: 'ch_nosale', created: 1768564800, currency: 'usd', metadata: {}, payment_intent: 'pi_nosale', reason: 'requested_by_customer', status: 'succeeded' };
    const refunded = { id: 'evt_refund_nosale', object: 'event', api_version: '2024-06-20', created: 1768565000, data: { object: refund }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type: 'refund.created' };
    expect((await deliver(app, path, refunded)).body.outcome).toBe('DEFERRED');
    app.clock.advance(31 * DAY);
    await app.deps.unmatchedRefunds.report();
    // Back to the session's time (14 days would have ended it); the entry keeps its report time.
    app.clock.advance(-31 * DAY);
    await page.reload();
    const unmatched = page.getByRole('region', { name: '1 refund never matched a sale' });
    await expect.poll(() => unmatched.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Refund re_nosale of $12.00: no sale within 30 days')]);
    expect(await log.getByRole('row').nth(1).textContent()).toContain('Never matched a sale');
    await expectAccessible(page);
    await page.goto(`${app.url}/console/programs/${program.id}`);
    await expect.poll(() => page.locator('[data-todo="unmatched-stripe"]').textContent()).toContain('1 Stripe refund never matched a sale');
    await page.getByRole('link', { name: 'Check refunds' }).click();
    await expect.poll(() => heading(page)).toBe('Stripe');

    await page.getByRole('button', { name: 'Disconnect Stripe' }).click();
    await expect.poll(() => page.getByText('Disconnected', { exact: true }).count()).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Stripe disconnected.');
    expect((await deliver(app, path, sale)).status).toBe(404);
    // Reconnecting keeps the URL Stripe has.
    await page.getByLabel('Webhook signing secret').fill(SIGNING_SECRET);
    await page.getByRole('button', { name: 'Connect Stripe' }).click();
    await expect.poll(() => page.getByText('Connected', { exact: true }).count()).toBe(1);
    expect(await page.getByLabel('Endpoint URL').inputValue()).toBe(endpoint);
  });

  it('fits a phone screen with the log of a referral program', async () => {
    const { acct, page } = await signedInConsole(app, browser, 390);
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const program = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Friends' } })).body;
    const referrer = (await app.request('POST', `/v2/campaign/${program.id}/participant`, { key, body: { email: 'rae@example.com' } })).body;
    const connected = (await app.request('POST', `/v2/campaign/${program.id}/integrations/stripe`, { key, body: { webhookSigningSecret: SIGNING_SECRET } })).body;
    await deliver(app, new URL(connected.webhookUrl).pathname, stripeEvent('checkout.session.completed.payment', (_e, o) => (o.client_reference_id = referrer.id)));
    await page.goto(`${app.url}/console/programs/${program.id}/integrations/stripe`);
    await expect.poll(() => heading(page)).toBe('Stripe');
    await expect.poll(() => page.getByRole('region', { name: 'Events received (last 30 days)' }).getByRole('row').count()).toBe(2);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await expectAccessible(page);
    await shot(page, 'integrations-stripe-390');
  });
  it('connects Paddle Billing on the same page, lists its notifications, and fits a phone screen', async () => {
    const { acct, page } = await signedInConsole(app, browser, 390);
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const program = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Paddle partners' } })).body;

    await page.goto(`${app.url}/console/programs/${program.id}`);
    await (await consoleNav(page)).getByRole('link', { name: 'Paddle' }).click();
    await expect.poll(() => heading(page)).toBe('Paddle Billing');
    await expect.poll(() => page.getByText('Not connected', { exact: true }).count()).toBe(1);

    // A Stripe secret is not a Paddle one: the API's refusal, with its field.
    await page.getByLabel('Secret key').fill(SIGNING_SECRET);
    await page.getByRole('button', { name: 'Connect Paddle' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('pdl_ntfset_');
    expect(await page.getByRole('alert').first().textContent()).not.toContain('webhookSecretKey');

    await page.getByLabel('Secret key').fill(PADDLE_SECRET);
    await page.getByRole('button', { name: 'Connect Paddle' }).click();
    await expect.poll(() => page.getByText('Connected', { exact: true }).count()).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Paddle connected.');
    const endpoint = await page.getByLabel('Endpoint URL').inputValue();
    expect(endpoint).toMatch(new RegExp(`^${app.url}/integrations/paddle/[a-z0-9]{20}/webhook$`));
    expect(await page.content()).not.toContain(PADDLE_SECRET);
    expect(await page.getByRole('list').filter({ hasText: 'transaction.completed' }).getByRole('listitem').allTextContents()).toEqual([
      'transaction.completed',
      'transaction.paid',
      'adjustment.created',
      'adjustment.updated',
      'subscription.canceled',
    ]);

    // Paddle sends a transaction nobody can be matched to (no API key to look up the customer).
    expect((await deliverPaddle(app, new URL(endpoint).pathname, paddleEvent('transaction.completed'))).body.outcome).toBe('UNATTRIBUTED');
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Paddle Billing');
    const log = page.getByRole('region', { name: 'Events received (last 30 days)' });
    await expect.poll(() => log.getByRole('row').count()).toBe(2);
    expect(await log.getByRole('row').nth(1).textContent()).toContain('Unattributed');
    expect(await log.getByRole('row').nth(1).textContent()).toContain('evt_01hv8x2acma2gz7he4n8gs7pvk');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await expectAccessible(page);
    await shot(page, 'integrations-paddle-390');

    await page.getByRole('button', { name: 'Disconnect Paddle' }).click();
    await expect.poll(() => page.getByText('Disconnected', { exact: true }).count()).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Paddle disconnected.');
  });
});
