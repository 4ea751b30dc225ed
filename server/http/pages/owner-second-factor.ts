import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import { safeEqual } from '../../crypto.ts';
import { esc } from './html.ts';
import { t } from './i18n/index.ts';
import { alertBox } from './owner-views.ts';
import { DEVICE_COOKIE, deviceCookie, sessionCookie } from './session-cookie.ts';
import { SESSION_TTL_MS, type Session } from '../../domain/platform/owners.ts';
import { TRUSTED_DEVICE_TTL_MS } from '../../domain/platform/two-factor.ts';

// The sign-in page's second step (issue #35 part 2): after a right password, a member with
// two-factor sign-in on holds a pending session that grants nothing (Owners.session ignores it)
// until `/signin/code` takes a current TOTP code or an unused recovery code. Wrong codes count per
// member and per IP (server/http/limits.ts); a right one opens a new session (a new token) and,
// when asked, remembers the browser for 30 days with an HttpOnly device cookie.

type Handler = (ctx: Koa.Context) => Promise<void>;

/** What the owner pages lend this step: their page writer, redirect and form readers. */
export interface PageKit {
  html(ctx: Koa.Context, status: number, title: string, body: string): void;
  seeOther(ctx: Koa.Context, location: string): void;
  field(ctx: Koa.Context, name: string): string;
  /** A `next` the sign-in may go to: the console's addresses, or the OAuth consent page. */
  next(value: unknown): string | null;
  sessionCookieName: string;
}

/** `/signin/code`: the code form. */
function codeView(csrf: string, next: string | null, error?: string | null): string {
  return `<h1>${esc(t('code.title'))}</h1>
<p>${esc(t('code.intro'))}</p>
${alertBox(error)}
<form method="post" action="/signin/code">
<input type="hidden" name="csrf" value="${esc(csrf)}">${next ? `<input type="hidden" name="next" value="${esc(next)}">` : ''}
<label for="code">${esc(t('code.label'))}</label>
<input type="text" id="code" name="code" autocomplete="one-time-code" inputmode="text" autocapitalize="none" spellcheck="false" maxlength="40" required autofocus>
<div><input type="checkbox" id="remember" name="remember" value="on">
<label for="remember" style="display:inline">${esc(t('code.remember'))}</label></div>
<button type="submit">${esc(t('code.submit'))}</button>
</form>
<p><a href="/signin">${esc(t('code.startAgain'))}</a></p>`;
}

/**
 * What a signed-in page shows instead of a waiting key secret when the session has not
 * re-authenticated in the last five minutes: on the keys page a form for the password (and code),
 * elsewhere a pointer to it. The secret stays in the session until then.
 */
export function revealGate(session: { csrf: string }, onKeysPage: boolean, withCode: boolean, error?: string | null): string {
  if (!onKeysPage) return `<div class="notice" role="status"><p>${esc(t('reveal.elsewhere'))} <a href="/keys">${esc(t('reveal.link'))}</a></p></div>`;
  return `<section class="card" aria-labelledby="reveal-title">
<h2 id="reveal-title">${esc(t('reveal.title'))}</h2>
<p>${esc(t(withCode ? 'reveal.bodyCode' : 'reveal.body'))}</p>
${alertBox(error)}
<form method="post" action="/keys/reveal">
<input type="hidden" name="csrf" value="${esc(session.csrf)}">
<label for="reveal-password">${esc(t('signin.password'))}</label>
<input type="password" id="reveal-password" name="password" autocomplete="current-password" maxlength="800" required>
${withCode ? `<label for="reveal-code">${esc(t('code.label'))}</label>
<input type="text" id="reveal-code" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="40" required>` : ''}
<button type="submit">${esc(t('reveal.submit'))}</button>
</form>
</section>`;
}

/**
 * The keys page's answer to creating a key without a recent sign-in (issue #35): the password (and
 * code) form in place, carrying the key's scopes, programs and label, so confirming creates the key
 * in the same step. It posts to `/keys` again.
 */
export function keyReauthView(session: { csrf: string }, withCode: boolean, values: { scopes: string[]; programIds: string; label: string }, error?: string | null): string {
  const kept = [
    ...values.scopes.map((s) => `<input type="hidden" name="scopes" value="${esc(s)}">`),
    `<input type="hidden" name="programIds" value="${esc(values.programIds)}">`,
    `<input type="hidden" name="label" value="${esc(values.label)}">`,
  ].join('\n');
  return `<section class="card" aria-labelledby="key-reauth-title">
<h1 id="key-reauth-title">${esc(t('keyReauth.title'))}</h1>
<p>${esc(t(withCode ? 'keyReauth.bodyCode' : 'keyReauth.body'))}</p>
${alertBox(error)}
<form method="post" action="/keys">
<input type="hidden" name="csrf" value="${esc(session.csrf)}">
<input type="hidden" name="reauth" value="1">
${kept}
<label for="key-reauth-password">${esc(t('signin.password'))}</label>
<input type="password" id="key-reauth-password" name="password" autocomplete="current-password" maxlength="800" required autofocus>
${withCode ? `<label for="key-reauth-code">${esc(t('code.label'))}</label>
<input type="text" id="key-reauth-code" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="40" required>` : ''}
<button type="submit">${esc(t('keyReauth.submit'))}</button>
</form>
<p><a href="/keys">${esc(t('keyReauth.cancel'))}</a></p>
</section>`;
}

/**
 * Checks the password (and code) a signed-in owner page took for a re-authentication, counting and
 * recording a wrong one as RA1 and `/keys/reveal` do. Null when it was right (the session is marked
 * re-authenticated); otherwise the status and sentence to show at the form.
 */
export async function reauthenticateOnPage(deps: Deps, ctx: Koa.Context, session: Session, password: string, code: string): Promise<{ status: number; error: string } | null> {
  const locked = (ms: number) => ({ status: 429, error: t('code.locked', { minutes: String(Math.max(1, Math.ceil(ms / 60_000))) }) });
  const wait = await deps.limits.codeLockout(session.userId, ctx.ip);
  if (wait > 0) return locked(wait);
  const done = await deps.owners.reauthenticate(session, password, code);
  if (done.ok) return null;
  const lockout = await deps.limits.wrongCode(session.userId, ctx.ip);
  await deps.audit.access('access.reauthenticateFailed', { email: session.email, userId: session.userId }, from(ctx), { field: done.field ?? null });
  if (lockout > 0) {
    await deps.audit.access('access.lockout', { email: session.email, userId: session.userId }, from(ctx));
    return locked(lockout);
  }
  return { status: 400, error: t(done.field === 'password' ? 'reveal.wrongPassword' : 'code.wrong') };
}

/** Where a sign-in waiting for its code is sent by the password step. */
export function codePath(next: string | null): string {
  return `/signin/code${next ? `?next=${encodeURIComponent(next)}` : ''}`;
}

/** The second step's routes, merged into the owner pages' table. */
export function secondFactorRoutes(deps: Deps, kit: PageKit): Record<string, Handler> {
  const owners = deps.owners;
  const secure = deps.config.secureCookies;
  const locked = (ctx: Koa.Context, csrf: string, next: string | null, ms: number) => {
    ctx.set('Retry-After', String(Math.max(1, Math.ceil(ms / 1000))));
    kit.html(ctx, 429, t('code.title'), codeView(csrf, next, t('code.locked', { minutes: String(Math.max(1, Math.ceil(ms / 60_000))) })));
  };
  return {
    // The keys page's re-authentication before a waiting key secret is shown (see revealGate).
    async 'POST /keys/reveal'(ctx) {
      const session = await owners.session(ctx.cookies.get(kit.sessionCookieName));
      if (!session) return kit.seeOther(ctx, '/signin');
      if (!safeEqual(kit.field(ctx, 'csrf'), session.csrf)) return kit.seeOther(ctx, '/keys');
      const withCode = await owners.twoFactor.enabled(session.userId);
      const refused = await reauthenticateOnPage(deps, ctx, session, kit.field(ctx, 'password'), kit.field(ctx, 'code'));
      if (refused) return kit.html(ctx, refused.status, t('keys.title'), revealGate(session, true, withCode, refused.error));
      kit.seeOther(ctx, '/keys');
    },

    async 'GET /signin/code'(ctx) {
      const pending = await owners.pendingSignIn(ctx.cookies.get(kit.sessionCookieName));
      if (!pending) return kit.seeOther(ctx, '/signin');
      kit.html(ctx, 200, t('code.title'), codeView(pending.csrf, kit.next(ctx.query.next)));
    },

    async 'POST /signin/code'(ctx) {
      const token = ctx.cookies.get(kit.sessionCookieName) ?? '';
      const pending = await owners.pendingSignIn(token);
      if (!pending) return kit.seeOther(ctx, '/signin');
      const next = kit.next(kit.field(ctx, 'next'));
      if (!safeEqual(kit.field(ctx, 'csrf'), pending.csrf)) return kit.html(ctx, 403, t('code.title'), codeView(pending.csrf, next, t('page.expiredForm')));
      const wait = await deps.limits.codeLockout(pending.userId, ctx.ip);
      if (wait > 0) return locked(ctx, pending.csrf, next, wait);
      const done = await owners.completeSignIn(token, kit.field(ctx, 'code'), kit.field(ctx, 'remember') === 'on', { ip: ctx.ip, userAgent: ctx.get('user-agent') });
      if (!done) {
        const lockout = await deps.limits.wrongCode(pending.userId, ctx.ip);
        await deps.audit.access('access.signInCodeFailed', { email: '', userId: pending.userId }, from(ctx));
        if (lockout > 0) {
          await deps.audit.access('access.lockout', { email: '', userId: pending.userId }, from(ctx));
          return locked(ctx, pending.csrf, next, lockout);
        }
        return kit.html(ctx, 400, t('code.title'), codeView(pending.csrf, next, t('code.wrong')));
      }
      await deps.audit.access('access.signIn', { email: '', userId: pending.userId }, from(ctx), { secondFactor: true });
      ctx.append('Set-Cookie', sessionCookie(kit.sessionCookieName, done.token, SESSION_TTL_MS / 1000, secure));
      if (done.deviceToken) ctx.append('Set-Cookie', deviceCookie(done.deviceToken, TRUSTED_DEVICE_TTL_MS / 1000, secure));
      kit.seeOther(ctx, done.teams.length === 1 ? (next ?? '/console') : next?.startsWith('/oauth/') ? next : '/signin/team');
    },
  };
}

/** Where an access event came from (the audit trail). */
function from(ctx: Koa.Context): { ip: string | null; userAgent: string | null } {
  return { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null };
}

/** The remembered-browser cookie's token of a request, for the password step. */
export function deviceToken(ctx: Koa.Context): string | undefined {
  return ctx.cookies.get(DEVICE_COOKIE);
}
