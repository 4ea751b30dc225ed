// The one message catalogue of the widget. Languages are keyed by the program's language codes
// (PROGRAM_LANGUAGES). English is complete (`en.ts` for the first load, `en-panels.ts` registered
// by the lazy panels that need it); other languages may be partial: `t` falls back to English key
// by key, and a key missing everywhere shows as itself.
import { en } from './en.ts';
import type { enPanels } from './en-panels.ts';

/** A message key. */
export type MessageKey = keyof typeof en | keyof typeof enPanels;
/**
 * A message that depends on `{count}`: one text per CLDR plural category the language uses
 * (`zero`, `one`, `two`, `few`, `many`, `other`; `other` is required), picked by Intl.PluralRules.
 */
export type Plural = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
type Messages = Partial<Record<MessageKey, string | Plural>>;

/** Every language's messages, keyed like the program's `languages` (`en`, `pt-BR`, …). */
export const catalogue: Record<string, Messages> = { en };

let lang = 'en';

/** Adds messages to a language (a lazy chunk registering its part of the catalogue). */
export function extend(code: string, messages: Messages): void {
  catalogue[code] = { ...catalogue[code], ...messages };
}

/** Picks the language for every later `t` call; unknown codes try the base language, then English. */
export function setLanguage(code: string | null | undefined): string {
  const base = code?.split('-')[0];
  lang = code && catalogue[code] ? code : base && catalogue[base] ? base : 'en';
  return lang;
}

/**
 * The message for `key` with `{name}` placeholders filled in (as text: callers never render it as
 * HTML). A plural message takes the form for `vars.count` in the message's own language.
 */
export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  const own = catalogue[lang]?.[key];
  let s = own ?? catalogue.en![key] ?? key;
  if (typeof s == 'object') s = s[new Intl.PluralRules(own ? lang : 'en').select(+vars!.count!)] ?? s.other;
  return vars ? s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m)) : s;
}
