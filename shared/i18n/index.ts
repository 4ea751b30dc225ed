// The one message-catalogue machinery of the console and the server's pages (issue #23): a catalogue
// is a plain object of messages keyed by area (`keys.title`, `signin.error`); `{name}` placeholders
// are filled as text; a message with plural forms is an object keyed by CLDR category, picked by
// Intl.PluralRules through shared/plural.ts. The widget keeps its own smaller copy of these few lines
// (widget/i18n/index.ts): its first-load bytes are budgeted and it switches language at run time.
import { plural, type PluralForms } from '../plural.ts';

/** One message: a text, or one text per CLDR plural category (`other` required), picked by `vars.count`. */
export type Message = string | PluralForms;
/** A catalogue (or one area's part of it): messages by key. */
export type Messages = Readonly<Record<string, Message>>;
/** The values a message's `{name}` placeholders are filled with; numbers are formatted for the language. */
export type Vars = Readonly<Record<string, string | number>>;
/** A translate function over one catalogue's keys. */
export type Translate<K extends string> = (key: K, vars?: Vars) => string;

/** `message` with its plural form chosen by `vars.count` and every `{name}` that `vars` names filled in (one pass: values are never read as placeholders). */
export function format(message: Message, vars: Vars = {}, locale = 'en'): string {
  const text = typeof message === 'string' ? message : plural(Number(vars.count ?? 0), message, locale);
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = vars[name];
    return v === undefined ? whole : typeof v === 'number' ? v.toLocaleString(locale) : v;
  });
}

/** The translate function of one catalogue in one language. */
export function translator<M extends Messages>(messages: M, locale = 'en'): Translate<keyof M & string> {
  return (key, vars) => format(messages[key]!, vars, locale);
}

/**
 * A catalogue kept in several languages: English complete, every other language possibly partial.
 * `in(code)` gives the translate function of a language (its base language, then English, when the
 * code is unknown); a key the language lacks falls back to English, with English plural rules.
 */
export function languages<M extends Messages>(en: M, others: Readonly<Record<string, Partial<Record<keyof M, Message>>>> = {}) {
  const english = translator(en, 'en');
  const cache = new Map<string, Translate<keyof M & string>>();
  return {
    /** The language codes this catalogue has. */
    codes: ['en', ...Object.keys(others)],
    /** The translate function for `code` (`pt-BR`, `de`, …; null or unknown: English). */
    in(code?: string | null): Translate<keyof M & string> {
      const base = code?.split('-')[0];
      const lang = code && others[code] ? code : base && others[base] ? base : 'en';
      if (lang === 'en') return english;
      let t = cache.get(lang);
      if (!t) {
        const own = others[lang]!;
        cache.set(lang, (t = (key, vars) => (own[key] !== undefined ? format(own[key]!, vars, lang) : english(key, vars))));
      }
      return t;
    },
  };
}
