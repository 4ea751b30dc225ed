import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Deps } from '../server/deps.ts';
import { SESSION_COOKIE } from '../server/http/pages/owner.ts';
import { SESSION_TTL_MS } from '../server/domain/platform/owners.ts';
import { safeEqual } from '../server/crypto.ts';
import type { DemoState } from './seed.ts';

// `npm start`'s one-click sign-in to the console as the demo team's owner (issue #23): a one-time
// token made at start-up and printed with the console's address. Opening the link signs in through
// the real sign-in (the owner's seeded password, kept sealed in demo.json) and sets the session
// cookie, then goes to /console. Never outside development: a production environment gets no link
// and the route answers 404. Used once, the link is dead; `npm start` again prints a new one.

/** The path of the one-click sign-in link. */
export const DEV_SIGN_IN_PATH = '/demo/console-sign-in';

/** The one-click sign-in: `link(base)` makes the one-time link; `routes` answers it. */
export function devSignIn(deps: Deps, state: () => DemoState | null) {
  let token: string | null = null;
  const allowed = deps.config.env !== 'production';
  return {
    /** A fresh one-time link (the previous one stops working), or null in production. */
    link(base: string): string | null {
      if (!allowed) return null;
      token = crypto.randomBytes(24).toString('base64url');
      return `${base}${DEV_SIGN_IN_PATH}?token=${token}`;
    },
    routes: (async (ctx, next) => {
      if (ctx.path !== DEV_SIGN_IN_PATH) return next();
      const s = state();
      if (!allowed || !s || ctx.method !== 'GET') return next();
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      const given = typeof ctx.query.token === 'string' ? ctx.query.token : '';
      const expected = token;
      if (!expected || !given || !safeEqual(given, expected)) {
        ctx.status = 400;
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = 'This sign-in link was already used or is not valid. Run `npm start` again for a new one, or sign in at /signin.\n';
        return;
      }
      token = null;
      const signedIn = await deps.owners.signIn(s.owner.email, deps.sealer.open(s.owner.password) ?? '');
      if (!signedIn) throw new Error('The demo owner could not be signed in with the seeded password.');
      ctx.append('Set-Cookie', `${SESSION_COOKIE}=${signedIn.token}; Path=/; Max-Age=${SESSION_TTL_MS / 1000}; HttpOnly; SameSite=Lax${deps.config.secureCookies ? '; Secure' : ''}`);
      // With two-factor sign-in turned on for the demo owner, the code step follows as for any sign-in.
      ctx.redirect(signedIn.pending ? '/signin/code' : '/console');
      ctx.status = 303;
    }) as Koa.Middleware,
  };
}
