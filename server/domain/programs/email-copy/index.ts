// The default program emails in every program language (issue #27): what a new program stores (the
// English copy), what an unedited default is rendered as for a participant who reads another
// language, and the built-in emails no template covers.
import { format } from '../../../../shared/i18n/index.ts';
import type { EmailTemplate } from '../../../../shared/schemas/program-config-emails.ts';
import type { EmailCopy, TemplateCopy, TemplateCopyKey } from './types.ts';
import { enEmails } from './en.ts';
import { esEmails } from './es.ts';
import { frEmails } from './fr.ts';
import { deEmails } from './de.ts';
import { itEmails } from './it.ts';
import { ptBREmails } from './pt-BR.ts';
import { nlEmails } from './nl.ts';
import { plEmails } from './pl.ts';
import { svEmails } from './sv.ts';
import { trEmails } from './tr.ts';
import { jaEmails } from './ja.ts';
import { koEmails } from './ko.ts';
import { zhCNEmails } from './zh-CN.ts';
import { idEmails } from './id.ts';

export type { EmailCopy, TemplateCopy, TemplateCopyKey } from './types.ts';

/** Every language's default email copy, by program language code. */
export const EMAIL_COPIES: Readonly<Record<string, EmailCopy>> = {
  en: enEmails,
  es: esEmails,
  fr: frEmails,
  de: deEmails,
  it: itEmails,
  'pt-BR': ptBREmails,
  nl: nlEmails,
  pl: plEmails,
  sv: svEmails,
  tr: trEmails,
  ja: jaEmails,
  ko: koEmails,
  'zh-CN': zhCNEmails,
  id: idEmails,
};

/** A language's copy (English for a code we do not have). */
export function emailCopy(language: string): EmailCopy {
  return EMAIL_COPIES[language] ?? enEmails;
}

/** The templates whose body ends with the participant's share link (the same markup in every language). */
const ENDS_WITH_LINK: ReadonlySet<TemplateCopyKey> = new Set([
  'welcomeNonReferred',
  'welcomeNonReferredAffiliate',
  'welcomeReferred',
  'referralLinkViewedFirstTime',
  'referralLinkUsed',
  'progressUpdateMonthly',
  'progressUpdateMonthlyAffiliate',
  'invite',
]);
const LINK = '<p><a href="{{shareUrl}}">{{shareUrl}}</a></p>';
const paragraphs = (lines: readonly string[]) => lines.map((l) => `<p>${l}</p>`).join('\n');

/** The copy key of a template for a program type (three templates are worded for affiliates). */
function copyKey(type: 'REFERRAL' | 'AFFILIATE', template: string): TemplateCopyKey {
  const affiliate = `${template}Affiliate`;
  return (type === 'AFFILIATE' && affiliate in enEmails.templates ? affiliate : template) as TemplateCopyKey;
}

/** A template's default subject, preheader and body in `language`, or null when the template has no default copy. */
export function defaultTemplate(type: 'REFERRAL' | 'AFFILIATE', template: string, language: string): { subject: string; preheader: string; body: string } | null {
  const key = copyKey(type, template);
  const copy: TemplateCopy | undefined = emailCopy(language).templates[key];
  if (!copy) return null;
  return { subject: copy.subject, preheader: copy.preheader, body: paragraphs(copy.body) + (ENDS_WITH_LINK.has(key) ? LINK : '') };
}

/** A template as stored by a new program: the English default (`isEnabled` as the caller says). */
export function storedDefault(type: 'REFERRAL' | 'AFFILIATE', template: TemplateCopyKey, isEnabled = true): EmailTemplate {
  return { ...defaultTemplate(type, template, 'en')!, isEnabled };
}

/** Each field's default texts in every language, by program type and template: how an unedited default is recognised. */
const known = new Map<string, Set<string>>();

/**
 * True when `value` is the default text of the template's `field` in any program language: the
 * owner has not written it (a program stores the English default; a console may save another
 * language's default back). Exact comparison: any edit, even a space, makes the text the owner's.
 */
export function isDefaultText(type: 'REFERRAL' | 'AFFILIATE', template: string, field: 'subject' | 'preheader' | 'body', value: string): boolean {
  const id = `${type}|${template}|${field}`;
  let set = known.get(id);
  if (!set) {
    set = new Set();
    for (const code of Object.keys(EMAIL_COPIES)) {
      const d = defaultTemplate(type, template, code);
      if (d) set.add(d[field]);
    }
    known.set(id, set);
  }
  return set.has(value);
}

/** The localized emails documents of each (frozen, cached) completed emails document, by language. */
const localizedCache = new WeakMap<object, Map<string, unknown>>();

/**
 * A stored emails document with each template's subject, preheader and body that is still a
 * default (`isDefaultText`) in `language`, and everything else as stored: what an owner is shown of
 * a program whose base language is `language` (what a reader of that language is sent). Cached per
 * frozen document and language, like `localizedDesign`.
 */
export function localizedEmails<E>(type: 'REFERRAL' | 'AFFILIATE', stored: E, language: string): E {
  if (!stored || typeof stored !== 'object') return stored;
  const frozen = Object.isFrozen(stored);
  let byLanguage = frozen ? localizedCache.get(stored) : undefined;
  const hit = byLanguage?.get(language);
  if (hit) return hit as E;
  const out = Object.fromEntries(
    Object.entries(stored).map(([name, template]) => {
      const fallback = name === 'settings' || !template || typeof template !== 'object' ? null : defaultTemplate(type, name, language);
      if (!fallback) return [name, template];
      const t = { ...(template as Record<string, unknown>) };
      for (const field of ['subject', 'preheader', 'body'] as const) {
        const v = t[field];
        if (typeof v === 'string' && isDefaultText(type, name, field, v)) t[field] = fallback[field];
      }
      return [name, frozen ? Object.freeze(t) : t];
    }),
  ) as E;
  if (frozen) {
    if (!byLanguage) localizedCache.set(stored, (byLanguage = new Map()));
    byLanguage.set(language, Object.freeze(out));
  }
  return out;
}

/** The invitation follow-up reminder for `count` pending invitations (`{{invitedContacts}}` is the list's items). */
export function followUpReminder(language: string, count: number): { subject: string; preheader: string; body: string } {
  const b = emailCopy(language).builtIn;
  const code = EMAIL_COPIES[language] ? language : 'en';
  return {
    subject: format(b.followUpSubject, { count }, code),
    preheader: b.followUpPreheader,
    body: `<p>${b.followUpGreeting}</p><p>${format(b.followUpIntro, { count }, code)}</p><ul>{{invitedContacts}}</ul><p>${b.followUpAsk}</p>${LINK}`,
  };
}

/** The payout-destination confirmation of providers without a §2.19 template (Venmo, Wise); `{{payoutProvider}}` and `{{confirmationUrl}}` fill it. */
export function payoutConfirmation(language: string): { subject: string; preheader: string; body: string } {
  const b = emailCopy(language).builtIn;
  return {
    subject: b.payoutConfirmSubject,
    preheader: b.payoutConfirmPreheader,
    body: `<p>${b.payoutConfirmGreeting}</p><p>${b.payoutConfirmBody}</p><p><a href="{{confirmationUrl}}">${b.payoutConfirmButton}</a></p>`,
  };
}

/** The affiliate invite email; `{{companyName}}`, `{{acceptUrl}}` and `{{expiresOn}}` fill it. */
export function affiliateInvite(language: string): { subject: string; preheader: string; body: string } {
  const b = emailCopy(language).builtIn;
  return {
    subject: b.affiliateInviteSubject,
    preheader: b.affiliateInvitePreheader,
    body: `<p>${b.affiliateInviteGreeting}</p><p>${b.affiliateInviteBody}</p><p><a href="{{acceptUrl}}">${b.affiliateInviteButton}</a></p><p>${b.affiliateInviteExpires}</p>`,
  };
}
