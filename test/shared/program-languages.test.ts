import { describe, expect, it } from 'vitest';
import { acceptedLanguages, bestAccepted, chooseLanguage, LANGUAGE_CODES } from '../../shared/program-language.ts';
import { PROGRAM_LANGUAGES } from '../../shared/schemas/program-config-fields.ts';
import { participantEnglish, participantTranslations } from '../../server/http/pages/i18n/index.ts';
import { EMAIL_COPIES, defaultTemplate, followUpReminder, isDefaultText } from '../../server/domain/programs/email-copy/index.ts';
import type { Message } from '../../shared/i18n/index.ts';

// Issue #27: the hosted participant pages and the default program emails exist in every program
// language. These tests fail when a language lacks a key, leaves one empty, carries a key English
// does not, drops or invents a placeholder or merge tag, or lacks a plural form its language needs.

const OTHERS = LANGUAGE_CODES.filter((c) => c !== 'en');

/** Every text of a message (a plural message's forms). */
const texts = (m: Message): string[] => (typeof m === 'string' ? [m] : Object.values(m));
/** The `{name}` placeholders of a catalogue text (not `{{tag}}` merge tags). */
const placeholders = (s: string) => [...s.matchAll(/(?<!\{)\{(\w+)\}(?!\})/g)].map((m) => m[1]).sort();
/** The `{{tag}}` merge tags of a template text, by tag name (fallbacks ignored). */
const mergeTags = (s: string) => [...new Set([...s.matchAll(/\{\{\s*([^{}|]+?)\s*(\|[^{}]*)?\}\}/g)].map((m) => m[1]!))].sort();
/** The plural categories a language's numbers use (Polish: one, few, many, other). */
const categories = (lang: string) => new Intl.PluralRules(lang).resolvedOptions().pluralCategories;

describe('the language rule (shared/program-language.ts, issue #27)', () => {
  it('knows the same 14 codes as the schemas', () => {
    expect([...LANGUAGE_CODES]).toEqual([...PROGRAM_LANGUAGES]);
  });

  it('reads Accept-Language by weight, then order, dropping q=0 and junk', () => {
    expect(acceptedLanguages('de-AT;q=0.5, ja, fr;q=0, en-US;q=0.8, *;q=0.1, <x>')).toEqual(['ja', 'en-US', 'de-AT', '*']);
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(bestAccepted('de-AT,de;q=0.9', ['en', 'de'])).toBe('de');
    expect(bestAccepted('zh-Hans-CN,zh;q=0.9', ['en', 'zh-CN'])).toBe('zh-CN');
    expect(bestAccepted('pt', ['en', 'pt-BR'])).toBe('pt-BR');
    expect(bestAccepted('PT-br', ['en', 'pt-BR'])).toBe('pt-BR');
    expect(bestAccepted('fr, *', ['en', 'de'])).toBeNull();
  });

  it('gives a known participant their own language, else the base; never the browser’s', () => {
    const program = { base: 'es', offered: ['es', 'de', 'ja'] };
    expect(chooseLanguage({ ...program, participant: 'ja', acceptLanguage: 'de' })).toBe('ja');
    expect(chooseLanguage({ ...program, participant: null, acceptLanguage: 'de' })).toBe('es');
    // A stored language the program no longer offers falls back to the base.
    expect(chooseLanguage({ ...program, participant: 'fr', acceptLanguage: 'de' })).toBe('es');
  });

  it('gives a visitor the browser’s best match among the program’s languages, else the base, else English', () => {
    expect(chooseLanguage({ base: 'es', offered: ['es', 'de', 'ja'], acceptLanguage: 'ja-JP,de;q=0.5' })).toBe('ja');
    expect(chooseLanguage({ base: 'es', offered: ['es', 'de', 'ja'], acceptLanguage: 'fr-FR' })).toBe('es');
    expect(chooseLanguage({ base: 'es', offered: ['es'], acceptLanguage: 'de' })).toBe('es');
    // No program known (a broken link): any language the pages have, else English.
    expect(chooseLanguage({ acceptLanguage: 'ko-KR,ko;q=0.9' })).toBe('ko');
    expect(chooseLanguage({ acceptLanguage: 'xx' })).toBe('en');
    expect(chooseLanguage({})).toBe('en');
  });
});

describe('the participant pages in every program language (issue #27)', () => {
  it('has a catalogue for each of the 13 other languages', () => {
    expect(Object.keys(participantTranslations).sort()).toEqual([...OTHERS].sort());
  });

  for (const lang of OTHERS) {
    it(`${lang}: every English key, none empty, none extra, the same placeholders, every plural form`, () => {
      const own = participantTranslations[lang] as Record<string, Message>;
      const english = participantEnglish as Record<string, Message>;
      expect(Object.keys(english).filter((k) => !(k in own)), 'missing').toEqual([]);
      expect(Object.keys(own).filter((k) => !(k in english)), 'extra').toEqual([]);
      const empty = Object.entries(own).filter(([, m]) => texts(m).some((t) => !t.trim())).map(([k]) => k);
      expect(empty, 'empty').toEqual([]);
      const wrong = Object.keys(english).filter((k) => JSON.stringify(placeholders(texts(english[k]!).join(' '))) !== JSON.stringify(placeholders(texts(own[k]!).join(' '))));
      expect(wrong, 'placeholders differ').toEqual([]);
      const plurals = Object.entries(own).filter(([, m]) => typeof m !== 'string' && !categories(lang).every((c) => c in m)).map(([k]) => k);
      expect(plurals, 'plural forms missing').toEqual([]);
    });
  }

  it('is translated, not copied: most messages differ from English in each language', () => {
    for (const lang of OTHERS) {
      const own = participantTranslations[lang] as Record<string, Message>;
      const same = Object.keys(participantEnglish).filter((k) => JSON.stringify(own[k]) === JSON.stringify((participantEnglish as Record<string, Message>)[k]));
      // A few words are the same in some languages (Portal, Account: {email}); never whole sentences.
      expect(same.filter((k) => texts(own[k]!).some((t) => t.split(' ').length > 3)), lang).toEqual([]);
    }
  });
});

describe('the default program emails in every program language (issue #27)', () => {
  it('has copy for all 14 languages', () => {
    expect(Object.keys(EMAIL_COPIES).sort()).toEqual([...LANGUAGE_CODES].sort());
  });

  const en = EMAIL_COPIES.en!;
  for (const lang of OTHERS) {
    it(`${lang}: every template and built-in email, none empty, the same merge tags, every plural form`, () => {
      const own = EMAIL_COPIES[lang]!;
      expect(Object.keys(own.templates).sort()).toEqual(Object.keys(en.templates).sort());
      expect(Object.keys(own.builtIn).sort()).toEqual(Object.keys(en.builtIn).sort());
      for (const [key, t] of Object.entries(own.templates)) {
        const e = en.templates[key as keyof typeof en.templates];
        for (const text of [t.subject, t.preheader, ...t.body]) expect(text.trim(), `${key}`).not.toBe('');
        expect(mergeTags([t.subject, t.preheader, ...t.body].join(' ')), `${key} merge tags`).toEqual(mergeTags([e.subject, e.preheader, ...e.body].join(' ')));
        expect(t.subject, `${key} subject translated`).not.toBe(e.subject);
      }
      for (const [key, m] of Object.entries(own.builtIn)) {
        const e = en.builtIn[key as keyof typeof en.builtIn];
        for (const text of texts(m)) expect(text.trim(), key).not.toBe('');
        expect(mergeTags(texts(m).join(' ')), `${key} merge tags`).toEqual(mergeTags(texts(e).join(' ')));
        if (typeof m !== 'string') {
          expect(categories(lang).filter((c) => !(c in m)), `${key} plural forms`).toEqual([]);
          // `one` may say "your invitation" without the number (English does too); every other form shows it.
          expect(Object.entries(m).filter(([c, t]) => c !== 'one' && !t.includes('{count}')), `${key} shows the count`).toEqual([]);
        }
      }
    });
  }

  it('recognises a default in any language as unedited, and anything else as the owner’s', () => {
    const de = defaultTemplate('REFERRAL', 'referralLinkUsed', 'de')!;
    const en = defaultTemplate('REFERRAL', 'referralLinkUsed', 'en')!;
    expect(isDefaultText('REFERRAL', 'referralLinkUsed', 'subject', en.subject)).toBe(true);
    expect(isDefaultText('REFERRAL', 'referralLinkUsed', 'body', de.body)).toBe(true);
    expect(isDefaultText('REFERRAL', 'referralLinkUsed', 'subject', `${en.subject} `)).toBe(false);
    // The affiliate wording is the affiliate default; the referral wording is not one on affiliate programs.
    expect(isDefaultText('AFFILIATE', 'welcomeNonReferred', 'subject', defaultTemplate('AFFILIATE', 'welcomeNonReferred', 'ja')!.subject)).toBe(true);
    expect(isDefaultText('AFFILIATE', 'welcomeNonReferred', 'subject', defaultTemplate('REFERRAL', 'welcomeNonReferred', 'ja')!.subject)).toBe(false);
  });

  it('picks the follow-up reminder’s plural form by the language’s rules', () => {
    expect(followUpReminder('pl', 1).subject).toBe('Twoje zaproszenie wciąż czeka na przyjęcie');
    expect(followUpReminder('pl', 3).subject).toBe('3 Twoje zaproszenia wciąż czekają na przyjęcie');
    expect(followUpReminder('pl', 5).subject).toBe('5 Twoich zaproszeń wciąż czeka na przyjęcie');
    expect(followUpReminder('pl', 22).subject).toBe('22 Twoje zaproszenia wciąż czekają na przyjęcie');
    expect(followUpReminder('de', 1).subject).toBe('Deine Einladung wurde noch nicht angenommen');
    expect(followUpReminder('de', 1200).subject).toBe('1.200 deiner Einladungen wurden noch nicht angenommen');
    expect(followUpReminder('ja', 1).subject).toBe('まだ承諾されていない招待が1件あります');
  });
});
