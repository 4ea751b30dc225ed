import type { CommissionStructure } from '../../../shared/schemas/reward-config.ts';

// The pure commission math (issue #6). Integer minor units throughout; the one rounding is
// half-up (half away from zero) to the sale currency's minor unit, done exactly on integers.

/** What a commission is computed from: one sale (or lead) and what came before it. */
export interface SaleContext {
  /** SALE or LEAD; a structure for the other event earns nothing. */
  event: 'SALE' | 'LEAD';
  /** Commissionable amount in minor units of `currency` (0 for a lead). */
  saleAmount: number;
  currency: string;
  /** 0 for the customer's first sale credited to this affiliate, 1 for the second … */
  saleIndex: number;
  /** Whole calendar months between the customer's first credited sale and this one (see `monthsBetween`). */
  monthsSinceFirstSale: number;
  /** What this customer already earned the affiliate under this structure (minor units of `currency`), for the cap. */
  earnedSoFar: number;
  /** Converts a structure amount (FIXED amount, intro amount, cap) from its ISO currency into `currency`. */
  convert(amount: number, iso: string): number;
}

/** One computed commission. */
export interface CommissionAmount {
  amount: number;
  /** The intro rate applied. */
  intro: boolean;
  /** The cap (maxAmount) cut it. */
  capped: boolean;
}

/** `amount × percent / 100` rounded half-up, exactly: the percent is taken to millionths of a percent. */
export function percentOf(amount: number, percent: number): number {
  const micro = BigInt(Math.round(percent * 1_000_000));
  const num = BigInt(amount) * micro;
  const den = 100_000_000n;
  const q = (2n * num + (num >= 0n ? den : -den)) / (2n * den);
  return Number(q);
}

/** `amount × part / whole` rounded half-up, exactly (refunds scale a commission by what is left of the sale). */
export function proportion(amount: number, part: number, whole: number): number {
  if (whole <= 0) return 0;
  const num = BigInt(amount) * BigInt(part);
  const den = BigInt(whole);
  const abs = num < 0n ? -num : num;
  const q = (2n * abs + den) / (2n * den);
  return Number(num < 0n ? -q : q);
}

/** Whole calendar months from `from` to `to` (UTC): Jan 15 → Feb 14 is 0, → Feb 15 is 1. */
export function monthsBetween(from: number, to: number): number {
  if (to <= from) return 0;
  const a = new Date(from);
  const b = new Date(to);
  let m = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  const inMonth = (d: Date) => d.getTime() - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  if (inMonth(b) < inMonth(a)) m -= 1;
  return Math.max(0, m);
}

/** Whether a recurrence (`ONCE`, `REPEATING` for N months, `FOREVER`) still covers this sale. */
function covers(duration: 'ONCE' | 'REPEATING' | 'FOREVER' | null, months: number | null, sale: SaleContext): boolean {
  if (duration === 'ONCE') return sale.saleIndex === 0;
  if (duration === 'REPEATING') return sale.monthsSinceFirstSale < (months ?? 0);
  return true;
}

/**
 * The commission one sale (or lead) earns under a commission structure (rest-v2 §2.7), or null
 * when it earns nothing: another event, outside `duration`, a zero amount, or the cap already
 * reached. The intro rate replaces the regular one while `introDuration` covers the sale. The cap
 * (`maxAmount`) is per referred customer: all their commissions under this structure together.
 */
export function commissionFor(s: CommissionStructure, sale: SaleContext): CommissionAmount | null {
  if ((s.event ?? 'SALE') !== sale.event) return null;
  if (!covers(s.duration, s.durationInMonths, sale)) return null;
  const intro = s.hasIntro && s.introType != null && covers(s.introDuration, s.introDurationInMonths, sale);
  const type = intro ? s.introType! : s.type;
  let amount: number;
  if (type === 'PERCENT') {
    if (sale.event !== 'SALE') return null;
    amount = percentOf(sale.saleAmount, (intro ? s.introPercent : s.percent) ?? 0);
  } else {
    const fixed = intro ? s.introAmount : s.amount;
    const iso = (intro ? s.introAmountISO : s.amountISO) ?? sale.currency;
    amount = fixed == null ? 0 : sale.convert(fixed, iso);
  }
  let capped = false;
  if (s.hasMaxAmount && s.maxAmount != null) {
    const room = Math.max(0, sale.convert(s.maxAmount, s.maxAmountISO ?? sale.currency) - sale.earnedSoFar);
    if (amount > room) {
      amount = room;
      capped = true;
    }
  }
  return amount > 0 ? { amount, intro, capped } : null;
}
