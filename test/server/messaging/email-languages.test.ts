import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { LANGUAGE_CODES } from '../../../shared/program-language.ts';
import { EMAIL_COPIES, defaultTemplate, followUpReminder, payoutConfirmation, affiliateInvite } from '../../../server/domain/programs/email-copy/index.ts';
import { money, renderTags } from '../../../server/domain/messaging/email-layout.ts';

// Issue #27: a participant receives the program's default emails in their own language (the
// program's base language when they have none): subject, `lang`, merge tags filled the same way,
// plural forms by the language's rules, and none of the English boilerplate. What the owner wrote
// stays as written.

const LIMITS = {
  ...RAISED_LIMITS,
  PARTICIPANT_EMAILS_PER_TEAM_PER_HOUR: '1000000',
  INVITES_PER_PARTICIPANT_PER_DAY: '1000000',
  INVITES_PER_TEAM_PER_HOUR: '1000000',
};
const DAY = 86_400_000;

/** English words of our own copy that must not reach a participant who reads another language. */
const ENGLISH = [/\bHi\b/, /\bThanks\b/, /\bThank you\b/, /\breferral link\b/i, /\bKeep sharing\b/, /\bUnsubscribe\b/, /\bYour portal\b/, /\bfriends?\b/, /\bha(s|ve) not\b/, /\byet\b/, /\bSign up\b/, /\bGood news\b/];

let app: TestApp;
let key: string;
let pid: string;
beforeAll(async () => {
  app = await startApp(LIMITS);
  const acct = await verifiedAccount(app);
  await app.deps.teams.approveVerification(acct.teamId);
  key = acct.key;
  const res = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', companyName: 'Acme' } });
  expect(res.status, res.text).toBe(200);
  pid = res.body.id;
  const others = LANGUAGE_CODES.filter((c) => c !== 'en');
  const opts = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { languages: { baseLanguage: 'en', additionalLanguages: others }, followUpReminder: { isEnabled: true, delayDays: 3 } } });
  expect(opts.status, opts.text).toBe(200);
});
afterAll(async () => {
  await app.close();
});

async function add(body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
const mails = async (to: string, kind: string) => (await app.deps.mailer.list({ to })).filter((m) => m.kind === kind);

describe('default program emails in the participant’s language (issue #27)', () => {
  for (const lang of LANGUAGE_CODES) {
    it(`${lang}: welcome, monthly update, invitation and follow-up reminder with merge tags, plurals, lang and subject`, async () => {
      const to = `mia.${lang.toLowerCase()}@example.com`;
      const p = await add({ email: to, firstName: 'Mia', language: lang });
      expect(p.language).toBe(lang);

      // The welcome, sent at creation.
      const [welcome] = await mails(to, 'program.welcomeNonReferred');
      expect(welcome!.subject).toBe(defaultTemplate('REFERRAL', 'welcomeNonReferred', lang)!.subject.replace('{{companyName}}', 'Acme'));
      expect(welcome!.html).toContain(`<html lang="${lang}">`);
      expect(welcome!.html).toContain('Mia');
      expect(welcome!.html).toContain(p.shareUrl.replace(/&/g, '&amp;'));
      expect(welcome!.html + welcome!.text + welcome!.subject).not.toContain('{{');

      // The monthly update through P11, with a count.
      const sent = await app.request('POST', `/v2/campaign/${pid}/participant/${p.id}/email`, { key, body: { emailType: 'progressUpdateMonthly' } });
      expect(sent.status, sent.text).toBe(200);
      const [monthly] = await mails(to, 'program.progressUpdateMonthly');
      expect(monthly!.subject).toBe(defaultTemplate('REFERRAL', 'progressUpdateMonthly', lang)!.subject);
      expect(monthly!.text).toMatch(/\b0\b/);
      expect(monthly!.html).toContain(`<html lang="${lang}">`);

      // Invitations to two contacts go out in the sender's language; the reminder counts them.
      const contacts = [`a.${lang.toLowerCase()}@example.org`, `b.${lang.toLowerCase()}@example.org`];
      const inv = await app.request('POST', `/v2/campaign/${pid}/participant/${p.id}/invites`, { key, body: { emailAddresses: contacts, messageText: 'Mia here!' } });
      expect(inv.status, inv.text).toBe(200);
      const [invitation] = await mails(contacts[0]!, 'program.invite');
      expect(invitation!.subject).toBe(defaultTemplate('REFERRAL', 'invite', lang)!.subject.replace('{{referrerFirstName}}', 'Mia').replace('{{companyName}}', 'Acme'));
      expect(invitation!.html).toContain(`<html lang="${lang}">`);
      expect(invitation!.html).toContain('Mia here!');

      app.clock.advance(3 * DAY + 1000);
      await app.deps.jobs.runDue();
      const [reminder] = await mails(to, 'program.followUpReminder');
      expect(reminder!.subject).toBe(followUpReminder(lang, 2).subject);
      expect(reminder!.subject).toContain('2');
      expect(reminder!.html).toContain(`<html lang="${lang}">`);
      for (const c of contacts) expect(reminder!.html).toContain(c);
      expect(reminder!.html + reminder!.subject).not.toContain('{{');

      if (lang !== 'en') {
        for (const m of [welcome!, monthly!, invitation!, reminder!]) {
          const shown = `${m.subject}\n${m.text.replace(/https?:\/\/\S+/g, '')}`;
          expect(ENGLISH.filter((w) => w.test(shown)), `${lang} ${m.kind}`).toEqual([]);
        }
      }
    });
  }

  it('picks the plural form of each count by the language’s rules (Polish: one, few, many)', async () => {
    for (const [n, expected] of [
      [1, 'Twoje zaproszenie wciąż czeka na przyjęcie'],
      [3, '3 Twoje zaproszenia wciąż czekają na przyjęcie'],
      [5, '5 Twoich zaproszeń wciąż czeka na przyjęcie'],
    ] as const) {
      const to = `pl${n}@example.com`;
      const p = await add({ email: to, firstName: 'Ola', language: 'pl' });
      const contacts = Array.from({ length: n }, (_, i) => `pl${n}.c${i}@example.org`);
      const inv = await app.request('POST', `/v2/campaign/${pid}/participant/${p.id}/invites`, { key, body: { emailAddresses: contacts, messageText: 'Cześć!' } });
      expect(inv.status, inv.text).toBe(200);
      app.clock.advance(3 * DAY + 1000);
      await app.deps.jobs.runDue();
      const [reminder] = await mails(to, 'program.followUpReminder');
      expect(reminder!.subject).toBe(expected);
    }
  });

  it('keeps what the owner wrote as written and translates only the defaults left alone', async () => {
    const patch = await app.request('PATCH', `/v2/campaign/${pid}/emails`, { key, body: { referralLinkUsed: { subject: 'Bravo {{firstName}}, one more!' } } });
    expect(patch.status, patch.text).toBe(200);
    const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: 'lena@example.com', firstName: 'Lena', language: 'de' } });
    const lena = res.body;
    await app.request('POST', `/v2/campaign/${pid}/participant/${lena.id}/email`, { key, body: { emailType: 'referralLinkUsed' } });
    const [mail] = await mails('lena@example.com', 'program.referralLinkUsed');
    expect(mail!.subject).toBe('Bravo Lena, one more!');
    // The body is still the default: German, with the German preheader.
    expect(mail!.html).toContain('Hallo Lena,');
    expect(mail!.html).toContain(defaultTemplate('REFERRAL', 'referralLinkUsed', 'de')!.preheader);
    expect(mail!.html).toContain('<html lang="de">');
  });

  it('reads well in every language with and without a first name: no orphaned punctuation, no unfilled tag', () => {
    const vars = { companyName: 'Acme', shareUrl: 'https://acme.example/r?grsf=k', referrerFirstName: 'Mia', referredFirstName: 'Leo', referralCount: 3, rewardDescription: 'A free month', commissionAmount: money(1250, 'EUR'), payoutAmount: money(9900, 'EUR'), messageText: 'Hey!', loginUrl: 'https://x', confirmationUrl: 'https://x', paypalEmail: 'p@example.com', taxInfoUrl: 'https://x', reason: 'Name missing', payoutProvider: 'Wise', acceptUrl: 'https://x', expiresOn: '1 Dec', invitedContacts: { html: '<li>a@example.org</li>' } };
    const bad: string[] = [];
    for (const lang of Object.keys(EMAIL_COPIES)) {
      const parts = [
        ...Object.keys(EMAIL_COPIES.en!.templates).map((k) => k.replace(/Affiliate$/, '')).flatMap((k) => [defaultTemplate('REFERRAL', k, lang), defaultTemplate('AFFILIATE', k, lang)]),
        followUpReminder(lang, 2),
        payoutConfirmation(lang),
        affiliateInvite(lang),
      ].filter((x): x is NonNullable<typeof x> => x !== null);
      for (const firstName of ['', 'Ana']) {
        for (const part of parts) {
          for (const text of [renderTags(part.subject, { ...vars, firstName }, 'text', lang), renderTags(part.body, { ...vars, firstName }, 'text', lang)]) {
            if (/\{\{|[ \t\n][,.:!?]|[,:][,.:!?]|^\s*[,.:!?，、]/m.test(text.replace(/<[^>]+>/g, '\n'))) bad.push(`${lang} ${firstName || '(no name)'}: ${text.slice(0, 80)}`);
          }
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('writes money and numbers in the email’s language', () => {
    expect(renderTags('{{a}}', { a: money(123456, 'EUR') }, 'text', 'de')).toBe('1.234,56\u00a0€');
    expect(renderTags('{{a}}', { a: money(123456, 'EUR') }, 'text', 'en')).toBe('€1,234.56');
    expect(renderTags('{{a}}', { a: money(1250, 'JPY') }, 'text', 'ja')).toBe('￥1,250');
    expect(renderTags('{{n}}', { n: 12345 }, 'text', 'fr')).toBe('12\u202f345');
  });
});
