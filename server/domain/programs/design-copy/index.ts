// The default design texts in every program language (issue #27): a new program stores the English
// texts of `defaultDesign`; a reader of another language sees each text the owner has not changed in
// their language, and every text the owner wrote exactly as written. Like the default emails
// (../email-copy/), an unedited text is recognised per leaf by its value: it equals the default text
// at that place in any of the 14 languages.
import type { Program } from '../programs.ts';
import { defaultDesign } from '../program-config-default-design.ts';
import { enDesign, type DesignCopy, type DesignTextKey } from './en.ts';
import { esDesign } from './es.ts';
import { frDesign } from './fr.ts';
import { deDesign } from './de.ts';
import { itDesign } from './it.ts';
import { ptBRDesign } from './pt-BR.ts';
import { nlDesign } from './nl.ts';
import { plDesign } from './pl.ts';
import { svDesign } from './sv.ts';
import { trDesign } from './tr.ts';
import { jaDesign } from './ja.ts';
import { koDesign } from './ko.ts';
import { zhCNDesign } from './zh-CN.ts';
import { idDesign } from './id.ts';

export { enDesign, type DesignCopy, type DesignTextKey } from './en.ts';

/** Every language's default design texts, by program language code. */
export const DESIGN_COPIES: Readonly<Record<string, DesignCopy>> = {
  en: enDesign,
  es: esDesign,
  fr: frDesign,
  de: deDesign,
  it: itDesign,
  'pt-BR': ptBRDesign,
  nl: nlDesign,
  pl: plDesign,
  sv: svDesign,
  tr: trDesign,
  ja: jaDesign,
  ko: koDesign,
  'zh-CN': zhCNDesign,
  id: idDesign,
};

type Type = Program['type'];
/** A program's goal as stored (an unknown goal reads as none). */
type Goal = string | null;

type DefaultGoal = Parameters<typeof defaultDesign>[1];

/** The key of each English default text (the English texts are unique). */
const KEY_OF = new Map<string, DesignTextKey>(Object.entries(enDesign).map(([k, v]) => [v, k as DesignTextKey]));

/** A design-shaped tree whose text leaves are their copy keys (other leaves: undefined). */
type KeyTree = DesignTextKey | undefined | KeyTree[] | { [k: string]: KeyTree };
/** Where a key tree keeps an array item's own `key` (no design field starts with a space). */
const ITEM = ' key';

function keysOf(v: unknown): KeyTree {
  if (typeof v === 'string') return KEY_OF.get(v);
  if (Array.isArray(v)) return v.map(keysOf);
  if (v && typeof v === 'object') {
    const tree: { [k: string]: KeyTree } = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, keysOf(x)]));
    // An array item with an identifying `key` (a sign-up field) remembers it, to pair with the stored item of that key.
    const id = (v as { key?: unknown }).key;
    if (typeof id === 'string') tree[ITEM] = id as KeyTree;
    return tree;
  }
  return undefined;
}

/** The copy keys of the default design of a program type and goal, by place (memoized). */
const keyTrees = new Map<string, KeyTree>();
function keyTree(type: Type, goal: Goal | null): KeyTree {
  const id = `${type}|${goal ?? ''}`;
  let tree = keyTrees.get(id);
  if (tree === undefined) keyTrees.set(id, (tree = keysOf(defaultDesign(type, (goal ?? null) as DefaultGoal))));
  return tree;
}

/** Each key's texts in all 14 languages: how an unedited text is recognised (memoized). */
const ALL_TEXTS = new Map<DesignTextKey, Set<string>>(
  (Object.keys(enDesign) as DesignTextKey[]).map((k) => [k, new Set(Object.values(DESIGN_COPIES).map((c) => c[k]))]),
);

/** True when `value` is the default text `key` in any program language (exact: any edit makes it the owner's). */
export function isDefaultDesignText(key: DesignTextKey, value: string): boolean {
  return ALL_TEXTS.get(key)?.has(value) ?? false;
}

/** A default text in `language` (English for a code we do not have). */
export function defaultDesignText(language: string, key: DesignTextKey): string {
  return (DESIGN_COPIES[language] ?? enDesign)[key];
}

/** The default design of a program type and goal with its texts in `language` (what a new program of that language would read). */
export function defaultDesignIn(type: Type, goal: Goal | null, language: string): ReturnType<typeof defaultDesign> {
  return localize(defaultDesign(type, (goal ?? null) as DefaultGoal), keyTree(type, goal), DESIGN_COPIES[language] ?? enDesign) as ReturnType<typeof defaultDesign>;
}

function localize(stored: unknown, keys: KeyTree, copy: DesignCopy): unknown {
  if (typeof stored === 'string') return typeof keys === 'string' && isDefaultDesignText(keys, stored) ? copy[keys] : stored;
  if (Array.isArray(stored)) {
    const defaults = Array.isArray(keys) ? keys : [];
    return stored.map((item, i) => {
      // Sign-up fields pair with the default field of the same key (the owner may reorder or add fields).
      const itemKey = item && typeof item === 'object' ? (item as { key?: unknown }).key : undefined;
      const match = typeof itemKey === 'string' ? defaults.find((d) => d && typeof d === 'object' && !Array.isArray(d) && d[ITEM] === itemKey) : defaults[i];
      return localize(item, match, copy);
    });
  }
  if (stored && typeof stored === 'object') {
    const k = keys && typeof keys === 'object' && !Array.isArray(keys) ? keys : {};
    return Object.fromEntries(Object.entries(stored).map(([name, v]) => [name, localize(v, k[name], copy)]));
  }
  return stored;
}

/** The localized designs of each (frozen, cached) completed design, by language. */
const cache = new WeakMap<object, Map<string, unknown>>();

/**
 * The stored design as a reader of `language` sees it: each text leaf that still holds a default
 * text (the default at that place in any program language) in `language`; every text the owner
 * wrote, every non-text value and every place without a default text, unchanged. Cached per
 * completed design (frozen program documents) and language.
 */
export function localizedDesign<D>(type: Type, goal: Goal | null, stored: D, language: string): D {
  if (!stored || typeof stored !== 'object') return stored;
  const frozen = Object.isFrozen(stored);
  let byLanguage = frozen ? cache.get(stored) : undefined;
  const hit = byLanguage?.get(language);
  if (hit) return hit as D;
  const out = localize(stored, keyTree(type, goal), DESIGN_COPIES[language] ?? enDesign) as D;
  if (frozen) {
    if (!byLanguage) cache.set(stored, (byLanguage = new Map()));
    byLanguage.set(language, Object.freeze(out));
  }
  return out;
}
