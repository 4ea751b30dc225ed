import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleSuite, expectAccessible, shot, shownKey, signedInConsole, heading, status } from './console-helpers.ts';

// Issue #23: the email settings page previews what is on screen, saved or not. An owner types a new
// subject and body and changes a setting every email shares (the footer, the sender); the framed
// email shows them before anything is saved, a refused setting is explained beside the preview, the
// test email carries the unsaved text (read in the console's Outbox), and leaving without saving
// leaves the saved email as it was.

describe.skipIf(SKIP_BROWSER)('console email settings preview unsaved changes in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });


  it('previews a typed subject, body and footer before saving, sends them as the test, and keeps the saved email when the owner leaves', async () => {
    const { page, context, acct } = await signedInConsole(app, browser, 1440);
    const key = await shownKey(page, app.url);
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Corner bakery' } });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    const emailsDoc = async () => {
      const res = await app.request('GET', `/v2/campaign/${pid}/emails`, { key });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const before = await emailsDoc();
    const savedRendering = await app.request('POST', `/v2/campaign/${pid}/emails/referredSignup/preview`, { key, body: {} });
    expect(savedRendering.status, savedRendering.text).toBe(200);

    await page.goto(`${app.url}/console/programs/${pid}/settings/emails?template=referredSignup`);
    await expect.poll(() => heading(page)).toBe('Emails');
    const email = page.frameLocator('iframe.email-frame');
    const emailText = () => email.locator('body').innerText().catch(() => '');
    const rendered = () => page.getByTestId('rendered-subject').textContent();
    const unsavedNote = page.getByText('Preview of unsaved changes', { exact: true });
    // The saved email first, with no note.
    await expect.poll(rendered).toBe(savedRendering.body.subject);
    await expect.poll(emailText).toContain('Corner bakery');
    expect(await unsavedNote.count()).toBe(0);

    // The template's copy, typed as a person types it.
    const subject = page.getByLabel('Subject', { exact: true });
    await subject.fill('');
    await subject.pressSequentially('Draft: {{firstName}} brought a friend');
    await page.getByLabel('Body (HTML)').fill('<p>Fresh from the oven, {{firstName}}.</p>');
    await expect.poll(rendered).toBe('Draft: Alex brought a friend');
    await expect.poll(emailText).toContain('Fresh from the oven, Alex.');
    await expect.poll(() => unsavedNote.isVisible()).toBe(true);

    // A setting every email shares, from the form below, shown in the same preview.
    await page.getByLabel('Footer text').fill('Baked in the draft');
    await page.getByLabel('Sender name').fill('Draft bakery team');
    await expect.poll(emailText).toContain('Baked in the draft');
    // Not stored.
    expect(await emailsDoc()).toEqual(before);

    // A setting the save would refuse is named beside the preview, which keeps the last email it drew.
    await page.getByLabel('Reply-to address').fill('not an address');
    const refused = page.getByTestId('preview-refused');
    await expect.poll(() => refused.textContent().catch(() => '')).toContain('Reply-to address');
    expect(await emailText()).toContain('Baked in the draft');
    await expectAccessible(page);
    await shot(page, 'settings-emails-draft-refused-1440');
    await page.getByLabel('Reply-to address').fill('hello@bakery.example');
    await expect.poll(() => refused.count()).toBe(0);
    await expectAccessible(page);
    await shot(page, 'settings-emails-draft-1440');

    // The test carries what is on screen, and says so.
    await page.getByRole('button', { name: 'Send a test to me' }).click();
    await expect.poll(() => status(page)).toBe(`Test email sent to ${acct.email}, with your unsaved changes.`);
    const [mail] = await app.deps.mailer.list({ to: acct.email, limit: 1 });
    expect(mail!.subject).toBe('[Test] Draft: Alex brought a friend');
    expect(mail!.from).toContain('Draft bakery team');
    expect(mail!.replyTo).toBe('hello@bakery.example');

    // Leave without saving, for the Outbox, and read the test there as the owner would.
    await page.getByRole('link', { name: 'Outbox' }).click();
    await expect.poll(() => heading(page)).toBe('Outbox');
    const message = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^\[Test\] Draft: Alex brought a friend/ }) });
    await expect.poll(() => message.count()).toBe(1);
    await message.getByText('Show the message', { exact: true }).click();
    const text = await message.locator('pre').textContent();
    expect(text).toContain('Fresh from the oven, Alex.');
    expect(text).toContain('Baked in the draft');

    // Back on the page: the saved email, unchanged, with nothing marked unsaved.
    await page.goBack();
    await expect.poll(() => heading(page)).toBe('Emails');
    await expect.poll(rendered).toBe(savedRendering.body.subject);
    expect(await page.getByLabel('Subject', { exact: true }).inputValue()).toBe(before.referredSignup.subject);
    expect(await page.getByLabel('Footer text').inputValue()).toBe(before.settings.design.footerText ?? '');
    await expect.poll(emailText).not.toContain('Baked in the draft');
    expect(await unsavedNote.count()).toBe(0);
    expect(await emailsDoc()).toEqual(before);
    await context.close();
  });
});
