// Which texts an owner writes per program language (issue #27, `/campaign/{id}/translations`): the
// copy of the design and emails documents, never colours, URLs, choices, ids or numbers. The console
// shows only these in an additional language. Derived from the design page's own spec (its text and
// long-text fields, its maps of names, the window headings and the sign-up fields' texts) with the
// few plain-text fields that are not copy left out; test/console/translation-paths.test.ts fails
// when this drifts from the server's list (shared/program-translations.ts, which needs zod).
import type { Spec } from './settings-spec-types.ts';
import { DESIGN_SECTIONS, WINDOW_TEXTS } from './settings-design-spec.ts';
import { parseMap } from './settings-spec-types.ts';

/** Text fields of the design form that are not copy a reader reads (a CSS length, tracking ids, the company's name). */
const NOT_COPY = new Set(['theme.widget.borderRadius', 'landingPages.scripts.googleAnalyticsId', 'landingPages.scripts.googleTagManagerId', 'landingPages.scripts.metaPixelId', 'landingPages.company.name']);

const all = (specs: Spec[]): Spec[] => specs.flatMap((s) => (s.k === 'set' ? all(s.s) : [s]));
const specs = all(DESIGN_SECTIONS.flatMap((s) => [...s.fields, ...(s.more ?? [])]));
const texts = (list: Spec[]): string[] => list.flatMap((s) => (s.k === 'text' || s.k === 'long' ? [s.p] : []));

/** The design's translatable paths (dotted, as the design page names its fields). */
export const DESIGN_TEXT_PATHS: readonly string[] = [
  ...WINDOW_TEXTS.map(([p]) => p),
  ...texts(specs).filter((p) => !NOT_COPY.has(p)),
];

/** The design's maps of names (country names, a traffic breakdown's levels and values): each name is a text per language. */
export const DESIGN_MAP_PATHS: readonly string[] = specs.flatMap((s) => (s.k === 'map' ? [s.p] : []));

/** The sign-up form fields' texts, per field (the overrides name a field by its `key`: `signup.fields.<key>.label`). */
export const SIGNUP_FIELD_TEXTS = ['label', 'placeholder'] as const;

/** Is this design field a text (or map of names) the owner may write per language? */
export const isDesignText = (p: string): boolean => DESIGN_TEXT_PATHS.includes(p) || DESIGN_MAP_PATHS.includes(p);

/** Each email template's translatable parts. */
export const TEMPLATE_TEXTS = ['subject', 'preheader', 'body'] as const;

/** The translatable texts every email shares (paths inside the emails document). */
export const EMAIL_SETTINGS_TEXTS = ['settings.design.footerText'] as const;

/** A plain object (not an array, not null). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `doc` as a reader of the language sees it, defaults aside: each text of `overrides` at its place;
 * the items of a keyed list (the sign-up fields) take the overrides under their own `key`.
 */
export function overlay<T>(doc: T, overrides: unknown): T {
  if (typeof overrides === 'string') return overrides as T;
  if (!isObject(overrides)) return doc;
  if (Array.isArray(doc))
    return doc.map((item: unknown) => {
      const key = isObject(item) ? item.key : undefined;
      return typeof key === 'string' && Object.hasOwn(overrides, key) ? overlay(item, overrides[key]) : item;
    }) as T;
  if (!isObject(doc)) return doc;
  const out: Record<string, unknown> = { ...doc };
  for (const [k, v] of Object.entries(overrides)) out[k] = overlay(doc[k], v);
  return out as T;
}

/** The value at `keys` of `obj`. */
export const getAt = (obj: unknown, keys: readonly string[]): unknown => keys.reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), obj);

/** A copy of `obj` with `value` at `keys` (objects made on the way; `undefined` removes the entry). */
export function putAt(obj: Record<string, unknown>, keys: readonly string[], value: unknown): Record<string, unknown> {
  const [k, ...rest] = keys as [string, ...string[]];
  const out = { ...obj };
  if (rest.length) out[k] = putAt(isObject(obj[k]) ? obj[k] : {}, rest, value);
  else if (value === undefined) delete out[k];
  else out[k] = value;
  return out;
}

/**
 * What the owner changed in one language's overrides `saved`, leaf by leaf: its keys and the new
 * text, or null to remove the override (a field emptied). `typed` holds what was typed by dotted
 * field path; a map of names (`maps`; `up`: keys in capitals) is typed as `key = name` lines, and a
 * name left out or emptied removes that name's override.
 */
export function overrideChanges(saved: Record<string, unknown>, typed: Record<string, string>, maps: ReadonlyArray<{ p: string; up?: boolean }> = []): Array<[string[], string | null]> {
  const changes: Array<[string[], string | null]> = [];
  const leaf = (keys: string[], v: string) => {
    const at = getAt(saved, keys);
    const was = typeof at === 'string' ? at : null;
    if (v === '' ? was !== null : v !== was) changes.push([keys, v === '' ? null : v]);
  };
  for (const [p, v] of Object.entries(typed)) {
    const keys = p.split('.');
    const m = maps.find((x) => x.p === p);
    if (!m) {
      leaf(keys, v);
      continue;
    }
    const names = parseMap(v, m.up);
    for (const [k, name] of Object.entries(names)) leaf([...keys, k], name);
    const had = getAt(saved, keys);
    for (const k of Object.keys(isObject(had) ? had : {})) if (!(k in names)) leaf([...keys, k], '');
  }
  return changes;
}
