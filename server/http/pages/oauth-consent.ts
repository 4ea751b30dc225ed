import type Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { Deps } from '../deps.ts';
import { safeEqual } from '../../crypto.ts';
import { consume } from '../limits.ts';
import { PENDING_SIGN_IN_TTL_MS, SESSION_TTL_MS, canManageKeys, type Session } from '../../domain/platform/owners.ts';
import { codePath, deviceToken } from './owner-second-factor.ts';
import { SCOPE_DESCRIPTIONS } from '../../../shared/scopes.ts';
import { openPending, type PendingAuthorization } from '../../mcp/oauth-provider.ts';
import { SESSION_COOKIE } from './owner.ts';
import { esc, markup, message, page } from './html.ts';
import { PAGE_REFERRER_POLICY, formSource, signInToken, signInTokenOk } from './form-source.ts';
import { t, type OwnerKey } from './i18n/index.ts';
import { alertBox, messageView, signInView } from './owner-views.ts';

/** Path of the consent page the authorization endpoint sends the owner's browser to. */
export const CONSENT_PATH = '/oauth/consent';

function field(ctx: Koa.Context, name: string): string {
  const v = (ctx.request as { body?: Record<string, unknown> }).body?.[name];
  return typeof v === 'string' ? v : '';
}

function redirectWith(uri: string, params: Record<string, string | null>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v != null) u.searchParams.set(k, v);
  return u.href;
}

/** A catalogue message as escaped HTML. */
const h = (key: OwnerKey, vars?: Parameters<typeof message>[2]) => message(t, key, vars);

function consentView(p: PendingAuthorization, clientName: string, teams: Array<{ teamId: string; teamName: string }>, csrf: string, request: string, error?: string): string {
  const host = new URL(p.redirectUri).host || new URL(p.redirectUri).protocol;
  const scopes = p.scopes.map((s) => `<li>${h('oauth.scope', { scope: markup(`<code>${esc(s)}</code>`), description: SCOPE_DESCRIPTIONS[s] })}</li>`).join('\n');
  const options = teams
    .map((team, i) => `<div><input type="radio" id="team-${i}" name="teamId" value="${esc(team.teamId)}"${i === 0 ? ' checked' : ''} required> <label for="team-${i}" style="display:inline">${esc(team.teamName)}</label></div>`)
    .join('\n');
  return `<h1>${h('oauth.heading', { client: clientName })}</h1>
<p>${h('oauth.intro', { client: markup(`<strong>${esc(clientName)}</strong>`), host: markup(`<code>${esc(host)}</code>`) })}</p>
${alertBox(error)}
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="request" value="${esc(request)}">
<fieldset><legend>${h('oauth.teamLegend')}</legend>
${options}
</fieldset>
<h2>${h('oauth.allowed')}</h2>
<ul>${scopes}</ul>
<p>${h('oauth.terms')}</p>
<button type="submit" name="decision" value="approve">${h('oauth.approve')}</button>
<button type="submit" name="decision" value="deny">${h('oauth.deny')}</button>
</form>`;
}

/**
 * The OAuth consent page: the owner signs in (the owner pages' session and sign-in service, with the
 * same attempt limits), picks one team they may manage keys for, sees the requested scopes and
 * approves or denies. Approval issues a single-use code and redirects to the client's exact URI.
 */
export function oauthConsentPage(deps: Deps): Koa.Middleware {
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const parser = bodyParser({ enableTypes: ['form'], formLimit: '64kb', encoding: 'utf-8' });
  const cookie = (value: string, maxAgeSeconds: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${deps.config.secureCookies ? '; Secure' : ''}`;
  const html = (ctx: Koa.Context, status: number, title: string, body: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = page(title, body);
  };

  const render = async (ctx: Koa.Context, session: Session, p: PendingAuthorization, request: string, status = 200, error?: string) => {
    const client = await deps.mcpOAuth.getClient(p.clientId);
    if (!client) return html(ctx, 400, t('oauth.invalid.title'), messageView(t('oauth.invalid.title'), t('oauth.clientGone'), null));
    const teams = (await deps.owners.memberships(session.userId)).filter(canManageKeys);
    if (!teams.length) return html(ctx, 403, t('page.notAllowed'), messageView(t('page.notAllowed'), t('oauth.noTeams'), null));
    const name = typeof client.client_name === 'string' && client.client_name ? client.client_name : t('oauth.anApplication');
    html(ctx, status, t('oauth.title'), consentView(p, name, teams, session.csrf, request, error));
  };

  return async (ctx, next) => {
    if (ctx.path !== CONSENT_PATH) return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', PAGE_REFERRER_POLICY);
    ctx.set('X-Frame-Options', 'DENY');
    const request = ctx.method === 'POST' ? '' : typeof ctx.query.request === 'string' ? ctx.query.request : '';
    const source = ctx.method === 'POST' ? formSource(ctx, publicOrigin) : 'ours';
    if (ctx.method === 'POST') {
      if (source === 'foreign') return html(ctx, 403, t('page.notAllowed'), messageView(t('page.notAllowed'), t('page.foreignForm'), null));
      try {
        await parser(ctx, async () => {});
      } catch {
        return html(ctx, 400, t('page.formNotAccepted'), messageView(t('page.formNotAccepted'), t('page.formUnreadable'), null));
      }
    } else if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, POST');
      return html(ctx, 405, t('page.methodNotAllowed'), messageView(t('page.methodNotAllowed'), t('page.methodNotUsed', { method: ctx.method }), null));
    }
    const sealed = request || field(ctx, 'request');
    const p = openPending(deps, sealed);
    if (!p) return html(ctx, 400, t('oauth.expired.title'), messageView(t('oauth.expired.heading'), t('oauth.expired.body'), null));
    // The form may post to the client's redirect URI after approval: allow exactly that target.
    const target = new URL(p.redirectUri);
    // Our own images too: the page's icon (/favicon.svg), which Chromium otherwise reports refused.
    ctx.set('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self' ${target.protocol === 'https:' || target.protocol === 'http:' ? target.origin : target.protocol}; frame-ancestors 'none'; base-uri 'none'`);

    const session = await deps.owners.session(ctx.cookies.get(SESSION_COOKIE));
    const formToken = () => signInToken(ctx, deps.config.secureCookies);
    if (ctx.method === 'POST' && field(ctx, 'action') === 'signin') {
      const email = field(ctx, 'email');
      if (source === 'unsaid' && !signInTokenOk(ctx, field(ctx, 'form'))) return html(ctx, 403, t('signedOut.action'), signInForm(sealed, formToken(), email, t('page.expiredForm')));
      const [byEmail, byIp] = await Promise.all([consume(deps.limits.signInPerEmail, email.toLowerCase().slice(0, 254)), consume(deps.limits.signInPerIp, ctx.ip)]);
      if (byEmail.over || byIp.over) return html(ctx, 429, t('signedOut.action'), signInForm(sealed, formToken(), email, t('signin.tooMany')));
      const result = await deps.owners.signIn(email, field(ctx, 'password'), ctx.cookies.get(SESSION_COOKIE), { ip: ctx.ip, userAgent: ctx.get('user-agent'), deviceToken: deviceToken(ctx) });
      if (!result) return html(ctx, 400, t('signedOut.action'), signInForm(sealed, formToken(), email, t('signin.noMatch')));
      ctx.append('Set-Cookie', cookie(result.token, (result.pending ? PENDING_SIGN_IN_TTL_MS : SESSION_TTL_MS) / 1000));
      // Two-factor sign-in on: the code step comes back here once it is done.
      ctx.redirect(result.pending ? codePath(`${CONSENT_PATH}?request=${encodeURIComponent(sealed)}`) : `${CONSENT_PATH}?request=${encodeURIComponent(sealed)}`);
      ctx.status = 303;
      return;
    }
    if (!session) return html(ctx, 200, t('signedOut.action'), signInForm(sealed, formToken(), '', null));
    if (ctx.method !== 'POST') return render(ctx, session, p, sealed);

    if (!safeEqual(field(ctx, 'csrf'), session.csrf)) return html(ctx, 403, t('page.notAllowed'), messageView(t('page.notAllowed'), t('page.expiredForm'), null));
    if (field(ctx, 'decision') === 'deny') {
      ctx.redirect(redirectWith(p.redirectUri, { error: 'access_denied', error_description: 'The owner denied the request.', state: p.state }));
      ctx.status = 303;
      return;
    }
    if (field(ctx, 'decision') !== 'approve') return render(ctx, session, p, sealed, 400, t('oauth.chooseDecision'));
    const teamId = field(ctx, 'teamId');
    const team = (await deps.owners.memberships(session.userId)).find((m) => m.teamId === teamId);
    if (!team || !canManageKeys(team)) return render(ctx, session, p, sealed, 400, t('oauth.chooseTeam'));
    const code = await deps.mcpOAuth.createCode({
      clientId: p.clientId,
      teamId,
      userId: session.userId,
      scopes: p.scopes,
      redirectUri: p.redirectUri,
      codeChallenge: p.codeChallenge,
      resource: p.resource,
    });
    ctx.redirect(redirectWith(p.redirectUri, { code, state: p.state, iss: deps.config.mcp.publicUrl }));
    ctx.status = 303;
  };
}

function signInForm(request: string, formToken: string, email: string, error: string | null): string {
  return `<p>${h('oauth.signinIntro')}</p>${signInView(email, formToken, error, null, { action: CONSENT_PATH, request })}`;
}
