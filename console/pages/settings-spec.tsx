// Settings described as data: each field a path into the document, a kind and (for selects) the
// values the API accepts. One renderer turns them into labelled controls that show their field's
// error, so long documents (design, the options' lists, the email settings) stay readable and the
// console's copies of the API's enumerations sit in one place a unit test compares with the schemas.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../i18n/index.ts';
import { CheckField, ColorField, Group, SelectField, TextField, fieldErrors, getIn, setIn } from './settings-kit.tsx';
import { useAction } from '../ui.tsx';
import { mapText, parseMap, type Spec, type Section } from './settings-spec-types.ts';
import { SPEC_MAX_LENGTH } from './settings-limits.ts';

export type { Spec, Section } from './settings-spec-types.ts';
export { mapText, parseMap } from './settings-spec-types.ts';

/** A document being edited: the shown draft, what changed (the PATCH body), texts as typed, the last refusal. */
export interface Draft<T = unknown> {
  doc: T;
  /** The document as last loaded or saved (what a removed map entry is compared with). */
  saved: T;
  set: (path: string, value: unknown) => void;
  text: (path: string, shown: string) => string;
  setText: (path: string, typed: string) => void;
  error: unknown;
}

/** State for a settings form over `saved`: the draft, its changes and a save that PATCHes only them. */
export function useDraft<T>(saved: T) {
  const [doc, setDoc] = useState(saved);
  const [base, setBase] = useState(saved);
  const [changes, setChanges] = useState<Record<string, unknown>>({});
  const [texts, setTexts] = useState<Record<string, string>>({});
  const { error, setError, busy, run } = useAction();
  const draft: Draft<T> = {
    doc,
    saved: base,
    error,
    set: (path, value) => {
      setDoc((d) => setIn(d, path, value));
      setChanges((c) => setIn(c, path, value));
    },
    text: (path, shown) => texts[path] ?? shown,
    setText: (path, typed) => setTexts((x) => ({ ...x, [path]: typed })),
  };
  /** Sends the changes through `patch`; resolves true when saved. */
  const save = (patch: (changes: Record<string, unknown>) => Promise<T>): Promise<boolean> =>
    run(async () => {
      const next = await patch(changes);
      setDoc(next);
      setBase(next);
      setChanges({});
      setTexts({});
    });
  const reset = () => {
    setDoc(base);
    setChanges({});
    setTexts({});
    setError(null);
  };
  return { draft, changes, busy, save, reset, dirty: Object.keys(changes).length > 0 };
}

/** A whole number as typed, or the text itself so the API can say what is wrong with it. */
export const whole = (v: string): number | string => (/^-?\d+$/.test(v.trim()) ? Number(v) : v);
/** Lines (or commas) of a list box as trimmed, non-empty entries. */
export const lines = (v: string) => v.split(/[\n,]+/).map((s) => s.trim()).filter(Boolean);

type Leaf = Exclude<Spec, { k: 'set' }>;
/** A field's label and hint: its own `l`/`h` keys, else `<prefix>.<path>` and `<prefix>.<path>.hint`. */
export const labelOf = (prefix: string, s: Leaf) => t((s.l ?? `${prefix}.${s.p}`) as MessageKey);
export const hintOf = (prefix: string, s: Leaf) => (typeof s.h === 'string' ? t(s.h as MessageKey) : s.h ? t(`${prefix}.${s.p}.hint` as MessageKey) : undefined);
/** The label of one value of a select. */
export const optionLabel = (prefix: string, s: Spec & { k: 'select' }, v: string | number) => t(`${s.ol ?? `${prefix}.${s.p}`}.${v}` as MessageKey);

/** One field of a spec list, or nothing when the document has no such field (another program type's). */
export function SpecField({ s, d, prefix }: { s: Spec; d: Draft; prefix: string }) {
  if (s.k === 'set') {
    if (!s.s.some((x) => x.k === 'set' || getIn(d.doc, x.p) !== undefined)) return null;
    return (
      <fieldset class="bare">
        <legend class="sub">{t(s.l as MessageKey)}</legend>
        {s.h && <p class="hint">{t(s.h as MessageKey)}</p>}
        <div class={s.grid ? 'check-grid' : undefined}>
          {s.s.map((x) => (
            <SpecField key={x.k === 'set' ? x.l : x.p} s={x} d={d} prefix={prefix} />
          ))}
        </div>
      </fieldset>
    );
  }
  const v = getIn(d.doc, s.p);
  if (v === undefined) return null;
  const id = `${prefix}-${s.p}`;
  const common = { id, field: s.p, error: d.error, label: labelOf(prefix, s), hint: hintOf(prefix, s) };
  switch (s.k) {
    case 'check':
      return <CheckField {...common} checked={!!v} onChange={(x) => d.set(s.p, x)} />;
    case 'color':
      return <ColorField {...common} value={String(v ?? '')} onInput={(x) => d.set(s.p, x)} />;
    case 'select': {
      const numeric = typeof s.o[0] === 'number';
      const options = [...(s.n ? [['', t(`${s.ol ?? `${prefix}.${s.p}`}.none` as MessageKey)] as const] : []), ...s.o.map((o) => [String(o), optionLabel(prefix, s, o)] as const)];
      return <SelectField {...common} value={v === null ? '' : String(v)} options={options} onChange={(x) => d.set(s.p, x === '' && s.n ? null : numeric ? Number(x) : x)} />;
    }
    case 'int':
      return (
        <TextField
          {...common}
          inputMode="numeric"
          size={8}
          value={d.text(s.p, v == null ? '' : String(v))}
          onInput={(x) => {
            d.setText(s.p, x);
            d.set(s.p, x.trim() === '' && s.n ? null : whole(x));
          }}
        />
      );
    case 'lines':
      return (
        <TextField
          {...common}
          hint={common.hint ?? t('options.oneALine')}
          multiline
          value={d.text(s.p, ((v as string[]) ?? []).join('\n'))}
          onInput={(x) => {
            d.setText(s.p, x);
            d.set(s.p, lines(x).map((e) => (s.up ? e.toUpperCase() : e)));
          }}
        />
      );
    case 'map':
      return (
        <TextField
          {...common}
          hint={common.hint ?? t('ds.map.hint')}
          multiline
          value={d.text(s.p, mapText(v))}
          onInput={(x) => {
            d.setText(s.p, x);
            const typed = parseMap(x, s.up);
            if (!s.n) return d.set(s.p, typed);
            // Entries the API keeps: one removed (or left without a name) goes back to the default as null.
            const removed = Object.entries((getIn(d.saved, s.p) ?? {}) as Record<string, string | null>).filter(([, name]) => name !== null);
            d.set(s.p, { ...Object.fromEntries(removed.map(([k]) => [k, null])), ...Object.fromEntries(Object.entries(typed).map(([k, name]) => [k, name === '' ? null : name])) });
          }}
        />
      );
    default:
      return (
        <TextField
          {...common}
          type={s.k === 'url' ? 'url' : s.k === 'email' ? 'email' : 'text'}
          multiline={s.k === 'long'}
          maxLength={SPEC_MAX_LENGTH[`${prefix}:${s.p}`]}
          value={String(v ?? '')}
          onInput={(x) => d.set(s.p, x === '' && s.n ? null : x)}
        />
      );
  }
}

export const paths = (specs: Spec[]): string[] => specs.flatMap((s) => (s.k === 'set' ? paths(s.s) : [s.p]));

/** A titled group of fields; its `more` fields fold into a <details> that opens when one of them is refused. */
export function SpecSection({ section, d, prefix, children }: { section: Section; d: Draft; prefix: string; children?: ComponentChildren }) {
  if (section.root && getIn(d.doc, section.root) === undefined) return null;
  const more = section.more ?? [];
  const refused = paths(more).some((p) => fieldErrors(d.error, p).length > 0);
  return (
    <Group id={`g-${prefix}-${section.id}`} title={t(section.title as MessageKey)}>
      {section.hint && <p class="hint">{t(section.hint as MessageKey)}</p>}
      {children}
      {section.fields.map((s) => (
        <SpecField key={s.k === 'set' ? s.l : s.p} s={s} d={d} prefix={prefix} />
      ))}
      {more.length > 0 && (
        <details class="more" open={refused || undefined}>
          <summary>{t(((section.moreTitle as MessageKey | undefined) ?? 'settings.more'))}</summary>
          {more.map((s) => (
            <SpecField key={s.k === 'set' ? s.l : s.p} s={s} d={d} prefix={prefix} />
          ))}
        </details>
      )}
    </Group>
  );
}
