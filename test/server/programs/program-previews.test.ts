import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import type { Scope } from '../../../shared/scopes.ts';
import { enDesign } from '../../../server/domain/programs/design-copy/en.ts';
import { esDesign } from '../../../server/domain/programs/design-copy/es.ts';

// DP1, EP1 and EP2 (issue #23, refloop extensions for the owner console): signed links to the
// widget preview pages, a rendered email template with unsaved copy, and a test send to a member.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

type Acct = Awaited<ReturnType<typeof verifiedAccount>>;
async function keyWith(acct: Acct, scopes: Scope[]) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes, programIds: null, origin: 'CLI' })).secret;
}
async function program(type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL') {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type, name: 'Preview shop' } });
  expect(res.status, res.text).toBe(200);
  return { acct, pid: res.body.id as string };
}

describe('GET /campaign/:id/design/preview (DP1)', () => {
  it('answers signed links to both preview pages, which may be framed only by our own pages and accept a posted design', async () => {
    const { acct, pid } = await program();
    const res = await app.request('GET', `/v2/campaign/${pid}/design/preview`, { key: acct.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.referrerUrl).toMatch(new RegExp(`/preview/${pid}\\.\\d+\\.[A-Za-z0-9_-]+/referrer$`));
    expect(res.body.referredFriendUrl).toMatch(/\/referredFriend$/);
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(55 * 60_000);
    const page = await fetch(app.local(res.body.referrerUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'self'");
    const html = await page.text();
    expect(html).toContain("m.type !== 'refloop.preview.design'");
    expect(html).toContain('e.origin !== location.origin');
  });

  it('refuses a key without program:read, and a forged link', async () => {
    const { acct, pid } = await program();
    const denied = await app.request('GET', `/v2/campaign/${pid}/design/preview`, { key: await keyWith(acct, ['participant:read']) });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/program:read/);
    const forged = await fetch(`${app.url}/preview/${pid}.${Date.now() + 60_000}.${'A'.repeat(43)}/referrer`);
    expect(forged.status).toBe(403);
  });
});

describe('GET /campaign/:id/design/preview?language= (DP1, issue #27)', () => {
  /** The JSON the preview page hands the widget (`window.grsfPreview`). */
  const embedded = (html: string) => JSON.parse(/window\.grsfPreview=(.*);<\/script>/.exec(html)![1]!) as { view: string; language: string; responses: { window: { design: any; participant: any; launcherTexts?: unknown } } };

  it('draws both pages in a language of the program: its default texts, the owner’s texts for it, the widget told which language', async () => {
    const { acct, pid } = await program();
    expect((await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: { languages: { additionalLanguages: ['es', 'de'] } } })).status).toBe(200);
    const own = await app.request('PATCH', `/v2/campaign/${pid}/translations/es`, { key: acct.key, body: { design: { header: { preText: 'Hola desde la panadería' } } } });
    expect(own.status, own.text).toBe(200);

    const res = await app.request('GET', `/v2/campaign/${pid}/design/preview?language=es`, { key: acct.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.referrerUrl).toMatch(new RegExp(`/preview/${pid}\\.\\d+\\.es\\.[A-Za-z0-9_-]{43}/referrer$`));
    // The design the console lays unsaved texts over: Spanish defaults, without the owner's saved Spanish texts.
    expect(res.body.design.header.postText).toBe(esDesign.postR);
    expect(res.body.design.header.preText).toBe(esDesign.preR);

    const referrer = await fetch(app.local(res.body.referrerUrl));
    expect(referrer.status).toBe(200);
    const html = await referrer.text();
    expect(html).toContain('<html lang="es">');
    const page = embedded(html);
    expect(page.language).toBe('es');
    expect(page.responses.window.design.header).toEqual({ preText: 'Hola desde la panadería', postText: esDesign.postR });
    expect(page.responses.window.participant.language).toBe('es');
    expect(page.responses.window.launcherTexts).toBeTruthy();
    const friend = embedded(await (await fetch(app.local(res.body.referredFriendUrl))).text());
    expect(friend.language).toBe('es');
    expect(friend.responses.window.participant).toBeNull();
    expect(friend.responses.window.design.signup.buttonText).toBe(esDesign.getReferralLink);

    // Without a language: the base language, as before.
    const base = await app.request('GET', `/v2/campaign/${pid}/design/preview`, { key: acct.key });
    expect(base.body.design).toBeUndefined();
    const english = embedded(await (await fetch(app.local(base.body.referrerUrl))).text());
    expect(english.language).toBe('en');
    expect(english.responses.window.design.header.postText).toBe(enDesign.postR);
  });

  it('400 in the error object for a language the program does not offer or that is no program language; a link whose language is altered is refused', async () => {
    const { acct, pid } = await program();
    expect((await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: { languages: { additionalLanguages: ['es'] } } })).status).toBe(200);
    for (const language of ['fr', 'xx', '']) {
      const res = await app.request('GET', `/v2/campaign/${pid}/design/preview?language=${language}`, { key: acct.key });
      expect(res.status, language).toBe(400);
      expect(res.body.errors?.[0]?.field ?? res.body.field, language).toMatch(/language/);
      expect(typeof res.body.message).toBe('string');
    }
    const ok = await app.request('GET', `/v2/campaign/${pid}/design/preview?language=es`, { key: acct.key });
    const url = new URL(ok.body.referrerUrl);
    for (const altered of [url.pathname.replace('.es.', '.en.'), url.pathname.replace('.es.', '.')]) {
      expect((await fetch(`${app.url}${altered}`)).status, altered).toBe(403);
    }
    expect((await fetch(`${app.url}${url.pathname}`)).status).toBe(200);
  });

  it('is in the OpenAPI document as a query parameter', async () => {
    const res = await fetch(`${app.url}/openapi/v2.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, any> };
    const param = doc.paths['/campaign/{id}/design/preview'].get.parameters.find((p: { name: string }) => p.name === 'language');
    expect(param).toMatchObject({ in: 'query', required: false });
    expect(JSON.stringify(param.schema)).toMatch(/refloop extension/);
  });
});

describe('POST /campaign/:id/emails/:template/preview (EP1)', () => {
  it('renders unsaved copy in the layout with sample values, and the saved copy when none is sent', async () => {
    const { acct, pid } = await program();
    const res = await app.request('POST', `/v2/campaign/${pid}/emails/welcomeNonReferred/preview`, {
      key: acct.key,
      body: { subject: 'Hi {{firstName}}, welcome to {{companyName}}', body: '<p>Share <a href="{{shareUrl}}">your link</a></p>' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.subject).toBe('Hi Alex, welcome to Preview shop');
    expect(res.body.html).toContain(`/r/${pid}?grsf=alex`);
    expect(res.body.html).toMatch(/^<!doctype html>/);
    expect(res.body.text).toContain('Share your link');
    const saved = await app.request('POST', `/v2/campaign/${pid}/emails/welcomeNonReferred/preview`, { key: acct.key, body: {} });
    const doc = await app.request('GET', `/v2/campaign/${pid}/emails`, { key: acct.key });
    expect(saved.body.subject).toBe(doc.body.welcomeNonReferred.subject.replaceAll('{{firstName}}', 'Alex').replaceAll('{{companyName}}', 'Preview shop'));
    // Nothing was sent.
    expect(await app.deps.mailer.list({ to: 'alex.rivera@example.com', limit: 5 })).toEqual([]);
  });

  it('answers 404 for a template the program type does not have or that does not exist, and 400 for a subject too long', async () => {
    const { acct, pid } = await program('AFFILIATE');
    expect((await app.request('POST', `/v2/campaign/${pid}/emails/goalAchieved/preview`, { key: acct.key, body: {} })).status).toBe(404);
    expect((await app.request('POST', `/v2/campaign/${pid}/emails/nope/preview`, { key: acct.key, body: {} })).status).toBe(404);
    const long = await app.request('POST', `/v2/campaign/${pid}/emails/commissionGenerated/preview`, { key: acct.key, body: { subject: 'x'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].field).toBe('subject');
  });
  it('renders an unsaved draft of the shared email settings instead of the saved ones, and writes nothing', async () => {
    const { acct, pid } = await program();
    const before = await app.request('GET', `/v2/campaign/${pid}/emails`, { key: acct.key });
    const row = () => app.deps.db.knex('programs').where({ id: pid }).first('emails', 'updated_at');
    const rowBefore = await row();
    const res = await app.request('POST', `/v2/campaign/${pid}/emails/welcomeNonReferred/preview`, {
      key: acct.key,
      body: {
        subject: 'Welcome to {{companyName}}',
        settings: {
          sender: { fromName: 'Draft sender' },
          contact: { companyName: 'Draft Bakery Ltd', addressLine1: '1 Draft Lane', city: 'Leeds' },
          design: { footerText: 'Baked fresh in the draft', primaryColor: '#123456', backgroundColor: '#fafafa' },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    // {{companyName}} falls back to the (draft) contact company when the program names none.
    expect(res.body.subject).toBe('Welcome to Draft Bakery Ltd');
    expect(res.body.html).toContain('Baked fresh in the draft');
    expect(res.body.html).toContain('1 Draft Lane, Leeds');
    expect(res.body.html).toContain('background:#fafafa');
    expect(res.body.text).toContain('Baked fresh in the draft');

    // Nothing stored: the document over REST, and the row itself, are as they were.
    expect((await app.request('GET', `/v2/campaign/${pid}/emails`, { key: acct.key })).body).toEqual(before.body);
    expect(await row()).toEqual(rowBefore);
    const saved = await app.request('POST', `/v2/campaign/${pid}/emails/welcomeNonReferred/preview`, { key: acct.key, body: { subject: 'Welcome to {{companyName}}' } });
    expect(saved.body.subject).toBe('Welcome to Preview shop');
    expect(saved.body.html).not.toContain('Baked fresh in the draft');
  });

  it('refuses an invalid settings draft with 400 and the same fields the save (CF4) names, storing nothing', async () => {
    const { acct, pid } = await program();
    const before = await app.request('GET', `/v2/campaign/${pid}/emails`, { key: acct.key });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ sender: { replyToEmail: 'not an address' } }, 'settings.sender.replyToEmail', 'INVALID'],
      [{ design: { primaryColor: 'blue-ish' } }, 'settings.design.primaryColor', 'INVALID'],
      [{ design: { sparkle: true } }, 'settings.design.sparkle', 'UNKNOWN_FIELD'],
      // Passes the body schema, refused by the save's own rule: the sending address is the installation's.
      [{ sender: { fromEmail: 'me@elsewhere.example' } }, 'settings.sender.fromEmail', 'READ_ONLY'],
    ];
    for (const [settings, field, code] of cases) {
      const preview = await app.request('POST', `/v2/campaign/${pid}/emails/welcomeNonReferred/preview`, { key: acct.key, body: { settings } });
      expect(preview.status, preview.text).toBe(400);
      expect(preview.body.code).toBe('BAD_REQUEST_ERROR');
      expect(preview.body.errors).toEqual([expect.objectContaining({ field, code: code === 'INVALID' ? expect.any(String) : code })]);
      const save = await app.request('PATCH', `/v2/campaign/${pid}/emails`, { key: acct.key, body: { settings } });
      expect(save.status, save.text).toBe(400);
      expect(save.body.errors).toEqual(preview.body.errors);
      const test = await app.request('POST', `/v2/campaign/${pid}/emails/welcomeNonReferred/test`, { key: acct.key, body: { to: acct.email, settings } });
      expect(test.status, test.text).toBe(400);
      expect(test.body.errors[0].field).toBe(field);
    }
    expect((await app.request('GET', `/v2/campaign/${pid}/emails`, { key: acct.key })).body).toEqual(before.body);
    expect((await app.deps.mailer.list({ to: acct.email, limit: 5 })).filter((m) => m.kind.startsWith('program.test'))).toEqual([]);
  });
});

describe('POST /campaign/:id/emails/:template/test (EP2)', () => {
  it('sends the rendered draft, marked [Test], to a member of the team', async () => {
    const { acct, pid } = await program();
    const res = await app.request('POST', `/v2/campaign/${pid}/emails/invite/test`, { key: acct.key, body: { to: acct.email.toUpperCase(), subject: 'Join {{referrerFirstName}} at {{companyName}}' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, to: acct.email, subject: '[Test] Join Sam at Preview shop' });
    const [mail] = await app.deps.mailer.list({ to: acct.email, limit: 1 });
    expect(mail!.subject).toBe('[Test] Join Sam at Preview shop');
    expect(mail!.kind).toBe('program.test.invite');
  });

  it('sends a draft of the shared settings too (sender name, reply-to, footer) without storing it', async () => {
    const { acct, pid } = await program();
    const before = await app.request('GET', `/v2/campaign/${pid}/emails`, { key: acct.key });
    const res = await app.request('POST', `/v2/campaign/${pid}/emails/welcomeNonReferred/test`, {
      key: acct.key,
      body: { to: acct.email, body: '<p>Draft body for {{firstName}}</p>', settings: { sender: { fromName: 'Draft sender', replyToEmail: 'draft@bakery.example' }, design: { footerText: 'Draft footer' } } },
    });
    expect(res.status, res.text).toBe(200);
    const [mail] = await app.deps.mailer.list({ to: acct.email, limit: 1 });
    expect(mail!.from).toContain('Draft sender');
    expect(mail!.replyTo).toBe('draft@bakery.example');
    expect(mail!.html).toContain('Draft body for Alex');
    expect(mail!.html).toContain('Draft footer');
    expect((await app.request('GET', `/v2/campaign/${pid}/emails`, { key: acct.key })).body).toEqual(before.body);
  });

  it('refuses an address outside the team, a key without program:write, and more than 20 tests an hour', async () => {
    const { acct, pid } = await program();
    const stranger = await app.request('POST', `/v2/campaign/${pid}/emails/invite/test`, { key: acct.key, body: { to: 'someone@example.com' } });
    expect(stranger.status).toBe(400);
    expect(stranger.body.errors).toEqual([{ field: 'to', code: 'NOT_A_TEAM_MEMBER', message: expect.stringContaining('member of this team') }]);
    expect(await app.deps.mailer.list({ to: 'someone@example.com', limit: 1 })).toEqual([]);
    const readOnly = await app.request('POST', `/v2/campaign/${pid}/emails/invite/test`, { key: await keyWith(acct, ['program:read']), body: { to: acct.email } });
    expect(readOnly.status).toBe(403);
    let last = 0;
    for (let i = 0; i < 20; i++) last = (await app.request('POST', `/v2/campaign/${pid}/emails/invite/test`, { key: acct.key, body: { to: acct.email } })).status;
    expect(last).toBe(200);
    const over = await app.request('POST', `/v2/campaign/${pid}/emails/invite/test`, { key: acct.key, body: { to: acct.email } });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBeTruthy();
  });
});

describe('GET /preview/email', () => {
  it('is an empty page whose only script is its listener, pinned by hash', async () => {
    const res = await fetch(`${app.url}/preview/email`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const script = /<script>(.*)<\/script>/.exec(html)![1]!;
    const hash = crypto.createHash('sha256').update(script).digest('base64');
    expect(res.headers.get('content-security-policy')).toContain(`script-src 'sha256-${hash}'`);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
  });
});
