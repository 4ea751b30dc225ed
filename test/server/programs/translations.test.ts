import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { liveWithHostedPages } from '../../helpers/programs.ts';
import { enDesign } from '../../../server/domain/programs/design-copy/en.ts';
import { DESIGN_COPIES } from '../../../server/domain/programs/design-copy/index.ts';
import type { Scope } from '../../../shared/scopes.ts';
import { defaultTemplate } from '../../../server/domain/programs/email-copy/index.ts';

// Issue #27: the owner's own texts per program language (refloop extensions TR1 `GET
// /campaign/{id}/translations` and TR2 `PATCH /campaign/{id}/translations/{language}`), and every
// place a participant of that language reads them: MW1, the hosted landing page, program emails and
// the email preview. The participant API's program cache stays on (its default), so a saved text
// reaching MW1 at once proves the cache is dropped on save.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, PARTICIPANT_EMAILS_PER_TEAM_PER_HOUR: '1000000' });
});
afterAll(async () => {
  await app.close();
});

async function program(additionalLanguages: string[], type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL'): Promise<MobileProgramFixture> {
  return mobileProgram(app, { type, options: { languages: { baseLanguage: 'en', additionalLanguages } } });
}
const get = (p: MobileProgramFixture, key = p.key) => app.request('GET', `/v2/campaign/${p.pid}/translations`, { key });
const patch = (p: MobileProgramFixture, language: string, body: unknown, key = p.key) => app.request('PATCH', `/v2/campaign/${p.pid}/translations/${language}`, { key, body });
async function keyWith(p: MobileProgramFixture, scopes: Scope[]) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId: p.teamId, scopes, programIds: null, origin: 'CLI' })).secret;
}
async function windowOf(p: MobileProgramFixture, acceptLanguage?: string) {
  const s = await session(app, p);
  const res = await mobile(app, 'GET', '/window', s, { headers: acceptLanguage ? { 'Accept-Language': acceptLanguage } : {} });
  expect(res.status, res.text).toBe(200);
  return res;
}

describe('GET /campaign/:id/translations', () => {
  it('answers the base language and an empty entry for every additional language', async () => {
    const p = await program(['es', 'de']);
    const res = await get(p);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ baseLanguage: 'en', languages: { es: { design: {}, emails: {} }, de: { design: {}, emails: {} } } });
    const none = await program([]);
    expect((await get(none)).body).toEqual({ baseLanguage: 'en', languages: {} });
  });

  it('refuses a key without program:read', async () => {
    const p = await program(['es']);
    const res = await get(p, await keyWith(p, ['participant:read']));
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/program:read/);
  });
});

describe('GET /campaign/:id/emails?language= (CF3, refloop extension)', () => {
  it('answers the emails as a reader of that language gets them without the owner’s texts for it; 400 for a language the program does not have', async () => {
    const p = await program(['de']);
    const url = `/v2/campaign/${p.pid}/emails`;
    expect((await app.request('PATCH', url, { key: p.key, body: { welcomeNonReferred: { subject: 'Your link at {{companyName}}' } } })).status).toBe(200);
    expect((await patch(p, 'de', { emails: { referredSignup: { subject: 'Dein Freund ist dabei' } } })).status).toBe(200);
    const base = await app.request('GET', url, { key: p.key });
    const de = await app.request('GET', `${url}?language=de`, { key: p.key });
    expect(de.status, de.text).toBe(200);
    const german = defaultTemplate('REFERRAL', 'referredSignup', 'de')!;
    // An unedited template: the German default, not the German override and not the English text.
    expect(de.body.referredSignup.subject).toBe(german.subject);
    expect(de.body.referredSignup.body).toBe(german.body);
    expect(base.body.referredSignup.subject).toBe(defaultTemplate('REFERRAL', 'referredSignup', 'en')!.subject);
    // The owner's base text stays as written; the rest of the document is the same.
    expect(de.body.welcomeNonReferred.subject).toBe('Your link at {{companyName}}');
    expect(de.body.settings.sender).toEqual(base.body.settings.sender);
    expect((await app.request('GET', `${url}?language=en`, { key: p.key })).body).toEqual(base.body);
    const other = await app.request('GET', `${url}?language=fr`, { key: p.key });
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('language must be one of this program’s languages: en, de.');
    expect((await app.request('GET', `${url}?language=xx`, { key: p.key })).status).toBe(400);
  });
});

describe('PATCH /campaign/:id/translations/:language', () => {
  it('merges texts, answers the language’s overrides, and null removes one', async () => {
    const p = await program(['es', 'de']);
    const first = await patch(p, 'es', { design: { header: { preText: 'Recomienda a tus amigos.' }, signup: { fields: { email: { label: 'Tu correo' } } } }, emails: { welcomeNonReferred: { subject: 'Tu enlace de {{companyName}}' } } });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      design: { header: { preText: 'Recomienda a tus amigos.' }, signup: { fields: { email: { label: 'Tu correo' } } } },
      emails: { welcomeNonReferred: { subject: 'Tu enlace de {{companyName}}' } },
    });
    const second = await patch(p, 'es', { design: { header: { postText: 'Comparte tu enlace.', preText: null }, signup: { fields: { email: { label: null } } } } });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual({ design: { header: { postText: 'Comparte tu enlace.' } }, emails: { welcomeNonReferred: { subject: 'Tu enlace de {{companyName}}' } } });
    const all = await get(p);
    expect(all.body.languages).toEqual({ es: second.body, de: { design: {}, emails: {} } });
  });

  it('400 for the base language, a language the program does not offer, and an empty body', async () => {
    const p = await program(['es']);
    for (const language of ['en', 'fr', 'xx']) {
      const res = await patch(p, language, { design: { header: { preText: 'x' } } });
      expect(res.status, language).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ field: 'language', code: 'INVALID_VALUE' });
    }
    expect((await patch(p, 'en', { design: { header: { preText: 'x' } } })).body.message).toMatch(/base language/);
    const empty = await patch(p, 'es', {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0]).toMatchObject({ field: 'body', code: 'REQUIRED' });
    const unknown = await patch(p, 'es', { options: {} });
    expect(unknown.status).toBe(400);
  });

  it('400 naming each path that is no translatable text, or breaks its base field’s rule, and writes nothing', async () => {
    const p = await program(['es'], 'AFFILIATE');
    const res = await patch(p, 'es', {
      design: { header: { preText: 'Válido' }, theme: { primaryColor: '#ff0000' }, referralSummary: { title: 'x' }, stats: { title: '' }, landingPages: { content: { headline: 'x'.repeat(256) } } },
      emails: { goalAchieved: { subject: 'x' }, invite: { subject: '  ' }, settings: { sender: { replyToEmail: null } } },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST_ERROR' });
    expect(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
      ['design.theme.primaryColor', 'NOT_TRANSLATABLE'],
      ['design.referralSummary.title', 'NOT_TRANSLATABLE'],
      ['design.stats.title', 'TOO_SHORT'],
      ['design.landingPages.content.headline', 'TOO_LONG'],
      ['emails.goalAchieved.subject', 'NOT_TRANSLATABLE'],
      ['emails.invite.subject', 'TOO_SHORT'],
      ['emails.settings.sender.replyToEmail', 'NOT_TRANSLATABLE'],
    ]);
    // An empty text is fine where the base field takes one (header.preText), refused where it does not (stats.title).
    expect((await patch(p, 'es', { design: { header: { preText: '' } } })).status).toBe(200);
    expect((await get(p)).body.languages.es).toEqual({ design: { header: { preText: '' } }, emails: {} });
    const badType = await patch(p, 'es', { design: { header: { postText: 42 } } });
    expect(badType.status).toBe(400);
    expect(badType.body.errors[0]).toMatchObject({ field: 'design.header.postText', code: 'INVALID_TYPE' });
    const badField = await patch(p, 'es', { design: { signup: { fields: { company: { label: 'Empresa' } } } } });
    expect(badField.status).toBe(400);
    expect(badField.body.errors[0]).toMatchObject({ field: 'design.signup.fields.company', code: 'NOT_TRANSLATABLE' });
  });

  it('400 when the merged texts would exceed a record’s cap, keeping what was stored', async () => {
    const p = await program(['de']);
    const levels = (from: number, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${from + i}`, `Stufe ${from + i}`]));
    const body = (n: number, from: number) => ({ design: { trafficInsights: { breakdowns: { utm: { levels: levels(from, n) } } } } });
    expect((await patch(p, 'de', body(30, 0))).status).toBe(200);
    const over = await patch(p, 'de', body(21, 30));
    expect(over.status).toBe(400);
    expect(over.body.errors[0]).toMatchObject({ field: 'design.trafficInsights.breakdowns.utm.levels', code: 'TOO_MANY' });
    expect(Object.keys((await get(p)).body.languages.de.design.trafficInsights.breakdowns.utm.levels)).toHaveLength(30);
  });

  it('refuses a key without program:write with 403, as other writes', async () => {
    const p = await program(['es']);
    const res = await patch(p, 'es', { design: { header: { preText: 'x' } } }, await keyWith(p, ['program:read']));
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/program:write/);
    expect((await get(p)).body.languages.es).toEqual({ design: {}, emails: {} });
  });
});

describe('where a reader of the language sees the owner’s texts', () => {
  it('MW1: a Spanish reader gets the override, an English reader the base text, a French reader the unedited defaults in French; Vary names Accept-Language', async () => {
    const p = await program(['es', 'fr']);
    await windowOf(p, 'es'); // cached before the save: the save must drop it
    expect((await patch(p, 'es', { design: { header: { preText: '¡Recomienda y gana!' }, signup: { fields: { firstName: { label: 'Nombre de pila' } } } } })).status).toBe(200);
    const es = await windowOf(p, 'es-MX,es;q=0.9');
    expect(es.headers.get('vary')).toMatch(/Accept-Language/);
    expect(es.body.design.header.preText).toBe('¡Recomienda y gana!');
    expect(es.body.design.signup.fields.map((f: { label: string }) => f.label)).toEqual([DESIGN_COPIES.es!.email, 'Nombre de pila']);
    // Texts without an override: the default in Spanish.
    expect(es.body.design.header.postText).toBe(DESIGN_COPIES.es!.postR);
    const en = await windowOf(p, 'en-US');
    expect(en.body.design.header.preText).toBe(enDesign.preR);
    const fr = await windowOf(p, 'fr');
    expect(fr.body.design.header.preText).toBe(DESIGN_COPIES.fr!.preR);
    // A base text the owner wrote is their text in every language without an override.
    expect((await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { header: { postText: 'Share Acme with friends.' } } })).status).toBe(200);
    expect((await windowOf(p, 'fr')).body.design.header.postText).toBe('Share Acme with friends.');
    expect((await windowOf(p, 'es')).body.design.header.preText).toBe('¡Recomienda y gana!');
  });

  it('the hosted landing page shows the override to a browser in that language', async () => {
    const p = await program(['de']);
    await app.deps.teams.approveVerification(p.teamId);
    await liveWithHostedPages(app, p.key, p.pid);
    expect((await fetch(`${app.url}/p/${p.pid}`, { headers: { 'Accept-Language': 'de' } })).status).toBe(200);
    expect((await patch(p, 'de', { design: { landingPages: { content: { headline: 'Empfiehl uns & spare' } } } })).status).toBe(200);
    const de = await (await fetch(`${app.url}/p/${p.pid}`, { headers: { 'Accept-Language': 'de-DE,de;q=0.9' } })).text();
    expect(de).toContain('<h1>Empfiehl uns &amp; spare</h1>');
    const en = await (await fetch(`${app.url}/p/${p.pid}`, { headers: { 'Accept-Language': 'en' } })).text();
    expect(en).toContain(`<h1>${enDesign.headlineR}</h1>`);
  });

  it('a program email to a German participant uses the German subject override; the preview in German shows it too', async () => {
    const p = await program(['de', 'fr']);
    await app.deps.teams.approveVerification(p.teamId);
    expect((await app.request('PATCH', `/v2/campaign/${p.pid}/emails`, { key: p.key, body: { settings: { design: { footerText: 'Acme Inc. thanks you.' } } } })).status).toBe(200);
    const saved = await patch(p, 'de', { emails: { welcomeNonReferred: { subject: 'Willkommen, {{firstName}}: dein Link ist da' }, settings: { design: { footerText: 'Acme dankt dir.' } } } });
    expect(saved.status, saved.text).toBe(200);
    const add = async (email: string, language: string) => {
      const res = await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email, firstName: 'Lena', language } });
      expect(res.status, res.text).toBe(200);
      const [mail] = (await app.deps.mailer.list({ to: email })).filter((m) => m.kind === 'program.welcomeNonReferred');
      return mail!;
    };
    const de = await add('lena.de@example.com', 'de');
    expect(de.subject).toBe('Willkommen, Lena: dein Link ist da');
    expect(de.html).toContain('<html lang="de">');
    expect(de.text).toContain('Acme dankt dir.');
    expect(de.text).not.toContain('Acme Inc. thanks you.');
    const fr = await add('lena.fr@example.com', 'fr');
    expect(fr.subject).not.toContain('Willkommen');
    expect(fr.text).toContain('Acme Inc. thanks you.');
    const en = await add('lena.en@example.com', 'en');
    expect(en.subject).not.toContain('Willkommen');

    const preview = await app.request('POST', `/v2/campaign/${p.pid}/emails/welcomeNonReferred/preview`, { key: p.key, body: { language: 'de' } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.subject).toBe('Willkommen, Alex: dein Link ist da');
    expect(preview.body.text).toContain('Acme dankt dir.');
    const drafted = await app.request('POST', `/v2/campaign/${p.pid}/emails/welcomeNonReferred/preview`, { key: p.key, body: { language: 'de', subject: 'Entwurf für {{firstName}}' } });
    expect(drafted.body.subject).toBe('Entwurf für Alex');
    // The footer being edited in German is the one previewed, not the saved German footer.
    const footerDraft = await app.request('POST', `/v2/campaign/${p.pid}/emails/welcomeNonReferred/preview`, { key: p.key, body: { language: 'de', settings: { design: { footerText: 'Acme sagt danke.' } } } });
    expect(footerDraft.status, footerDraft.text).toBe(200);
    expect(footerDraft.body.text).toContain('Acme sagt danke.');
    expect(footerDraft.body.text).not.toContain('Acme dankt dir.');
    const base = await app.request('POST', `/v2/campaign/${p.pid}/emails/welcomeNonReferred/preview`, { key: p.key, body: {} });
    expect(base.body.subject).not.toContain('Willkommen');
    const notOffered = await app.request('POST', `/v2/campaign/${p.pid}/emails/welcomeNonReferred/preview`, { key: p.key, body: { language: 'ja' } });
    expect(notOffered.status).toBe(400);
    expect(notOffered.body.errors[0]).toMatchObject({ field: 'language' });
  });

  it('a language removed from the options keeps its texts unlisted and unserved; adding it back brings them back', async () => {
    const p = await program(['es', 'fr']);
    expect((await patch(p, 'fr', { design: { header: { preText: 'Parrainez vos amis chez Acme.' } } })).status).toBe(200);
    expect((await windowOf(p, 'fr')).body.design.header.preText).toBe('Parrainez vos amis chez Acme.');
    const setLanguages = async (additionalLanguages: string[]) => {
      const res = await app.request('PATCH', `/v2/campaign/${p.pid}/options`, { key: p.key, body: { languages: { additionalLanguages } } });
      expect(res.status, res.text).toBe(200);
    };
    await setLanguages(['es']);
    expect((await get(p)).body.languages).toEqual({ es: { design: {}, emails: {} } });
    expect((await windowOf(p, 'fr')).body.design.header.preText).toBe(enDesign.preR);
    expect((await patch(p, 'fr', { design: { header: { preText: 'x' } } })).status).toBe(400);
    await setLanguages(['es', 'fr']);
    expect((await get(p)).body.languages.fr).toEqual({ design: { header: { preText: 'Parrainez vos amis chez Acme.' } }, emails: {} });
    expect((await windowOf(p, 'fr')).body.design.header.preText).toBe('Parrainez vos amis chez Acme.');
  });

  it('a clone starts with its source’s texts', async () => {
    const p = await program(['es']);
    expect((await patch(p, 'es', { design: { stats: { title: 'Tus números' } } })).status).toBe(200);
    const clone = await app.request('POST', `/v2/campaign/${p.pid}/clone`, { key: p.key });
    expect(clone.status, clone.text).toBe(200);
    const copied = await app.request('GET', `/v2/campaign/${clone.body.id}/translations`, { key: p.key });
    expect(copied.body.languages.es).toEqual({ design: { stats: { title: 'Tus números' } }, emails: {} });
  });
});
