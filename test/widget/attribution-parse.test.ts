// @vitest-environment happy-dom
// The attribution script's own URL parser (widget/attribution/parse.ts, written for bytes) against
// the rules of shared/attribution.ts that the server uses (seed Mobile rules 1–2): property-based.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UTM_KEYS, parseAttributionUrl, type Attribution } from '../../shared/attribution.ts';
import { cleanUrl, parse } from '../../widget/attribution/parse.ts';
import { MAY_CARRY_ATTRIBUTION } from '../../widget/attribution/start.ts';
import { uuid } from '../../widget/attribution/common.ts';

const paramKey = fc.oneof(
  fc.constantFrom('grsf', 'GRSF', 'ref', 'referredBy', 'click_id', 'clickid', '~click_id', 'grsf_click_id', '~clickid', 'unique', 'utm_source', 'UTM_Medium', 'utm_x', 'utm_', 'gclid', 'link'),
  fc.string(),
);
const paramValue = fc.oneof(
  fc.string(),
  fc.stringMatching(/^[\w-]{1,70}$/),
  fc.constantFrom('1', 'true', 'FALSE', '0', 'yes', ' \u0001news\u007f '),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.webUrl({ withQueryParameters: true, withFragments: true }).map((u) => `${u}${u.includes('?') ? '&' : '?'}grsf=abc123`),
  fc.constantFrom('product/1?grsf=path1', '?ref=q1', '#grsf=f1', 'https://grow.surf/share/prog1/part1'),
);
const query = fc.array(fc.tuple(paramKey, paramValue), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
/** Landing URLs with our parameters, nested links, fragments, hosted share paths and plain junk. */
const landing = fc.oneof(
  fc.string(),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.tuple(fc.webUrl(), query, fc.oneof(fc.string(), query.map((q) => `/route?${q}`), query)).map(([base, q, frag]) => `${base}?${q}#${frag}`),
  fc.tuple(fc.constantFrom('https://grow.surf', 'http://shop.test'), fc.stringMatching(/^[\w-]{1,8}$/), fc.stringMatching(/^[\w-]{1,8}$/), query).map(([h, c, p, q]) => `${h}/share/${c}/${p}?${q}`),
);
const referrer = fc.oneof(fc.constant(''), fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true }));

function assertSafe(a: Attribution | null): void {
  if (!a) return;
  for (const url of [a.destination, a.referrer]) {
    if (url === undefined) continue;
    expect(url).not.toMatch(/[?#]/);
    expect(url.length).toBeLessThanOrEqual(2048);
  }
  for (const k of Object.keys(a.utm)) expect(UTM_KEYS as readonly string[]).toContain(k);
  for (const v of Object.values(a.utm)) expect(v).not.toMatch(/[\u0000-\u001f\u007f]/);
  if (a.referralCode !== undefined) expect(a.referralCode).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
}

describe('widget attribution parser', () => {
  it('never throws and never keeps a query string, a fragment or a UTM key outside the allowlist, for any string', () => {
    fc.assert(
      fc.property(landing, referrer, (url, ref) => {
        assertSafe(parse(url, ref));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with shared/attribution.ts (the server’s parser) on every generated landing URL', () => {
    fc.assert(
      fc.property(landing, referrer, (url, ref) => {
        expect(parse(url, ref)).toEqual(parseAttributionUrl(url, { referrer: ref }));
      }),
      { numRuns: 3000 },
    );
  });

  it('is only skipped for URLs that carry nothing: the cheap pre-check never misses an attribution', () => {
    fc.assert(
      fc.property(landing, (url) => {
        if (parse(url, '')) expect(MAY_CARRY_ATTRIBUTION.test(url)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(MAY_CARRY_ATTRIBUTION.test('https://shop.test/products/shoes')).toBe(false);
  });

  it('reads the Mobile rules’ inputs: codes by precedence, nesting, fragments, hosted links, click metadata and UTM values', () => {
    const inner = encodeURIComponent('https://shop.test/p?grsf=nested1&utm_campaign=spring');
    expect(parse(`https://a.test/landing?link=${inner}#top`, 'https://news.test/a?b=c')).toEqual({
      referralCode: 'nested1',
      utm: { utm_campaign: 'spring' },
      destination: 'https://a.test/landing',
      referrer: 'https://news.test/a',
    });
    expect(parse('https://a.test/?ref=r1&referredBy=r2&grsf=g1', '')?.referralCode).toBe('g1');
    expect(parse('https://a.test/?ref=r1&referredBy=r2', '')?.referralCode).toBe('r2');
    expect(parse('https://spa.test/#/signup?grsf=frag1', '')?.referralCode).toBe('frag1');
    expect(parse('https://grow.surf/share/prog1/part1?grsf=other', '')).toMatchObject({ campaignId: 'prog1', referralCode: 'part1' });
    expect(parse('https://a.test/?grsf_click_id=c-9&unique=true&utm_source=%01news', '')).toMatchObject({ clickId: 'c-9', unique: true, utm: { utm_source: 'news' } });
    expect(parse('https://shop.test/page?q=1#x', '')).toBeNull();
    expect(parse('https://shop.test/?grsf=' + 'x'.repeat(65), '')).toBeNull();
    expect(parse('not a url', '')).toBeNull();
  });

  it('reduces URLs to scheme, host and path and refuses script URLs', () => {
    expect(cleanUrl('https://user:pw@Example.com:8443/a/b?c=1#d')).toBe('https://example.com:8443/a/b');
    expect(cleanUrl('javascript:alert(1)')).toBeUndefined();
    expect(cleanUrl('data:text/html,hi')).toBeUndefined();
    expect(cleanUrl('/relative?x')).toBeUndefined();
    expect(cleanUrl(`https://a.test/${'p'.repeat(2100)}`)).toBeUndefined();
  });
});

describe('widget visit ids', () => {
  it('are lower-case version-7 UUIDs that sort by time and differ', () => {
    const ids = Array.from({ length: 200 }, () => uuid());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const t = Date.now().toString(16).padStart(12, '0');
    expect(ids.at(-1)!.replace('-', '').slice(0, 12) <= t).toBe(true);
    expect(ids.at(-1)!.replace('-', '').slice(0, 8)).toBe(t.slice(0, 8));
  });
});
