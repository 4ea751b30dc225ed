import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CellError, dateCell, moneyCell } from '../../../server/domain/imports/csv-values.ts';

// Issue #33 part 4: the cells of other products' exports. Any amount a dashboard writes in its
// currency reads back as the same minor units; anything else is refused with a CellError, never
// another exception and never a guess.

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'KWD'];

describe('moneyCell', () => {
  it('reads every amount as en-US formatting writes it, with or without symbol and grouping', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000_000 }), fc.constantFrom(...CURRENCIES), fc.constantFrom('symbol', 'code', 'none'), fc.boolean(), (minor, iso, display, grouping) => {
        const digits = new Intl.NumberFormat('en', { style: 'currency', currency: iso }).resolvedOptions().maximumFractionDigits!;
        const f = new Intl.NumberFormat('en-US', display === 'none' ? { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: grouping } : { style: 'currency', currency: iso, currencyDisplay: display, useGrouping: grouping });
        const text = f.format(minor / 10 ** digits);
        // A grouped three-decimal amount without decimals cannot occur (the decimals are always written).
        expect(moneyCell(text, iso)).toBe(minor);
      }),
    );
  });

  it('refuses the readings that depend on the locale, signs and foreign symbols', () => {
    for (const [cell, iso] of [['12,50', 'EUR'], ['1.234,56', 'EUR'], ['1,234', 'KWD'], ['12.5', 'JPY'], ['-3.00', 'USD'], ['€12', 'USD'], ['(12.00)', 'USD'], ['', 'USD']]) {
      expect(() => moneyCell(cell!, iso!), cell).toThrow(CellError);
    }
    expect(moneyCell('1250', 'USD', true)).toBe(1250);
    expect(() => moneyCell('12.50', 'USD', true)).toThrow(CellError);
  });

  it('throws nothing but a CellError for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.constantFrom(...CURRENCIES), (s, iso) => {
        try {
          const v = moneyCell(s, iso);
          expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(CellError);
        }
      }),
    );
  });
});

describe('dateCell', () => {
  it('reads ISO 8601 with and without a zone, and written months, as the same instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2100, 0, 1) }), (t) => {
        const iso = new Date(t).toISOString();
        expect(dateCell(iso)).toBe(t);
        expect(dateCell(iso.replace('T', ' ').replace('Z', ' UTC'))).toBe(t);
        const day = Math.floor(t / 86_400_000) * 86_400_000;
        expect(dateCell(iso.slice(0, 10))).toBe(day);
        const d = new Date(day);
        expect(dateCell(`${d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${d.getUTCDate()}, ${d.getUTCFullYear()}`)).toBe(day);
      }),
    );
    expect(dateCell('2024-01-31T23:00:00-05:00')).toBe(Date.parse('2024-02-01T04:00:00Z'));
  });

  it('refuses slash dates and days that do not exist', () => {
    for (const s of ['04/03/2024', '2024-02-30', '2024-13-01', 'yesterday', '']) expect(() => dateCell(s), s).toThrow(CellError);
  });
});
