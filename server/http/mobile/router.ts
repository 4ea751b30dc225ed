import type Koa from 'koa';
import type { IncomingMessage } from 'node:http';
import type { Deps } from '../deps.ts';
import type { MobileOperation } from './operation.ts';
import { buildMobileOpenApi } from './openapi.ts';
import { parse } from '../rest.ts';
import { hostAllowed, type MobileProgram } from '../../domain/participant-api/mobile-programs.ts';
import type { MobileSession } from '../../domain/participant-api/mobile-sessions.ts';
import { AccountDisabledError, AppError, NotAuthorizedError, NotFoundError, ValidationError } from '../../errors.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { safeEqual } from '../../crypto.ts';
import { parseJsonBody } from '../json-body.ts';

/** Where the participant API lives. */
export const MOBILE_BASE = '/mobile/v2';
/** Request bodies are small (a visit is a few hundred bytes). */
export const MOBILE_BODY_LIMIT = 16 * 1024;

const ALLOW_HEADERS = 'Content-Type, X-Program-Id, X-Public-Key, X-Session-Token, Authorization';
export const EXPOSE_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, X-Request-Id';
const WRITE = new Set(['POST', 'PATCH', 'DELETE']);
const PARTICIPANT = 'SELECT id FROM participants WHERE id = ? AND program_id = ?';

interface Route {
  op: MobileOperation;
  pattern: RegExp;
  names: string[];
}

/** A 403 that names the credential at fault, so a client knows whether to renew its session or its participant token. */
function credentialError(field: 'X-Session-Token' | 'Authorization' | 'X-Public-Key', code: 'MISSING' | 'INVALID' | 'EXPIRED', message: string): AppError {
  return new AppError(403, ERROR_CODES.NOT_AUTHORIZED, 'NotAuthorizedError', message, { errors: [{ field, code, message }] });
}

function compile(ops: MobileOperation[]): Route[] {
  const seen = new Set<string>();
  return ops.map((op) => {
    const key = `${op.method} ${op.path}`;
    if (seen.has(key)) throw new Error(`Mobile route ${key} (${op.id}) is declared twice.`);
    seen.add(key);
    if (!['program', 'session', 'participant'].includes(op.auth)) throw new Error(`Mobile route ${key} (${op.id}) declares no credentials.`);
    const names: string[] = [];
    const source = op.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z0-9_]+)/g, (_, n: string) => {
      names.push(n);
      return '([^/]+)';
    });
    return { op, names, pattern: new RegExp(`^${source}$`) };
  });
}

function match(routes: Route[], method: string, path: string): { op: MobileOperation; params: Record<string, string> } | null {
  for (const r of routes) {
    if (r.op.method !== method) continue;
    const m = r.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      r.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1]!)));
    } catch {
      return null;
    }
    return { op: r.op, params };
  }
  return null;
}

/** Content types a participant-API body may be sent as (text/plain: a page's simple CORS request). */
export const JSON_BODY_TYPE = /^(application\/json|text\/plain)\b/i;

const tooLarge = () => new ValidationError(`The request body is larger than ${MOBILE_BODY_LIMIT / 1024} KiB.`, undefined, ERROR_CODES.BODY_TOO_LARGE);

/** A body's bytes as JSON, its shape bounded before it is parsed (`parseJsonBody`): `{}` when empty. */
function parseJson(bytes: Buffer | null): Promise<unknown> {
  if (!bytes?.length) return Promise.resolve({});
  try {
    return Promise.resolve(parseJsonBody(bytes.toString('utf8')));
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The JSON body, read with a cap: `{}` when empty. A small body usually arrives in the same packet
 * as its headers, so by the time a handler asks for it the parser has buffered all of it
 * (`req.complete`); it is then taken from the stream's buffer in one `read()`, without switching
 * the stream to flowing mode and waiting for its `data` and `end` events.
 */
export function readJson(req: IncomingMessage, contentType: string): Promise<unknown> {
  if (contentType && !JSON_BODY_TYPE.test(contentType)) {
    return Promise.reject(new ValidationError('Unsupported Content-Type; send application/json.'));
  }
  if (req.complete && req.readableFlowing === null && !req.readableEncoding) {
    if (req.readableLength > MOBILE_BODY_LIMIT) return Promise.reject(tooLarge());
    return parseJson(req.readableLength ? (req.read() as Buffer) : null);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > MOBILE_BODY_LIMIT) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(parseJson(size ? (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) : null));
    });
    req.on('error', reject);
  });
}

/** The host of an Origin header, or null for `null` and anything unparseable. */
export function originHost(origin: string): string | null {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname : null;
  } catch {
    return null;
  }
}

/** Codes proxies use for "no country" (unknown, Tor, anonymous proxy, satellite, other). */
const NO_COUNTRY = new Set(['XX', 'ZZ', 'T1', 'A1', 'A2', 'O1', 'EU', 'AP']);

/** An ISO 3166-1 alpha-2 code from a proxy's country header, or null when it names none. */
export function countryOf(value: string): string | null {
  const code = value.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(code) && !NO_COUNTRY.has(code) ? code : null;
}

/** Sets the CORS answer for an allowed origin; a foreign origin is a 403 without any CORS header. */
function allowOrigin(ctx: Koa.Context, origin: string, view: MobileProgram | null): void {
  const host = originHost(origin);
  if (!host || (view && !hostAllowed(view.hosts, host))) {
    throw new NotAuthorizedError(`Pages on ${host ?? 'this origin'} may not call this program’s participant API; add the site to installation.allowedDomains.`);
  }
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.vary('Origin');
}

/**
 * The participant API under /mobile/v2 (docs/participant-api.md), plus /openapi/mobile-v2.json.
 * Order: route → credentials and program (session token, else X-Program-Id / campaignId) → CORS
 * (foreign origin 403 without CORS headers) → team, mobile switch and public key → session →
 * per-IP-and-instance budget, then the program's → body (JSON, 16 KiB) → validation → participant token → handler.
 * Tokens travel in headers, never cookies, so no credentialed CORS is ever allowed.
 */
export function mobileApi(deps: Deps, operations: MobileOperation[]): Koa.Middleware {
  const routes = compile(operations);
  const limits = deps.mobileLimits;
  const openapi = JSON.stringify(buildMobileOpenApi(operations, deps.config.publicUrl));
  const countryHeader = deps.config.mobile.countryHeader;

  return async (ctx, next) => {
    const path = ctx.path;
    if (path === '/openapi/mobile-v2.json' && ctx.method === 'GET') {
      ctx.type = 'application/json';
      ctx.body = openapi;
      return;
    }
    if (path !== MOBILE_BASE && !path.startsWith(`${MOBILE_BASE}/`)) return next();
    const sub = path.slice(MOBILE_BASE.length) || '/';
    const origin = ctx.get('origin');
    const queryProgram = ctx.querystring && typeof ctx.query.campaignId === 'string' ? ctx.query.campaignId : '';

    if (ctx.method === 'OPTIONS') {
      // A preflight carries no header values: only a campaignId in the URL names the program. Without
      // one the preflight is allowed and the real request is checked against its program.
      if (origin) {
        const view = queryProgram ? await deps.mobilePrograms.get(queryProgram) : null;
        if (queryProgram && !view) throw new NotFoundError(`No program ${queryProgram}.`);
        allowOrigin(ctx, origin, view);
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
        ctx.set('Access-Control-Max-Age', '7200');
      }
      ctx.set('Allow', 'GET, POST, PATCH, DELETE, OPTIONS');
      ctx.status = 204;
      return;
    }

    const found = match(routes, ctx.method, sub);
    if (!found) throw new NotFoundError(`No operation ${ctx.method} ${path}.`);
    const { op, params } = found;

    let session: MobileSession | null = null;
    let sessionProblem: 'MISSING' | 'INVALID' | 'EXPIRED' | null = null;
    if (op.auth !== 'program') {
      const token = ctx.get('x-session-token');
      const v = token ? deps.mobileSessions.verify(token) : 'missing';
      if (typeof v === 'string') sessionProblem = v === 'missing' ? 'MISSING' : v === 'expired' ? 'EXPIRED' : 'INVALID';
      else session = v;
    }
    const named = ctx.get('x-program-id') || queryProgram;
    const programId = session?.programId ?? named;
    if (!programId) {
      if (op.auth === 'program') throw new ValidationError('Name the program with the X-Program-Id header or the campaignId query parameter.', [{ field: 'X-Program-Id', code: 'REQUIRED', message: 'Required.' }]);
      throw credentialError('X-Session-Token', sessionProblem ?? 'MISSING', 'Send a session token (X-Session-Token) from POST /mobile/v2/sessions.');
    }
    const view = await deps.mobilePrograms.get(programId);
    if (!view) throw new NotFoundError(`No program ${programId}.`);
    if (origin) allowOrigin(ctx, origin, view);
    if (origin) ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    if (view.team.disabled) throw new AccountDisabledError();
    const publicKey = ctx.get('x-public-key');
    // Browsers send no Origin on a same-origin GET; Fetch Metadata still marks a page of this server
    // (the demo store, hosted pages). Like Origin, a header only a browser is held to.
    const page = Boolean(origin) || ctx.get('sec-fetch-site') === 'same-origin';
    if (!page && !view.publicKey) throw new NotAuthorizedError('The mobile SDK is not enabled for this program (installation.mobile.isEnabled).');
    if (publicKey || (!page && op.auth === 'program')) {
      if (!view.publicKey || !publicKey || !safeEqual(publicKey, view.publicKey)) {
        throw credentialError('X-Public-Key', publicKey ? 'INVALID' : 'MISSING', 'Send the program’s Mobile SDK key (installation.mobile.publicKey) as X-Public-Key.');
      }
    }
    if (sessionProblem) {
      throw credentialError('X-Session-Token', sessionProblem, sessionProblem === 'EXPIRED' ? 'The session expired; create a new one with POST /mobile/v2/sessions.' : 'Send a valid session token (X-Session-Token) from POST /mobile/v2/sessions.');
    }
    if (session && named && named !== session.programId) throw credentialError('X-Session-Token', 'INVALID', 'The session token belongs to another program.');

    ctx.set(session ? await limits.call(ctx.ip, session.instanceId, view.program.id, op.visitBudget ? 'visits' : 'calls') : await limits.session(ctx.ip, view.program.id));

    let body: unknown;
    if (WRITE.has(ctx.method)) {
      const raw = await readJson(ctx.req, ctx.get('content-type'));
      body = op.fastBody?.(raw) ?? parse(op.body, raw, 'body');
    }
    const query = op.query ? parse(op.query, ctx.query, 'query') : {};

    let participantId: string | null = null;
    if (op.auth === 'participant' || (op.optionalParticipant && ctx.get('authorization'))) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
      if (!m) throw credentialError('Authorization', 'MISSING', 'Send the participant token as Authorization: Bearer <participantToken>.');
      participantId = await deps.participantTokens.verify(m[1]!, view.program.id);
      if (!participantId || !(await deps.db.get(PARTICIPANT, participantId, view.program.id))) {
        throw credentialError('Authorization', 'INVALID', 'The participant token is not valid for this program (expired, revoked or for someone else).');
      }
    }

    ctx.status = 200;
    if (op.vary) ctx.vary(op.vary);
    const country = countryHeader ? countryOf(ctx.get(countryHeader)) : null;
    ctx.body = await op.handler({ body, query, params, view, session, participantId, ip: ctx.ip, app: session ? session.app : Boolean(publicKey), country, userAgent: ctx.get('user-agent'), acceptLanguage: ctx.get('accept-language') || null, deps });
  };
}
