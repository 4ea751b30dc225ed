import type Koa from 'koa';
import { PAGE_POLICY } from '../page-policy.ts';
import type { Deps } from '../deps.ts';
import { esc, page } from './html.ts';
import { PAGE_REFERRER_POLICY, formSource } from './form-source.ts';
import { ph } from './affiliate-invite.ts';
import { readerOf, type Reader } from './reader-language.ts';

/**
 * `/unsubscribe?token=…`, the link in every participant email. GET only shows a confirmation form
 * (mail scanners open links; they must not unsubscribe anyone); POST unsubscribes. POST is also
 * RFC 8058 one-click unsubscribe: mail providers POST `List-Unsubscribe=One-Click` to the URL of
 * the `List-Unsubscribe` header, so the token in the query string is all that is needed and the
 * body is never read. Such a POST comes from the provider's server, without a browser's headers; a
 * browser's post from another site is refused like every page's.
 */
export function unsubscribePage(deps: Deps): Koa.Middleware {
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  return async (ctx, next) => {
    if (ctx.path !== '/unsubscribe') return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', PAGE_REFERRER_POLICY);
    ctx.set('Content-Security-Policy', PAGE_POLICY.form);
    // Until the token names a participant, the reader is a visitor: the browser's language among all of them.
    const accept = ctx.get('Accept-Language') || undefined;
    const visitor = readerOf(accept);
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, POST');
      ctx.type = 'html';
      ctx.body = page(visitor.t('page.methodNotAllowed'), `<h1>${ph(visitor, 'page.methodNotAllowed')}</h1>`, visitor.language);
      return;
    }
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const invalid = () => {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = page(visitor.t('unsubscribe.invalid.title'), `<h1>${ph(visitor, 'unsubscribe.invalid.heading')}</h1><p class="error" role="alert">${ph(visitor, 'unsubscribe.invalid.body')}</p>`, visitor.language);
    };
    /** The participant the token names reads their own language. */
    const reader = (target: { language: string } | null): Reader => (target ? readerOf(accept, null, { language: target.language }) : visitor);
    if (ctx.method === 'POST') {
      if (formSource(ctx, publicOrigin) === 'foreign') {
        ctx.status = 403;
        ctx.type = 'html';
        ctx.body = page(visitor.t('page.notAllowed'), `<h1>${ph(visitor, 'page.notAllowed')}</h1><p class="error" role="alert">${ph(visitor, 'page.foreignForm')}</p>`, visitor.language);
        return;
      }
      if (!(await deps.programEmails.unsubscribeLinks.unsubscribe(token))) return invalid();
      const target = await deps.programEmails.unsubscribeLinks.target(token);
      const r = reader(target);
      ctx.type = 'html';
      ctx.body = page(
        r.t('unsubscribe.done.title'),
        `<h1>${ph(r, 'unsubscribe.done.heading')}</h1><p class="notice" role="status">${target ? ph(r, 'unsubscribe.done.body', { email: target.email, company: target.company }) : ph(r, 'unsubscribe.done.bodyUnknown')}</p>`,
        r.language,
      );
      return;
    }
    const target = await deps.programEmails.unsubscribeLinks.target(token);
    if (!target) return invalid();
    const r = reader(target);
    ctx.type = 'html';
    if (target.unsubscribed) {
      ctx.body = page(r.t('unsubscribe.done.title'), `<h1>${ph(r, 'unsubscribe.done.heading')}</h1><p class="notice" role="status">${ph(r, 'unsubscribe.already', { email: target.email, company: target.company })}</p>`, r.language);
      return;
    }
    ctx.body = page(
      r.t('unsubscribe.title'),
      `<h1>${ph(r, 'unsubscribe.heading', { company: target.company })}</h1>
<p>${ph(r, 'unsubscribe.intro', { email: target.email, company: target.company })}</p>
<form method="post" action="/unsubscribe?token=${esc(encodeURIComponent(token))}">
<button type="submit">${ph(r, 'unsubscribe.submit')}</button>
</form>`,
      r.language,
    );
  };
}
