import type Koa from 'koa';
import type { Deps } from '../../deps.ts';
import { esc, page } from './html.ts';
import { FOREIGN_FORM_MESSAGE, PAGE_REFERRER_POLICY, formSource } from './form-source.ts';

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
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, POST');
      ctx.type = 'html';
      ctx.body = page('Method not allowed', '<h1>Method not allowed</h1>');
      return;
    }
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const invalid = () => {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = page('Unsubscribe link not valid', '<h1>This unsubscribe link is not valid</h1><p class="error" role="alert">The link is incomplete, or the subscription it belongs to no longer exists.</p>');
    };
    if (ctx.method === 'POST') {
      if (formSource(ctx, publicOrigin) === 'foreign') {
        ctx.status = 403;
        ctx.type = 'html';
        ctx.body = page('Not allowed', `<h1>Not allowed</h1><p class="error" role="alert">${FOREIGN_FORM_MESSAGE}</p>`);
        return;
      }
      if (!(await deps.programEmails.unsubscribe(token))) return invalid();
      const target = await deps.programEmails.unsubscribeTarget(token);
      ctx.type = 'html';
      ctx.body = page(
        'Unsubscribed',
        `<h1>You are unsubscribed</h1><p class="notice" role="status">${esc(target?.email ?? 'This address')} will no longer receive ${esc(target?.company ?? 'program')} program emails.</p>`,
      );
      return;
    }
    const target = await deps.programEmails.unsubscribeTarget(token);
    if (!target) return invalid();
    ctx.type = 'html';
    if (target.unsubscribed) {
      ctx.body = page('Unsubscribed', `<h1>You are unsubscribed</h1><p class="notice" role="status">${esc(target.email)} no longer receives ${esc(target.company)} program emails.</p>`);
      return;
    }
    ctx.body = page(
      'Unsubscribe',
      `<h1>Unsubscribe from ${esc(target.company)} emails?</h1>
<p>${esc(target.email)} will stop receiving emails about the ${esc(target.company)} program.</p>
<form method="post" action="/unsubscribe?token=${esc(encodeURIComponent(token))}">
<button type="submit">Unsubscribe</button>
</form>`,
    );
  };
}
