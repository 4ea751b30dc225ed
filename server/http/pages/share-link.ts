import type Koa from 'koa';
import { PAGE_POLICY } from '../page-policy.ts';
import type { Deps } from '../deps.ts';
import { programSite } from '../../domain/programs/hosted-pages.ts';
import { message, page } from './html.ts';
import { readerOf } from './reader-language.ts';
import { renderHostedPage } from './landing.ts';

// `/r/{programId}`: the default share link (participants' `shareUrl` and the window's
// `share.fallbackUrl` while installation.shareUrl is unset; issue #19). When the program knows its
// site the link is a redirect there that keeps the query (`grsf` first of all); otherwise it is the
// program's hosted landing page (landing.ts, issue #24), served here so the address keeps the query.
// The handler records nothing: the page's script (or the site's attribution script) records the
// visit, exactly as on any other landing page.

const PATH = /^\/r\/([^/]+)\/?$/;
/** What a program id looks like; anything else is answered like an unknown program without a lookup. */
const PROGRAM_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Headers of every answer: nothing is cached (a redirect's Location carries the share key or a
 * sign-in token), the query never leaves as a referrer, and search engines index no share link.
 */
function privateHeaders(ctx: Koa.Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  ctx.set('X-Robots-Tag', 'noindex');
}

/** The program's own site, where its share links should land (server/domain/programs/hosted-pages.ts). */
export { programSite };

/**
 * `site` with the request's raw query added: parameters of the site's own query that the request
 * names again are replaced, everything else (both sides' encodings, the fragment) is kept as written.
 */
export function withQuery(site: string, querystring: string): string {
  if (!querystring) return site;
  const hash = site.indexOf('#');
  const head = hash >= 0 ? site.slice(0, hash) : site;
  const frag = hash >= 0 ? site.slice(hash) : '';
  const q = head.indexOf('?');
  const base = q >= 0 ? head.slice(0, q) : head;
  const named = new Set(new URLSearchParams(querystring).keys());
  const kept = q >= 0 ? head.slice(q + 1).split('&').filter((pair) => pair && !named.has(new URLSearchParams(pair).keys().next().value ?? '')) : [];
  return `${base}?${[...kept, querystring].join('&')}${frag}`;
}

/** `GET`/`HEAD /r/{programId}`: a redirect to the program's site with the query kept, or the hosted referral page. */
export function shareLinkPage(deps: Deps): Koa.Middleware {
  const self = new URL(deps.config.publicUrl);
  return async (ctx, next) => {
    const m = PATH.exec(ctx.path);
    if (!m) return next();
    privateHeaders(ctx);
    ctx.type = 'html';
    // The answer depends on the browser's languages (a visitor nobody knows yet).
    ctx.set('Vary', 'Accept-Language');
    const accept = ctx.get('Accept-Language') || undefined;
    const visitor = readerOf(accept);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = page(visitor.t('page.methodNotAllowed'), `<h1>${message(visitor.t, 'page.methodNotAllowed')}</h1>`, visitor.language);
      return;
    }
    const view = PROGRAM_ID.test(m[1]!) ? await deps.mobilePrograms.get(m[1]!) : null;
    if (!view) {
      ctx.set('Content-Security-Policy', PAGE_POLICY.message);
      ctx.status = 404;
      ctx.body = page(visitor.t('share.notFound.title'), `<h1>${message(visitor.t, 'share.notFound.heading')}</h1><p class="error" role="alert">${message(visitor.t, 'share.notFound.body')}</p>`, visitor.language);
      return;
    }
    const program = view.program;
    const site = programSite(program);
    // A share URL that names this very route would redirect to itself forever: serve the page instead.
    const loop = site !== null && (() => {
      try {
        const u = new URL(site);
        return u.origin === self.origin && PATH.exec(u.pathname)?.[1] === program.id;
      } catch {
        return true;
      }
    })();
    if (site && !loop) {
      ctx.set('Content-Security-Policy', PAGE_POLICY.bare);
      ctx.redirect(withQuery(site, ctx.querystring));
      return;
    }
    // No site: the program's hosted landing page, here at the share link so the visit keeps its query (grsf).
    const hosted = await renderHostedPage(deps, view, 'landing', true, accept);
    ctx.set('Content-Security-Policy', hosted.csp);
    ctx.body = hosted.html;
  };
}
