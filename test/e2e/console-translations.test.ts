import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, shownKey, signedInConsole, heading, status } from './console-helpers.ts';
import { esDesign } from '../../server/domain/programs/design-copy/es.ts';
import { defaultTemplate } from '../../server/domain/programs/email-copy/index.ts';

// Issue #27: an owner's own texts per program language, in Chromium as an owner uses them. A program
// in English with Spanish and German: on the Design page the owner chooses Spanish, types the
// participants' heading, sees it in the real widget's preview (drawn as a Spanish reader sees it: Spanish
// default texts and widget words), saves it (read back over REST), is told beside the field when the
// API refuses it, and clears it again (no override left); on the Emails page
// a German subject is previewed and saved. axe and screenshots at 1440 and 390 px. A program whose
// base language is Spanish shows its unedited default texts in Spanish on the Design page.

describe.skipIf(SKIP_BROWSER)('console texts per program language in Chromium (issue #27)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });


  /** A signed-in owner with a referral program running in English, Spanish and German (set over REST). */
  async function ownerWithLanguages(width: number) {
    const signedIn = await signedInConsole(app, browser, width);
    const key = await shownKey(signedIn.page, app.url);
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Corner bakery' } });
    expect(created.status, created.text).toBe(200);
    const pid = created.body.id as string;
    const options = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { languages: { additionalLanguages: ['es', 'de'] } } });
    expect(options.status, options.text).toBe(200);
    const translations = async () => {
      const res = await app.request('GET', `/v2/campaign/${pid}/translations`, { key });
      expect(res.status, res.text).toBe(200);
      return res.body as { baseLanguage: string; languages: Record<string, { design: Record<string, any>; emails: Record<string, any> }> };
    };
    return { ...signedIn, key, pid, translations };
  }

  it('writes, previews, saves, is refused and clears a Spanish heading on the Design page', async () => {
    const { page, context, key, pid, translations } = await ownerWithLanguages(1440);
    const base = await app.request('GET', `/v2/campaign/${pid}/design`, { key });
    expect(base.status, base.text).toBe(200);
    await page.goto(`${app.url}/console/programs/${pid}/settings/design`);
    await expect.poll(() => heading(page)).toBe('Design');

    // The choice lists the base language first, marked, then the additional languages by name.
    const choice = page.getByLabel('Texts in', { exact: true });
    await expect.poll(() => choice.locator('option').allTextContents()).toEqual(['English (base language)', 'Spanish', 'German']);
    await choice.selectOption({ label: 'Spanish' });
    await expect.poll(() => page.url()).toContain('language=es');
    const postText = page.getByLabel('Heading for participants');
    // Only texts: no colours in Spanish; the field is empty, with what a Spanish reader sees without it as its
    // placeholder: the base text where the owner wrote one, here the unedited default, so the Spanish default.
    await expect.poll(() => postText.getAttribute('placeholder')).toBe(esDesign.postR);
    const inSpanish = (await app.request('GET', `/v2/campaign/${pid}/design/preview?language=es`, { key })).body.design;
    expect(await postText.inputValue()).toBe('');
    expect(await page.getByLabel('Main colour (buttons and links) (colour code)').count()).toBe(0);
    expect(await postText.getAttribute('aria-describedby')).toContain('tr-empty-note');
    await expect.poll(() => page.locator('#tr-empty-note').textContent()).toContain('Spanish');

    // Typed as a person types, shown in the real widget before it is saved, over the design a Spanish reader sees.
    const frame = page.frameLocator('iframe.widget-frame');
    const dialog = () => frame.locator('[role="dialog"]').first().textContent().catch(() => '');
    await expect.poll(dialog, { timeout: 20_000 }).toContain(esDesign.postR);
    // The window's own words (the widget's catalogue) are Spanish too.
    await expect.poll(() => frame.getByRole('button', { name: 'Cerrar' }).count()).toBeGreaterThan(0);
    await postText.pressSequentially('Da 5 $, recibe 5 $ en la panadería');
    await expect.poll(dialog).toContain('Da 5 $, recibe 5 $ en la panadería');
    await expect.poll(() => page.getByText('The preview shows unsaved changes.').count()).toBe(1);
    expect((await translations()).languages.es!.design).toEqual({});
    await expectAccessible(page);
    await shot(page, 'translations-design-es-1440');

    // A sign-up field's label, named by the field's key in the overrides.
    const emailLabel = page.getByRole('group', { name: 'Sign-up form', exact: true }).getByLabel('Field 1: label');
    expect(await emailLabel.getAttribute('placeholder')).toBe(inSpanish.signup.fields[0].label);
    expect(inSpanish.signup.fields[0].label).not.toBe(base.body.signup.fields[0].label);
    await emailLabel.fill('Tu correo');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    await expect.poll(async () => (await translations()).languages.es!.design.header?.postText).toBe('Da 5 $, recibe 5 $ en la panadería');
    expect((await translations()).languages.es!.design.signup).toEqual({ fields: { [base.body.signup.fields[0].key]: { label: 'Tu correo' } } });
    // The base text and the other language are untouched.
    expect((await app.request('GET', `/v2/campaign/${pid}/design`, { key })).body.header.postText).toBe(base.body.header.postText);
    expect((await translations()).languages.de).toEqual({ design: {}, emails: {} });

    // A text longer than the base field allows: the API's refusal is shown next to the field.
    await postText.fill('x'.repeat(501));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => postText.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await postText.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    await expect.poll(() => page.locator(`[id="${errorId}"]`).textContent()).toMatch(/500/);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('One field needs attention');
    expect((await translations()).languages.es!.design.header.postText).toBe('Da 5 $, recibe 5 $ en la panadería');
    await expectAccessible(page);
    await shot(page, 'translations-design-refused-1440');

    // Emptied and saved: the override is gone and the preview shows the Spanish default again.
    await postText.fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    await expect.poll(async () => (await translations()).languages.es!.design.header).toBeUndefined();
    expect(await postText.getAttribute('aria-invalid')).toBeNull();
    await expect.poll(dialog).toContain(esDesign.postR);

    // The referred friend's sign-up form in Spanish: the default texts in Spanish, the saved Spanish
    // label, and a second label as it is typed.
    await page.getByLabel('What a referred friend sees').check();
    const submit = frame.locator('form button[type="submit"]');
    await expect.poll(() => submit.textContent().catch(() => ''), { timeout: 20_000 }).toBe(esDesign.getReferralLink);
    await expect.poll(() => frame.getByLabel('Tu correo').count()).toBe(1);
    await expect.poll(() => frame.getByText(esDesign.alreadySignedUp).count()).toBe(1);
    await page.getByRole('group', { name: 'Sign-up form', exact: true }).getByLabel('Field 2: label').pressSequentially('Tu nombre');
    await expect.poll(() => frame.getByLabel('Tu nombre').count()).toBe(1);
    await page.getByRole('button', { name: 'Undo unsaved changes' }).click();

    // Back to the base language: today's page, colours and all.
    await page.getByLabel('Texts in', { exact: true }).selectOption({ label: 'English (base language)' });
    await expect.poll(() => page.getByLabel('Main colour (buttons and links) (colour code)').count()).toBe(1);
    await expect.poll(() => page.getByLabel('Heading for participants').inputValue()).toBe(base.body.header.postText);
    expect(page.url()).not.toContain('language=');
    await context.close();
  });

  it('shows a Spanish-base program’s unedited default heading in Spanish on the Design page', async () => {
    const { page, context, key, pid } = await ownerWithLanguages(1440);
    const options = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { languages: { baseLanguage: 'es', additionalLanguages: ['en'] } } });
    expect(options.status, options.text).toBe(200);
    await page.goto(`${app.url}/console/programs/${pid}/settings/design`);
    await expect.poll(() => heading(page)).toBe('Design');
    await expect.poll(() => page.getByLabel('Heading for participants').inputValue()).toBe('Comparte tu enlace con tus amigos. Cuando se registren, ganan los dos.');
    await context.close();
  });

  it('saves a German email subject, previewed in German, at 390 px', async () => {
    const { page, context, translations } = await ownerWithLanguages(390).then(async (o) => {
      await o.page.goto(`${app.url}/console/programs/${o.pid}/settings/emails?template=referredSignup`);
      return o;
    });
    await expect.poll(() => heading(page)).toBe('Emails');
    const rendered = () => page.getByTestId('rendered-subject').textContent().catch(() => '');
    await expect.poll(rendered).not.toBe('');
    await page.getByLabel('Texts in', { exact: true }).selectOption({ label: 'German' });
    await expect.poll(() => page.url()).toContain('language=de');
    const subject = page.getByLabel('Subject', { exact: true });
    // The placeholder is what a German reader gets without a German subject: the German default (the base subject is unedited).
    const german = defaultTemplate('REFERRAL', 'referredSignup', 'de')!;
    expect(german.subject).not.toBe(defaultTemplate('REFERRAL', 'referredSignup', 'en')!.subject);
    await expect.poll(() => subject.getAttribute('placeholder')).toBe(german.subject);
    expect(await page.getByLabel('Body (HTML)').getAttribute('placeholder')).toBe(german.body);
    expect(await subject.inputValue()).toBe('');
    // Only texts in German: no "send automatically" switch, no sender or postal address.
    expect(await page.getByLabel('Send this email automatically').count()).toBe(0);
    expect(await page.getByLabel('Sender name').count()).toBe(0);

    await subject.pressSequentially('{{firstName}}, dein Freund ist dabei');
    await expect.poll(rendered).toBe('Alex, dein Freund ist dabei');
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1)).toBe(true);
    await expectAccessible(page);
    await shot(page, 'translations-emails-de-390');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => status(page)).toBe('Changes saved.');
    await expect.poll(async () => (await translations()).languages.de!.emails.referredSignup?.subject).toBe('{{firstName}}, dein Freund ist dabei');
    expect((await translations()).languages.es!.emails).toEqual({});

    // Another template keeps the chosen language.
    await page.getByLabel('Email', { exact: true }).selectOption({ index: 0 });
    await expect.poll(() => page.url()).toContain('language=de');
    await expect.poll(() => page.getByLabel('Texts in', { exact: true }).inputValue()).toBe('de');

    // The Design page at 390 px in Spanish holds its layout.
    await (await consoleNav(page)).getByRole('link', { name: 'Design' }).click();
    await expect.poll(() => heading(page)).toBe('Design');
    await page.getByLabel('Texts in', { exact: true }).selectOption({ label: 'Spanish' });
    await expect.poll(() => page.getByLabel('Heading for participants').count()).toBe(1);
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1)).toBe(true);
    await expectAccessible(page);
    await shot(page, 'translations-design-es-390');
    await context.close();
  });
});
