// Which of a program's languages a participant reads (issue #27): hosted participant pages and the
// program's default emails both choose through `chooseLanguage`, so a person sees one language
// wherever they meet the program. Pure: the caller reads the participant, the program's options
// and the request's Accept-Language header.

/** The 14 program languages (rest-v2 §4 "Program language"); kept in step with shared/schemas/program-config-fields.ts. */
export const LANGUAGE_CODES = ['en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'pl', 'sv', 'tr', 'ja', 'ko', 'zh-CN', 'id'] as const;

/** What the choice can know about who is reading. */
export interface LanguageContext {
  /** The participant's stored `language`, when the reader is a known participant. */
  participant?: string | null;
  /** The program's base language (options `languages.baseLanguage`); null when no program is known. */
  base?: string | null;
  /** The program's languages (base first); without a program, every language the catalogues have. */
  offered?: readonly string[] | null;
  /** The request's `Accept-Language` header, for a visitor the page does not know. */
  acceptLanguage?: string | null;
}

/**
 * The browser's preferred languages from an `Accept-Language` header, best first: `q=0` dropped,
 * equal weights kept in header order, malformed parts ignored (never throws).
 */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return [];
  const parts: Array<{ tag: string; q: number; i: number }> = [];
  header
    .slice(0, 1000)
    .split(',')
    .forEach((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      if (!tag || !/^(\*|[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*)$/.test(tag)) return;
      const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qp ? Number(qp.slice(2)) : 1;
      if (!Number.isFinite(q) || q <= 0 || q > 1) return;
      parts.push({ tag, q, i });
    });
  return parts.sort((a, b) => b.q - a.q || a.i - b.i).map((p) => p.tag);
}

/**
 * The best of `offered` for an `Accept-Language` header, or null: an exact tag first (`pt-BR`),
 * then a tag's primary language against an offered code's (`de-AT` → `de`, `zh-Hans-CN` → `zh-CN`,
 * `pt` → `pt-BR`), in the browser's order of preference.
 */
export function bestAccepted(header: string | null | undefined, offered: readonly string[]): string | null {
  const lower = offered.map((o) => o.toLowerCase());
  for (const tag of acceptedLanguages(header)) {
    if (tag === '*') continue;
    const t = tag.toLowerCase();
    const exact = lower.indexOf(t);
    if (exact >= 0) return offered[exact]!;
    const primary = t.split('-')[0];
    const same = lower.findIndex((o) => o.split('-')[0] === primary);
    if (same >= 0) return offered[same]!;
  }
  return null;
}

/**
 * The language a reader sees: a known participant's own `language` (when it is one of the program's),
 * else, for a visitor the page does not know, the best match of the browser's languages among the
 * program's, else the program's base language, else English. A participant without a language reads
 * the base language (rest-v2 §2.8: that is what their `language` means when unset), never the
 * browser's.
 */
export function chooseLanguage(c: LanguageContext): string {
  const offered = c.offered?.length ? c.offered : c.base ? [c.base] : LANGUAGE_CODES;
  if (c.participant !== undefined) {
    if (c.participant && offered.includes(c.participant)) return c.participant;
    return c.base || 'en';
  }
  return bestAccepted(c.acceptLanguage, offered) ?? c.base ?? 'en';
}
