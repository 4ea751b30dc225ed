import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import { esc, markup, message, page } from './html.ts';
import { t } from './i18n/index.ts';
import { PAGE_REFERRER_POLICY } from './form-source.ts';

/** `GET /verify?token=…`: opening the emailed link verifies the owner; the same API key then works. */
export function verifyPage(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== '/verify') return next();
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const email = token ? await deps.accounts.verifyEmail(token) : null;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', PAGE_REFERRER_POLICY);
    if (!email) {
      ctx.status = 400;
      ctx.body = page(
        t('verify.invalid.title'),
        `<h1>${esc(t('verify.invalid.heading'))}</h1><p class="error" role="alert">${message(t, 'verify.invalid.body', { operation: markup('<code>POST /v2/team/owner/verification-email</code>') })}</p>`,
      );
      return;
    }
    ctx.body = page(
      t('verify.done.title'),
      `<h1>${esc(t('verify.done.title'))}</h1><p class="notice" role="status">${message(t, 'verify.done.body', { email })}</p><p><a href="/signin">${esc(t('signedOut.action'))}</a></p>`,
    );
  };
}
