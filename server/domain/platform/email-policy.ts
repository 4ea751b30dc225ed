import { createRequire } from 'node:module';
import type { FieldError } from '../../../shared/errors.ts';

const require = createRequire(import.meta.url);
// Maintained lists: free-mail providers (email-providers) and disposable domains (disposable-email-domains).
const FREE: Set<string> = new Set(require('email-providers/all.json') as string[]);
const DISPOSABLE: Set<string> = new Set(require('disposable-email-domains') as string[]);
const DISPOSABLE_WILDCARD: Set<string> = new Set(require('disposable-email-domains/wildcard.json') as string[]);

/** The domain and each of its parents: a.b.example.com → a.b.example.com, b.example.com, example.com. */
function withParents(domain: string): string[] {
  const parts = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i < parts.length - 1; i++) out.push(parts.slice(i).join('.'));
  return out;
}

/** Returns a per-field error when the address is not a business email, else null. */
export function businessEmailProblem(email: string, field = 'email'): FieldError | null {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const candidates = withParents(domain);
  if (candidates.some((d) => DISPOSABLE.has(d) || DISPOSABLE_WILDCARD.has(d))) {
    return { field, code: 'DISPOSABLE_EMAIL', message: 'Disposable email addresses are not accepted. Use your work email address.' };
  }
  if (candidates.some((d) => FREE.has(d))) {
    return { field, code: 'PERSONAL_EMAIL', message: 'Personal email addresses are not accepted. Use your work email address.' };
  }
  return null;
}

/** True when the address's domain (or a parent of it) is a known disposable-mail provider; anti-fraud's burner check. */
export function isDisposableEmail(email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return withParents(domain).some((d) => DISPOSABLE.has(d) || DISPOSABLE_WILDCARD.has(d));
}
