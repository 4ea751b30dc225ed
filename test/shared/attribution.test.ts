import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UTM_KEYS, cleanUrl, newVisitId, parseAttributionParams, parseAttributionUrl, type Attribution } from '../../shared/attribution.ts';

// Issue #5, seed Mobile rules 1–2: the attribution parser takes untrusted input from page URLs and
// provider payloads.

function assertSafe(a: Attribution | null): void {
  if (!a) return;
  for (const url of [a.destination, a.referrer]) {
    if (url !== undefined) {
      expect(url).not.toMatch(/[?#]/);
      expect(url.length).toBeLessThanOrEqual(2048);
    }
  }
  for (const k of Object.keys(a.utm)) expect(UTM_KEYS as readonly string[]).toContain(k);
  for (const v of Object.values(a.utm)) expect(v).not.toMatch(/[\u0000-\u001f]/);
  if (a.referralCode !== undefined) expect(a.referralCode).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
}

const paramKey = fc.oneof(fc.constantFrom('grsf', 'ref', 'referredBy', 'click_id', 'unique', 'utm_source', 'utm_x', 'gclid', 'af_dp', '~referring_link', 'deep_link_value'), fc.string());
const paramValue = fc.oneof(
  fc.string(),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.webUrl({ withQueryParameters: true, withFragments: true }).map((u) => `${u}${u.includes('?') ? '&' : '?'}grsf=abc123`),
);
/** URLs with our parameters, nested links and arbitrary junk. */
const urlish = fc.oneof(
  fc.string(),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.tuple(fc.webUrl(), fc.array(fc.tuple(paramKey, paramValue), { maxLength: 6 }), fc.string()).map(
    ([base, pairs, frag]) => `${base}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}#${frag}`,
  ),
);

describe('parseAttributionUrl', () => {
  it('never throws, keeps no query string or fragment, and keeps only allowlisted UTM keys for any string', () => {
    fc.assert(
      fc.property(urlish, fc.oneof(fc.string(), urlish), (url, referrer) => {
        assertSafe(parseAttributionUrl(url, { referrer }));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads grsf, click metadata and UTM values and reduces the URLs to origin and path', () => {
    const a = parseAttributionUrl('https://Shop.example.com/landing/page?grsf=abc123&click_id=c-9&unique=1&utm_source=news&utm_medium=email&gclid=zzz#top', {
      referrer: 'https://news.example.org/post/1?id=7#c',
    });
    expect(a).toEqual({
      referralCode: 'abc123',
      clickId: 'c-9',
      unique: true,
      utm: { utm_source: 'news', utm_medium: 'email' },
      destination: 'https://shop.example.com/landing/page',
      referrer: 'https://news.example.org/post/1',
    });
  });

  it('prefers grsf over referredBy over ref', () => {
    expect(parseAttributionUrl('https://a.test/?ref=r1&referredBy=r2&grsf=g1')?.referralCode).toBe('g1');
    expect(parseAttributionUrl('https://a.test/?ref=r1&referredBy=r2')?.referralCode).toBe('r2');
    expect(parseAttributionUrl('https://a.test/?ref=r1')?.referralCode).toBe('r1');
  });

  it('finds a referral code nested in a URL-like parameter value and in the fragment', () => {
    const inner = encodeURIComponent('https://shop.test/p?grsf=nested1');
    expect(parseAttributionUrl(`myapp://open?link=${inner}`)?.referralCode).toBe('nested1');
    expect(parseAttributionUrl('https://spa.test/#/signup?grsf=frag1')?.referralCode).toBe('frag1');
  });

  it('recognises a hosted share URL with its program and participant', () => {
    expect(parseAttributionUrl('https://grow.surf/share/prog1/part1')).toMatchObject({ campaignId: 'prog1', referralCode: 'part1' });
  });

  it('answers null when nothing is recognised', () => {
    expect(parseAttributionUrl('https://shop.test/page?q=1#x')).toBeNull();
    expect(parseAttributionUrl('not a url')).toBeNull();
    expect(parseAttributionUrl('https://shop.test/?grsf=' + 'x'.repeat(65))).toBeNull();
  });
});

describe('parseAttributionParams', () => {
  it('never throws and keeps only allowlisted UTM keys for any parameter map and provider', () => {
    fc.assert(
      fc.property(fc.dictionary(paramKey, paramValue, { maxKeys: 8 }), fc.oneof(fc.constantFrom('branch', 'adjust', 'appsflyer', 'singular'), fc.string()), (params, provider) => {
        assertSafe(parseAttributionParams(params, provider));
      }),
      { numRuns: 2000 },
    );
  });

  it('finds grsf inside provider links (Branch ~referring_link, Adjust deep_link, AppsFlyer af_dp) and keeps the link as destination', () => {
    expect(parseAttributionParams({ '~referring_link': 'https://app.link/abc?grsf=br1&utm_source=x', '~channel': 'sms' }, 'branch')).toEqual({
      referralCode: 'br1',
      utm: { utm_source: 'x' },
      destination: 'https://app.link/abc',
    });
    expect(parseAttributionParams({ deep_link: 'myapp://invite/path?referredBy=adj1' }, 'adjust')?.referralCode).toBe('adj1');
    expect(parseAttributionParams({ af_dp: 'myapp://home?ref=af1' }, 'appsflyer')?.referralCode).toBe('af1');
    expect(parseAttributionParams({ $deeplink_path: 'product/1?grsf=path1' }, 'branch')?.referralCode).toBe('path1');
  });

  it('takes the bare code from AppsFlyer deep_link_value only for the appsflyer provider', () => {
    expect(parseAttributionParams({ deep_link_value: 'afcode1' }, 'appsflyer')?.referralCode).toBe('afcode1');
    expect(parseAttributionParams({ deep_link_value: 'afcode1' }, 'branch')).toBeNull();
    expect(parseAttributionParams({ grsf: 'direct1', deep_link_value: 'afcode1' }, 'appsflyer')?.referralCode).toBe('direct1');
  });

  it('answers null for junk', () => {
    expect(parseAttributionParams(null)).toBeNull();
    expect(parseAttributionParams({ a: 'b' }, 'singular')).toBeNull();
  });
});

describe('cleanUrl', () => {
  it('keeps scheme, host and path only, and refuses script URLs', () => {
    expect(cleanUrl('https://user:pw@Example.com:8443/a/b?c=1#d')).toBe('https://example.com:8443/a/b');
    expect(cleanUrl('myapp://invite/x?y=1')).toBe('myapp://invite/x');
    expect(cleanUrl('javascript:alert(1)')).toBeUndefined();
    expect(cleanUrl('/relative?x')).toBeUndefined();
  });
});

describe('newVisitId', () => {
  it('makes version-7 UUIDs that sort by time', () => {
    const a = newVisitId(1_700_000_000_000);
    const b = newVisitId(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    expect(a.slice(0, 13)).toBe('018bcfe5-6800');
  });
});
