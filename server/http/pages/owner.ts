import fs from 'node:fs';
import { PAGE_POLICY } from '../page-policy.ts';
import path from 'node:path';
import type Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { consume } from '../limits.ts';
import type { Deps } from '../deps.ts';
import { AppError, ValidationError } from '../../errors.ts';
import { safeEqual } from '../../crypto.ts';
import { page } from './html.ts';
import { DEFAULT_CONSOLE_DIR } from '../console/assets.ts';
import { PAGE_REFERRER_POLICY, formSource, signInToken, signInTokenOk } from './form-source.ts';
import { t } from './i18n/index.ts';
import { createAccount } from '../resources/team.ts';
import { createAccountRequest } from '../../../shared/schemas/team.ts';
import { PENDING_SIGN_IN_TTL_MS, SESSION_TTL_MS, canInvite, type Actor, type Session } from '../../domain/platform/owners.ts';
import { consoleKey } from '../../domain/platform/console-access.ts';
import { sessionCookie } from './session-cookie.ts';
import { codePath, deviceToken, keyReauthView, reauthenticateOnPage, revealGate, secondFactorRoutes } from './owner-second-factor.ts';
import {
  chrome,
  COPY_SCRIPT,
  COPY_SCRIPT_PATH,
  flashView,
  invalidLinkView,
  inviteView,
  keysView,
  membersView,
  messageView,
  ownerPage,
  setPasswordView,
  signInView,
  signUpDoneView,
  signUpView,
  teamPickerView,
} from './owner-views.ts';

/** Name of the owner session cookie. */
export const SESSION_COOKIE = 'refloop_session';

type Handler = (ctx: Koa.Context) => Promise<void>;

/** Thrown by the body parser's error hook so the page can answer in HTML rather than the REST error object. */
class FormBodyError extends Error {
  constructor(readonly status: number) {
    super('form body');
  }
}

// Fixed texts for `/signin?notice=…`: the query only picks one, so nothing from the URL is reflected.
const NOTICES = { password: 'signin.notice.password', joined: 'signin.notice.joined', signedout: 'signin.notice.signedout' } as const;

function field(ctx: Koa.Context, name: string): string {
  const v = (ctx.request as { body?: Record<string, unknown> }).body?.[name];
  return typeof v === 'string' ? v : '';
}

function fieldList(ctx: Koa.Context, name: string): string[] {
  const v = (ctx.request as { body?: Record<string, unknown> }).body?.[name];
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function queryToken(ctx: Koa.Context): string {
  return typeof ctx.query.token === 'string' ? ctx.query.token : '';
}

/** Whether the console's stylesheet exists (the owner pages wear it); checked at most every few seconds. */
const consoleCss = path.join(DEFAULT_CONSOLE_DIR, 'console.css');
let built = { at: 0, value: false };
function consoleBuilt(): boolean {
  const now = Date.now();
  if (now - built.at > 5000) built = { at: now, value: fs.existsSync(consoleCss) };
  return built.value;
}

function html(ctx: Koa.Context, status: number, title: string, body: string, top = ''): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = ownerPage(title, top, body, consoleBuilt(), page);
}

function seeOther(ctx: Koa.Context, location: string): void {
  ctx.redirect(location);
  ctx.status = 303;
}

/** Where an owner page's request came from, for its audit entry (issue #35). */
function accessFrom(ctx: Koa.Context): { ip: string | null; userAgent: string | null } {
  return { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null };
}

/** Where a sign-in goes next when it asked (`?next=`): a console address of ours, nothing else. */
function consoleNext(value: unknown): string | null {
  return typeof value === 'string' && /^\/console(?:[/?#][^\\\s]*)?$/.test(value) && !value.startsWith('//') ? value : null;
}

/** Where the second sign-in step may go next: a console address, or back to the OAuth consent page that asked. */
function signInNext(value: unknown): string | null {
  return consoleNext(value) ?? (typeof value === 'string' && /^\/oauth\/consent\?request=[A-Za-z0-9._~%-]{1,4000}$/.test(value) ? value : null);
}

/**
 * Where a member lands after signing in or choosing a team: the console's home. A key secret waiting
 * in the session (the first sign-in's) is announced there and shown, once, on the keys page (issue #32).
 */
function landing(): string {
  return '/console';
}

/**
 * The owner pages: set password, sign in and out, team picker, API keys, team members and
 * invitations. Plain server-rendered HTML; all data work goes through `deps.owners`.
 */
export function ownerPages(deps: Deps): Koa.Middleware {
  const owners = deps.owners;
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const httpsOnly = deps.config.publicUrl.startsWith('https:');
  const parser = bodyParser({
    enableTypes: ['form'],
    formLimit: '64kb',
    encoding: 'utf-8',
    onError(err) {
      const e = err as { status?: number };
      throw new FormBodyError(e.status === 413 ? 413 : 400);
    },
  });

  const cookie = (value: string, maxAgeSeconds: number) => sessionCookie(SESSION_COOKIE, value, maxAgeSeconds, deps.config.secureCookies);

  /** The double-submit token of the sign-in and sign-up forms (form-source.ts). */
  const formToken = (ctx: Koa.Context) => signInToken(ctx, deps.config.secureCookies);

  const currentSession = (ctx: Koa.Context): Promise<Session | null> => owners.session(ctx.cookies.get(SESSION_COOKIE));

  const csrfOk = (ctx: Koa.Context, session: Session): boolean => safeEqual(field(ctx, 'csrf'), session.csrf);

  const forbidden = (ctx: Koa.Context, message: string, link: { href: string; text: string } | null = null) =>
    html(ctx, 403, t('page.notAllowed'), messageView(t('page.notAllowed'), message, link));

  const csrfRefused = (ctx: Koa.Context) => forbidden(ctx, t('owner.formRefused'), { href: '/keys', text: t('owner.toKeys') });

  /** A signed-in page: the header, then the one-time message, then the content. */
  const signedInPage = async (ctx: Koa.Context, session: Session, status: number, title: string, teamName: string | null, content: string) => {
    // A HEAD has no body and an error page may be retried: neither may swallow a secret shown only once.
    // A key secret waiting is revealed only to a session re-authenticated in the last five minutes (issue #35).
    const gate = status === 200 && ctx.method === 'GET' && !session.recentlyReauthenticated && (await owners.keyWaiting(session)) ? revealGate(session, ctx.path === '/keys', await owners.twoFactor.enabled(session.userId)) : null;
    const flash = status === 200 && ctx.method === 'GET' && gate === null ? await owners.takeFlash(session) : null;
    html(ctx, status, title, (gate ?? flashView(flash)) + content, chrome(session, teamName, ctx.path));
  };

  /** Resolves the signed-in user in their current team, answering the request itself when that is not possible. */
  const requireActor = async (ctx: Koa.Context, post: boolean): Promise<Actor | null> => {
    const session = await currentSession(ctx);
    if (!session) {
      seeOther(ctx, '/signin');
      return null;
    }
    if (post && !csrfOk(ctx, session)) {
      csrfRefused(ctx);
      return null;
    }
    const actor = await owners.actor(session);
    if (!actor) seeOther(ctx, '/signin/team');
    // A team that requires two-factor sign-in sends a member without it to enrol first (issue #35).
    else if ((await consoleKey(deps.db, session))?.mustEnrol) {
      seeOther(ctx, '/console/security');
      return null;
    }
    return actor;
  };

  const renderKeys = async (ctx: Koa.Context, actor: Actor, status: number, error?: string, values?: Parameters<typeof keysView>[4]) => {
    const keys = await owners.team.listKeys(actor);
    await signedInPage(ctx, actor.session, status, t('keys.title'), actor.member.teamName, keysView(actor.member.teamName, keys, actor.session.csrf, error, values));
  };

  const renderMembers = async (ctx: Koa.Context, actor: Actor, status: number, error?: string, values?: Parameters<typeof membersView>[5]) => {
    const members = await owners.team.members(actor.member.teamId);
    await signedInPage(ctx, actor.session, status, t('membersPage.title'), actor.member.teamName, membersView(actor.member.teamName, members, actor.session.csrf, canInvite(actor.member), error, values));
  };

  /** An invitation link that no longer works: cancelled or replaced by a resend (410, saying which), else unknown, used or expired (400). */
  const deadInvitation = async (ctx: Koa.Context, token: string) => {
    const ended = await owners.team.endedInvitation(token);
    if (ended?.reason === 'CANCELLED') {
      return html(ctx, 410, t('link.invitation.cancelled.title'), messageView(t('link.invitation.cancelled.heading'), t('link.invitation.cancelled.body', { team: ended.teamName })));
    }
    if (ended?.reason === 'REPLACED') {
      return html(ctx, 410, t('link.invitation.replaced.title'), messageView(t('link.invitation.replaced.heading'), t('link.invitation.replaced.body', { team: ended.teamName })));
    }
    html(ctx, 400, t('link.invitation.title'), invalidLinkView('invitation'));
  };

  const routes: Record<string, Handler> = {
    async 'GET /set-password'(ctx) {
      const token = queryToken(ctx);
      const link = await owners.passwordLink(token);
      if (!link) return html(ctx, 400, t('page.linkInvalid'), invalidLinkView('password'));
      html(ctx, 200, t('password.title'), setPasswordView(token, link.email));
    },

    async 'POST /set-password'(ctx) {
      const token = queryToken(ctx);
      try {
        const done = await owners.setPassword(token, field(ctx, 'password'), field(ctx, 'confirm'));
        if (!done) return html(ctx, 400, t('page.linkInvalid'), invalidLinkView('password'));
        seeOther(ctx, '/signin?notice=password');
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        const link = await owners.passwordLink(token);
        html(ctx, 400, t('password.title'), setPasswordView(token, link?.email ?? '', err.message));
      }
    },

    async 'GET /signin'(ctx) {
      const asked = ctx.query.notice;
      let notice = typeof asked === 'string' && Object.hasOwn(NOTICES, asked) ? t(NOTICES[asked as keyof typeof NOTICES]) : null;
      // A session the team's Owner ended by changing this member's role (TM8) says so (issue #35).
      if (!notice && (await owners.sessions.endedReason(ctx.cookies.get(SESSION_COOKIE))) === 'PRIVILEGES_CHANGED') notice = t('signin.notice.privileges');
      html(ctx, 200, t('signedOut.action'), signInView('', formToken(ctx), null, notice, undefined, consoleNext(ctx.query.next)));
    },

    async 'POST /signin'(ctx) {
      const email = field(ctx, 'email');
      const next = consoleNext(field(ctx, 'next'));
      if (ctx.state.formSource === 'unsaid' && !signInTokenOk(ctx, field(ctx, 'form'))) return html(ctx, 403, t('signedOut.action'), signInView(email.slice(0, 254), formToken(ctx), t('page.expiredForm'), null, undefined, next));
      const [byEmail, byIp] = await Promise.all([consume(deps.limits.signInPerEmail, email.toLowerCase().slice(0, 254)), consume(deps.limits.signInPerIp, ctx.ip)]);
      if (byEmail.over || byIp.over) {
        ctx.set('Retry-After', String(Math.max(1, Math.ceil(Math.max(byEmail.res.msBeforeNext, byIp.res.msBeforeNext) / 1000))));
        return html(ctx, 429, t('signedOut.action'), signInView(email.slice(0, 254), formToken(ctx), t('signin.tooMany'), null, undefined, next));
      }
      const result = await owners.signIn(email, field(ctx, 'password'), ctx.cookies.get(SESSION_COOKIE), { ip: ctx.ip, userAgent: ctx.get('user-agent'), deviceToken: deviceToken(ctx) });
      // A sign-in waiting for its second factor is recorded when the code step ends it (owner-second-factor.ts).
      if (!result || !result.pending) await deps.audit.access(result ? 'access.signIn' : 'access.signInFailed', { email }, accessFrom(ctx));
      if (!result) return html(ctx, 400, t('signedOut.action'), signInView(email.slice(0, 254), formToken(ctx), t('signin.noMatch'), null, undefined, next));
      if (result.pending) {
        ctx.append('Set-Cookie', cookie(result.token, PENDING_SIGN_IN_TTL_MS / 1000));
        return seeOther(ctx, codePath(next));
      }
      ctx.append('Set-Cookie', cookie(result.token, SESSION_TTL_MS / 1000));
      seeOther(ctx, result.teams.length === 1 ? (next ?? landing()) : '/signin/team');
    },

    async 'GET /signup'(ctx) {
      html(ctx, 200, t('signup.title'), signUpView(formToken(ctx)));
    },

    // The sign-up form is A0 `POST /accounts` for a person: the same operation (schema, per-IP limit,
    // business-address rule, welcome email), with the terms accepted by the person's own tick.
    async 'POST /signup'(ctx) {
      const values = { email: field(ctx, 'email').trim(), firstName: field(ctx, 'firstName').trim(), lastName: field(ctx, 'lastName').trim(), company: field(ctx, 'company').trim() };
      const again = (status: number, error: string) => html(ctx, status, t('signup.title'), signUpView(formToken(ctx), error, values));
      if (ctx.state.formSource === 'unsaid' && !signInTokenOk(ctx, field(ctx, 'form'))) return again(403, t('page.expiredForm'));
      if (field(ctx, 'terms') !== 'on') return again(400, t('signup.acceptTerms'));
      const body = createAccountRequest.safeParse(Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')));
      if (!body.success) {
        const bad = new Set(body.error.issues.map((i) => String(i.path[0])));
        return again(400, t(bad.has('email') ? 'signup.badEmail' : 'signup.tooLong'));
      }
      try {
        const created = await createAccount.handler({ body: body.data, query: {}, params: {}, auth: null, program: null, ip: ctx.ip, deps });
        html(ctx, 200, t('signup.done.title'), signUpDoneView(created.email, deps.config.env !== 'production' && !deps.config.smtpUrl));
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        if (err.headers?.['Retry-After']) ctx.set('Retry-After', err.headers['Retry-After']);
        again(err.status, err.message);
      }
    },

    async 'GET /signin/team'(ctx) {
      const session = await currentSession(ctx);
      if (!session) return seeOther(ctx, '/signin');
      const teams = await owners.memberships(session.userId);
      const current = teams.find((m) => m.teamId === session.teamId)?.teamName ?? null;
      await signedInPage(ctx, session, 200, t('noTeam.title'), current, teamPickerView(teams, session.csrf, session.teamId));
    },

    async 'POST /signin/team'(ctx) {
      const session = await currentSession(ctx);
      if (!session) return seeOther(ctx, '/signin');
      if (!csrfOk(ctx, session)) return csrfRefused(ctx);
      const actor = await owners.chooseTeam(session, field(ctx, 'teamId'));
      if (actor) return seeOther(ctx, landing());
      const teams = await owners.memberships(session.userId);
      await signedInPage(ctx, session, 400, t('noTeam.title'), null, teamPickerView(teams, session.csrf, session.teamId, t('teams.choose')));
    },

    async 'POST /signout'(ctx) {
      const session = await currentSession(ctx);
      if (session) {
        if (!csrfOk(ctx, session)) return csrfRefused(ctx);
        await owners.signOut(session);
        await deps.audit.access('access.signOut', { email: session.email, userId: session.userId }, accessFrom(ctx));
      }
      ctx.append('Set-Cookie', cookie('', 0));
      seeOther(ctx, '/signin?notice=signedout');
    },

    async 'GET /keys'(ctx) {
      const actor = await requireActor(ctx, false);
      if (actor) await renderKeys(ctx, actor, 200);
    },

    async 'POST /keys'(ctx) {
      const actor = await requireActor(ctx, true);
      if (!actor) return;
      const values = { scopes: fieldList(ctx, 'scopes'), programIds: field(ctx, 'programIds'), label: field(ctx, 'label') };
      // No sign-in in the last five minutes (issue #35): ask for the password (and code) in place, keeping the key's fields; the form posts here again.
      if (!actor.session.recentlyReauthenticated) {
        const withCode = await owners.twoFactor.enabled(actor.session.userId);
        const ask = (status: number, error?: string) => html(ctx, status, t('keys.title'), keyReauthView(actor.session, withCode, values, error), chrome(actor.session, actor.member.teamName, ctx.path));
        if (field(ctx, 'reauth') !== '1') return ask(403);
        const refused = await reauthenticateOnPage(deps, ctx, actor.session, field(ctx, 'password'), field(ctx, 'code'));
        if (refused) return ask(refused.status, refused.error);
      }
      try {
        await owners.team.createKey(actor, values);
        await deps.audit.access('access.keyCreate', { email: actor.session.email, userId: actor.session.userId, teamId: actor.member.teamId }, accessFrom(ctx), { scopes: values.scopes, programIds: values.programIds, label: values.label });
        seeOther(ctx, '/keys');
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        await renderKeys(ctx, actor, 400, err.message, values);
      }
    },

    async 'POST /keys/revoke'(ctx) {
      const actor = await requireActor(ctx, true);
      if (!actor) return;
      const prefix = field(ctx, 'prefix');
      if (!(await owners.team.revokeKey(actor, prefix))) return renderKeys(ctx, actor, 400, t('keys.unknownPrefix'));
      await deps.audit.access('access.keyRevoke', { email: actor.session.email, userId: actor.session.userId, teamId: actor.member.teamId }, accessFrom(ctx), { prefix });
      await owners.notify(actor.session, t('keys.revoked', { prefix }));
      seeOther(ctx, '/keys');
    },

    async 'GET /team/members'(ctx) {
      const actor = await requireActor(ctx, false);
      if (actor) await renderMembers(ctx, actor, 200);
    },

    async 'POST /team/members/invite'(ctx) {
      const actor = await requireActor(ctx, true);
      if (!actor) return;
      const values = { email: field(ctx, 'email'), role: field(ctx, 'role'), manageApi: field(ctx, 'manageApi') === 'on' };
      try {
        const sent = await owners.team.invite(actor, values);
        await deps.audit.access('access.memberInvite', { email: actor.session.email, userId: actor.session.userId, teamId: actor.member.teamId }, accessFrom(ctx), { invitationId: sent.id, email: sent.email, role: values.role, manageApi: values.manageApi });
        await owners.notify(actor.session, t('invite.sent', { email: sent.email }));
        seeOther(ctx, '/team/members');
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        await renderMembers(ctx, actor, 400, err.message, { ...values, email: values.email.slice(0, 254) });
      }
    },

    async 'GET /invite/accept'(ctx) {
      const token = queryToken(ctx);
      const inv = await owners.team.invitation(token);
      if (!inv) return deadInvitation(ctx, token);
      html(ctx, 200, t('join.title', { team: inv.teamName }), inviteView(token, inv));
    },

    async 'POST /invite/accept'(ctx) {
      const token = queryToken(ctx);
      try {
        const done = await owners.team.acceptInvite(token, field(ctx, 'password'), field(ctx, 'confirm'));
        if (!done) return deadInvitation(ctx, token);
        seeOther(ctx, '/signin?notice=joined');
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        const inv = await owners.team.invitation(token);
        if (!inv) return deadInvitation(ctx, token);
        html(ctx, 400, t('join.title', { team: inv.teamName }), inviteView(token, inv, err.message));
      }
    },
  };
  Object.assign(routes, secondFactorRoutes(deps, { html: (ctx, status, title, body) => html(ctx, status, title, body), seeOther, field, next: signInNext, sessionCookieName: SESSION_COOKIE }));
  const paths = new Set(Object.keys(routes).map((k) => k.slice(k.indexOf(' ') + 1)));

  return async (ctx, next) => {
    if (ctx.path === COPY_SCRIPT_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = COPY_SCRIPT;
      return;
    }
    if (!paths.has(ctx.path)) return next();
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    ctx.set('Cache-Control', 'no-store');
    // Links carry one-time tokens in the query; never leak them to other sites.
    ctx.set('Referrer-Policy', PAGE_REFERRER_POLICY);
    ctx.set('X-Frame-Options', 'DENY');
    // Scripts only from our own origin: the Copy button of a key shown once (COPY_SCRIPT_PATH).
    ctx.set('Content-Security-Policy', PAGE_POLICY.owner);
    const handler = routes[`${method} ${ctx.path}`];
    if (!handler) {
      ctx.set('Allow', ['GET', 'POST'].filter((m) => routes[`${m} ${ctx.path}`]).join(', '));
      return html(ctx, 405, t('page.methodNotAllowed'), messageView(t('page.methodNotAllowed'), t('page.methodNotUsed', { method: ctx.method }), null));
    }
    if (httpsOnly && ctx.protocol !== 'https') {
      if (method === 'GET') {
        ctx.redirect(deps.config.publicUrl + ctx.originalUrl);
        ctx.status = 301;
        return;
      }
      return forbidden(ctx, t('owner.httpsOnly'), { href: `${deps.config.publicUrl}/signin`, text: t('owner.toSecureSignin') });
    }
    try {
      if (method === 'POST') {
        // A browser always names the page a form came from; a foreign one is a cross-site forgery.
        // (Koa 3's ctx.origin is the Origin header itself, so our own origin is rebuilt from the Host.)
        ctx.state.formSource = formSource(ctx, publicOrigin);
        if (ctx.state.formSource === 'foreign') return forbidden(ctx, t('page.foreignForm'));
        await parser(ctx, async () => {});
      }
      await handler(ctx);
    } catch (err) {
      if (err instanceof FormBodyError) {
        return html(ctx, err.status, t('page.formNotAccepted'), messageView(t('page.formNotAccepted'), t(err.status === 413 ? 'page.formTooLarge' : 'page.formUnreadable'), null));
      }
      if (err instanceof AppError && err.status < 500) {
        const heading = t(err.status === 403 ? 'page.notAllowed' : 'owner.notAccepted');
        return html(ctx, err.status, heading, messageView(heading, err.message, { href: '/team/members', text: t('owner.toTeam') }));
      }
      deps.log.error('owner page error', { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, error: String((err as Error)?.stack ?? err) });
      html(ctx, 500, t('owner.error.title'), messageView(t('owner.error.title'), t('owner.error.body', { id: String(ctx.state.requestId) }), null));
    }
  };
}
