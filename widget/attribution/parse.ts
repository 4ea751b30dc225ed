// The attribution script's URL parser: the rules of shared/attribution.ts (seed Mobile rules 1–2)
// written for bytes, because this file ships on every page of every site. Only landing URLs are
// read here (no provider maps), so the AppsFlyer branch and nested-link bookkeeping are left out.
// test/widget/attribution-parse.test.ts checks that both parsers agree on generated URLs.
import type { Attribution } from '../../shared/attribution.ts';

const UTM = 'id source medium campaign source_platform term content creative_format marketing_tactic'.split(' ');
const CODES = ['grsf', 'referredby', 'ref'];
const URLISH = /^[a-z][a-z\d+.-]*:\/\//i;

/** A URL reduced to scheme, host and path (no query, fragment or credentials); undefined when unparseable. */
export function cleanUrl(input: string): string | undefined {
  try {
    const u = new URL(input.length > 8192 ? '' : input.trim());
    const out = u.protocol + (u.host && '//' + u.host) + u.pathname;
    // A parsed path never holds ? or # (they are percent-encoded), so the cut of shared/ is not needed.
    if (!/^(javascript|data):/.test(out) && out.length <= 2048) return out;
  } catch {
    /* unparseable: nothing kept */
  }
}

/** `grsf`/`referredBy`/`ref`, click metadata and allowlisted UTM values of a landing URL; null when none. */
export function parse(href: string, referrer: string): Attribution | null {
  const utm: Record<string, string> = {};
  const a: Attribution = { utm };
  let rank = 9;
  let found = 0;
  const query = (text: string, depth: number) =>
    depth < 4 && new URLSearchParams(text.replace(/^[?#]/, '')).forEach((v, k) => param(k.trim().toLowerCase(), v.trim(), depth));
  const url = (text: string, depth: number) => {
    if (depth > 3) return;
    try {
      const u = new URL(text.trim());
      const hosted = /^\/share\/([\w-]{1,64})\/([\w-]{1,64})\/?$/.exec(u.pathname);
      if (hosted && u.host) {
        a.campaignId ??= hosted[1];
        code(-1, hosted[2]!);
      }
      query(u.search, depth);
      // Single-page apps put parameters in the fragment, after a route (`#/x?grsf=…`) or alone (`#grsf=…`).
      query(u.hash.replace(/^[^?]*\?/, '?'), depth);
    } catch {
      /* not a URL */
    }
  };
  const code = (r: number, v: string) => {
    found = 1;
    if (r < rank) (rank = r), (a.referralCode = v);
  };
  const param = (k: string, v: string, depth: number) => {
    const r = CODES.indexOf(k);
    if (!v) return;
    if (r >= 0) /^[\w-]{1,64}$/.test(v) ? code(r, v) : URLISH.test(v) && url(v, depth + 1);
    else if (/^((~|grsf_)?click_id|clickid)$/.test(k)) !a.clickId && /^[\x21-\x7e]{1,128}$/.test(v) && ((a.clickId = v), (found = 1));
    else if (k == 'unique') a.unique == null && /^(1|true|0|false)$/i.test(v) && (a.unique = /^(1|true)$/i.test(v));
    else if (UTM.includes(k.slice(4)) && !k.indexOf('utm_')) {
      v = v.replace(/[\0-\x1f\x7f]/g, '').trim().slice(0, 256);
      !utm[k] && v && ((utm[k] = v), (found = 1));
    } else if (URLISH.test(v)) url(v, depth + 1);
    // A path with a query (`product?grsf=…`) or a bare query string.
    else if (/(^|[?&#])(grsf|ref|referredby)=/i.test(v)) query(v.slice(Math.max(v.search(/[?#]/), 0)), depth + 1);
  };
  if (href.length <= 8192) url(href, 0);
  if (!found) return null;
  const d = cleanUrl(href);
  const f = cleanUrl(referrer);
  if (d) a.destination = d;
  if (f) a.referrer = f;
  return a;
}
