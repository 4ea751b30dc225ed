// An owner's own texts per program language (issue #27; the reference is silent, so this is a
// refloop extension): which leaves of the design and emails documents are translatable, how an
// override body is checked against the base fields' rules, and how a language's overrides lie over a
// document. Pure and shared, so the server and the console agree on every path.
//
// The rule, derived from the zod schemas: a leaf is translatable when it is a plain string (no
// format: no URL, email, colour, CSS length, id pattern, enum) and not on the deny list below. Records
// of such strings (`countryLabels`, a breakdown's `levels` and `values`) are walked with their keys
// (`*` in a path); the sign-up fields, the one array of objects with an identifying `key`, are walked
// by that key (`signup.fields.<key>.label`); any other array (the page rules' URL patterns) is a
// list of values, never copy.
import { z } from 'zod';
import { documentSchema } from './schemas/program-config.ts';
import type { ConfigProgramType } from './schemas/program-config-fields.ts';
import type { FieldError } from './errors.ts';
import { boundsOf } from './field-errors.ts';

/** The two documents with translatable texts. */
export type TranslatableKind = 'design' | 'emails';
/** The documents in the order a translation holds them. */
export const TRANSLATABLE_KINDS: readonly TranslatableKind[] = ['design', 'emails'];

/**
 * Plain-string leaves that are no copy an owner writes: the address the program sends from, the
 * sender's display name and the postal address (names and addresses, the same in every language),
 * and the company's name (a brand name, not translated).
 */
export const NOT_TRANSLATABLE: readonly string[] = ['emails.settings.sender', 'emails.settings.contact', 'design.landingPages.company.name'];

/** One language's overrides: trees shaped like their documents, holding only the texts set (keyed arrays by item key). */
export interface Translation {
  design: Record<string, unknown>;
  emails: Record<string, unknown>;
}

/** A node of the translatable-leaf tree. */
type Node =
  | { kind: 'object'; children: Record<string, Node> }
  | { kind: 'leaf'; schema: z.ZodType }
  /** A record of texts (`key` checks a key, `whole` the record with its size cap) or the keyed items of an array (`items`). */
  | { kind: 'map'; key: z.ZodType | null; items: boolean; child: Node; whole?: z.ZodType };

function unwrap(s: z.ZodType): z.ZodType {
  let out = s;
  while (out instanceof z.ZodOptional || out instanceof z.ZodNullable) out = out.unwrap() as z.ZodType;
  return out;
}

/** The translatable part of `schema` at `path`, or null when nothing below it is translatable. */
function build(schema: z.ZodType, path: string): Node | null {
  if (NOT_TRANSLATABLE.includes(path)) return null;
  const s = unwrap(schema);
  if (s instanceof z.ZodString) return s.format === null ? { kind: 'leaf', schema: s } : null;
  if (s instanceof z.ZodObject) {
    const children: Record<string, Node> = {};
    for (const [k, v] of Object.entries(s.shape as Record<string, z.ZodType>)) {
      const n = build(v, `${path}.${k}`);
      if (n) children[k] = n;
    }
    return Object.keys(children).length ? { kind: 'object', children } : null;
  }
  if (s instanceof z.ZodRecord) {
    const child = build(s.valueType as z.ZodType, `${path}.*`);
    return child ? { kind: 'map', key: s.keyType as z.ZodType, items: false, child, whole: s } : null;
  }
  if (s instanceof z.ZodArray) {
    const item = unwrap(s.element as z.ZodType);
    if (!(item instanceof z.ZodObject) || !('key' in item.shape)) return null;
    const child = build(item, `${path}.*`);
    return child ? { kind: 'map', key: (item.shape as Record<string, z.ZodType>).key!, items: true, child } : null;
  }
  return null;
}

const trees = new Map<string, Node>();
function treeOf(kind: TranslatableKind, type: ConfigProgramType): Node {
  const id = `${kind}|${type}`;
  let t = trees.get(id);
  if (!t) trees.set(id, (t = build(documentSchema(kind, type), kind) ?? { kind: 'object', children: {} }));
  return t;
}

/** Every translatable leaf of a document for a program type, as dotted paths without the document's name (`*`: a record key or a sign-up field's key). */
export function translatablePaths(kind: TranslatableKind, type: ConfigProgramType): string[] {
  const out: string[] = [];
  const walk = (n: Node, at: string) => {
    if (n.kind === 'leaf') out.push(at);
    else if (n.kind === 'map') walk(n.child, `${at}.*`);
    else for (const [k, c] of Object.entries(n.children)) walk(c, at ? `${at}.${k}` : k);
  };
  walk(treeOf(kind, type), '');
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a PATCH body part (`design` or `emails`, a deep partial of overrides; `null` removes one)
 * against the leaves of `kind` for the program type: every key a translatable leaf or a path to one,
 * every text passing its base field's rule. `itemKeys`: the keys of the document's keyed array items
 * (the sign-up fields) by path, which are the only item keys a text may name. Returns the parsed
 * part (texts as the base field would store them: trimmed where it trims) and the errors, each
 * naming its full path (`design.theme.primaryColor`).
 */
export function checkTranslation(
  kind: TranslatableKind,
  type: ConfigProgramType,
  part: unknown,
  itemKeys: (path: string) => readonly string[] = () => [],
): { value: Record<string, unknown>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  // Named down to the leaves sent, so `{theme: {primaryColor}}` reads `design.theme.primaryColor`.
  const notText = (at: string, v: unknown) => {
    const leaves = isObject(v) && Object.keys(v).length ? Object.entries(v).slice(0, 20) : null;
    if (leaves) for (const [k, x] of leaves) notText(`${at}.${k}`, x);
    else errors.push({ field: at, code: 'NOT_TRANSLATABLE', message: `${at} is not a translatable text of this program's ${kind}.` });
  };
  const walk = (n: Node, v: unknown, at: string, docPath: string): unknown => {
    if (n.kind === 'leaf') {
      if (v === null) return null;
      if (typeof v !== 'string') {
        errors.push({ field: at, code: 'INVALID_TYPE', message: 'Must be a text, or null to remove the override.' });
        return undefined;
      }
      const r = n.schema.safeParse(v);
      if (!r.success) {
        for (const i of r.error.issues) {
          const code = i.code === 'too_big' ? 'TOO_LONG' : i.code === 'too_small' ? 'TOO_SHORT' : 'INVALID';
          errors.push({ field: at, code, message: i.message, ...boundsOf(i) });
        }
        return undefined;
      }
      return r.data;
    }
    if (!isObject(v)) {
      if (v === null) errors.push({ field: at, code: 'INVALID_TYPE', message: 'Only a text can be removed with null; send null for each text.' });
      else errors.push({ field: at, code: 'INVALID_TYPE', message: 'Must be an object of texts.' });
      return undefined;
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      const here = `${at}.${k}`;
      let child: Node | undefined;
      if (n.kind === 'object') child = Object.hasOwn(n.children, k) ? n.children[k] : undefined;
      else if (n.items ? itemKeys(docPath).includes(k) : n.key?.safeParse(k).success) child = n.child;
      if (!child) {
        if (n.kind === 'map' && n.items) errors.push({ field: here, code: 'NOT_TRANSLATABLE', message: `${here}: the ${kind} has no item with key "${k}".` });
        else notText(here, x);
        continue;
      }
      const r = walk(child, x, here, n.kind === 'object' ? (docPath ? `${docPath}.${k}` : k) : docPath);
      if (r !== undefined) out[k] = r;
    }
    return out;
  };
  const value = walk(treeOf(kind, type), part ?? {}, kind, '') as Record<string, unknown> | undefined;
  return { value: value ?? {}, errors };
}

/**
 * The rules only a whole language's overrides can break, checked after a merge: a record of texts
 * holds no more entries than its base field allows (`countryLabels` 300, a breakdown's `levels` 50).
 */
export function checkMergedTranslation(kind: TranslatableKind, type: ConfigProgramType, merged: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (n: Node, v: unknown, at: string) => {
    if (!isObject(v) || n.kind === 'leaf') return;
    if (n.kind === 'object') {
      for (const [k, c] of Object.entries(n.children)) walk(c, v[k], `${at}.${k}`);
      return;
    }
    if (n.whole && !n.whole.safeParse(v).success) errors.push({ field: at, code: 'TOO_MANY', message: `${at} holds more entries than its base field allows.` });
    if (n.items) for (const x of Object.values(v)) walk(n.child, x, at);
  };
  walk(treeOf(kind, type), merged, kind);
  return errors;
}

/** `patch` over stored overrides: objects merge, a `null` text removes one, and objects left empty are dropped. */
export function mergeOverrides(stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (isObject(v)) {
      const merged = mergeOverrides(isObject(out[k]) ? (out[k] as Record<string, unknown>) : {}, v);
      if (Object.keys(merged).length) out[k] = merged;
      else delete out[k];
    } else out[k] = v;
  }
  return out;
}

/**
 * `doc` (a complete design or emails document of the program type) with `overrides` laid over it:
 * each override text replaces the text at its place; places that are no translatable leaf, or that
 * the document does not have (a sign-up field since removed), are ignored, and nothing else changes.
 * Keyed array items (the sign-up fields) take the overrides under their own `key`; a record of texts
 * (`countryLabels`) may gain a key. A new object: `doc` is not changed.
 */
export function withOverrides<D>(kind: TranslatableKind, type: ConfigProgramType, doc: D, overrides: Record<string, unknown> | null | undefined): D {
  if (!overrides || !Object.keys(overrides).length) return doc;
  const lay = (n: Node, d: unknown, o: unknown): unknown => {
    if (n.kind === 'leaf') return typeof o === 'string' && (typeof d === 'string' || d === null || d === undefined) ? o : d;
    if (!isObject(o)) return d;
    if (n.kind === 'map' && n.items) {
      if (!Array.isArray(d)) return d;
      return d.map((item) => {
        const key = isObject(item) ? item.key : undefined;
        return typeof key === 'string' && Object.hasOwn(o, key) ? lay(n.child, item, o[key]) : item;
      });
    }
    if (!isObject(d)) return d;
    const out: Record<string, unknown> = { ...d };
    for (const [k, v] of Object.entries(o)) {
      if (n.kind === 'object') {
        if (Object.hasOwn(n.children, k) && Object.hasOwn(d, k)) out[k] = lay(n.children[k]!, d[k], v);
      } else if (n.key?.safeParse(k).success) out[k] = lay(n.child, d[k], v);
    }
    return out;
  };
  return lay(treeOf(kind, type), doc, overrides) as D;
}
