import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { readableOn, contrastRatio } from '../../../shared/brand.ts';

// Issue #32, defect 3: one brand (main colour, logo, heading, font) chosen in setup or Settings ›
// Design reaches the window, the launcher, the hosted landing page and portal, and the emails,
// unless the owner chose a more specific value; derived when read, never written into the stored
// document.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

const BROWN = '#8b4513';
const HEADING = 'Brew with us and earn free coffee';

const rest = async (p: MobileProgramFixture, method: string, path: string, body?: unknown) => {
  const res = await app.request(method, `/v2/campaign/${p.pid}${path}`, { key: p.key, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const stored = async (p: MobileProgramFixture, kind: 'design' | 'emails') => JSON.parse((await app.deps.db.knex('programs').where({ id: p.pid }).first())[kind]);
const landing = async (p: MobileProgramFixture, path = '') => {
  const res = await fetch(`${app.url}/p/${p.pid}${path}`);
  expect(res.status).toBe(200);
  return res.text();
};
const windowDesign = async (p: MobileProgramFixture) => {
  const res = await mobile(app, 'GET', '/window', await session(app, p));
  expect(res.status, res.text).toBe(200);
  return res.body.design;
};
const sentMail = async (p: MobileProgramFixture) => {
  const email = `brand-${crypto.randomBytes(3).toString('hex')}@example.com`;
  await rest(p, 'POST', '/participant', { email });
  const [mail] = await app.deps.mailer.list({ to: email, limit: 1 });
  expect(mail, 'the welcome email').toBeDefined();
  return mail!;
};

/** A live program of a verified team with the hosted pages on, then `design` patched as setup's design step would. */
async function branded(design: Record<string, unknown>) {
  const p = await mobileProgram(app);
  await app.deps.teams.approveVerification(p.teamId);
  await rest(p, 'PATCH', '', { status: 'IN_PROGRESS', companyName: 'Acme Coffee' });
  await rest(p, 'PATCH', '/design', { landingPages: { isEnabled: true } });
  if (Object.keys(design).length) await rest(p, 'PATCH', '/design', design);
  return p;
}

describe('one brand for every surface (issue #32)', () => {
  it('carries the main colour and heading chosen in setup to the landing page, the launcher, the window and the emails', async () => {
    const p = await branded({ theme: { primaryColor: BROWN }, header: { preText: HEADING } });

    // GET /design shows what every surface uses; the stored document keeps its stock values.
    const design = await rest(p, 'GET', '/design');
    expect(design.theme.primaryColor).toBe(BROWN);
    expect(design.theme.widget.backgroundColor).toBe(BROWN);
    expect(design.theme.widget.color).toBe('#ffffff');
    expect(design.theme.buttonTextColor).toBe('#ffffff');
    expect(design.landingPages.styles.accentColor).toBe(BROWN);
    expect(design.landingPages.content.headline).toBe(HEADING);
    const raw = await stored(p, 'design');
    expect(raw.theme.widget.backgroundColor).toBe('#4f46e5');
    expect(raw.landingPages.styles.accentColor).toBe('#4f46e5');
    expect(raw.landingPages.content.headline).toBe('Refer friends, earn rewards');

    // The hosted landing page: heading, main button and the window's accent.
    const html = await landing(p);
    expect(html).toContain(`<h1>${HEADING}</h1>`);
    expect(html).not.toContain('Refer friends, earn rewards');
    expect(html).toContain(`.cta { display: inline-block; padding: .75rem 1.25rem; border-radius: .5rem; background: ${BROWN}; color: #ffffff;`);
    expect(html).toContain(`data-grsf-accent="${BROWN}" data-grsf-accent-text="#ffffff"`);
    expect(html).not.toContain('#4f46e5');
    // The portal wears the same brand.
    expect(await landing(p, '/portal')).toContain(`data-grsf-portal="portal" data-grsf-accent="${BROWN}"`);

    // The launcher and the window read the window payload's design.theme.
    const w = await windowDesign(p);
    expect(w.theme.primaryColor).toBe(BROWN);
    expect(w.theme.widget.backgroundColor).toBe(BROWN);
    expect(w.theme.widget.color).toBe('#ffffff');

    // The emails: GET /emails, a sent email and the preview.
    expect((await rest(p, 'GET', '/emails')).settings.design.primaryColor).toBe(BROWN);
    expect((await stored(p, 'emails')).settings.design.primaryColor).toBe('#4f46e5');
    const mail = await sentMail(p);
    expect(mail.html).toContain(`a{color:${BROWN}`);
    expect(mail.html).toContain(`border-top:4px solid ${BROWN}`);
    expect(mail.html).not.toContain('#4f46e5');
    const preview = await rest(p, 'POST', '/emails/welcomeNonReferred/preview', {});
    expect(preview.html).toContain(`border-top:4px solid ${BROWN}`);
  });

  it('puts the logo and the font on the landing page and in the emails', async () => {
    const logo = 'https://cdn.example.com/acme-logo.png';
    const p = await branded({ theme: { primaryColor: BROWN, fontFamily: 'SERIF' }, landingPages: { company: { logoUrl: logo } } });
    const html = await landing(p);
    expect(html).toContain(`<img src="${logo}" alt="Acme Coffee"`);
    expect(html).toContain('font: 16px/1.55 Georgia');
    expect((await rest(p, 'GET', '/emails')).settings.design.logoUrl).toBe(logo);
    const mail = await sentMail(p);
    expect(mail.html).toContain(`<img src="${logo}" alt="Acme Coffee"`);
    expect(mail.html).toContain('font-family:Georgia');
  });

  it('keeps a more specific value the owner chose', async () => {
    const p = await branded({
      theme: { primaryColor: BROWN, widget: { backgroundColor: '#0f766e' } },
      header: { preText: HEADING },
      landingPages: { content: { headline: 'Coffee for friends' }, styles: { accentColor: '#1d4ed8' } },
    });
    await rest(p, 'PATCH', '/emails', { settings: { design: { primaryColor: '#be123c' } } });
    const design = await rest(p, 'GET', '/design');
    expect(design.theme.widget.backgroundColor).toBe('#0f766e');
    expect(design.landingPages.styles.accentColor).toBe('#1d4ed8');
    expect((await windowDesign(p)).theme.widget.backgroundColor).toBe('#0f766e');
    const html = await landing(p);
    expect(html).toContain('<h1>Coffee for friends</h1>');
    expect(html).toContain('background: #1d4ed8; color: #ffffff;');
    expect(html).toContain('data-grsf-accent="#1d4ed8"');
    const mail = await sentMail(p);
    expect(mail.html).toContain('border-top:4px solid #be123c');
    expect(mail.html).not.toContain(BROWN);
  });

  it('picks black or white text for contrast on a light brand colour', async () => {
    const p = await branded({ theme: { primaryColor: '#fde68a' } });
    const design = await rest(p, 'GET', '/design');
    expect(design.theme.buttonTextColor).toBe('#000000');
    expect(design.theme.widget.color).toBe('#000000');
    expect(await landing(p)).toContain('background: #fde68a; color: #000000;');
    // In the emails the stripe is the light brand colour, the links keep the readable text colour.
    const mail = await sentMail(p);
    expect(mail.html).toContain('border-top:4px solid #fde68a');
    expect(mail.html).toContain('a{color:#111827}');
    expect(contrastRatio('#fde68a', readableOn('#fde68a'))!).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(BROWN, readableOn(BROWN))!).toBeGreaterThanOrEqual(4.5);
  });

  it('keeps following the brand when a client sends back what it read, and after the brand changes again', async () => {
    const p = await branded({ theme: { primaryColor: BROWN } });
    const read = await rest(p, 'GET', '/design');
    // A client that PATCHes the theme and landing styles it read, with a new main colour.
    const green = '#166534';
    const answer = await rest(p, 'PATCH', '/design', { theme: { ...read.theme, primaryColor: green }, landingPages: { styles: read.landingPages.styles } });
    expect(answer.theme.widget.backgroundColor).toBe(green);
    expect(answer.landingPages.styles.accentColor).toBe(green);
    expect((await rest(p, 'GET', '/design')).theme.widget.backgroundColor).toBe(green);
    expect((await stored(p, 'design')).theme.widget.backgroundColor).toBe('#4f46e5');
    expect((await windowDesign(p)).theme.widget.backgroundColor).toBe(green);
  });

  it('shows a translated heading for visitors as the landing headline of that language', async () => {
    const p = await branded({ header: { preText: HEADING } });
    await rest(p, 'PATCH', '/options', { languages: { baseLanguage: 'en', additionalLanguages: ['fr'] } });
    await rest(p, 'PATCH', '/translations/fr', { design: { header: { preText: 'Brassez avec nous, gagnez du café' } } });
    const fr = await (await fetch(`${app.url}/p/${p.pid}`, { headers: { 'Accept-Language': 'fr' } })).text();
    expect(fr).toContain('<h1>Brassez avec nous, gagnez du café</h1>');
    expect(await landing(p)).toContain(`<h1>${HEADING}</h1>`);
    // A headline the translation sets itself wins.
    await rest(p, 'PATCH', '/translations/fr', { design: { landingPages: { content: { headline: 'Du café entre amis' } } } });
    expect(await (await fetch(`${app.url}/p/${p.pid}`, { headers: { 'Accept-Language': 'fr' } })).text()).toContain('<h1>Du café entre amis</h1>');
  });

  it('leaves a program on the stock brand exactly as before', async () => {
    const p = await branded({});
    const design = await rest(p, 'GET', '/design');
    expect(design.theme.widget).toEqual({ color: '#ffffff', backgroundColor: '#4f46e5', borderRadius: '24px' });
    expect(design.landingPages.styles.accentColor).toBe('#4f46e5');
    expect(design.landingPages.content.headline).toBe('Refer friends, earn rewards');
    expect(await landing(p)).toContain('<h1>Refer friends, earn rewards</h1>');
  });
});
