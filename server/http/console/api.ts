import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import type { Operation } from '../operation.ts';
import { restApi, type Authenticate } from '../rest.ts';
import { SESSION_COOKIE } from '../pages/owner.ts';
import { formSource } from '../pages/form-source.ts';
import { AppError, NotAuthorizedError, NotFoundError } from '../../errors.ts';
import { safeEqual } from '../../crypto.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { ReauthenticationRequiredError, TwoFactorRequiredError, consoleKey, roleScopes } from '../../domain/platform/console-access.ts';
import { SESSION_TTL_MS } from '../../domain/platform/owners.ts';
import { sessionCookie } from '../pages/session-cookie.ts';
import { canInvite, canManageKeys, type Session } from '../../domain/platform/owners.ts';

// The owner console's way into the REST API (issue #23): `/console/api/v2/…` is the `/v2` routes
// table itself (the same operations, schemas, scopes, program checks, team budgets, idempotency and
// error object), with the owner session cookie instead of a bearer key. The member's team role
// decides the scopes (server/domain/platform/console-access.ts). A write must carry the session's
// CSRF value in `X-CSRF-Token` and must not come from another site; `GET /console/api/session` tells
// the app who is signed in, in which team, with what scopes and CSRF value.

/** The console's REST mirror. */
export const CONSOLE_API = '/console/api/v2';
/** The header every console write carries. */
export const CSRF_HEADER = 'x-csrf-token';
const WRITE = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** What a member who must still enrol in two-factor sign-in may call: their 2FA, their sessions, re-authentication. */
const OPEN_BEFORE_ENROLMENT = new Set(['TF1', 'TF2', 'TF3', 'RA1', 'OS1', 'OS2', 'OS3']);

/**
 * The sensitive actions (issue #35): each answers 403 REAUTHENTICATION_REQUIRED_ERROR unless the
 * session re-authenticated (or signed in) within five minutes. Console sessions only: an API key is
 * a machine's credential with no person to ask, and none of these but CF6 is open to keys.
 */
const NEEDS_REAUTH: Record<string, (body: unknown) => boolean> = {
  TK2: () => true, // creating an API key reveals its secret
  TF4: () => true, // turning two-factor sign-in off
  TM7: () => true, // removing a member
  TM8: () => true, // changing a member's role or Manage API access
  TF5: () => true, // new recovery codes (each signs in without the app)
  CF6: (body) => Boolean(body && typeof body === 'object' && 'payoutSettings' in body), // payout settings
};

/** 401 NOT_SIGNED_IN_ERROR: the console's requests without a live session (the app then shows sign-in). */
export class NotSignedInError extends AppError {
  constructor() {
    super(401, ERROR_CODES.NOT_SIGNED_IN, 'NotSignedInError', 'Sign in to use the console: your session has ended or was signed out.');
  }
}

/** 401 PRIVILEGES_CHANGED_ERROR: the session ended because the team's Owner changed this member's role or Manage API access (TM8). */
export class PrivilegesChangedError extends AppError {
  constructor() {
    super(401, ERROR_CODES.PRIVILEGES_CHANGED, 'PrivilegesChangedError', 'Your role or API access in a team changed, so your sessions ended: sign in again to continue with your new privileges.');
  }
}

async function liveSession(ctx: Koa.Context, deps: Deps): Promise<Session> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  const session = await deps.owners.session(token);
  if (session) return session;
  if ((await deps.owners.sessions.endedReason(token)) === 'PRIVILEGES_CHANGED') throw new PrivilegesChangedError();
  throw new NotSignedInError();
}

/** The session as the REST pipeline's credential; writes need the CSRF value and our own origin. */
const sessionKey: Authenticate = async (ctx, op, deps) => {
  const session = await liveSession(ctx, deps);
  if (WRITE.has(ctx.method)) {
    if (formSource(ctx, new URL(deps.config.publicUrl).origin) === 'foreign') throw new NotAuthorizedError('This request was sent from another site.');
    if (!safeEqual(ctx.get(CSRF_HEADER), session.csrf)) throw new NotAuthorizedError('This request has no valid CSRF token; reload the console and try again.');
  }
  const found = await consoleKey(deps.db, session);
  if (!found) throw new NotAuthorizedError('Choose a team first: this session has no current team, or you are no longer a member of it.');
  if (found.mustEnrol && !OPEN_BEFORE_ENROLMENT.has(op.id)) throw new TwoFactorRequiredError();
  if (NEEDS_REAUTH[op.id]?.((ctx.request as { body?: unknown }).body) && !session.recentlyReauthenticated) throw new ReauthenticationRequiredError();
  ctx.state.consoleOwner = found.key.owner;
  return { key: found.key };
};

/** `GET /console/api/session`: who is signed in and what they may do (never cached). */
function sessionInfo(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/console/api/session') return next();
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new AppError(405, 'METHOD_NOT_ALLOWED_ERROR', 'MethodNotAllowedError', 'Use GET.');
    }
    const session = await liveSession(ctx, deps);
    const [teams, found, keyWaiting] = await Promise.all([deps.owners.memberships(session.userId), consoleKey(deps.db, session), deps.owners.keyWaiting(session)]);
    const member = found?.member ?? null;
    ctx.body = {
      email: session.email,
      csrf: session.csrf,
      expiresAt: new Date(session.expiresAt).toISOString(),
      team: member
        ? {
            id: member.teamId,
            name: member.teamName,
            role: member.role,
            emailVerified: found!.key.ownerEmailVerified,
            verificationStatus: found!.key.verificationStatus,
            canManageKeys: canManageKeys(member),
            canInvite: canInvite(member),
          }
        : null,
      scopes: member ? roleScopes(member.role) : [],
      /** Two-factor sign-in (issue #35): whether it is on, whether the team requires it, and so whether the console must send the member to enrol first. */
      twoFactor: { enabled: found?.twoFactor ?? false, teamRequires: found?.teamRequiresTwoFactor ?? false, mustEnrol: found?.mustEnrol ?? false },
      /** No SMTP_URL: mail is kept in the outbox, which the console's Outbox page reads (GET /team/outbox). */
      mailOutbox: !deps.config.smtpUrl,
      /** A new API key waits in the session, to be shown once on the `/keys` page (the flash is not taken here). */
      keyWaiting,
      teams: teams.map((t) => ({ id: t.teamId, name: t.teamName, role: t.role })),
    };
  };
}

/** Everything under `/console/api`: the session document and the REST mirror. */
export function consoleApi(deps: Deps, operations: Operation[]): Koa.Middleware {
  const info = sessionInfo(deps);
  const rest = restApi(deps, operations, { prefix: CONSOLE_API, authenticate: sessionKey });
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/console/api/') && ctx.path !== '/console/api') return next();
    ctx.set('Cache-Control', 'no-store');
    try {
      await info(ctx, () => rest(ctx, async () => {
        throw new NotFoundError(`No console operation ${ctx.method} ${ctx.path}.`);
      }));
    } finally {
      // An operation that changed the person's privileges (2FA on or off) rotated the session: the browser gets the new token.
      const rotated = (ctx.state.consoleOwner as { newSessionToken?: string } | undefined)?.newSessionToken;
      if (rotated) ctx.append('Set-Cookie', sessionCookie(SESSION_COOKIE, rotated, SESSION_TTL_MS / 1000, deps.config.secureCookies));
    }
  };
}
