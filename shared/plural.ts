// Plural-correct counts for server text (owner pages, team and program emails): one rule for every
// language, Intl.PluralRules, so "1 referral" and "2 referrals" never depend on a hand-written `=== 1`.

/** A text per CLDR plural category (`zero`, `one`, `two`, `few`, `many`, `other`); `{count}` is the number. */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

const rules = new Map<string, Intl.PluralRules>();

/** The form of `forms` for `count` in `locale` (English by default), with `{count}` filled in as a formatted number. */
export function plural(count: number, forms: PluralForms, locale = 'en'): string {
  let r = rules.get(locale);
  if (!r) rules.set(locale, (r = new Intl.PluralRules(locale)));
  return (forms[r.select(count)] ?? forms.other).replaceAll('{count}', count.toLocaleString(locale));
}

/** English shorthand: `countOf(1, 'reward')` is "1 reward", `countOf(2, 'reward')` "2 rewards". */
export function countOf(count: number, one: string, other = `${one}s`): string {
  return plural(count, { one: `{count} ${one}`, other: `{count} ${other}` });
}
