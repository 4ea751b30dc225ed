import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { connect } from '../../helpers/mcp.ts';
import { completeDocument, completedDocument, programEmailBrand } from '../../../server/domain/programs/program-config.ts';
import { brandEmails } from '../../../server/domain/programs/brand.ts';
import { toProgram } from '../../../server/domain/programs/programs.ts';
import { DESIGN_COPIES, defaultDesignIn } from '../../../server/domain/programs/design-copy/index.ts';
import { defaultTemplate } from '../../../server/domain/programs/email-copy/index.ts';
import { EMAIL_TEMPLATE_KEYS } from '../../../shared/schemas/program-config-fields.ts';

// Issue #27: an owner sees the program's unedited default design and email texts in its BASE
// language (CF1–CF4, and the MCP tools that share them), exactly what a reader of that language
// gets; the owner's own texts as written. Nothing stored changes: the stored defaults stay English,
// and a localized default sent back in a PATCH is still a default that follows each reader's
// language. An English program answers as before.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

type Template = { subject: string; preheader: string; body: string; isEnabled: boolean };
type Emails = Record<string, Template> & { settings: { sender: { fromEmail: string } } };

const get = async (p: MobileProgramFixture, kind: string) => {
  const res = await app.request('GET', `/v2/campaign/${p.pid}/${kind}`, { key: p.key });
  expect(res.status, res.text).toBe(200);
  return res;
};
const patch = async (p: MobileProgramFixture, kind: string, body: unknown) => {
  const res = await app.request('PATCH', `/v2/campaign/${p.pid}/${kind}`, { key: p.key, body });
  expect(res.status, res.text).toBe(200);
  return res;
};
const stored = async (p: MobileProgramFixture) => app.deps.db.knex('programs').where({ id: p.pid }).first();
const templatesOf = (emails: Emails) => EMAIL_TEMPLATE_KEYS.filter((k) => emails[k]);

async function program(baseLanguage: string, additionalLanguages: string[] = [], type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL') {
  const p = await mobileProgram(app, { type, options: { languages: { baseLanguage, additionalLanguages } } });
  await app.deps.teams.approveVerification(p.teamId);
  return p;
}

describe('GET /campaign/{id}/design and /emails of a program whose base language is not English (issue #27)', () => {
  it('shows every unedited default design text in Spanish, and stores nothing', async () => {
    const p = await program('es');
    const before = await stored(p);
    const design = (await get(p, 'design')).body;
    expect(design.header.preText).toBe(DESIGN_COPIES.es!.preR);
    expect(design.header.postText).toBe('Comparte tu enlace con tus amigos. Cuando se registren, ganan los dos.');
    expect(design.signup.fields.map((f: { label: string }) => f.label)).toEqual(['Correo electrónico', 'Nombre']);
    expect(design.signup.buttonText).toBe('Obtener mi enlace de referido');
    // Every text place, and nothing else, is what a new program of that language would read.
    expect(design).toEqual(defaultDesignIn('REFERRAL', null, 'es'));
    expect(await stored(p)).toEqual(before);
    expect(JSON.parse(before.design).header.postText).toBe('Share your link with friends. When they sign up, you both win.');
  });

  it('shows every unedited default email in Spanish (the affiliate wording in an affiliate program)', async () => {
    for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
      const p = await program('es', [], type);
      const emails = (await get(p, 'emails')).body as Emails;
      expect(templatesOf(emails).length).toBeGreaterThan(10);
      for (const k of templatesOf(emails)) {
        const es = defaultTemplate(type, k, 'es')!;
        expect({ subject: emails[k]!.subject, preheader: emails[k]!.preheader, body: emails[k]!.body }, `${type} ${k}`).toEqual(es);
      }
      expect(emails.welcomeNonReferred!.subject).toBe(type === 'AFFILIATE' ? 'Te damos la bienvenida al programa de afiliados de {{companyName}}' : 'Tu enlace de recomendación de {{companyName}}');
      expect(emails.settings.sender.fromEmail).toContain('@');
      expect(JSON.parse((await stored(p)).emails).welcomeNonReferred.subject).toBe(defaultTemplate(type, 'welcomeNonReferred', 'en')!.subject);
    }
  });

  it('keeps the owner’s texts as written, in the PATCH answer and the next GET, beside Spanish defaults', async () => {
    const p = await program('es');
    const design = await patch(p, 'design', { header: { preText: 'Cuéntaselo a tus amigos de la panadería.' } });
    expect(design.body.header.preText).toBe('Cuéntaselo a tus amigos de la panadería.');
    expect(design.body.header.postText).toBe(DESIGN_COPIES.es!.postR);
    // One space more than the English default: the owner's text, never translated.
    const emails = await patch(p, 'emails', { welcomeNonReferred: { subject: 'Hola de Acme' }, referredSignup: { preheader: `${defaultTemplate('REFERRAL', 'referredSignup', 'en')!.preheader} ` } });
    expect(emails.body.welcomeNonReferred.subject).toBe('Hola de Acme');
    expect(emails.body.welcomeNonReferred.body).toBe(defaultTemplate('REFERRAL', 'welcomeNonReferred', 'es')!.body);
    expect(emails.body.referredSignup.preheader).toBe(`${defaultTemplate('REFERRAL', 'referredSignup', 'en')!.preheader} `);
    expect(emails.body.referredSignup.subject).toBe(defaultTemplate('REFERRAL', 'referredSignup', 'es')!.subject);
    expect((await get(p, 'design')).body).toEqual(design.body);
    expect((await get(p, 'emails')).body).toEqual(emails.body);
  });

  it('the MCP tools show the same Spanish documents as REST', async () => {
    const p = await program('es');
    const client = await connect(app, p.key);
    const design: any = await client.callTool({ name: 'growsurf_get_campaign_design', arguments: { campaignId: p.pid } });
    expect(design.isError).toBeFalsy();
    expect(design.structuredContent.header.postText).toBe(DESIGN_COPIES.es!.postR);
    expect(design.structuredContent).toEqual((await get(p, 'design')).body);
    const emails: any = await client.callTool({ name: 'growsurf_get_campaign_emails', arguments: { campaignId: p.pid } });
    expect(emails.structuredContent.welcomeNonReferred.subject).toBe(defaultTemplate('REFERRAL', 'welcomeNonReferred', 'es')!.subject);
    await client.close();
  });

  it('a round trip GET → PATCH of the whole documents leaves every default following the reader’s language', async () => {
    const p = await program('es', ['fr', 'en']);
    const design = (await get(p, 'design')).body;
    const emails = (await get(p, 'emails')).body;
    expect((await patch(p, 'design', design)).body).toEqual(design);
    expect((await patch(p, 'emails', emails)).body).toEqual(emails);
    // Stored now: the Spanish defaults the owner was shown.
    expect(JSON.parse((await stored(p)).design).header.postText).toBe(DESIGN_COPIES.es!.postR);
    expect((await get(p, 'design')).body).toEqual(design);

    // A French participant: the window's texts and the welcome email in French.
    const minted = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email: 'lea@example.com', language: 'fr' } });
    expect(minted.status, minted.text).toBe(200);
    const s = await session(app, p);
    const window = await mobile(app, 'GET', '/window', s, { participantToken: minted.body.participantToken });
    expect(window.status, window.text).toBe(200);
    expect(window.body.design.header.postText).toBe(DESIGN_COPIES.fr!.postR);
    expect(window.body.design.signup.buttonText).toBe(DESIGN_COPIES.fr!.getReferralLink);
    const [welcome] = (await app.deps.mailer.list({ to: 'lea@example.com' })).filter((m) => m.kind === 'program.welcomeNonReferred');
    expect(welcome, 'the welcome email').toBeDefined();
    expect(welcome!.subject.startsWith('Votre lien de parrainage')).toBe(true);
    expect(welcome!.html).toContain('<html lang="fr">');
    expect(welcome!.html).toContain('Merci de nous avoir rejoints');
    expect(welcome!.html).not.toContain('Gracias');

    // An English browser reads English defaults again.
    const en = await mobile(app, 'GET', '/window', await session(app, p), { headers: { 'Accept-Language': 'en-GB' } });
    expect(en.body.design.header.postText).toBe(DESIGN_COPIES.en!.postR);
  });
});

describe('GET /campaign/{id}/design and /emails of an English program (issue #27)', () => {
  it('answers byte for byte the completed stored documents, with the brand’s followers derived (issue #32)', async () => {
    const p = await program('en', ['es']);
    await patch(p, 'design', { header: { preText: 'Tell your friends about Acme.' } });
    const row = await stored(p);
    const prog = toProgram(row);
    const design = await get(p, 'design');
    // The landing headline is still the stock one, so it follows the owner's heading for visitors.
    expect(design.text).toBe(JSON.stringify(completedDocument('design', prog, prog.documents.design)));
    expect(design.body.landingPages.content.headline).toBe('Tell your friends about Acme.');
    const emails = await get(p, 'emails');
    const expected = structuredClone(brandEmails(completeDocument('emails', prog, prog.documents.emails), programEmailBrand(prog)));
    expected.settings.sender.fromEmail = (emails.body as Emails).settings.sender.fromEmail;
    expect(emails.text).toBe(JSON.stringify(expected));
  });

  it('shows a default saved back in another language in English, as its English readers get it', async () => {
    const p = await program('en');
    const design = await patch(p, 'design', { header: { postText: DESIGN_COPIES.es!.postR } });
    expect(design.body.header.postText).toBe(DESIGN_COPIES.en!.postR);
    expect(JSON.parse((await stored(p)).design).header.postText).toBe(DESIGN_COPIES.es!.postR);
  });
});
