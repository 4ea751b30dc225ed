import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePort, launch, SKIP_BROWSER } from './helpers.ts';
import { RAISED_LIMITS, startApp, type TestApp } from '../helpers/app.ts';
import { mobile, session } from '../helpers/mobile.ts';
import { buildConsole } from '../../scripts/build-console.ts';
import { expectAccessible, shot, shotWidths, shownKey, signedInConsole } from './console-helpers.ts';

// Issue #23: the affiliate path in the owner console, in Chromium, the way an owner runs it: create
// an affiliate program, a person applies, the owner approves; a sale arrives over REST, the owner
// approves its commission, runs payouts, downloads the payout file and marks the payout paid.
// Invites along the way. Every page with axe and screenshots at 1440 and 390 px.

/** Parses our CSV (every cell quoted, CRLF). */
function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split('\r\n')
    .map((line) => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replace(/""/g, '"')));
}

const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
const status = (page: Page) => page.getByRole('status').first().textContent();

describe.skipIf(SKIP_BROWSER)('owner console: affiliates in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    await buildConsole({ ifStale: true });
    const port = await freePort();
    app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0', PUBLIC_URL: `http://127.0.0.1:${port}` }, { port });
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('runs an affiliate program from application to a paid payout', async () => {
    const { acct, page, context } = await signedInConsole(app, browser, 1440);
    await expect.poll(() => h1(page)).toBe('Programs');
    await page.getByLabel('Affiliate').check();
    await page.getByLabel('Program name').fill('Partners');
    await page.getByRole('button', { name: 'Create program' }).click();
    await expect.poll(() => h1(page)).toBe('Partners');
    const pid = page.url().split('/').pop()!;
    const programNav = page.getByRole('navigation', { name: 'Console' });
    await programNav.getByRole('link', { name: 'Applications' }).waitFor();

    // Issue #32: the new program's lists are empty; each says how its rows arrive and leads to the next step.
    const emptyTitle = (title: string) => page.getByRole('heading', { level: 2, name: title });
    await programNav.getByRole('link', { name: 'Applications' }).click();
    await expect.poll(() => emptyTitle('No applications yet').count()).toBe(1);
    expect(await page.getByText('Applications arrive when people apply through the program’s affiliate application form').count()).toBe(1);
    // Nothing to filter yet.
    expect(await page.getByLabel('Show').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Application settings' }).getAttribute('href')).toBe(`/console/programs/${pid}/settings`);
    await expectAccessible(page);
    await shotWidths(page, 'affiliate-applications-empty');
    await page.getByRole('link', { name: 'Invite an affiliate' }).click();
    await expect.poll(() => h1(page)).toBe('Affiliate invites');
    await expect.poll(() => emptyTitle('No invites yet').count()).toBe(1);
    await expectAccessible(page);
    await shotWidths(page, 'affiliate-invites-empty');
    await page.getByRole('button', { name: 'Invite an affiliate' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('invite-email');
    await programNav.getByRole('link', { name: 'Commissions' }).click();
    await expect.poll(() => emptyTitle('No commissions yet').count()).toBe(1);
    expect(await page.getByText('A commission appears when a customer an affiliate referred pays').count()).toBe(1);
    await expectAccessible(page);
    await shotWidths(page, 'affiliate-commissions-empty');
    await page.getByRole('link', { name: 'Connect Stripe' }).click();
    await expect.poll(() => h1(page)).toBe('Stripe');
    await programNav.getByRole('link', { name: 'Payouts' }).click();
    await expect.poll(() => emptyTitle('No payouts yet').count()).toBe(1);
    await expectAccessible(page);
    await shotWidths(page, 'affiliate-payouts-empty');
    await page.getByRole('link', { name: 'Review commissions' }).click();
    await expect.poll(() => h1(page)).toBe('Commissions');
    await expect.poll(() => emptyTitle('No commissions yet').count()).toBe(1);

    // The program's set-up over REST with the key the keys page shows: a 10 % commission that waits
    // for the owner's approval, applications under manual review, the participant API on.
    const key = await shownKey(page, app.url);
    const rest = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(method, `/v2/campaign/${pid}${path}`, { key, body });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const campaign = await rest('GET', '');
    await rest('PATCH', `/reward-configs/${campaign.rewards[0].id}`, { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0, approvalRequired: true } });
    await rest('PATCH', '/options', {
      affiliateApplicationMode: 'MANUAL_REVIEW',
      affiliateApplicationForm: { questions: [{ fieldId: 'site', label: 'Your website', type: 'url', isRequired: true }, { fieldId: 'channel', label: 'Main channel', type: 'dropdown', isRequired: true, options: ['Blog', 'YouTube'] }], termsUrl: null },
    });
    const publicKey = (await rest('PATCH', '/installation', { mobile: { isEnabled: true } })).mobile.publicKey as string;

    // A person applies through the participant API, as the widget's form does.
    const s = await session(app, { key, teamId: acct.teamId, pid, publicKey });
    const applied = await mobile(app, 'POST', '/affiliate-applications', s, { body: { email: 'ana@partner.example', firstName: 'Ana', lastName: 'Ng', answers: { site: 'https://ana.example', channel: 'YouTube' } } });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toBe('PENDING');

    // Applications: the pending queue, then the application with its answers, approved.
    await programNav.getByRole('link', { name: 'Applications' }).click();
    await expect.poll(() => h1(page)).toBe('Affiliate applications');
    const table = page.getByRole('table');
    await expect.poll(() => table.getByRole('rowheader').allTextContents()).toEqual(['ana@partner.exampleAna Ng']);
    expect(await table.locator('caption').textContent()).toContain('1 of 1');
    expect(await page.getByLabel('Show').inputValue()).toBe('PENDING');
    await expectAccessible(page);
    await shot(page, 'affiliate-applications-1440');
    await table.getByRole('link', { name: 'ana@partner.example' }).click();
    await expect.poll(() => h1(page)).toBe('Application from Ana Ng');
    const answers = page.getByRole('region', { name: 'Answers' });
    expect(await answers.locator('dt').allTextContents()).toEqual(['Your website', 'Main channel']);
    expect(await answers.locator('dd').allTextContents()).toEqual(['https://ana.example', 'YouTube']);
    expect(await page.getByRole('region', { name: 'Applicant' }).textContent()).toContain('Pending');
    await expectAccessible(page);
    await shot(page, 'affiliate-application-1440');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => status(page)).toBe('Application approved: ana@partner.example is now an affiliate.');
    expect(await page.getByRole('region', { name: 'Applicant' }).textContent()).toContain('Approved');
    await expect.poll(() => page.getByText('This application has been decided').count()).toBe(1);
    const affiliate = await rest('GET', '/participant/ana@partner.example');
    expect(affiliate).toMatchObject({ isAffiliate: true, affiliateStatus: 'APPROVED' });
    // Back in the queue, the filter shows the decided one under Approved.
    // Nothing is pending any more, so the queue opens on every application (issue #32), the filter counting each state.
    await page.getByRole('link', { name: 'Back to applications' }).click();
    await expect.poll(() => table.getByRole('rowheader').allTextContents()).toEqual(['ana@partner.exampleAna Ng']);
    expect(await page.getByLabel('Show').locator('option').allTextContents()).toEqual(['All (1)', 'Pending (0)', 'Approved (1)', 'Denied (0)']);
    await page.getByLabel('Show').selectOption('APPROVED');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => table.getByRole('rowheader').allTextContents()).toEqual(['ana@partner.exampleAna Ng']);
    expect(page.url()).toContain('?status=APPROVED');

    // Invites: refused while the team is unverified (the API's message), sent once it is, resent
    // (too soon, then after five minutes) and revoked.
    const tabs = page.getByRole('navigation', { name: 'Console' });
    await tabs.getByRole('link', { name: 'Invites' }).click();
    await expect.poll(() => h1(page)).toBe('Affiliate invites');
    await page.getByLabel('Email address').fill('bo@partner.example');
    await page.getByLabel('First name (optional, used in the email)').fill('Bo');
    await page.getByRole('button', { name: 'Send invite' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/verif/i);
    await app.deps.teams.approveVerification(acct.teamId);
    await page.getByRole('button', { name: 'Send invite' }).click();
    await expect.poll(() => status(page)).toBe('Invite sent to bo@partner.example.');
    const invites = page.getByRole('table');
    await expect.poll(() => invites.getByRole('rowheader').allTextContents()).toEqual(['bo@partner.exampleBo']);
    await page.getByRole('button', { name: 'Resend the invite to bo@partner.example' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    expect(await page.getByRole('alert').textContent()).toBe('This invite was sent moments ago; resend it again in 300 seconds.');
    app.clock.advance(6 * 60_000);
    await page.getByRole('button', { name: 'Resend the invite to bo@partner.example' }).click();
    await expect.poll(() => status(page)).toContain('Invite sent again to bo@partner.example');
    await expectAccessible(page);
    await shot(page, 'affiliate-invites-1440');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke the invite to bo@partner.example' }).click();
    await expect.poll(() => invites.getByRole('row', { name: /bo@partner/ }).textContent()).toContain('Revoked');
    await expect.poll(() => page.getByRole('button', { name: /Resend the invite/ }).count()).toBe(0);
    // No invite is pending any more: the filtered list says so and links to every invite (issue #32).
    await page.getByLabel('Show').selectOption('PENDING');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByText('Nothing in this state.').count()).toBe(1);
    await page.getByRole('link', { name: 'Show all (1)' }).click();
    await expect.poll(() => invites.getByRole('rowheader').allTextContents()).toEqual(['bo@partner.exampleBo']);
    const inviteList = await rest('GET', '/affiliate-invites');
    expect(inviteList.invites.map((i: { status: string }) => i.status)).toEqual(['REVOKED']);

    // Two sales of customers Ana referred, recorded over REST (AF8): two pending commissions.
    for (const [email, gross, orderId] of [['cy@shop.example', 12_345, 'o-1'], ['di@shop.example', 5_000, 'o-2']] as const) {
      const customer = await rest('POST', '/participant', { email, referredBy: affiliate.id });
      app.clock.advance(1000);
      const sold = await rest('POST', `/participant/${customer.id}/transaction`, { currency: 'USD', grossAmount: gross, orderId });
      expect(sold.success).toBe(true);
    }

    // Commissions: both selected, one deleted over REST meanwhile; the bulk approval shows each answer.
    await tabs.getByRole('link', { name: 'Commissions' }).click();
    await expect.poll(() => h1(page)).toBe('Commissions');
    const commissions = page.getByRole('table');
    await expect.poll(() => commissions.getByRole('row').count()).toBe(3);
    // Affiliates' emails are looked up after the rows arrive (the id shows until then).
    await expect.poll(() => commissions.getByRole('rowheader').allTextContents()).toEqual(['ana@partner.example', 'ana@partner.example']);
    expect(await commissions.locator('tbody td.num').allTextContents()).toEqual(['$5.00', '$50.00', '$12.35', '$123.45']);
    await expectAccessible(page);
    await shot(page, 'affiliate-commissions-1440');
    await page.getByLabel('Select every pending commission shown').check();
    expect(await page.getByRole('button', { name: 'Approve 2 selected' }).isEnabled()).toBe(true);
    const small = (await rest('GET', '/commissions')).commissions.find((c: { amount: number }) => c.amount === 500);
    expect((await app.request('DELETE', `/v2/campaign/${pid}/commission/${small.id}`, { key })).status).toBe(200);
    await page.getByRole('button', { name: 'Approve 2 selected' }).click();
    const results = page.getByRole('region', { name: 'Results' });
    await expect.poll(() => results.locator('p').textContent()).toBe('1 of 2 done.');
    const lines = await results.getByRole('listitem').allTextContents();
    expect(lines[0]).toBe(`$5.00 · ana@partner.example: Commission ${small.id} is DELETED; only PENDING commissions can be approved.`);
    // The refusal shows the list was stale: it is read again, and only the pending filter's rows remain (none).
    await expect.poll(() => page.getByText('Nothing in this state.').count()).toBe(1);
    expect(lines[1]).toBe('$12.35 · ana@partner.example: done');
    await shot(page, 'affiliate-commissions-results-1440');
    // The pending filter is empty but the list is not: one click shows all of it (issue #32).
    await page.getByRole('link', { name: 'Show all (2)' }).click();
    await expect.poll(() => commissions.getByRole('rowheader').count()).toBe(2);
    expect(page.url()).toContain('/affiliates/commissions?status=');
    const after = (await rest('GET', '/commissions')).commissions.map((c: { amount: number; status: string }) => [c.amount, c.status]);
    expect(after).toEqual([
      [500, 'DELETED'],
      [1235, 'APPROVED'],
    ]);

    // Payouts: run, download the generic file, mark the payout paid with a reason.
    await tabs.getByRole('link', { name: 'Payouts' }).click();
    await expect.poll(() => h1(page)).toBe('Payouts');
    await page.getByRole('button', { name: 'Run payouts now' }).click();
    await expect.poll(() => status(page)).toBe('1 payout created.');
    const payouts = page.getByRole('table');
    await expect.poll(() => payouts.getByRole('rowheader').allTextContents()).toEqual(['ana@partner.example']);
    expect(await payouts.getByRole('row', { name: /ana@partner/ }).textContent()).toContain('$12.35');
    await expectAccessible(page);
    await shot(page, 'affiliate-payouts-1440');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`payouts-${pid}-generic.csv`);
    const rows = parseCsv(fs.readFileSync((await download.path())!, 'utf8'));
    expect(rows[0]!.slice(0, 9)).toEqual(['payout_id', 'participant_id', 'email', 'first_name', 'last_name', 'status', 'amount', 'currency', 'amount_minor']);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.slice(1, 9)).toEqual([affiliate.id, 'ana@partner.example', 'Ana', 'Ng', 'UPCOMING', '12.35', 'USD', '1235']);
    await expect.poll(() => status(page)).toBe(`Downloaded payouts-${pid}-generic.csv: 1 payout.`);
    // A PayPal file lists only confirmed PayPal destinations: Ana has none, so it is empty.
    await page.getByLabel('File format').selectOption('paypal');
    const [paypal] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(fs.readFileSync((await paypal.path())!, 'utf8')).toBe('');
    await expect.poll(() => status(page)).toBe(`Downloaded payouts-${pid}-paypal.csv: 0 payouts.`);

    await page.getByRole('button', { name: 'Report outcome of the payout of $12.35 to ana@partner.example' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Payout of $12.35 to ana@partner.example');
    await page.getByLabel('Paid').check();
    // Ana has no payout destination on file: the form warns, and saving asks first (issue #32).
    await expect.poll(() => page.locator('#payout-no-destination').textContent()).toContain('ana@partner.example has no payout destination on file.');
    await page.getByLabel(/Reason or provider reference/).fill('PayPal batch 42');
    await expectAccessible(page);
    await shot(page, 'affiliate-payout-outcome-1440');
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await page.getByRole('button', { name: 'Save outcome' }).click();
    await expect.poll(() => status(page)).toBe('Payout of $12.35 to ana@partner.example is now Paid.');
    expect(asked).toEqual([expect.stringContaining('They have no payout destination on file')]);
    await expect.poll(() => payouts.getByRole('row', { name: /ana@partner/ }).textContent()).toContain('Paid');
    // A paid payout can only be reversed: its one action says so, no "Report outcome".
    expect(await payouts.getByRole('button', { name: /^Report outcome/ }).count()).toBe(0);
    expect(await payouts.getByRole('button', { name: 'Record a reversal of the payout of $12.35 to ana@partner.example' }).count()).toBe(1);
    const paid = (await rest('GET', '/payouts')).payouts[0];
    expect(paid).toMatchObject({ status: 'ISSUED', amount: 1235, currencyISO: 'USD' });
    expect((await rest('GET', '/commissions?status=PAID')).commissions).toHaveLength(1);

    // Every page again at 390 px: nothing wider than the screen, axe clean.
    await page.setViewportSize({ width: 390, height: 844 });
    const base = `${app.url}/console/programs/${pid}/affiliates`;
    for (const [path, title, name] of [
      ['?status=APPROVED', 'Affiliate applications', 'affiliate-applications-390'],
      [`/applications/${applied.body.applicationId}`, 'Application from Ana Ng', 'affiliate-application-390'],
      ['/invites', 'Affiliate invites', 'affiliate-invites-390'],
      ['/commissions?status=', 'Commissions', 'affiliate-commissions-390'],
      ['/payouts', 'Payouts', 'affiliate-payouts-390'],
    ] as const) {
      await page.goto(base + path);
      await expect.poll(() => h1(page)).toBe(title);
      await page.getByRole('heading', { level: 2 }).or(page.getByRole('table')).first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(390);
      await expectAccessible(page);
      await shot(page, name);
    }
    await context.close();
  }, 180_000);

  it('shows no Affiliates link on a referral program, and explains the pages there', async () => {
    const { page, context } = await signedInConsole(app, browser, 1024);
    await page.getByLabel('Program name').fill('Friends');
    await page.getByRole('button', { name: 'Create program' }).click();
    await expect.poll(() => h1(page)).toBe('Friends');
    const programNav = page.getByRole('navigation', { name: 'Console' });
    await programNav.getByRole('link', { name: 'Participants' }).click();
    await expect.poll(() => h1(page)).toBe('Participants');
    await expect.poll(() => programNav.getByRole('link', { name: 'Applications' }).count()).toBe(0);
    await page.goto(`${page.url().replace(/\/participants$/, '')}/affiliates/payouts`);
    await expect.poll(() => page.getByText('This program is a referral program.').count()).toBe(1);
    await context.close();
  });
});
