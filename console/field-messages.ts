// The one way a refused request's field problems reach the page: each REST per-field entry (see
// docs/errors.md: its code, and on size problems its bound) becomes a plain sentence from the
// catalogue (console/i18n/en-errors.ts), keyed first by the field's path, then by the money fields,
// then by the kind and what the bound measures. The schema's own text is never shown.
import { ApiError, type FieldError } from './api.ts';
import { en, t, type MessageKey } from './i18n/index.ts';

/** Field paths (their last segment) that hold integer minor units: their bounds are money, not counts. */
const MONEY = new Set(['amount', 'amountInCents', 'value', 'saleAmount', 'commissionAmount']);

const has = (k: string): k is MessageKey => k in en;
const last = (field: string) => field.split('.').filter((s) => !/^\d+$/.test(s)).at(-1) ?? field;
/** Our own domain checks write plain sentences; zod's defaults do not ("Too big: expected …", "Invalid input"). */
const schemaText = (m: string) => /^(Invalid|Too (big|small)|Expected|Unrecognized|Required)\b/i.test(m) || /[<>]=?\s*\d/.test(m);

/** One field problem in plain words. */
export function plainFieldMessage(e: FieldError): string {
  const name = last(e.field);
  const byPath = `err.at.${name}`;
  if (has(byPath) && e.code !== 'REQUIRED') return t(byPath);
  // A rule's own message (a pattern's "Letters, digits and _; …") is already plain: it says more than the kind can.
  if (e.code !== 'REQUIRED' && e.message && !schemaText(e.message)) return e.message;
  if (MONEY.has(name) && has(`err.money.${e.code}`)) return t(`err.money.${e.code}` as MessageKey);
  if (e.code === 'TOO_LONG' || e.code === 'TOO_SHORT') {
    const bound = e.code === 'TOO_LONG' ? e.maximum : e.minimum;
    const key = `err.${e.code}.${e.origin}`;
    if (bound !== undefined && has(key)) return t(key, { count: bound, max: bound, min: bound });
    return t(`err.${e.code}`);
  }
  if (has(`err.${e.code}`) && e.code !== 'INVALID') return t(`err.${e.code}` as MessageKey);
  return t(e.code.startsWith('INVALID_') ? 'err.INVALID_FORMAT' : 'err.INVALID');
}

/** The fields a refusal names (an entry may name several, comma-separated) with their plain messages. */
export function fieldMessages(error: unknown): Array<{ field: string; message: string }> {
  if (!(error instanceof ApiError)) return [];
  return error.errors.flatMap((e) => e.field.split(', ').map((field) => ({ field, message: plainFieldMessage(e) })));
}

/** The plain message for the control editing `field` (or anything inside it), or undefined when it was not refused. */
export function messageFor(error: unknown, field: string): string | undefined {
  const own = fieldMessages(error).filter((m) => m.field === field || m.field.startsWith(`${field}.`) || m.field.startsWith(`${field}[`));
  return own.length ? [...new Set(own.map((m) => m.message))].join(' ') : undefined;
}
