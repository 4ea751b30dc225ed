import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { visitCreate } from '../../../shared/schemas/mobile.ts';
import { fastVisitBody } from '../../../server/http/mobile/fast-visit.ts';
import { UTM_KEYS } from '../../../shared/attribution.ts';

// Issue #5 performance: the hand-written visit-body check must never accept what zod refuses, and
// must return exactly what zod returns for what it accepts.

const idChars = fc.constantFrom(...'abcXYZ019_-'.split(''));
const validId = (min: number, max: number) => fc.string({ unit: idChars, minLength: min, maxLength: max });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Mostly valid, sometimes not: both directions get exercised. */
const mostly = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: valid, weight: 9 }, { arbitrary: invalid, weight: 1 });
const rarely = (a: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 15 }, { arbitrary: a, weight: 1 });
const junk = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 10 }), fc.array(fc.integer(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
const url = fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string({ maxLength: 40 }), fc.constant(' https://x.test/a?b#c '), fc.constant('javascript:alert(1)'));
const utmValue = fc.oneof(fc.string({ maxLength: 300 }), fc.constant(' a\u0000b\u001f '), fc.string({ minLength: 1020, maxLength: 1030 }));
const utm = fc.oneof(
  fc.dictionary(fc.constantFrom(...UTM_KEYS), utmValue, { maxKeys: 4 }),
  fc.dictionary(fc.oneof(fc.constantFrom(...UTM_KEYS), fc.string({ maxLength: 6 })), fc.oneof(utmValue, junk), { maxKeys: 3 }),
  junk,
);
const attribution = fc.oneof(
  fc.constant(null),
  fc.record(
    {
      referralCode: mostly(validId(1, 64), fc.oneof(validId(65, 70), junk)),
      campaignId: mostly(validId(1, 64), junk),
      clickId: mostly(fc.string({ unit: fc.constantFrom('a', '~', '!', '0'), minLength: 1, maxLength: 130 }), fc.oneof(fc.constant('a b'), junk)),
      unique: mostly(fc.boolean(), junk),
      utm,
      destination: mostly(url, junk),
      referrer: mostly(url, junk),
      bogus: rarely(junk),
    },
    { requiredKeys: [] },
  ),
  junk,
);
const body = fc.oneof(
  fc.record(
    {
      visitId: mostly(validId(8, 64), fc.oneof(validId(0, 7), validId(65, 70), junk)),
      attribution,
      provider: mostly(fc.constantFrom('branch', 'adjust', 'appsflyer', 'singular'), fc.oneof(fc.constantFrom('Branch', 'other'), junk)),
      firstVisit: mostly(fc.string({ maxLength: 260 }), junk),
      extra: rarely(junk),
    },
    { requiredKeys: ['visitId', 'attribution'] },
  ),
  junk,
);

describe('fastVisitBody (the hot-path check of POST /mobile/v2/visits)', () => {
  it('accepts only what zod accepts and returns what zod returns', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (generated) => {
        const input = JSON.parse(JSON.stringify(generated ?? null));
        const fast = fastVisitBody(input);
        const slow = visitCreate.safeParse(input);
        if (fast !== null) {
          accepted++;
          expect(slow.success).toBe(true);
          expect(fast).toEqual(slow.data);
        }
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(20);
  });

  it('takes every plainly valid body without zod', () => {
    fc.assert(
      fc.property(
        validId(8, 64),
        maybe(validId(1, 64)),
        maybe(fc.dictionary(fc.constantFrom(...UTM_KEYS), fc.string({ maxLength: 300 }), { maxKeys: 3 })),
        maybe(fc.webUrl({ withQueryParameters: true })),
        maybe(fc.constantFrom('branch', 'adjust', 'appsflyer', 'singular')),
        (visitId, referralCode, utmValues, destination, provider) => {
          const a = JSON.parse(JSON.stringify({ referralCode, utm: utmValues, destination }));
          const input = JSON.parse(JSON.stringify({ visitId, attribution: a, provider }));
          const slow = visitCreate.safeParse(input);
          expect(slow.success).toBe(true);
          expect(fastVisitBody(input)).toEqual(slow.data);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves a missing attribution, an unknown key and a prototype key to zod', () => {
    expect(fastVisitBody({ visitId: 'abcdefgh' })).toBeNull();
    expect(fastVisitBody({ visitId: 'abcdefgh', attribution: null, x: 1 })).toBeNull();
    expect(fastVisitBody(JSON.parse('{"visitId":"abcdefgh","attribution":{"__proto__":{"a":1}}}'))).toBeNull();
    expect(fastVisitBody({ visitId: 'abcdefgh', attribution: null })).toEqual({ visitId: 'abcdefgh', attribution: null });
  });
});
