// Owners' own texts per program language (issue #27) on the Design and Emails pages: the "Texts in"
// choice (the base language, then each additional language; kept in the address as `?language=`),
// the overrides of one language being edited, and the field that shows one of them over its base
// text. `GET /campaign/{id}/translations` lists the languages and their overrides; `PATCH
// /campaign/{id}/translations/{language}` takes only the changed leaves (a cleared one as null).
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { here, navigate, params as queryParams } from '../router.tsx';
import { languageName, t } from '../i18n/index.ts';
import { SelectField, TextField } from './settings-kit.tsx';
import { useAction } from '../ui.tsx';
import { mapText } from './settings-spec-types.ts';
import { getAt, overrideChanges, putAt } from './settings-translations-spec.ts';

export { overlay } from './settings-translations-spec.ts';

/** One additional language's overrides: deep partials of the design and emails documents. */
export interface LanguageTexts {
  design: Record<string, unknown>;
  emails: Record<string, unknown>;
}

/** What `GET /campaign/{id}/translations` answers: one entry per additional language. */
export interface Translations {
  baseLanguage: string;
  languages: Record<string, LanguageTexts>;
}

/** The path of the translations operations (`language` for one language's PATCH). */
export const translationsPath = (programId: string, language?: string) =>
  `/campaign/${encodeURIComponent(programId)}/translations${language ? `/${encodeURIComponent(language)}` : ''}`;

export const loadTranslations = (programId: string) => api<Translations>('GET', translationsPath(programId));

/** The additional language the address chooses, or null for the base language (also for a code the program does not have). */
export function chosenLanguage(tr: Translations): string | null {
  const code = queryParams().get('language');
  return code && code in tr.languages ? code : null;
}

/** The "Texts in" choice, shown when the program has additional languages. */
export function LanguageChoice({ tr, chosen }: { tr: Translations; chosen: string | null }) {
  const codes = Object.keys(tr.languages);
  if (!codes.length) return null;
  const choose = (code: string) => {
    const [path, search] = here.value.split('?');
    const q = new URLSearchParams(search ?? '');
    if (code === tr.baseLanguage) q.delete('language');
    else q.set('language', code);
    const s = q.toString();
    navigate(`${path}${s ? `?${s}` : ''}`, true);
  };
  return (
    <div class="language-choice">
      <SelectField
        id="tr-language"
        field="language"
        error={null}
        label={t('tr.textsIn')}
        hint={t('tr.textsInHint')}
        value={chosen ?? tr.baseLanguage}
        options={[[tr.baseLanguage, t('tr.base', { language: languageName(tr.baseLanguage) })] as const, ...codes.map((c) => [c, languageName(c)] as const)]}
        onChange={choose}
      />
    </div>
  );
}

/**
 * One language's overrides of one document being edited. Fields are named by dotted paths in the
 * overrides (`header.preText`, `signup.fields.email.label`); a map of names (`maps`, `up`: keys in
 * capitals) is typed as `key = name` lines. `value` of a field: as typed, else the saved override
 * ('' when none); `body` the PATCH body of what changed (a cleared override as null); `current` the
 * overrides as on screen (for the preview); the last refusal.
 */
export function useOverrides(initial: Record<string, unknown>, maps: ReadonlyArray<{ p: string; up?: boolean }> = []) {
  const [saved, setSaved] = useState(initial);
  const [typed, setTyped] = useState<Record<string, string>>({});
  const { error, setError, busy, run } = useAction();
  const value = (p: string) => typed[p] ?? (maps.some((m) => m.p === p) ? mapText(getAt(saved, p.split('.'))) : String(getAt(saved, p.split('.')) ?? ''));
  const changes = overrideChanges(saved, typed, maps);
  const body = changes.reduce<Record<string, unknown>>((o, [keys, v]) => putAt(o, keys, v), {});
  const current = changes.reduce<Record<string, unknown>>((o, [keys, v]) => putAt(o, keys, v ?? undefined), saved);
  /** Sends the changes through `patch` (which answers the language's overrides after the change); resolves true when saved. */
  const save = (patch: (body: Record<string, unknown>) => Promise<Record<string, unknown>>): Promise<boolean> =>
    run(async () => {
      setSaved(await patch(body));
      setTyped({});
    });
  const reset = () => {
    setTyped({});
    setError(null);
  };
  return { value, type: (p: string, v: string) => setTyped((x) => ({ ...x, [p]: v })), body, current, error, busy, save, reset, dirty: changes.length > 0 };
}

export type Overrides = ReturnType<typeof useOverrides>;

/** The id of the note every translated field points to (what an empty field means). */
export const EMPTY_NOTE_ID = 'tr-empty-note';

/** What an empty field means in `language`, said once above the fields. */
export function EmptyNote({ language }: { language: string }) {
  return (
    <p class="hint" id={EMPTY_NOTE_ID}>
      {t('tr.emptyNote', { language: languageName(language) })}
    </p>
  );
}

/** One text (or map of names) in an additional language: the override (empty when none) over the base text, which shows as its placeholder. */
export function TranslatedField({ o, path, base, label, hint, long, rows }: { o: Overrides; path: string; base: unknown; label: string; hint?: string; long?: boolean; rows?: number }) {
  return (
    <TextField
      id={`tr-${path}`}
      field={path}
      error={o.error}
      label={label}
      hint={hint}
      describedBy={EMPTY_NOTE_ID}
      multiline={long}
      rows={rows}
      placeholder={typeof base === 'string' ? base : base && typeof base === 'object' ? mapText(base) : ''}
      value={o.value(path)}
      onInput={(v) => o.type(path, v)}
    />
  );
}
