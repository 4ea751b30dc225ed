import type { z } from 'zod';
import type { FieldError } from './errors.ts';

// zod issues as the error object's per-field details: the REST pipeline's 400s and the CSV import's
// per-line report use the same codes and messages.

/** Converts zod issues into the error object's per-field details; `input` tells a missing field from a wrong one. */
export function fieldErrors(error: z.ZodError, root?: string, input?: unknown): FieldError[] {
  const missing = (path: PropertyKey[]) => {
    let v: unknown = input;
    for (const k of path) {
      if (v == null || typeof v !== 'object') return true;
      v = (v as Record<PropertyKey, unknown>)[k];
    }
    return v === undefined;
  };
  return error.issues.map((i) => {
    const prefix = [root, ...i.path.map(String)].filter(Boolean).join('.');
    if (i.code === 'unrecognized_keys') {
      const keys = (i as { keys: string[] }).keys;
      return { field: keys.map((k) => (prefix ? `${prefix}.${k}` : k)).join(', '), code: 'UNKNOWN_FIELD', message: `Unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}` };
    }
    let code = 'INVALID';
    if ((i.code === 'invalid_type' || i.code === 'invalid_value') && missing(i.path)) code = 'REQUIRED';
    else if (i.code === 'invalid_type') code = 'INVALID_TYPE';
    else if (i.code === 'invalid_value') code = 'INVALID_VALUE';
    else if (i.code === 'too_big') code = 'TOO_LONG';
    else if (i.code === 'too_small') code = 'TOO_SHORT';
    else if (i.code === 'invalid_format') code = `INVALID_${String((i as { format?: string }).format ?? 'FORMAT').toUpperCase()}`;
    // A map key the schema refuses (design countryLabels): the key's own rule says why, not "Invalid key in record".
    const message = i.code === 'invalid_key' ? ((i as { issues?: Array<{ message: string }> }).issues?.[0]?.message ?? i.message) : i.message;
    return { field: prefix || 'body', code, message: code === 'REQUIRED' ? 'Required.' : message, ...boundsOf(i) };
  });
}

/**
 * A size issue's bound and what it measures, added to its per-field entry (a compatible refloop
 * extension) so a client can say "at most 500 characters" without parsing the message.
 */
export function boundsOf(i: z.core.$ZodIssue): { maximum?: number; minimum?: number; origin?: string } {
  if (i.code !== 'too_big' && i.code !== 'too_small') return {};
  const bound = Number(i.code === 'too_big' ? i.maximum : i.minimum);
  if (!Number.isFinite(bound)) return { origin: i.origin };
  return i.code === 'too_big' ? { maximum: bound, origin: i.origin } : { minimum: bound, origin: i.origin };
}
