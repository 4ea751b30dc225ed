// The shape of settings described as data (settings-spec.tsx renders them). Kept apart from the
// renderer so the spec lists (and the pure helpers at the end) load without Preact, in the unit tests
// that compare them with the schemas.

/** One field: `p` its dotted path in the document; `l` a label key other than `<prefix>.<p>`; `h` a hint: true for `<prefix>.<p>.hint`, or its key. */
export type Spec =
  | { k: 'text' | 'long' | 'url' | 'email'; p: string; n?: boolean; l?: string; h?: boolean | string }
  | { k: 'check' | 'color'; p: string; l?: string; h?: boolean | string }
  | { k: 'int'; p: string; n?: boolean; l?: string; h?: boolean | string }
  /** A list box, one entry a line; `up` upper-cases entries (country codes). */
  | { k: 'lines'; p: string; up?: boolean; l?: string; h?: boolean | string }
  /** A map of names, one `key = name` a line; `up` upper-cases keys; `n` sends a removed entry as null (the API's "back to the default") and hides null entries. */
  | { k: 'map'; p: string; up?: boolean; n?: boolean; l?: string; h?: boolean | string }
  /** `o` the API's values (a console copy of a schema enumeration); `n` adds a "none" choice for null; `ol` the key prefix of the choices' labels (default `<prefix>.<p>`). */
  | { k: 'select'; p: string; o: readonly (string | number)[]; n?: boolean; l?: string; h?: boolean | string; ol?: string }
  /** A nested fieldset titled by the message `l`; `h` a message key said under the title. */
  | { k: 'set'; l: string; s: Spec[]; grid?: boolean; h?: string };

/** A titled group; `root` a path that must exist (a section of one program type only); `more` folds into <details>. */
export interface Section {
  id: string;
  title: string;
  root?: string;
  fields: Spec[];
  more?: Spec[];
  moreTitle?: string;
  /** A message key said under the title, for what the whole group is about. */
  hint?: string;
}

/** Every (path, values) pair of the selects in `specs`, for comparing with the schemas. */
export function selectsOf(specs: Spec[]): Array<{ p: string; o: readonly (string | number)[] }> {
  return specs.flatMap((s) => (s.k === 'set' ? selectsOf(s.s) : s.k === 'select' ? [{ p: s.p, o: s.o }] : []));
}

/** A map as `key = name` lines; null entries (the API's defaults) are left out. */
export const mapText = (m: unknown) =>
  Object.entries((m ?? {}) as Record<string, string | null>)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n');
/** `key = name` lines as a map; a line without "=" is a key with an empty name, so the API can say what is wrong with it. */
export function parseMap(text: string, up?: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (!l) continue;
    const at = l.indexOf('=');
    const key = (at < 0 ? l : l.slice(0, at)).trim();
    out[up ? key.toUpperCase() : key] = at < 0 ? '' : l.slice(at + 1).trim();
  }
  return out;
}
