// Money asked the way people count it: in currency units ("12.50") with the currency shown before
// the box, sent as the integer minor units the REST API takes (1250), and a saved amount shown back
// in units. The currency's digits come from Intl (0 for JPY, 3 for KWD), as the server counts them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Field } from './ui.tsx';
import { messageFor } from './field-messages.ts';
import { described, FieldMessage } from './pages/settings-kit.tsx';

/** The currency's minor-unit digits (2 for USD, 0 for JPY, 3 for KWD), as Intl and the server count them. */
export function currencyDigits(iso: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: iso }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** "25.50" in a currency with 2 digits → 2550; null when the text is not such an amount. */
export function toMinor(typed: string, digits: number): number | null {
  const m = /^(\d{1,12})(?:[.,](\d*))?$/.exec(typed.trim());
  if (!m || (m[2] ?? '').length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || 0);
}

/** Minor units shown as an amount to edit: 2550 → "25.50". */
export const fromMinor = (minor: number, digits: number) => (minor / 10 ** digits).toFixed(digits);

/**
 * An amount in `currency`'s units with the currency as a prefix. `onChange` gets integer minor units,
 * null when emptied, or the text itself when it is no amount (so the API's refusal says what is wrong).
 */
export function MoneyInput(p: { id: string; field: string; error: unknown; label: string; hint?: string; currency: string; minor: number | null | undefined; onChange: (v: number | string | null) => void }) {
  const digits = currencyDigits(p.currency);
  const [typed, setTyped] = useState(() => (typeof p.minor === 'number' ? fromMinor(p.minor, digits) : ''));
  const message = messageFor(p.error, p.field);
  // Another currency has other digits: what is typed is counted again in the new one.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) return void (first.current = false);
    if (typed.trim()) p.onChange(toMinor(typed, digits) ?? typed);
  }, [digits]);
  return (
    <Field id={p.id} label={p.label} hint={p.hint}>
      <div class="money">
        <span class="money-currency" id={`${p.id}-currency`}>
          {p.currency}
        </span>
        <input
          id={p.id}
          inputMode="decimal"
          size={12}
          maxLength={20}
          value={typed}
          {...described(p.id, !!p.hint, message, `${p.id}-currency`, p.field)}
          onInput={(e) => {
            const v = e.currentTarget.value;
            setTyped(v);
            p.onChange(v.trim() === '' ? null : (toMinor(v, digits) ?? v));
          }}
        />
      </div>
      <FieldMessage id={p.id} message={message} />
    </Field>
  );
}
