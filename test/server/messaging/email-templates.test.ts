import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { renderTags, textAsHtml, type EmailVars } from '../../../server/domain/messaging/email-layout.ts';
import { toProgram, type Program } from '../../../server/domain/programs/programs.ts';

// Issue #21: the default templates never produce doubled punctuation ("place their first order.."),
// empty placeholders or an unfilled {{…}}, whatever realistic values fill them.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

async function program(type: 'REFERRAL' | 'AFFILIATE'): Promise<Program> {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type, companyName: 'Northwind Coffee' } });
  expect(res.status, res.text).toBe(200);
  return toProgram(await app.deps.db.knex('programs').where({ id: res.body.id }).first());
}

/** Values as the engines pass them; free texts end with and without their own punctuation. */
const values = (rewardDescription: string, firstName: string | null = 'Ann'): EmailVars => ({
  firstName,
  lastName: 'Archer',
  email: 'ann@example.com',
  shareUrl: 'https://northwind.example/?grsf=ann-archer',
  companyName: 'Northwind Coffee',
  referralCount: 3,
  monthlyReferralCount: 1,
  inviteCount: 4,
  referrerFirstName: 'Cleo',
  referredFirstName: 'Ben',
  rewardDescription,
  couponCode: 'THANKS10',
  messageText: textAsHtml('Hey! I love their coffee.\nTry it with my link.'),
  loginUrl: 'https://refloop.example/login?token=abc',
  confirmationUrl: 'https://refloop.example/payout-confirm?token=abc',
  paypalEmail: 'ann@paypal.example',
  taxInfoUrl: 'https://refloop.example/tax?token=abc',
  reason: 'The name does not match the tax id number.',
  commissionAmount: '$12.50',
  payoutAmount: '$40.00',
  unsubscribeUrl: 'https://refloop.example/unsubscribe?token=abc',
});

const DESCRIPTIONS = ['A $10 credit for each friend who places their first order.', 'One free bag of coffee!', '$10 off your next order', 'Is a free month not enough?'];

/** Punctuation right after punctuation (an ellipsis excepted), or a space before a comma or full stop: signs of a bad fill. */
const DOUBLED = /(?<![.])[.!?,;:]\s*[.,;:!?](?![.])|\s[,.!?;:](?!\S)/;

describe('default email templates (issue #21)', () => {
  for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
    it(`render for ${type === 'AFFILIATE' ? 'an affiliate' : 'a referral'} program with realistic values: no doubled punctuation, no empty placeholder, no unfilled {{…}}`, async () => {
      const p = await program(type);
      const emails = app.deps.programEmails.emailsOf(p);
      const keys = Object.keys(emails).filter((k) => k !== 'settings');
      expect(keys.length).toBeGreaterThan(type === 'REFERRAL' ? 14 : 12);
      const problems: string[] = [];
      for (const description of DESCRIPTIONS) {
        for (const firstName of ['Ann', null]) {
          const vars = values(description, firstName);
          for (const key of keys) {
            const tpl = emails[key as keyof typeof emails] as { subject: string; preheader: string; body: string };
            // Every tag a default template places is one the engines fill.
            for (const m of `${tpl.subject} ${tpl.preheader} ${tpl.body}`.matchAll(/\{\{\s*([^{}|]+?)\s*(\||\}\})/g)) {
              if (m[1] !== 'firstName' && (vars[m[1]!] == null || vars[m[1]!] === '')) problems.push(`${key}: {{${m[1]}}} has no value`);
            }
            const message = app.deps.programEmails.compose(p, 'en', tpl, vars, { unsubscribeUrl: String(vars.unsubscribeUrl) });
            const preheader = renderTags(tpl.preheader, vars, 'text');
            for (const [part, text] of [['subject', message.subject], ['preheader', preheader], ['text', message.text]] as const) {
              const where = `${key} ${part} (${JSON.stringify(description)}, firstName ${firstName})`;
              // URLs are not prose: their dots and colons are left out of the punctuation check.
              const prose = text.replace(/\bhttps?:\/\/\S+/g, 'URL').replace(/\S+@\S+\.\w+/g, 'EMAIL');
              if (/\{\{|\}\}/.test(text)) problems.push(`${where}: unfilled tag in ${JSON.stringify(text)}`);
              if (DOUBLED.test(prose)) problems.push(`${where}: doubled punctuation or empty placeholder in ${JSON.stringify(prose.match(new RegExp(`.{0,30}${DOUBLED.source}.{0,10}`))?.[0])}`);
              if (/\b(undefined|null|NaN)\b|\(\s*\)/.test(text)) problems.push(`${where}: ${JSON.stringify(text)}`);
              if (/ {2,}/.test(prose.replace(/^ +/gm, ''))) problems.push(`${where}: double space in ${JSON.stringify(prose)}`);
            }
            // The invitation goes to a contact whose name nobody knows; every other email greets the participant by name.
            if (firstName && key !== 'invite') expect(message.text, key).not.toMatch(/^Hi,/);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('a reward description that ends a sentence does not double the full stop a template puts after it', () => {
    const vars = { rewardDescription: 'A $10 credit for each friend who places their first order.' };
    expect(renderTags('You earned {{rewardDescription}}. Thanks!', vars, 'text')).toBe('You earned A $10 credit for each friend who places their first order. Thanks!');
    expect(renderTags('Wow: {{rewardDescription}}!', { rewardDescription: 'A free month!' }, 'html')).toBe('Wow: A free month!');
    expect(renderTags('You earned {{rewardDescription}}.', { rewardDescription: '$10 off' }, 'text')).toBe('You earned $10 off.');
    expect(renderTags('Hi {{firstName}}, welcome.', { firstName: '' }, 'text')).toBe('Hi, welcome.');
    expect(renderTags('Hi {{firstName}} and welcome.', {}, 'text')).toBe('Hi and welcome.');
  });
});
