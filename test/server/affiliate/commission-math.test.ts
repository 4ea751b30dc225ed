import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { commissionFor, monthsBetween, percentOf, proportion, type SaleContext } from '../../../server/domain/affiliate/commission-math.ts';
import { convertMinor, roundHalfUp } from '../../../server/domain/platform/exchange-rates.ts';
import type { CommissionStructure } from '../../../shared/schemas/reward-config.ts';

// The pure commission math (issue #6): table-driven over the structure's options.

const BASE: CommissionStructure = {
  type: 'PERCENT',
  percent: 20,
  amount: null,
  amountISO: null,
  event: 'SALE',
  minPaidReferrals: 1,
  holdDuration: 0,
  duration: 'FOREVER',
  durationInMonths: null,
  approvalRequired: false,
  hasMaxAmount: false,
  maxAmount: null,
  maxAmountISO: null,
  hasIntro: false,
  introType: null,
  introPercent: null,
  introAmount: null,
  introAmountISO: null,
  introDuration: null,
  introDurationInMonths: null,
};

/** 1 EUR = 1.25 USD, for structure amounts given in USD on EUR sales. */
const convert = (amount: number, iso: string) => (iso === 'EUR' ? amount : convertMinor(amount, iso, 'EUR', 0.8));
const SALE: SaleContext = { event: 'SALE', saleAmount: 10_000, currency: 'EUR', saleIndex: 0, monthsSinceFirstSale: 0, earnedSoFar: 0, convert };

const cases: Array<{ name: string; s: Partial<CommissionStructure>; sale?: Partial<SaleContext>; amount: number | null; intro?: boolean; capped?: boolean }> = [
  { name: 'percent of the sale', s: {}, amount: 2000 },
  { name: 'fractional percent, half-up to the cent (12.5 % of 10.05 = 1.25625)', s: { percent: 12.5 }, sale: { saleAmount: 1005 }, amount: 126 },
  { name: '2.5 % of 1.01 is 2.525 cents and rounds up to 3', s: { percent: 2.5 }, sale: { saleAmount: 101 }, amount: 3 },
  { name: 'just under a half cent rounds down (2.5 % of 0.99 = 2.475 cents)', s: { percent: 2.5 }, sale: { saleAmount: 99 }, amount: 2 },
  { name: 'a percent that rounds to zero earns nothing', s: { percent: 1 }, sale: { saleAmount: 49 }, amount: null },
  { name: 'fixed amount in the sale currency', s: { type: 'FIXED', percent: null, amount: 700, amountISO: 'EUR' }, amount: 700 },
  { name: 'fixed amount in another currency is converted', s: { type: 'FIXED', percent: null, amount: 1000, amountISO: 'USD' }, amount: 800 },
  { name: 'ONCE pays the first sale', s: { duration: 'ONCE' }, amount: 2000 },
  { name: 'ONCE pays nothing on the second sale', s: { duration: 'ONCE' }, sale: { saleIndex: 1 }, amount: null },
  { name: 'REPEATING 3 months pays in month 2', s: { duration: 'REPEATING', durationInMonths: 3 }, sale: { saleIndex: 5, monthsSinceFirstSale: 2 }, amount: 2000 },
  { name: 'REPEATING 3 months stops in month 3', s: { duration: 'REPEATING', durationInMonths: 3 }, sale: { saleIndex: 6, monthsSinceFirstSale: 3 }, amount: null },
  { name: 'FOREVER pays after years', s: { duration: 'FOREVER' }, sale: { saleIndex: 60, monthsSinceFirstSale: 60 }, amount: 2000 },
  { name: 'ONCE intro applies to the first sale', s: { hasIntro: true, introType: 'PERCENT', introPercent: 50, introDuration: 'ONCE' }, amount: 5000, intro: true },
  { name: 'ONCE intro is over on the second sale', s: { hasIntro: true, introType: 'PERCENT', introPercent: 50, introDuration: 'ONCE' }, sale: { saleIndex: 1 }, amount: 2000, intro: false },
  {
    name: 'REPEATING intro for 2 months with a FIXED amount',
    s: { hasIntro: true, introType: 'FIXED', introAmount: 300, introAmountISO: 'EUR', introDuration: 'REPEATING', introDurationInMonths: 2 },
    sale: { saleIndex: 3, monthsSinceFirstSale: 1 },
    amount: 300,
    intro: true,
  },
  {
    name: 'REPEATING intro ends after its months',
    s: { hasIntro: true, introType: 'FIXED', introAmount: 300, introAmountISO: 'EUR', introDuration: 'REPEATING', introDurationInMonths: 2 },
    sale: { saleIndex: 4, monthsSinceFirstSale: 2 },
    amount: 2000,
    intro: false,
  },
  { name: 'max amount caps one commission', s: { hasMaxAmount: true, maxAmount: 1500, maxAmountISO: 'EUR' }, amount: 1500, capped: true },
  { name: 'max amount counts what the customer already earned', s: { hasMaxAmount: true, maxAmount: 2500, maxAmountISO: 'EUR' }, sale: { earnedSoFar: 2000, saleIndex: 1 }, amount: 500, capped: true },
  { name: 'max amount reached earns nothing', s: { hasMaxAmount: true, maxAmount: 2500, maxAmountISO: 'EUR' }, sale: { earnedSoFar: 2500, saleIndex: 2 }, amount: null },
  { name: 'max amount in another currency is converted (USD 10 = EUR 8)', s: { hasMaxAmount: true, maxAmount: 1000, maxAmountISO: 'USD' }, amount: 800, capped: true },
  { name: 'a LEAD structure earns nothing on a sale', s: { event: 'LEAD', type: 'FIXED', percent: null, amount: 500 }, amount: null },
  { name: 'a LEAD structure pays its fixed amount on a lead', s: { event: 'LEAD', type: 'FIXED', percent: null, amount: 500, amountISO: 'EUR' }, sale: { event: 'LEAD', saleAmount: 0 }, amount: 500 },
  { name: 'a CLICK structure never pays on sales', s: { event: 'CLICK', type: 'FIXED', percent: null, amount: 5 }, amount: null },
];

describe('commissionFor', () => {
  for (const c of cases) {
    it(c.name, () => {
      const out = commissionFor({ ...BASE, ...c.s }, { ...SALE, ...c.sale });
      if (c.amount === null) expect(out).toBeNull();
      else expect(out).toEqual({ amount: c.amount, intro: c.intro ?? false, capped: c.capped ?? false });
    });
  }

  it('never exceeds the sale for percents up to 100 and is always an integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e12 }), fc.double({ min: 0, max: 100, noNaN: true }), (amount, percent) => {
        const v = percentOf(amount, percent);
        return Number.isInteger(v) && v >= 0 && v <= amount;
      }),
    );
  });
});

describe('rounding helpers', () => {
  it('rounds half away from zero, exactly on integers', () => {
    expect(percentOf(1, 50)).toBe(1); // 0.5 → 1
    expect(percentOf(3, 50)).toBe(2); // 1.5 → 2
    expect(percentOf(5, 50)).toBe(3); // 2.5 → 3 (half-up, not banker's 2)
    expect(proportion(1000, 1, 3)).toBe(333);
    expect(proportion(1000, 2, 3)).toBe(667);
    expect(proportion(5, 1, 2)).toBe(3);
    expect(proportion(-5, 1, 2)).toBe(-3);
    expect(roundHalfUp(2.675 * 100)).toBe(268); // binary 267.49999… still rounds up
    expect(roundHalfUp(-0.5)).toBe(-1);
  });

  it('converts between currencies with different minor units', () => {
    expect(convertMinor(1500, 'JPY', 'USD', 1 / 150)).toBe(1000); // ¥1,500 = $10.00
    expect(convertMinor(1000, 'USD', 'JPY', 150)).toBe(1500);
    expect(convertMinor(1000, 'USD', 'KWD', 0.3)).toBe(3000); // three-digit minor unit
  });

  it('counts whole calendar months from the first sale', () => {
    const jan15 = Date.UTC(2026, 0, 15, 12);
    expect(monthsBetween(jan15, Date.UTC(2026, 1, 15, 11))).toBe(0);
    expect(monthsBetween(jan15, Date.UTC(2026, 1, 15, 12))).toBe(1);
    expect(monthsBetween(jan15, Date.UTC(2027, 0, 15, 12))).toBe(12);
    expect(monthsBetween(Date.UTC(2026, 0, 31), Date.UTC(2026, 1, 28))).toBe(0);
    expect(monthsBetween(jan15, jan15 - 1)).toBe(0);
  });
});
