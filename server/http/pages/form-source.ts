import crypto from 'node:crypto';
import type Koa from 'koa';
import { safeEqual } from '../../crypto.ts';

// The one rule every page with a form follows to tell its own forms from forged ones (issue #19).
//
// Browsers say where a request came from in two ways. Fetch Metadata (`Sec-Fetch-Site`) is the
// browser's own verdict and cannot be set by a page; every current browser sends it to https and
// localhost origins. `Origin` is sent on every form POST, but a browser nulls it where the page's
// referrer policy or the user's privacy settings say so, and a sandboxed frame of any site also
// posts `Origin: null`: a null origin proves nothing either way. A request with neither header
// did not come from a browser (curl, a mail provider's RFC 8058 one-click unsubscribe): no
// cookie or ambient authority of a victim's browser rides on it.
//
// So a form POST is refused when the browser says it is cross-site or same-site (another host
// under the same registrable domain is still another application), or when it names a foreign
// origin. When the browser does not say (`Origin: null` without Fetch Metadata), the page's
// token decides: the session's CSRF value, the one-time token of an emailed link, or, for
// sign-in forms, which have neither, a double-submit token (`signInToken` / `signInTokenOk`).

/** Where a form POST came from: one of our pages, another site, or not said (a token must decide). */
export type FormSource = 'ours' | 'foreign' | 'unsaid';

/**
 * Referrer policy of every page with a form: the full URL (with a link's token) only to our own
 * origin, nothing to any other site, and a real `Origin` on our own form posts (under
 * `no-referrer` Chromium posts `Origin: null`).
 */
export const PAGE_REFERRER_POLICY = 'same-origin';

/** Classifies a form POST by the browser's own signals (see the comment at the top of this file). */
export function formSource(ctx: Koa.Context, publicOrigin: string): FormSource {
  const site = ctx.get('sec-fetch-site');
  if (site === 'same-origin') return 'ours';
  // `none` is a navigation the user started (a bookmark, the address bar): never a form of ours.
  if (site) return site === 'none' ? 'unsaid' : 'foreign';
  const origin = ctx.get('origin');
  if (!origin) return 'ours';
  if (origin === 'null') return 'unsaid';
  // Koa 3's ctx.origin is the Origin header itself, so our own origin is rebuilt from the Host:
  // an owner may reach the server by an address other than PUBLIC_URL (127.0.0.1, a LAN name).
  return origin === publicOrigin || origin === `${ctx.protocol}://${ctx.host}` ? 'ours' : 'foreign';
}

/** Name of the double-submit cookie of the sign-in forms. */
export const SIGN_IN_TOKEN_COOKIE = 'refloop_form';

/**
 * The sign-in forms' token: a random value in a cookie that only our pages can read back into
 * the form (another site can neither read nor set it), created on first use.
 */
export function signInToken(ctx: Koa.Context, secureCookies: boolean): string {
  const existing = ctx.cookies.get(SIGN_IN_TOKEN_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{22,64}$/.test(existing)) return existing;
  const token = crypto.randomBytes(18).toString('base64url');
  ctx.append('Set-Cookie', `${SIGN_IN_TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax${secureCookies ? '; Secure' : ''}`);
  return token;
}

/** Whether a sign-in form whose source the browser did not say carries its cookie's token. */
export function signInTokenOk(ctx: Koa.Context, formValue: string): boolean {
  const cookie = ctx.cookies.get(SIGN_IN_TOKEN_COOKIE);
  return Boolean(cookie) && safeEqual(formValue, cookie!);
}
