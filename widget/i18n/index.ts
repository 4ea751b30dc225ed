// The one message catalogue of the widget. Languages are keyed by the program's language codes
// (PROGRAM_LANGUAGES). English is complete (`en.ts` for the first load, `en-signup.ts`,
// `en-share.ts` and `en-panels.ts` registered by the chunks that need them); other languages may be
// partial: `t` falls back to English key by key, and a key missing everywhere shows as itself.
// Another language (issue #27) is two lazy chunks, `<code>.ts` (first load, sign-up and share
// words) and `<code>-panels.ts` (the lazy panels and portal), both loaded by `load.tsx` only when
// the window's language is not English, so an English first load carries none of them. The corner
// launcher, drawn before the window loads, has its own few words (shared/i18n/launcher.ts).
import { en } from './en.ts';
import type { enPanels } from './en-panels.ts';
import type { enPortal } from './en-portal.ts';
import type { enSignup } from './en-signup.ts';
import type { enShare } from './en-share.ts';

/** A message key. */
export type MessageKey = keyof typeof en | keyof typeof enSignup | keyof typeof enShare | keyof typeof enPanels | keyof typeof enPortal;
/**
 * A message that depends on `{count}`: one text per CLDR plural category the language uses
 * (`zero`, `one`, `two`, `few`, `many`, `other`; `other` is required), picked by Intl.PluralRules.
 */
export type Plural = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
export type Messages = Partial<Record<MessageKey, string | Plural>>;

/** Every language's messages, keyed like the program's `languages` (`en`, `pt-BR`, …). */
export const catalogue: Record<string, Messages> = { en };

let lang = 'en';

/** The language `t` uses (for Intl formatting of dates, numbers and money). */
export const locale = () => lang;

/** Adds messages to a language (a lazy chunk registering its part of the catalogue). */
export function extend(code: string, messages: Messages): void {
  catalogue[code] = { ...catalogue[code], ...messages };
}

/** Picks the language for every later `t` call (`load.ts` has registered its messages; a key it lacks falls back to English). */
export const setLanguage = (code: string): string => (lang = code);

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
