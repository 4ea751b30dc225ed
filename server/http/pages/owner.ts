import type Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { consume } from '../limits.ts';
import type { Deps } from '../../deps.ts';
import { AppError, ValidationError } from '../../errors.ts';
import { safeEqual } from '../../crypto.ts';
import { page } from './html.ts';
import { EXPIRED_FORM_MESSAGE, FOREIGN_FORM_MESSAGE, PAGE_REFERRER_POLICY, formSource, signInToken, signInTokenOk } from './form-source.ts';
import { createAccount } from '../resources/team.ts';
import { createAccountRequest } from '../../../shared/schemas/team.ts';
import { SESSION_TTL_MS, canInvite, canManageKeys, type Actor, type Membership, type Session } from '../../domain/owners.ts';
import {
  chrome,
  flashView,
  invalidLinkView,
  inviteView,
  keysView,
  membersView,
  messageView,
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
const NOTICES: Record<string, string> = {
  password: 'Your password is set. Sign in with it now.',
  joined: 'You joined the team. Sign in to continue.',
  signedout: 'You are signed out.',
};

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

function html(ctx: Koa.Context, status: number, title: string, body: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = page(title, body);
}

function seeOther(ctx: Koa.Context, location: string): void {
  ctx.redirect(location);
  ctx.status = 303;
}

/** Where a member lands after choosing a team: the keys page when they may use it. */
function landing(m: Membership): string {
  return canManageKeys(m) ? '/keys' : '/team/members';
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

  const cookie = (value: string, maxAgeSeconds: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${deps.config.secureCookies ? '; Secure' : ''}`;

  /** The double-submit token of the sign-in and sign-up forms (form-source.ts). */
  const formToken = (ctx: Koa.Context) => signInToken(ctx, deps.config.secureCookies);

  const currentSession = (ctx: Koa.Context): Promise<Session | null> => owners.session(ctx.cookies.get(SESSION_COOKIE));

  const csrfOk = (ctx: Koa.Context, session: Session): boolean => safeEqual(field(ctx, 'csrf'), session.csrf);

  const forbidden = (ctx: Koa.Context, message: string, link: { href: string; text: string } | null = null) =>
    html(ctx, 403, 'Not allowed', messageView('Not allowed', message, link));

  const csrfRefused = (ctx: Koa.Context) =>
    forbidden(ctx, 'This form has expired or did not come from this site. Go back, reload the page and try again.', { href: '/keys', text: 'Go to your API keys' });

  /** A signed-in page: the header, then the one-time message, then the content. */
  const signedInPage = async (ctx: Koa.Context, session: Session, status: number, title: string, teamName: string | null, content: string) => {
    // A HEAD has no body and an error page may be retried: neither may swallow a secret shown only once.
    const flash = status === 200 && ctx.method === 'GET' ? await owners.takeFlash(session) : null;
    html(ctx, status, title, chrome(session, teamName, ctx.path) + flashView(flash) + content);
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
    return actor;
  };

  const renderKeys = async (ctx: Koa.Context, actor: Actor, status: number, error?: string, values?: Parameters<typeof keysView>[4]) => {
    const keys = await owners.listKeys(actor);
    await signedInPage(ctx, actor.session, status, 'API keys', actor.member.teamName, keysView(actor.member.teamName, keys, actor.session.csrf, error, values));
  };

  const renderMembers = async (ctx: Koa.Context, actor: Actor, status: number, error?: string, values?: Parameters<typeof membersView>[5]) => {
    const members = await owners.members(actor);
    await signedInPage(ctx, actor.session, status, 'Team members', actor.member.teamName, membersView(actor.member.teamName, members, actor.session.csrf, canInvite(actor.member), error, values));
  };

  const routes: Record<string, Handler> = {
    async 'GET /set-password'(ctx) {
      const token = queryToken(ctx);
      const link = await owners.passwordLink(token);
      if (!link) return html(ctx, 400, 'Link not valid', invalidLinkView('password', 'Sign in if you already chose a password.'));
      html(ctx, 200, 'Choose your password', setPasswordView(token, link.email));
    },

    async 'POST /set-password'(ctx) {
      const token = queryToken(ctx);
      try {
        const done = await owners.setPassword(token, field(ctx, 'password'), field(ctx, 'confirm'));
        if (!done) return html(ctx, 400, 'Link not valid', invalidLinkView('password', 'Sign in if you already chose a password.'));
        seeOther(ctx, '/signin?notice=password');
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        const link = await owners.passwordLink(token);
        html(ctx, 400, 'Choose your password', setPasswordView(token, link?.email ?? '', err.message));
      }
    },

    async 'GET /signin'(ctx) {
      const notice = typeof ctx.query.notice === 'string' ? (NOTICES[ctx.query.notice] ?? null) : null;
      html(ctx, 200, 'Sign in', signInView('', formToken(ctx), null, notice));
    },

    async 'POST /signin'(ctx) {
      const email = field(ctx, 'email');
      if (ctx.state.formSource === 'unsaid' && !signInTokenOk(ctx, field(ctx, 'form'))) return html(ctx, 403, 'Sign in', signInView(email.slice(0, 254), formToken(ctx), EXPIRED_FORM_MESSAGE));
      const [byEmail, byIp] = await Promise.all([consume(deps.limits.signInPerEmail, email.toLowerCase().slice(0, 254)), consume(deps.limits.signInPerIp, ctx.ip)]);
      if (byEmail.over || byIp.over) {
        ctx.set('Retry-After', String(Math.max(1, Math.ceil(Math.max(byEmail.res.msBeforeNext, byIp.res.msBeforeNext) / 1000))));
        return html(ctx, 429, 'Sign in', signInView(email.slice(0, 254), formToken(ctx), 'Too many sign-in attempts. Wait a few minutes and try again.'));
      }
      const result = await owners.signIn(email, field(ctx, 'password'), ctx.cookies.get(SESSION_COOKIE));
      if (!result) return html(ctx, 400, 'Sign in', signInView(email.slice(0, 254), formToken(ctx), 'That email address and password do not match an account. Check both and try again.'));
      ctx.append('Set-Cookie', cookie(result.token, SESSION_TTL_MS / 1000));
      seeOther(ctx, result.teams.length === 1 ? landing(result.teams[0]!) : '/signin/team');
    },

    async 'GET /signup'(ctx) {
      html(ctx, 200, 'Create an account', signUpView(formToken(ctx)));
    },

    // The sign-up form is A0 `POST /accounts` for a person: the same operation (schema, per-IP limit,
    // business-address rule, welcome email), with the terms accepted by the person's own tick.
    async 'POST /signup'(ctx) {
      const values = { email: field(ctx, 'email').trim(), firstName: field(ctx, 'firstName').trim(), lastName: field(ctx, 'lastName').trim(), company: field(ctx, 'company').trim() };
      const again = (status: number, error: string) => html(ctx, status, 'Create an account', signUpView(formToken(ctx), error, values));
      if (ctx.state.formSource === 'unsaid' && !signInTokenOk(ctx, field(ctx, 'form'))) return again(403, EXPIRED_FORM_MESSAGE);
      if (field(ctx, 'terms') !== 'on') return again(400, 'Accept the terms of service and the privacy policy to create an account.');
      const body = createAccountRequest.safeParse(Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')));
      if (!body.success) {
        const bad = new Set(body.error.issues.map((i) => String(i.path[0])));
        return again(400, bad.has('email') ? 'Enter a valid email address.' : 'Names and company may have at most 255 characters each.');
      }
      try {
        const created = await createAccount.handler({ body: body.data, query: {}, params: {}, auth: null, program: null, ip: ctx.ip, deps });
        html(ctx, 200, 'Check your email', signUpDoneView(created.email, deps.config.env !== 'production' && !deps.config.smtpUrl));
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
      const current = teams.find((t) => t.teamId === session.teamId)?.teamName ?? null;
      await signedInPage(ctx, session, 200, 'Choose a team', current, teamPickerView(teams, session.csrf, session.teamId));
    },

    async 'POST /signin/team'(ctx) {
      const session = await currentSession(ctx);
      if (!session) return seeOther(ctx, '/signin');
      if (!csrfOk(ctx, session)) return csrfRefused(ctx);
      const actor = await owners.chooseTeam(session, field(ctx, 'teamId'));
      if (actor) return seeOther(ctx, landing(actor.member));
      const teams = await owners.memberships(session.userId);
      await signedInPage(ctx, session, 400, 'Choose a team', null, teamPickerView(teams, session.csrf, session.teamId, 'Choose one of your teams.'));
    },

    async 'POST /signout'(ctx) {
      const session = await currentSession(ctx);
      if (session) {
        if (!csrfOk(ctx, session)) return csrfRefused(ctx);
        await owners.signOut(session);
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
      try {
        await owners.createKey(actor, values);
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
      if (!(await owners.revokeKey(actor, prefix))) return renderKeys(ctx, actor, 400, 'No active key of this team starts with that prefix.');
      await owners.notify(actor.session, `The key ${prefix}… is revoked and no longer works.`);
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
        const sent = await owners.invite(actor, values);
        await owners.notify(actor.session, `Invitation sent to ${sent.email}.`);
        seeOther(ctx, '/team/members');
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        await renderMembers(ctx, actor, 400, err.message, { ...values, email: values.email.slice(0, 254) });
      }
    },

    async 'GET /invite/accept'(ctx) {
      const token = queryToken(ctx);
      const inv = await owners.invitation(token);
      if (!inv) return html(ctx, 400, 'Invitation not valid', invalidLinkView('invitation', 'Ask the person who invited you to send a new invitation.'));
      html(ctx, 200, `Join ${inv.teamName}`, inviteView(token, inv));
    },

    async 'POST /invite/accept'(ctx) {
      const token = queryToken(ctx);
      try {
        const done = await owners.acceptInvite(token, field(ctx, 'password'), field(ctx, 'confirm'));
        if (!done) return html(ctx, 400, 'Invitation not valid', invalidLinkView('invitation', 'Ask the person who invited you to send a new invitation.'));
        seeOther(ctx, '/signin?notice=joined');
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        const inv = await owners.invitation(token);
        if (!inv) return html(ctx, 400, 'Invitation not valid', invalidLinkView('invitation', 'Ask the person who invited you to send a new invitation.'));
        html(ctx, 400, `Join ${inv.teamName}`, inviteView(token, inv, err.message));
      }
    },
  };
  const paths = new Set(Object.keys(routes).map((k) => k.slice(k.indexOf(' ') + 1)));

  return async (ctx, next) => {
    if (!paths.has(ctx.path)) return next();
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    ctx.set('Cache-Control', 'no-store');
    // Links carry one-time tokens in the query; never leak them to other sites.
    ctx.set('Referrer-Policy', PAGE_REFERRER_POLICY);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    const handler = routes[`${method} ${ctx.path}`];
    if (!handler) {
      ctx.set('Allow', ['GET', 'POST'].filter((m) => routes[`${m} ${ctx.path}`]).join(', '));
      return html(ctx, 405, 'Method not allowed', messageView('Method not allowed', `${ctx.method} is not used on this page.`, null));
    }
    if (httpsOnly && ctx.protocol !== 'https') {
      if (method === 'GET') {
        ctx.redirect(deps.config.publicUrl + ctx.originalUrl);
        ctx.status = 301;
        return;
      }
      return forbidden(ctx, 'This page only accepts forms sent over HTTPS.', { href: `${deps.config.publicUrl}/signin`, text: 'Open the secure sign-in page' });
    }
    try {
      if (method === 'POST') {
        // A browser always names the page a form came from; a foreign one is a cross-site forgery.
        // (Koa 3's ctx.origin is the Origin header itself, so our own origin is rebuilt from the Host.)
        ctx.state.formSource = formSource(ctx, publicOrigin);
        if (ctx.state.formSource === 'foreign') return forbidden(ctx, FOREIGN_FORM_MESSAGE);
        await parser(ctx, async () => {});
      }
      await handler(ctx);
    } catch (err) {
      if (err instanceof FormBodyError) {
        return html(ctx, err.status, 'Form not accepted', messageView('Form not accepted', err.status === 413 ? 'The form is too large.' : 'The form could not be read. Go back and try again.', null));
      }
      if (err instanceof AppError && err.status < 500) {
        return html(ctx, err.status, err.status === 403 ? 'Not allowed' : 'Request not accepted', messageView(err.status === 403 ? 'Not allowed' : 'Request not accepted', err.message, { href: '/team/members', text: 'Go to your team' }));
      }
      deps.log.error('owner page error', { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, error: String((err as Error)?.stack ?? err) });
      html(ctx, 500, 'Something went wrong', messageView('Something went wrong', `Something went wrong on our side. Quote request id ${ctx.state.requestId} if you contact support.`, null));
    }
  };
}
