import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { liveWithHostedPages } from '../../helpers/programs.ts';
import { defaultDesignText } from '../../../server/domain/programs/design-copy/index.ts';

// Issue #27: the window payload (MW1) and the hosted landing page carry the design's unedited
// default texts in the reader's language (a signed-in participant's own, else the browser's best
// match among the program's languages, else the base language); the owner's texts stay as written.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

type Design = {
  header: { preText: string; postText: string };
  signup: { fields: Array<{ key: string; label: string }>; buttonText: string; loginLinkText: string };
  participantSettings: { logoutText: string };
  share: { title: string };
  landingPages: { content: { headline: string } };
};

async function program(languages: { baseLanguage: string; additionalLanguages: string[] }, type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL') {
  return mobileProgram(app, { type, options: { languages } });
}

async function windowOf(p: MobileProgramFixture, headers: Record<string, string> = {}, participantToken?: string) {
  const s = await session(app, p);
  const res = await mobile(app, 'GET', '/window', s, { headers, ...(participantToken ? { participantToken } : {}) });
  expect(res.status, res.text).toBe(200);
  return res.body as { design: Design; languages: string[]; launcherTexts?: Record<string, string> };
}

describe('MW1 design texts in the reader’s language (issue #27)', () => {
  it('a German browser reads German default texts; an owner-edited text stays as written', async () => {
    const p = await program({ baseLanguage: 'en', additionalLanguages: ['de', 'ja'] });
    const edited = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { header: { preText: 'Tell your friends about Acme.' } } });
    expect(edited.status, edited.text).toBe(200);
    const { design } = await windowOf(p, { 'Accept-Language': 'de-AT,de;q=0.9,en;q=0.5' });
    expect(design.header.preText).toBe('Tell your friends about Acme.');
    expect(design.header.postText).toBe('Teile deinen Link mit Freunden. Wenn sie sich registrieren, gewinnt ihr beide.');
    expect(design.signup.fields.map((f) => f.label)).toEqual(['E-Mail', 'Vorname']);
    expect(design.signup.buttonText).toBe('Meinen Empfehlungslink holen');
    expect(design.participantSettings.logoutText).toBe('Abmelden');
  });

  it('a signed-in Japanese participant reads Japanese, whatever the browser says', async () => {
    const p = await program({ baseLanguage: 'en', additionalLanguages: ['de', 'ja'] }, 'AFFILIATE');
    const minted = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email: 'yui@example.com', language: 'ja' } });
    expect(minted.status, minted.text).toBe(200);
    const { design } = await windowOf(p, { 'Accept-Language': 'de' }, minted.body.participantToken);
    expect(design.participantSettings.logoutText).toBe('ログアウト');
    expect(design.signup.buttonText).toBe('パートナープログラムに参加する');
    expect(design.share.title).toBe('あなたのパートナーリンク');
  });

  it('an English reader gets the stored texts unchanged, and a language the program does not offer falls back to the base', async () => {
    const p = await program({ baseLanguage: 'en', additionalLanguages: ['de'] });
    const stored = await app.request('GET', `/v2/campaign/${p.pid}/design`, { key: p.key });
    expect(stored.status).toBe(200);
    const en = await windowOf(p, { 'Accept-Language': 'en-US' });
    expect(en.design).toEqual(stored.body);
    const fr = await windowOf(p, { 'Accept-Language': 'fr-FR' });
    expect(fr.design).toEqual(stored.body);
    const none = await windowOf(p);
    expect(none.design).toEqual(stored.body);
  });

  it('a program whose base language is Spanish speaks Spanish to a browser without a match', async () => {
    const p = await program({ baseLanguage: 'es', additionalLanguages: [] });
    const { design } = await windowOf(p, { 'Accept-Language': 'en-US' });
    expect(design.participantSettings.logoutText).toBe('Cerrar sesión');
    expect(design.signup.loginLinkText).toBe('Iniciar sesión');
  });
});

describe('MW1 launcherTexts: the corner launcher’s own words in the reader’s language (issue #27)', () => {
  it('a Japanese browser and a signed-in Japanese participant get the Japanese words; an English reader none', async () => {
    const p = await program({ baseLanguage: 'en', additionalLanguages: ['ja'] });
    const ja = { visitor: 'お友達を紹介', participant: 'あなたの紹介リンク', button: '紹介して特典ゲット', hide: '非表示', lang: 'ja' };
    expect((await windowOf(p, { 'Accept-Language': 'ja-JP,ja;q=0.9' })).launcherTexts).toEqual(ja);
    const en = await windowOf(p, { 'Accept-Language': 'en-US' });
    expect(en).not.toHaveProperty('launcherTexts');
    // The participant's own language decides over the browser's.
    const minted = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email: 'ren@example.com', language: 'ja' } });
    expect(minted.status, minted.text).toBe(200);
    expect((await windowOf(p, { 'Accept-Language': 'en-US' }, minted.body.participantToken)).launcherTexts).toEqual(ja);
  });

  it('a Spanish-base program speaks Spanish to a browser without a match; an English reader of a Spanish-base program with English gets none', async () => {
    const es = await program({ baseLanguage: 'es', additionalLanguages: [] });
    expect((await windowOf(es, { 'Accept-Language': 'fr-FR' })).launcherTexts).toMatchObject({ visitor: 'Recomienda a un amigo', hide: 'Ocultar' });
    const both = await program({ baseLanguage: 'es', additionalLanguages: ['en'] });
    expect(await windowOf(both, { 'Accept-Language': 'en-GB' })).not.toHaveProperty('launcherTexts');
  });

  it('an affiliate program’s readers get the affiliate words, in English too', async () => {
    const p = await program({ baseLanguage: 'en', additionalLanguages: ['de'] }, 'AFFILIATE');
    expect((await windowOf(p, { 'Accept-Language': 'en-US' })).launcherTexts).toEqual({ visitor: 'Become an affiliate', participant: 'Your affiliate link', button: 'Earn with us', hide: 'Hide', lang: 'en' });
    const de = (await windowOf(p, { 'Accept-Language': 'de-DE' })).launcherTexts!;
    expect(de).toEqual({ visitor: defaultDesignText('de', 'becomeAffiliate'), participant: defaultDesignText('de', 'affiliateLink'), button: defaultDesignText('de', 'earnWithUs'), hide: 'Ausblenden', lang: 'de' });
    expect(de.visitor).not.toBe('Become an affiliate');
    expect(Object.values(de).join(' ')).not.toMatch(/Freunde werben|Empfehl/);
  });
});

describe('the hosted landing page’s design texts in the reader’s language (issue #27)', () => {
  it('/p/{id} in German shows the German headline and button; its window payload the German sign-up labels', async () => {
    const p = await program({ baseLanguage: 'en', additionalLanguages: ['de'] });
    await app.deps.teams.approveVerification(p.teamId);
    await liveWithHostedPages(app, p.key, p.pid);
    const de = await fetch(`${app.url}/p/${p.pid}`, { headers: { 'Accept-Language': 'de-DE,de;q=0.9' } });
    expect(de.status).toBe(200);
    const html = await de.text();
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('<h1>Freunde einladen, Prämien sichern</h1>');
    expect(html).toContain('Meinen Link holen');
    expect(html).not.toContain('Refer friends, earn rewards');
    const en = await (await fetch(`${app.url}/p/${p.pid}`, { headers: { 'Accept-Language': 'en' } })).text();
    expect(en).toContain('<h1>Refer friends, earn rewards</h1>');
    // The window on the page asks MW1 with the same browser language.
    const { design } = await windowOf(p, { 'Accept-Language': 'de-DE,de;q=0.9' });
    expect(design.signup.fields.map((f) => f.label)).toEqual(['E-Mail', 'Vorname']);
    expect(design.landingPages.content.headline).toBe('Freunde einladen, Prämien sichern');
  });
});

describe('POST /mobile/v2/participants: a visitor joins in the language the page showed them (issue #27)', () => {
  it('stores the browser’s best match among the program’s languages, and nothing for the base or an unoffered language', async () => {
    const p = await program({ baseLanguage: 'en', additionalLanguages: ['de', 'pt-BR'] });
    const join = async (email: string, acceptLanguage: string) => {
      const s = await session(app, p);
      const res = await mobile(app, 'POST', '/participants', s, { body: { email }, headers: { 'accept-language': acceptLanguage } });
      expect(res.status, res.text).toBe(200);
      const read = await app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(email)}`, { key: p.key });
      return read.body.language as string | null | undefined;
    };
    expect(await join('de@example.com', 'de-AT,de;q=0.9,en;q=0.5')).toBe('de');
    expect(await join('pt@example.com', 'pt')).toBe('pt-BR');
    expect(await join('fr@example.com', 'fr-FR,fr;q=0.9')).not.toBe('fr');
    expect(await join('en@example.com', 'en-US')).not.toBe('de');
    // The signed-up German visitor's window stays German (the participant's own language now decides).
    const s = await session(app, p);
    const res = await mobile(app, 'POST', '/participants', s, { body: { email: 'de2@example.com' }, headers: { 'accept-language': 'de' } });
    const token = res.body.participantToken as string;
    expect(token).toBeTruthy();
    const win = await windowOf(p, { 'accept-language': 'en' }, token);
    expect(win.design.signup.buttonText).toBe('Meinen Empfehlungslink holen');
  });
});
