// What every program settings page shares (their navigation is the frame's Settings group): labelled controls that show
// the API's error for their own field next to them, and the save button with its outcome.
import type { ComponentChildren } from 'preact';
import { ApiError, type FieldError } from '../api.ts';
import { Field, RefusalSummary, problem } from '../ui.tsx';
import { messageFor } from '../field-messages.ts';
import { t } from '../i18n/index.ts';

/**
 * The same refusal with its field paths taken relative to `prefix` (`design.header.preText` →
 * `header.preText`), for a form whose fields are named inside one part of the request's body.
 */
export function errorWithin(err: unknown, prefix: string): unknown {
  if (!(err instanceof ApiError)) return err;
  const strip = (f: string) => (f.startsWith(`${prefix}.`) ? f.slice(prefix.length + 1) : f);
  return new ApiError(err.status, err.code, err.message, err.errors.map((x) => ({ ...x, field: x.field.split(', ').map(strip).join(', ') })));
}

/** The API's problems with `field` (or anything inside it) from a refused request. */
export function fieldErrors(error: unknown, field: string): FieldError[] {
  if (!(error instanceof ApiError)) return [];
  return error.errors.filter((e) => e.field.split(', ').some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)));
}

/** Attributes that tie a control to its hint, an `also` description (an id) and its error; `data-field` lets the summary tell shown problems from others. */
export function described(id: string, hint: boolean, message: string | undefined, also?: string, field?: string) {
  const bad = !!message;
  const ids = [hint && `${id}-hint`, also, bad && `${id}-error`].filter(Boolean).join(' ');
  return { 'aria-describedby': ids || undefined, 'aria-invalid': bad ? true : undefined, 'data-field': field };
}

/** The plain message of a refused field, below its control. */
export function FieldMessage({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="field-error" id={`${id}-error`}>
      {message}
    </p>
  );
}

interface Common {
  id: string;
  label: string;
  hint?: string;
  /** The API field path this control edits (for its error). */
  field: string;
  error: unknown;
}

/**
 * A text, number, email, url or colour input with label, hint and its field's error; `placeholder`
 * shows in the empty box, `describedBy` the id of a description several fields share.
 */
export function TextField(
  p: Common & { value: string; onInput: (v: string) => void; type?: 'text' | 'url' | 'email'; multiline?: boolean; rows?: number; inputMode?: 'numeric' | 'decimal'; size?: number; maxLength?: number; placeholder?: string; describedBy?: string; required?: boolean; autoComplete?: string },
) {
  const { id, label, hint, field, error, value, onInput, type, multiline, rows, placeholder, describedBy, ...rest } = p;
  const errs = messageFor(error, field);
  const attrs = { id, value, placeholder: placeholder || undefined, ...described(id, !!hint, errs, describedBy, field) };
  return (
    <Field id={id} label={label} hint={hint}>
      {multiline ? (
        <textarea {...attrs} rows={rows ?? 3} maxLength={rest.maxLength} onInput={(e) => onInput(e.currentTarget.value)} />
      ) : (
        <input {...rest} {...attrs} type={(type ?? 'text') as 'text'} onInput={(e) => onInput(e.currentTarget.value)} />
      )}
      <FieldMessage id={id} message={errs} />
    </Field>
  );
}

/** A colour: the picker and the same value as text (for rgb() or pasting a hex code). */
export function ColorField(p: Common & { value: string; onInput: (v: string) => void }) {
  const errs = messageFor(p.error, p.field);
  const hex = /^#[0-9a-fA-F]{6}$/.test(p.value) ? p.value : '#000000';
  return (
    <div class="field color-field">
      <label for={p.id}>{p.label}</label>
      <div class="color-pair">
        <input type="color" id={p.id} value={hex} {...described(p.id, false, errs, undefined, p.field)} onInput={(e) => p.onInput(e.currentTarget.value)} />
        <input type="text" aria-label={t('settings.colorCode', { label: p.label })} value={p.value} maxLength={40} size={10} onInput={(e) => p.onInput(e.currentTarget.value)} />
      </div>
      <FieldMessage id={p.id} message={errs} />
    </div>
  );
}

/** A checkbox with its label and hint. */
export function CheckField(p: Common & { checked: boolean; onChange: (v: boolean) => void }) {
  const errs = messageFor(p.error, p.field);
  return (
    <div class="choice">
      <input type="checkbox" id={p.id} checked={p.checked} {...described(p.id, !!p.hint, errs, undefined, p.field)} onChange={(e) => p.onChange(e.currentTarget.checked)} />
      <span>
        <label for={p.id}>{p.label}</label>
        {p.hint && (
          <span class="hint block" id={`${p.id}-hint`}>
            {p.hint}
          </span>
        )}
        <FieldMessage id={p.id} message={errs} />
      </span>
    </div>
  );
}

/** A select of `options` ([value, label] pairs). */
export function SelectField(p: Common & { value: string; options: ReadonlyArray<readonly [string, string]>; onChange: (v: string) => void }) {
  const errs = messageFor(p.error, p.field);
  return (
    <Field id={p.id} label={p.label} hint={p.hint}>
      <select id={p.id} value={p.value} {...described(p.id, !!p.hint, errs, undefined, p.field)} onChange={(e) => p.onChange(e.currentTarget.value)}>
        {p.options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      <FieldMessage id={p.id} message={errs} />
    </Field>
  );
}

/** A titled group of settings. */
export function Group({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <fieldset class="group" id={id}>
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

/** The refused request's summary (field problems are shown by their fields). */
export function SaveError({ error }: { error: unknown }) {
  return <RefusalSummary error={error} />;
}

/** Sets `value` at a dotted `path` of a copy of `obj`. */
export function setIn<T>(obj: T, path: string, value: unknown): T {
  const keys = path.split('.');
  const copy = structuredClone(obj) as Record<string, unknown>;
  let at = copy;
  for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
  at[keys[keys.length - 1]!] = value;
  return copy as T;
}

/** The value at a dotted `path` of `obj`. */
export function getIn(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}
