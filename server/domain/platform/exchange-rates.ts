import type { Config } from '../../config.ts';

// Currency conversion for affiliate money: only with the operator's own rate table
// (EXCHANGE_RATES_FILE, docs/decisions.md "Affiliate money"); we never fetch rates from anywhere.

const digitsCache = new Map<string, number>();

/** Minor-unit digits of an ISO 4217 currency (USD 2, JPY 0, KWD 3), from the platform's ICU data. */
export function fractionDigits(iso: string): number {
  let d = digitsCache.get(iso);
  if (d === undefined) {
    d = new Intl.NumberFormat('en', { style: 'currency', currency: iso }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(iso, d);
  }
  return d;
}

/**
 * Rounds half away from zero to an integer. The value is first cut to 15 significant digits so that
 * binary noise (2.675 stored as 2.67499999…) does not decide a half cent.
 */
export function roundHalfUp(x: number): number {
  const clean = Number(Math.abs(x).toPrecision(15));
  const r = Math.floor(clean + 0.5);
  return x < 0 ? -r : r;
}

/** A conversion rate between two currencies in major units, with the table's as-of time. */
export interface Rate {
  rate: number;
  at: number;
}

/** Converts minor units of one currency into minor units of another at a major-unit rate, half-up. */
export function convertMinor(amount: number, from: string, to: string, rate: number): number {
  if (from === to) return amount;
  return roundHalfUp(amount * rate * 10 ** (fractionDigits(to) - fractionDigits(from)));
}

/**
 * The operator's rate table: `rates[C]` is how many C one unit of `base` buys. Cross rates go
 * through the base. A currency missing from the table cannot be converted (AF8 answers 400).
 */
export class ExchangeRates {
  constructor(private readonly table: Config['exchangeRates']) {}

  /** The rate from one currency to another, or null when the table does not cover both. */
  rate(from: string, to: string): Rate | null {
    if (from === to) return { rate: 1, at: this.table?.asOf ?? 0 };
    const t = this.table;
    if (!t) return null;
    const a = from === t.base ? 1 : t.rates[from];
    const b = to === t.base ? 1 : t.rates[to];
    if (!a || !b) return null;
    return { rate: Number((b / a).toPrecision(12)), at: t.asOf };
  }

  /** Minor units of `from` in minor units of `to`, with the rate used; null when not covered. */
  convert(amount: number, from: string, to: string): { amount: number; rate: number; at: number } | null {
    const r = this.rate(from, to);
    return r ? { amount: convertMinor(amount, from, to, r.rate), rate: r.rate, at: r.at } : null;
  }
}

/** Minor units as a reader sees them in an email ("$12.34", "¥1,500"). */
export function formatMoney(amount: number, iso: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency: iso }).format(amount / 10 ** fractionDigits(iso));
}
