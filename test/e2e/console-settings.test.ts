import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, shownKey, signedInConsole, heading, status } from './console-helpers.ts';

// Issue #23: a program's settings in Chromium, as an owner uses them. Options saved and read back
// over REST; the design's colour seen in the real widget's live preview before it is saved; an
// email's subject edited, rendered and sent as a test to the owner; reward configurations created,
// refused, edited and deleted; the installation snippet copied.

describe.skipIf(SKIP_BROWSER)('console program settings in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });


  async function ownerWithProgram(width = 1440) {
    const signedIn = await signedInConsole(app, browser, width);
    const key = await shownKey(signedIn.page, app.url);
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Corner bakery' } });
    expect(created.status, created.text).toBe(200);
    return { ...signedIn, key, pid: created.body.id as string };
  }
  const rest = async (key: string, path: string) => {
    const res = await app.request('GET', `/v2${path}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it('changes options, shows the API’s refusal next to its field, and reads the saved options over REST', async () => {
    const { page, context, key, pid } = await ownerWithProgram();
    await page.goto(`${app.url}/console/programs/${pid}`);
    await expect.poll(() => heading(page)).toBe('Corner bakery');
    await (await consoleNav(page)).getByRole('link', { name: 'Options' }).click();
    await expect.poll(() => heading(page)).toBe('Program options');
    expect(page.url()).toBe(`${app.url}/console/programs/${pid}/settings/options`);
    expect(await (await consoleNav(page)).getByRole('link', { name: 'Options' }).getAttribute('aria-current')).toBe('page');

    await page.getByLabel('Approve each reward before it is given').check();
    await page.getByLabel('How long a referral link is remembered').selectOption({ label: '90 days' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    const saved = await rest(key, `/campaign/${pid}/options`);
    expect(saved.requireManualRewardApproval).toBe(true);
    expect(saved.referralCookieWindowDays).toBe(90);

    // 0 is below the API's minimum: its message appears next to the field, which is marked invalid.
    const max2 = page.getByLabel('Most sign-ups from one IP address in 2 minutes');
    await max2.fill('0');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => max2.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await max2.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(/1|small|least/i);
    expect(await page.getByRole('alert').textContent()).toContain('One field needs attention');
    expect((await rest(key, `/campaign/${pid}/options`)).fraud.maxSignupsPerIp2Min).toBe(saved.fraud.maxSignupsPerIp2Min);
    await expectAccessible(page);
    await shot(page, 'settings-options-1440');

    await max2.fill('4');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    expect((await rest(key, `/campaign/${pid}/options`)).fraud.maxSignupsPerIp2Min).toBe(4);
    expect(await max2.getAttribute('aria-invalid')).toBeNull();
    await context.close();
  });

  it('saves an affiliate program’s minimum payout in minor units, a language and a blocked domain that then refuses sign-ups', async () => {
    const signedIn = await signedInConsole(app, browser, 1440);
    const key = await shownKey(signedIn.page, app.url);
    const { page, context } = signedIn;
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Bakery partners', currencyISO: 'USD' } });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    await page.goto(`${app.url}/console/programs/${pid}/settings/options`);
    await expect.poll(() => heading(page)).toBe('Program options');

    await page.getByLabel('Minimum payout, in USD').fill('25.50');
    await page.getByRole('group', { name: 'Other languages participants can use' }).getByLabel('French (fr)').check();
    await page.getByText('Allow and block lists').click();
    await page.getByLabel('Blocked email domains').fill('spam.example');
    await page.getByRole('button', { name: 'Add a question' }).click();
    await page.getByLabel('Question 1', { exact: true }).fill('Where will you share our bread?');
    await page.getByLabel('Question 1: kind of answer').selectOption({ label: 'One choice from a list' });
    await page.getByLabel('Question 1: choices').fill('Blog\nNewsletter');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    const saved = await rest(key, `/campaign/${pid}/options`);
    expect(saved.payoutThreshold).toBe(2550);
    expect(saved.languages.additionalLanguages).toContain('fr');
    expect(saved.fraud.blockedEmailDomains).toEqual(['spam.example']);
    expect(saved.affiliateApplicationForm.questions).toEqual([{ fieldId: 'question1', label: 'Where will you share our bread?', type: 'dropdown', isRequired: false, options: ['Blog', 'Newsletter'] }]);
    // Shown again as an amount, not as minor units.
    expect(await page.getByLabel('Minimum payout, in USD').inputValue()).toBe('25.50');

    const refused = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: 'mallory@spam.example' } });
    expect(refused.status, refused.text).toBe(422);
    const allowed = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: 'alice@bakery.example' } });
    expect(allowed.status, allowed.text).toBe(200);

    // A list entry the API refuses opens its folded group and is explained next to the field.
    await page.getByLabel('Blocked IP addresses').fill('300.1.2.3');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByLabel('Blocked IP addresses').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);
    await shot(page, 'settings-options-affiliate-1440');
    await context.close();
  });

  it('shows a new colour in the real widget before saving, then saves it', async () => {
    const { page, context, key, pid } = await ownerWithProgram();
    await page.goto(`${app.url}/console/programs/${pid}/settings/design`);
    await expect.poll(() => heading(page)).toBe('Design');
    const before = (await rest(key, `/campaign/${pid}/design`)).theme.primaryColor as string;
    const frame = page.frameLocator('iframe.widget-frame');
    // The widget's themed root inside its shadow root (the referrer's window is open in the preview).
    const previewColour = () => frame.locator('[role="dialog"]').first().evaluate((el) => (el.closest('.r') as HTMLElement).style.getPropertyValue('--p'));
    await expect.poll(previewColour, { timeout: 15_000 }).toBe(before);

    await page.getByLabel('Main colour (buttons and links) (colour code)').fill('#b00020');
    await expect.poll(previewColour).toBe('#b00020');
    // Not saved yet.
    expect((await rest(key, `/campaign/${pid}/design`)).theme.primaryColor).toBe(before);
    await expect.poll(() => page.getByText('The preview shows unsaved changes.').count()).toBe(1);
    // The referrer's window shows a signed-in participant, so it shows the participants' heading.
    await page.getByLabel('Heading for participants').fill('Give $5, get $5 at the bakery');
    await expect.poll(() => frame.locator('[role="dialog"]').first().textContent()).toContain('Give $5, get $5 at the bakery');
    // Another section than the theme and the headings: the share section's title, in the form's Sharing group.
    await page.getByRole('group', { name: 'Sharing' }).getByLabel('Share section title').fill('Pass the bread along');
    await expect.poll(() => frame.locator('[role="dialog"]').first().textContent()).toContain('Pass the bread along');
    await expectAccessible(page);
    await shot(page, 'settings-design-1440');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    const saved = await rest(key, `/campaign/${pid}/design`);
    expect(saved.theme.primaryColor).toBe('#b00020');
    expect(saved.header.postText).toBe('Give $5, get $5 at the bakery');
    expect(saved.share.title).toBe('Pass the bread along');

    // A colour the API refuses is explained next to the colour.
    await page.getByLabel('Text (colour code)', { exact: true }).fill('blue-ish');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('.color-field .field-error').first().textContent()).toContain('hex colour');
    await context.close();
  });

  it('keeps the keys an owner types in the form while the preview’s widget opens its window', async () => {
    const { page, context, pid } = await ownerWithProgram();
    // The preview's widget is held back until the owner is typing (as on a slow machine, where CI
    // once lost a typed status name to the window opening in the frame).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/widget/attribution.js', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${app.url}/console/programs/${pid}/settings/design`);
    await expect.poll(() => heading(page)).toBe('Design');
    const field = page.getByLabel('Heading for participants');
    await field.fill('');
    await page.keyboard.type('Give $5');
    release();
    const frame = page.frameLocator('iframe.widget-frame');
    await expect.poll(() => frame.locator('[role="dialog"]').count(), { timeout: 20_000 }).toBe(1);
    await page.keyboard.type(', get $5');
    expect(await field.inputValue()).toBe('Give $5, get $5');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await field.getAttribute('id'));
    await expect.poll(() => frame.locator('[role="dialog"]').first().textContent()).toContain('Give $5, get $5');
    await context.close();
  });

  it('edits the rest of the design document: sign-up fields (seen in the preview), sign-in, traffic report, resources, payout confirmation and country names (issue #23)', async () => {
    const { page, context, key, pid } = await ownerWithProgram();
    await page.goto(`${app.url}/console/programs/${pid}/settings/design`);
    await expect.poll(() => heading(page)).toBe('Design');
    const group = (name: string) => page.getByRole('group', { name, exact: true });
    const more = (name: string, summary: string) => group(name).locator('summary', { hasText: summary }).click();

    // The sign-up form's field list: a third field, shown in the referred friend's form before saving.
    await page.getByRole('radio', { name: 'What a referred friend sees' }).check();
    const form = page.frameLocator('iframe.widget-frame').locator('form').first();
    await expect.poll(() => form.textContent().catch(() => ''), { timeout: 40_000 }).toContain('First name');
    const signup = group('Sign-up form');
    await signup.getByRole('button', { name: 'Add a field' }).click();
    await signup.getByLabel('Field 3: label').fill('Company');
    await signup.getByLabel('Field 3: placeholder').fill('Bakery Ltd');
    await signup.getByLabel('Field 3: stored as').fill('company');
    await expect.poll(() => form.textContent()).toContain('Company');
    await expect.poll(() => form.locator('input[name="company"]').getAttribute('placeholder')).toBe('Bakery Ltd');
    // Moved above the first name, in the preview too.
    await signup.getByRole('button', { name: 'Move field 3 up' }).click();
    await expect.poll(() => form.locator('input').evaluateAll((xs) => xs.map((x) => (x as HTMLInputElement).name).filter(Boolean))).toEqual(['email', 'company', 'firstName']);

    // One field of each other new part.
    await more('Sign-in for returning participants', 'Sign-in messages');
    await page.getByLabel('Message when a link is asked for again too soon').fill('Slow down, please.');
    await group('Traffic report').getByLabel('Visits total name').fill('Clicks on your link');
    await more('Traffic report', 'More settings');
    await page.getByLabel('Countries: names of values').fill('DE = Germany (our home)');
    await more('Resources', 'More settings');
    await page.getByLabel('Resources copy button text').fill('Copy the text');
    await group('Payout confirmation page').getByLabel('Confirmation page headline').fill('Where should your {{payoutProvider}} money go?');
    const countries = page.getByLabel('Country names participants see');
    await countries.fill('de = Deutschland\nGB = Britain');
    await expectAccessible(page);
    await shot(page, 'settings-design-more-1440');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    const saved = await rest(key, `/campaign/${pid}/design`);
    expect(saved.signup.fields).toEqual([
      { key: 'email', type: 'EMAIL', label: 'Email', placeholder: 'you@example.com', isRequired: true },
      { key: 'company', type: 'TEXT', label: 'Company', placeholder: 'Bakery Ltd', isRequired: false },
      { key: 'firstName', type: 'TEXT', label: 'First name', placeholder: 'Jane', isRequired: false },
    ]);
    expect(saved.login.cooldown).toBe('Slow down, please.');
    expect(saved.trafficInsights.metrics.visits.label).toBe('Clicks on your link');
    expect(saved.trafficInsights.breakdowns.geo.values).toEqual({ DE: 'Germany (our home)' });
    expect(saved.resources.copyButtonText).toBe('Copy the text');
    expect(saved.payoutDestinationConfirmation.headline).toBe('Where should your {{payoutProvider}} money go?');
    expect(saved.payoutDestinationConfirmation.description).toBeNull();
    expect(saved.countryLabels).toEqual({ DE: 'Deutschland', GB: 'Britain' });

    // Read back after a reload, as saved.
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Design');
    await expect.poll(() => page.getByLabel('Field 2: label').inputValue()).toBe('Company');
    expect(await page.getByLabel('Field 2: stored as').inputValue()).toBe('company');
    expect(await page.getByLabel('Message when a link is asked for again too soon').inputValue()).toBe('Slow down, please.');
    expect(await page.getByLabel('Visits total name').inputValue()).toBe('Clicks on your link');
    expect(await page.getByLabel('Countries: names of values').inputValue()).toBe('DE = Germany (our home)');
    expect(await page.getByLabel('Resources copy button text').inputValue()).toBe('Copy the text');
    expect(await page.getByLabel('Confirmation page headline').inputValue()).toBe('Where should your {{payoutProvider}} money go?');
    expect(await countries.inputValue()).toBe('DE = Deutschland\nGB = Britain');

    // A removed country goes back to its standard name (null over REST) and leaves the list.
    await countries.fill('DE = Deutschland');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    expect((await rest(key, `/campaign/${pid}/design`)).countryLabels).toEqual({ DE: 'Deutschland', GB: null });
    expect(await countries.inputValue()).toBe('DE = Deutschland');

    // Values the API refuses: its messages next to their fields, and nothing saved.
    const stored = page.getByLabel('Field 2: stored as');
    await stored.fill('the company');
    await countries.fill('DE = Deutschland\nGermany = Deutschland');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => stored.getAttribute('aria-invalid')).toBe('true');
    const errorOf = async (field: typeof stored) => page.locator(`[id="${(await field.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))}"]`).textContent();
    expect(await errorOf(stored)).toBe('Letters, digits and _; starts with a letter; at most 40 characters.');
    expect(await countries.getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf(countries)).toBe('ISO 3166-1 alpha-2 code.');
    expect(await page.getByRole('alert').textContent()).toContain('2 fields need attention');
    const after = await rest(key, `/campaign/${pid}/design`);
    expect(after.signup.fields[1].key).toBe('company');
    expect(after.countryLabels).toEqual({ DE: 'Deutschland', GB: null });
    await expectAccessible(page);
    await shot(page, 'settings-design-refused-1440');
    await context.close();
  }, 120_000);

  it('edits an affiliate program’s commission and payout status names and the sign-up form at 390 px (issue #23)', async () => {
    const signedIn = await signedInConsole(app, browser, 390);
    const key = await shownKey(signedIn.page, app.url);
    const { page, context } = signedIn;
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Bakery partners', currencyISO: 'USD' } });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    await page.goto(`${app.url}/console/programs/${pid}/settings/design`);
    await expect.poll(() => heading(page)).toBe('Design');
    await page.getByRole('group', { name: 'Summaries and portal sections', exact: true }).locator('summary').click();
    await page.getByLabel('Commission status name: paid').fill('Paid out');
    await page.getByLabel('Payout status name: sent').fill('On its way');
    const signup = page.getByRole('group', { name: 'Sign-up form', exact: true });
    // A rule over the whole list (the email field stays an email address) is said above the list.
    await signup.getByLabel('Field 1: kind of answer').selectOption({ label: 'Text' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => signup.locator('.field-error').first().textContent()).toBe('The form needs a required field with key "email" and type EMAIL.');
    expect((await rest(key, `/campaign/${pid}/design`)).signup.fields[0].type).toBe('EMAIL');
    await signup.getByLabel('Field 1: kind of answer').selectOption({ label: 'Email address' });
    await signup.getByLabel('Field 2 must be filled in').check();
    await signup.getByLabel('Field 2: kind of answer').selectOption({ label: 'Text' });
    // The status names typed first are still in their fields after the refused save (CI once saved 'Paid': noted as a suspected race).
    await expect.poll(() => page.getByLabel('Commission status name: paid').inputValue()).toBe('Paid out');
    await expect.poll(() => page.getByLabel('Payout status name: sent').inputValue()).toBe('On its way');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    const saved = await rest(key, `/campaign/${pid}/design`);
    expect(saved.commissions.statusLabels.PAID).toBe('Paid out');
    expect(saved.payouts.statusLabels.ISSUED).toBe('On its way');
    expect(saved.signup.fields[1]).toMatchObject({ key: 'firstName', isRequired: true });
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Design');
    await expect.poll(() => page.getByLabel('Commission status name: paid').inputValue()).toBe('Paid out');
    expect(await page.getByLabel('Field 2 must be filled in').isChecked()).toBe(true);
    // The email field stays: it cannot be removed.
    expect(await signup.getByRole('button', { name: 'Remove field 1' }).isDisabled()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'settings-design-affiliate-390');
    await context.close();
  }, 120_000);

  it('edits an email subject, shows it rendered, sends a test to the owner and saves it', async () => {
    const { page, context, key, pid, acct } = await ownerWithProgram();
    await page.goto(`${app.url}/console/programs/${pid}/settings/emails`);
    await expect.poll(() => heading(page)).toBe('Emails');
    await page.getByLabel('Email', { exact: true }).selectOption('referredSignup');
    await expect.poll(() => page.url()).toContain('?template=referredSignup');
    const subject = page.getByLabel('Subject', { exact: true });
    await subject.fill('{{firstName}}, a friend joined {{companyName}}!');
    await expect.poll(() => page.getByTestId('rendered-subject').textContent()).toBe('Alex, a friend joined Corner bakery!');
    await page.getByLabel('Body (HTML)').fill('<h1 style="color:#b00020">Nice work, {{firstName}}</h1><p>Keep sharing <a href="{{shareUrl}}">your link</a>.</p>');
    const email = page.frameLocator('iframe.email-frame');
    await expect.poll(() => email.locator('h1').textContent().catch(() => '')).toBe('Nice work, Alex');
    // The email's own inline styles apply inside its frame.
    expect(await email.locator('h1').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(176, 0, 32)');
    await expectAccessible(page);
    await shot(page, 'settings-emails-1440');

    await page.getByRole('button', { name: 'Send a test to me' }).click();
    await expect.poll(() => status(page)).toBe(`Test email sent to ${acct.email}, with your unsaved changes.`);
    const [mail] = await app.deps.mailer.list({ to: acct.email, limit: 1 });
    expect(mail!.subject).toBe('[Test] Alex, a friend joined Corner bakery!');
    expect(mail!.html).toContain('Nice work, Alex');
    // Unsaved until saved.
    expect((await rest(key, `/campaign/${pid}/emails`)).referredSignup.subject).not.toContain('a friend joined');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    expect((await rest(key, `/campaign/${pid}/emails`)).referredSignup.subject).toBe('{{firstName}}, a friend joined {{companyName}}!');

    // The settings every email shares are saved on their own.
    await page.getByLabel('Sender name').fill('Corner bakery team');
    await page.getByLabel('Reply-to address').fill('not an address');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await expect.poll(() => page.getByLabel('Reply-to address').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Reply-to address').fill('hello@bakery.example');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    expect((await rest(key, `/campaign/${pid}/emails`)).settings.sender).toMatchObject({ fromName: 'Corner bakery team', replyToEmail: 'hello@bakery.example' });
    await context.close();
  });

  it('creates, refuses, edits and deletes reward configurations', async () => {
    const { page, context, key, pid } = await ownerWithProgram();
    await page.goto(`${app.url}/console/programs/${pid}/settings/rewards`);
    await expect.poll(() => heading(page)).toBe('Reward settings');
    const starter = (await rest(key, `/campaign/${pid}/reward-configs`)).rewards as Array<{ id: string; title: string }>;
    expect(starter.length).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('heading', { level: 2, name: starter[0]!.title }).count()).toBe(1);

    await page.getByRole('button', { name: 'Add a reward' }).click();
    await page.getByLabel('Kind of reward').selectOption('MILESTONE');
    await page.getByLabel('Name').fill('Ten friends');
    await page.getByLabel('What the referrer gets').fill('A free cake');
    const needed = page.getByLabel('Referrals needed');
    await needed.fill('0');
    await page.getByRole('button', { name: 'Create reward' }).click();
    await expect.poll(() => needed.getAttribute('aria-invalid')).toBe('true');
    expect((await rest(key, `/campaign/${pid}/reward-configs`)).rewards).toHaveLength(starter.length);
    await expectAccessible(page);
    await shot(page, 'settings-rewards-refused-1440');

    await needed.fill('10');
    await page.getByRole('button', { name: 'Create reward' }).click();
    await expect.poll(() => status(page)).toBe('Reward Ten friends created.');
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'Ten friends' }).count()).toBe(1);
    const created = ((await rest(key, `/campaign/${pid}/reward-configs`)).rewards as Array<Record<string, unknown>>).find((r) => r.title === 'Ten friends')!;
    expect(created).toMatchObject({ type: 'MILESTONE', conversionsRequired: 10, description: 'A free cake' });

    await page.getByRole('button', { name: 'Edit Ten friends' }).click();
    await page.getByLabel('Name').fill('Twelve friends');
    await page.getByLabel('Referrals needed').fill('12');
    await page.getByRole('button', { name: 'Save reward' }).click();
    await expect.poll(() => status(page)).toBe('Reward Twelve friends saved.');
    const edited = ((await rest(key, `/campaign/${pid}/reward-configs`)).rewards as Array<Record<string, unknown>>).find((r) => r.id === created.id)!;
    expect(edited).toMatchObject({ title: 'Twelve friends', conversionsRequired: 12 });
    await shot(page, 'settings-rewards-1440');

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete Twelve friends' }).click();
    await expect.poll(() => status(page)).toBe('Reward Twelve friends deleted.');
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'Twelve friends' }).count()).toBe(0);
    expect(((await rest(key, `/campaign/${pid}/reward-configs`)).rewards as Array<{ id: string }>).map((r) => r.id)).not.toContain(created.id);
    await context.close();
  });

  it('copies the installation snippet and lists the integrations', async () => {
    const { page, context, pid } = await ownerWithProgram();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await page.goto(`${app.url}/console/programs/${pid}/settings/installation`);
    await expect.poll(() => heading(page)).toBe('Installation');
    const snippet = await page.getByLabel('Code for your website').inputValue();
    expect(snippet).toContain(`campaignId:"${pid}"`);
    expect(snippet).toContain(`${app.url}/growsurf.js`);
    await page.getByRole('button', { name: 'Copy code' }).click();
    await expect.poll(() => status(page)).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    // What refloop integrates with (issue #25), each linked to its page in the console.
    const integrations = page.getByRole('region', { name: 'Integrations' });
    await expect.poll(() => integrations.getByRole('listitem').allTextContents()).toEqual(['Stripe Not connected', 'Paddle Billing Not connected']);
    expect(await integrations.getByRole('link', { name: 'Stripe' }).getAttribute('href')).toBe(`/console/programs/${pid}/integrations/stripe`);

    await page.getByLabel('Page referral links open').fill('not a url');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByLabel('Page referral links open').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Page referral links open').fill('https://bakery.example.com/');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    await expectAccessible(page);
    await shot(page, 'settings-installation-1440');
    await context.close();
  });

  it('works at 390 px on every settings page', async () => {
    const { page, context, pid } = await ownerWithProgram(390);
    for (const [slug, title] of [
      ['options', 'Program options'],
      ['design', 'Design'],
      ['emails', 'Emails'],
      ['installation', 'Installation'],
      ['rewards', 'Reward settings'],
    ] as const) {
      await page.goto(`${app.url}/console/programs/${pid}/settings/${slug}`);
      await expect.poll(() => heading(page)).toBe(title);
      await page.waitForLoadState('networkidle');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expectAccessible(page);
      await shot(page, `settings-${slug}-390`);
    }
    await context.close();
  });

  it('issue #32: a too-long design text is refused with a plain message beside its field, and its box carries the schema maximum', async () => {
    const { page, context, pid } = await ownerWithProgram(1366);
    await page.goto(`${app.url}/console/programs/${pid}/settings/design`);
    await expect.poll(() => heading(page)).toBe('Design');
    const pre = page.getByLabel('Heading for visitors');
    expect(await pre.getAttribute('maxlength')).toBe('500');
    // An old browser or a paste script can still send more: the refusal must read plainly.
    await pre.evaluate((el) => el.removeAttribute('maxlength'));
    await pre.fill('x'.repeat(501));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => pre.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await pre.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toBe('Too long: use at most 500 characters.');
    const alert = (await page.getByRole('alert').textContent())!;
    expect(alert).toContain('One field needs attention');
    expect(alert).not.toContain('Too big');
    expect(alert).not.toContain('header.preText');
    expect(await pre.evaluate((el) => el === document.activeElement)).toBe(true);
    await expectAccessible(page);
    await context.close();
  });
});
