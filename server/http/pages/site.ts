import type Koa from 'koa';
import type { Deps } from '../../deps.ts';
import { esc, page } from './html.ts';

/** The landing page, `/favicon.ico` and, outside production, the mail outbox viewer at /_dev/mail. */
export function sitePages(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    // Browsers ask every page's origin for an icon; we have none, and a 404 would be an error in each page's console.
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.path === '/favicon.ico') {
      ctx.status = 204;
      ctx.set('Cache-Control', 'public, max-age=86400');
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/') {
      ctx.type = 'html';
      ctx.body = page(
        'refloop',
        `<h1>refloop</h1>
<p>Self-hosted referral and affiliate programs, wire-compatible with the GrowSurf REST API v2.</p>
<ul>
<li>REST API: <code>${esc(deps.config.publicUrl)}/v2</code> (<a href="/openapi/v2.json">OpenAPI document</a>)</li>
<li>Participant API: <code>${esc(deps.config.publicUrl)}/mobile/v2</code></li>
<li><a href="/signup">Create an account</a> or <a href="/signin">sign in</a> as a program owner</li>
${deps.config.env !== 'production' ? '<li><a href="/_dev/mail">Mail outbox</a> (development only)</li>' : ''}
</ul>`,
      );
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/_dev/mail' && deps.config.env !== 'production') {
      const to = typeof ctx.query.to === 'string' ? ctx.query.to : undefined;
      const messages = await deps.mailer.list({ to, limit: 100 });
      if (ctx.accepts('html', 'json') === 'json') {
        ctx.body = { messages };
        return;
      }
      ctx.type = 'html';
      ctx.body = page(
        'Mail outbox',
        `<h1>Mail outbox</h1><p>${messages.length} message(s), newest first.</p>` +
          messages
            .map(
              (m) => `<article><h2>${esc(m.subject)}</h2><p>To ${esc(m.to)} · ${esc(new Date(m.createdAt).toISOString())} · ${esc(m.status)}</p>
<pre style="white-space:pre-wrap">${esc(m.text)}</pre>
<ul>${m.links.map((l) => `<li><a href="${esc(l)}">${esc(l)}</a></li>`).join('')}</ul></article>`,
            )
            .join('<hr>'),
      );
      return;
    }
    return next();
  };
}
