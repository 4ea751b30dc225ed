import type Koa from 'koa';
import type { Deps } from '../../deps.ts';
import { esc, page } from './html.ts';
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
        'Verification link not valid',
        `<h1>This verification link is not valid</h1><p class="error" role="alert">The link is unknown, already used or expired. Ask for a new one with <code>POST /v2/team/owner/verification-email</code>.</p>`,
      );
      return;
    }
    ctx.body = page(
      'Email verified',
      `<h1>Email verified</h1><p class="notice" role="status">${esc(email)} is verified. Your API key now works for every endpoint its scopes allow.</p><p><a href="/signin">Sign in</a></p>`,
    );
  };
}
