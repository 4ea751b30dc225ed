import { describe, expect, it } from 'vitest';
import { countOf, plural } from '../../shared/plural.ts';

// Issue #21: every count in owner pages and emails goes through Intl.PluralRules.
describe('plural (issue #21)', () => {
  it('says "1 referral" and "2 referrals", and formats large counts', () => {
    expect(countOf(1, 'referral')).toBe('1 referral');
    expect(countOf(0, 'referral')).toBe('0 referrals');
    expect(countOf(2, 'referral')).toBe('2 referrals');
    expect(countOf(1234, 'message')).toBe('1,234 messages');
    expect(countOf(2, 'new referred participant')).toBe('2 new referred participants');
  });

  it('takes a form per CLDR category and the locale, so other languages fit later', () => {
    const forms = { one: '{count} application waits', other: '{count} applications wait' };
    expect(plural(1, forms)).toBe('1 application waits');
    expect(plural(3, forms)).toBe('3 applications wait');
    const pl = { one: '{count} polecenie', few: '{count} polecenia', many: '{count} poleceń', other: '{count} polecenia' };
    expect([1, 2, 5, 22].map((n) => plural(n, pl, 'pl'))).toEqual(['1 polecenie', '2 polecenia', '5 poleceń', '22 polecenia']);
    expect(plural(0, { zero: 'none', other: '{count}' }, 'ar')).toBe('none');
  });
});
