import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, heading, shotWidths, signedInConsole } from './console-helpers.ts';
import { connectStripe, deliver, stripeEvent } from '../server/billing/stripe-helpers.ts';
import { SCOPES } from '../../shared/scopes.ts';

// Issue #35 part 1: the Audit log page shows what refloop changed on its own (SYSTEM entries): a
// delayed referral credit made by the job runner and a Stripe sale, each with its source in the Who
// column, its action, the fields it moved and, for the webhook, the Stripe event; the member or key
// filter finds them by their source's name.

describe.skipIf(SKIP_BROWSER)('console Audit log page: SYSTEM entries in Chromium (issue #35)', () => {
  let app: TestApp;
  let browser: Browser;
  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  it('shows a job’s and a webhook’s entries with their source, fields and event, and filters them by the source', async () => {
    const { acct, page, context } = await signedInConsole(app, browser);
    // The sign-up's key waits in the session (shown once on the keys page): a key of the team's own for the set-up.
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(method, path, { key, body });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const pid = (await ok('POST', '/v2/campaigns', { type: 'REFERRAL', name: 'Audited', rewards: [{ type: 'DOUBLE_SIDED', title: 'Both get $10' }] })).id as string;
    const referrer = await ok('POST', `/v2/campaign/${pid}/participant`, { email: 'referrer@example.com' });
    const friend = await ok('POST', `/v2/campaign/${pid}/participant`, { email: 'friend@example.com', referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
    await ok('POST', `/v2/campaign/${pid}/participant/${friend.id}/ref`, { delayInDays: 1 });
    app.clock.advance(86_400_000);
    await app.deps.jobs.runDue(100);
    const late = await ok('POST', `/v2/campaign/${pid}/participant`, { email: 'payer@example.com', referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
    const { path: endpoint } = await connectStripe(app, key, pid);
    const sale = stripeEvent('checkout.session.completed.payment', (_e, o) => (o.customer_details.email = late.email));
    expect((await deliver(app, endpoint, sale)).body.outcome).toBe('ACCEPTED');

    await (await consoleNav(page)).getByRole('link', { name: 'Audit log' }).click();
    await expect.poll(() => heading(page)).toBe('Audit log');
    const table = page.getByRole('table', { name: /^Audit entries, newest first/ });
    const credit = table.getByRole('row').filter({ hasText: 'Credited a delayed referral' });
    await expect.poll(() => credit.count()).toBe(1);
    await credit.getByRole('cell', { name: 'System: Delayed referral credit', exact: true }).waitFor();
    expect(await credit.getByRole('listitem').filter({ hasText: 'referralStatus' }).textContent()).toBe('referralStatus: CREDIT_PENDING → CREDIT_AWARDED');
    await credit.getByText('Code system.referral.delayed_credit').waitFor();
    const paid = table.getByRole('row').filter({ hasText: 'Recorded a Stripe payment' });
    await paid.getByRole('cell', { name: 'System: Stripe webhook', exact: true }).waitFor();
    await paid.getByText('Event evt_1PqKfYLkdIwHu7ixZmdVdD3k (checkout.session.completed)').waitFor();

    // The member or key filter takes a system source's name.
    await page.getByLabel('Member or key').fill('billing.stripe');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/console\/audit\?actor=billing\.stripe$/);
    await expect.poll(() => table.getByRole('row').filter({ hasText: 'Recorded a Stripe payment' }).count()).toBe(1);
    await expect.poll(() => table.getByRole('row').filter({ hasText: 'Credited a delayed referral' }).count()).toBe(0);
    await expectAccessible(page);
    await shotWidths(page, 'audit-log-system');
    await context.close();
  }, 90_000);
});
