// An owner's own texts per program language (issue #27; a refloop extension where the reference is
// silent): per additional language, an override for any translatable text of the design and emails
// documents (shared/program-translations.ts says which), stored in `program_translations`, one row
// per program and language. What a reader of language L sees, for each translatable text: the
// owner's override for L; else, when the base text is an unedited default, the default in L
// (`localizedDesign`, the email copy); else the base text as the owner wrote it. The base language's
// texts are the documents themselves. A language removed from the options keeps its row, unserved;
// adding it back brings its texts back.
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { selectRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldError } from '../../../shared/errors.ts';
import { deepFreeze } from '../../../shared/freeze.ts';
import { TRANSLATABLE_KINDS, checkMergedTranslation, checkTranslation, mergeOverrides, withOverrides, type Translation } from '../../../shared/program-translations.ts';
import { completedDocument } from './program-config.ts';
import { localizedDesign } from './design-copy/index.ts';
import type { Program, Programs } from './programs.ts';

export type { Translation } from '../../../shared/program-translations.ts';

/** GET's answer: the base language and, for every additional language, its overrides. */
export interface ProgramTranslationList {
  baseLanguage: string;
  languages: Record<string, Translation>;
}

/** The program's base language and its additional languages, in the options' order (the base never among them). */
export function translationLanguages(program: Pick<Program, 'documents'>): { base: string; additional: string[] } {
  const l = (program.documents.options as { languages?: { baseLanguage?: string; additionalLanguages?: string[] } } | null)?.languages;
  const base = l?.baseLanguage ?? 'en';
  return { base, additional: (l?.additionalLanguages ?? []).filter((x) => x !== base) };
}

type Row = { language: string; design: string; emails: string };

const parse = (text: string | null | undefined): Record<string, unknown> => {
  try {
    const v = text ? JSON.parse(text) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};
const toTranslation = (row: Row | undefined): Translation => ({ design: parse(row?.design), emails: parse(row?.emails) });

/**
 * The served overrides of a program: one entry per CURRENT additional language that has a row
 * (a removed language's row is not read). Frozen, so derived views can be cached by identity.
 */
export async function readTranslations(db: Db, q: Knex | Knex.Transaction, program: Pick<Program, 'id' | 'documents'>): Promise<ReadonlyMap<string, Translation>> {
  const { additional } = translationLanguages(program);
  const out = new Map<string, Translation>();
  if (!additional.length) return out;
  const rows = await selectRows<Row>(db, q, 'SELECT "language", "design", "emails" FROM "program_translations" WHERE "program_id" = ?', [program.id]);
  for (const row of rows) if (additional.includes(row.language)) out.set(row.language, deepFreeze(toTranslation(row)));
  return out;
}

/** One language's served overrides, or null for the base language, a language the program does not offer, or none set. */
export async function readTranslation(db: Db, q: Knex | Knex.Transaction, program: Pick<Program, 'id' | 'documents'>, language: string): Promise<Translation | null> {
  if (!translationLanguages(program).additional.includes(language)) return null;
  const rows = await selectRows<Row>(db, q, 'SELECT "language", "design", "emails" FROM "program_translations" WHERE "program_id" = ? AND "language" = ?', [program.id, language]);
  return rows[0] ? toTranslation(rows[0]) : null;
}

/** Designs with overrides laid over, by the override tree (frozen, from a cached view), then by localized design. */
const composed = new WeakMap<object, WeakMap<object, unknown>>();

/**
 * The completed design as a reader of `language` sees it: unedited default texts in `language`
 * (`localizedDesign`), then the owner's overrides for `language` over them. Cached when both the
 * design and the overrides are frozen (the participant API's cached program view).
 */
export function designIn<D>(program: Pick<Program, 'type' | 'goal'>, design: D, language: string, translation: Translation | null | undefined): D {
  const localized = localizedDesign(program.type, program.goal, design, language);
  const overrides = translation?.design;
  if (!overrides || !Object.keys(overrides).length || !localized || typeof localized !== 'object') return localized;
  const cacheable = Object.isFrozen(overrides) && Object.isFrozen(localized);
  let byDesign = cacheable ? composed.get(overrides) : undefined;
  const hit = byDesign?.get(localized as object);
  if (hit) return hit as D;
  const out = followHeading(localized, overrides, withOverrides('design', program.type, localized, overrides));
  if (cacheable) {
    if (!byDesign) composed.set(overrides, (byDesign = new WeakMap()));
    byDesign.set(localized as object, deepFreeze(out));
  }
  return out;
}

/**
 * A landing headline that follows the owner's heading for visitors (issue #32, `brandDesign`)
 * follows that heading's translation too, unless the translation sets a headline of its own.
 */
function followHeading<D>(base: D, overrides: Record<string, unknown>, out: D): D {
  const b = base as { header?: { preText?: string }; landingPages?: { content?: { headline?: string } } };
  const o = overrides as { header?: { preText?: unknown }; landingPages?: { content?: { headline?: unknown } } };
  const pre = typeof o.header?.preText === 'string' ? o.header.preText.trim() : '';
  if (!pre || pre.length > 255 || o.landingPages?.content?.headline !== undefined) return out;
  if (!b.landingPages?.content || b.landingPages.content.headline !== b.header?.preText?.trim()) return out;
  const d = out as { landingPages: { content: Record<string, unknown> } };
  return { ...d, landingPages: { ...d.landingPages, content: { ...d.landingPages.content, headline: pre } } } as D;
}

/** An email text the owner wrote for a language: `translation.emails[template][field]`, or undefined. */
export function emailOverride(translation: Translation | null | undefined, template: string, field: string): string | undefined {
  const t = translation?.emails[template];
  const v = t && typeof t === 'object' ? (t as Record<string, unknown>)[field] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** The footer text the owner wrote for a language (`settings.design.footerText`), or undefined. */
export function footerOverride(translation: Translation | null | undefined): string | undefined {
  const v = (translation?.emails.settings as { design?: { footerText?: unknown } } | undefined)?.design?.footerText;
  return typeof v === 'string' ? v : undefined;
}

/** The owner's texts per program language: `GET /campaign/{id}/translations` and `PATCH /campaign/{id}/translations/{language}`. */
export class ProgramTranslations {
  /** Called with the program's id after its translations changed and the change committed (the participant API's cache drops it). */
  readonly changed: Array<(programId: string) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Every additional language of the program with its overrides (`{}` each when none); a removed language's stored texts are not listed. */
  async list(program: Program): Promise<ProgramTranslationList> {
    const { base, additional } = translationLanguages(program);
    const stored = await readTranslations(this.db, this.db.knex, program);
    const languages: Record<string, Translation> = {};
    for (const code of additional) languages[code] = structuredClone(stored.get(code) ?? { design: {}, emails: {} });
    return { baseLanguage: base, languages };
  }

  /**
   * Merges `body` (`{design?, emails?}`, deep partials of overrides; a `null` text removes one) into
   * the language's overrides: every key must be a translatable text of the program type and every
   * text pass its base field's rule, else 400 naming the paths and nothing is written.
   */
  async update(program: Program, language: string, body: { design?: unknown; emails?: unknown }): Promise<Translation> {
    const { base, additional } = translationLanguages(program);
    if (!additional.includes(language)) {
      const message =
        language === base
          ? `${language} is the program's base language: its texts are the design and emails documents themselves (PATCH /campaign/{id}/design, /emails).`
          : additional.length
            ? `${language} is not one of the program's additional languages (${additional.join(', ')}).`
            : `The program has no additional languages (options languages.additionalLanguages).`;
      throw new ValidationError(message, [{ field: 'language', code: 'INVALID_VALUE', message }]);
    }
    if (body.design === undefined && body.emails === undefined) {
      throw new ValidationError('Send design or emails texts to change.', [{ field: 'body', code: 'REQUIRED', message: 'Send design or emails texts to change.' }]);
    }
    const fieldKeys = completedDocument('design', program, program.documents.design).signup.fields.map((f) => f.key);
    const errors: FieldError[] = [];
    const patch: Partial<Translation> = {};
    for (const kind of TRANSLATABLE_KINDS) {
      if (body[kind] === undefined) continue;
      const checked = checkTranslation(kind, program.type, body[kind], (path) => (kind === 'design' && path === 'signup.fields' ? fieldKeys : []));
      errors.push(...checked.errors);
      patch[kind] = checked.value;
    }
    if (errors.length) throw new ValidationError(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);

    const next = await this.db.knex.transaction(async (trx) => {
      // The program row's lock orders concurrent writes of one program's translations (as CF2/CF4 order theirs).
      const owner = await trx('programs').where({ id: program.id }).forNoKeyUpdate().first('id');
      if (!owner) throw new NotFoundError(`No program ${program.id}.`);
      const row: Row | undefined = await trx('program_translations').where({ program_id: program.id, language }).first('language', 'design', 'emails');
      const current = toTranslation(row);
      const merged: Translation = {
        design: patch.design ? mergeOverrides(current.design, patch.design) : current.design,
        emails: patch.emails ? mergeOverrides(current.emails, patch.emails) : current.emails,
      };
      const more = TRANSLATABLE_KINDS.flatMap((kind) => (patch[kind] ? checkMergedTranslation(kind, program.type, merged[kind]) : []));
      if (more.length) throw new ValidationError(more.map((e) => `${e.field}: ${e.message}`).join('; '), more);
      const values = { design: JSON.stringify(merged.design), emails: JSON.stringify(merged.emails), updated_at: this.clock.now() };
      if (row) await trx('program_translations').where({ program_id: program.id, language }).update(values);
      else await trx('program_translations').insert({ program_id: program.id, language, ...values });
      return merged;
    });
    for (const hook of this.changed) hook(program.id);
    return next;
  }
}

/** A clone starts with its source's texts in every language (rows of removed languages too). */
export function registerTranslationHooks(programs: Programs): void {
  programs.hooks.cloned.push(async (trx, source, copy) => {
    const rows: Array<Row & { updated_at: number }> = await trx('program_translations').where({ program_id: source.id }).select('language', 'design', 'emails', 'updated_at');
    if (rows.length) await trx('program_translations').insert(rows.map((r) => ({ program_id: copy.id, language: r.language, design: r.design, emails: r.emails, updated_at: r.updated_at })));
  });
}
