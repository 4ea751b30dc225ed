// Attribution parsing (seed "Mobile rules" 1–2): shared by the server and the widget, so it imports
// nothing and stays small. Every input is untrusted; nothing here throws.

/** The UTM parameters kept (rule 2's allowlist); every other query parameter is dropped. */
export const UTM_KEYS = [
  'utm_id',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_source_platform',
  'utm_term',
  'utm_content',
  'utm_creative_format',
  'utm_marketing_tactic',
] as const;

/** One allowlisted UTM parameter name. */
export type UtmKey = (typeof UTM_KEYS)[number];

/** Attribution providers whose parameter maps the native SDKs pass through. */
export const ATTRIBUTION_PROVIDERS = ['branch', 'adjust', 'appsflyer', 'singular'] as const;

/** One attribution provider. */
export type AttributionProvider = (typeof ATTRIBUTION_PROVIDERS)[number];

/** What a landing URL or provider payload says about where a visitor came from. */
export interface Attribution {
  /** The referrer's code: a share key, vanity key or participant id. */
  referralCode?: string;
  /** The program named by a hosted share URL (`/share/:campaignId/:participantId`). */
  campaignId?: string;
  clickId?: string;
  unique?: boolean;
  utm: Partial<Record<UtmKey, string>>;
  /** The landing page: origin and path only. */
  destination?: string;
  /** The page the visitor came from: origin and path only. */
  referrer?: string;
}

/** Caps: a referral code is what a share link carries, the rest is bounded so nothing grows unchecked. */
export const ATTRIBUTION_LIMITS = { code: 64, clickId: 128, utmValue: 256, url: 2048 } as const;

const CODE = /^[A-Za-z0-9_-]{1,64}$/;
const CLICK_ID = /^[\x21-\x7e]{1,128}$/;
const CODE_KEYS = ['grsf', 'referredby', 'ref'];
const CLICK_KEYS = new Set(['click_id', 'clickid', '~click_id', 'grsf_click_id']);
const HOSTED = /^\/share\/([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9_-]{1,64})\/?$/;
const MAX_DEPTH = 3;
const MAX_INPUT = 8192;

/** A URL reduced to scheme, host and path: no query, fragment or credentials; undefined when unparseable. */
export function cleanUrl(input: unknown): string | undefined {
  if (typeof input !== 'string' || !input || input.length > MAX_INPUT) return undefined;
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    return undefined;
  }
  if (!/^[a-z][a-z0-9+.-]*:$/.test(u.protocol) || u.protocol === 'javascript:' || u.protocol === 'data:') return undefined;
  const host = u.host ? `//${u.host}` : '';
  // URL parsing percent-encodes ? and # inside a path; the cut is belt and braces.
  const out = `${u.protocol}${host}${u.pathname}`.split(/[?#]/)[0]!;
  return out.length <= ATTRIBUTION_LIMITS.url ? out : undefined;
}

/** Collects findings; the first value found for a slot wins (callers feed the strongest source first). */
class Finder {
  codes: Array<[rank: number, code: string]> = [];
  campaignId?: string;
  clickId?: string;
  unique?: boolean;
  utm: Partial<Record<UtmKey, string>> = {};
  link?: string;

  param(key: string, value: string, depth: number, provider?: AttributionProvider): void {
    const k = key.trim().toLowerCase();
    const v = value.trim();
    if (!v) return;
    const rank = CODE_KEYS.indexOf(k);
    if (rank >= 0) {
      if (CODE.test(v)) this.codes.push([rank, v]);
      else if (looksLikeUrl(v)) this.nested(v, depth);
      return;
    }
    if (CLICK_KEYS.has(k)) {
      if (this.clickId === undefined && CLICK_ID.test(v)) this.clickId = v;
      return;
    }
    if (k === 'unique') {
      if (this.unique === undefined && /^(1|true|0|false)$/i.test(v)) this.unique = /^(1|true)$/i.test(v);
      return;
    }
    if ((UTM_KEYS as readonly string[]).includes(k)) {
      const utm = k as UtmKey;
      const clean = stripControls(v).slice(0, ATTRIBUTION_LIMITS.utmValue);
      if (this.utm[utm] === undefined && clean) this.utm[utm] = clean;
      return;
    }
    if (looksLikeUrl(v)) {
      this.nested(v, depth);
      return;
    }
    if (/(^|[?&#])(grsf|ref|referredby)=/i.test(v)) {
      // A path with a query (`product?grsf=…`, Branch's `$deeplink_path`) or a bare query string.
      const at = v.search(/[?#]/);
      this.query(at >= 0 ? v.slice(at) : v, depth + 1);
      return;
    }
    // AppsFlyer's unified deep links carry the bare code in deep_link_value / deep_link_sub1..10.
    if (provider === 'appsflyer' && /^deep_link_(value|sub([1-9]|10))$/.test(k) && CODE.test(v)) this.codes.push([CODE_KEYS.length, v]);
  }

  query(text: string, depth: number): void {
    if (depth > MAX_DEPTH) return;
    let params: URLSearchParams;
    try {
      params = new URLSearchParams(text.startsWith('?') || text.startsWith('#') ? text.slice(1) : text);
    } catch {
      return;
    }
    for (const [k, v] of params) this.param(k, v, depth);
  }

  url(text: string, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    let u: URL;
    try {
      u = new URL(text.trim());
    } catch {
      return false;
    }
    const before = this.found();
    const hosted = HOSTED.exec(u.pathname);
    if (hosted && u.host) {
      this.campaignId ??= hosted[1];
      this.codes.push([-1, hosted[2]!]);
    }
    this.query(u.search, depth);
    // Single-page apps and some providers put parameters in the fragment.
    const hash = u.hash.indexOf('?') >= 0 ? u.hash.slice(u.hash.indexOf('?')) : u.hash.includes('=') ? u.hash : '';
    if (hash) this.query(hash, depth);
    return this.found() !== before;
  }

  nested(text: string, depth: number): void {
    if (this.url(text, depth + 1)) this.link ??= cleanUrl(text);
  }

  found(): number {
    return this.codes.length + (this.clickId ? 1 : 0) + Object.keys(this.utm).length;
  }

  result(destination: string | undefined, referrer: string | undefined): Attribution | null {
    if (!this.found()) return null;
    const out: Attribution = { utm: this.utm };
    if (this.codes.length) out.referralCode = this.codes.slice().sort((a, b) => a[0] - b[0])[0]![1];
    if (this.campaignId) out.campaignId = this.campaignId;
    if (this.clickId) out.clickId = this.clickId;
    if (this.unique !== undefined) out.unique = this.unique;
    if (destination) out.destination = destination;
    if (referrer) out.referrer = referrer;
    return out;
  }
}

/** Removes control characters (PostgreSQL refuses NUL; none belongs in a UTM value). */
export function stripControls(v: string): string {
  return v.replace(/[\u0000-\u001f\u007f]/g, '').trim();
}

function looksLikeUrl(v: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(v);
}

/**
 * Reads a landing URL (a deep link, or the page address in the widget): `grsf`, `referredBy`,
 * `ref`, click metadata and UTM values in its query or fragment, in URL-like values nested inside
 * them, and hosted share URLs. Null when it names no referral code, click id or UTM value.
 */
export function parseAttributionUrl(url: unknown, opts: { referrer?: unknown } = {}): Attribution | null {
  try {
    if (typeof url !== 'string' || url.length > MAX_INPUT) return null;
    const f = new Finder();
    f.url(url, 0);
    return f.result(cleanUrl(url), cleanUrl(opts.referrer));
  } catch {
    return null;
  }
}

/**
 * Reads a provider's parameter map (Branch, Adjust, AppsFlyer, Singular deep-link payloads): the
 * same keys directly, or inside URL-like values such as `~referring_link`, `deep_link`, `af_dp` or
 * `link`. The destination is the nested link the attribution came from, reduced to origin and path.
 */
export function parseAttributionParams(params: unknown, provider?: AttributionProvider | string): Attribution | null {
  try {
    if (!params || typeof params !== 'object') return null;
    const f = new Finder();
    const p = (ATTRIBUTION_PROVIDERS as readonly string[]).includes(String(provider)) ? (provider as AttributionProvider) : undefined;
    let n = 0;
    for (const [k, v] of Object.entries(params as Record<string, unknown>)) {
      if (++n > 200) break;
      if (typeof v === 'string' && v.length <= MAX_INPUT && k.length <= 128) f.param(k, v, 0, p);
    }
    return f.result(f.link, undefined);
  } catch {
    return null;
  }
}

/**
 * A new visit id: a time-ordered UUID (version 7), so the server's visit index grows at its end
 * instead of at random places (the cheapest write on the visit path). Uses Web Crypto, present in
 * browsers and Node.
 */
export function newVisitId(now = Date.now()): string {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  let t = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    b[i] = t % 256;
    t = Math.floor(t / 256);
  }
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
