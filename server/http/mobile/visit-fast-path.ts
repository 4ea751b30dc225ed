import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../deps.ts';
import { baseHeaders, logRequest } from '../response-base.ts';
import { hostAllowed, type MobileProgram } from '../../domain/participant-api/mobile-programs.ts';
import type { MobileSession } from '../../domain/participant-api/mobile-sessions.ts';
import { errorResponse } from '../error-middleware.ts';
import { parse } from '../rest.ts';
import { EXPOSE_HEADERS, MOBILE_BASE, MOBILE_BODY_LIMIT, countryOf, originHost, readJson, JSON_BODY_TYPE } from './router.ts';
import { recordVisit } from './routes.ts';

const PATH = `${MOBILE_BASE}/visits`;

/** The client address as Koa computes `ctx.ip`: the first X-Forwarded-For entry when the proxy is trusted. */
function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy ? req.headers['x-forwarded-for'] : undefined;
  if (typeof forwarded === 'string' && forwarded) {
    const first = forwarded.split(/\s*,\s*/)[0];
    if (first) return first;
  }
  return req.socket.remoteAddress ?? '';
}

/** One request taken by the fast path: what answering it needs. */
interface Taken {
  deps: Deps;
  req: IncomingMessage;
  res: ServerResponse;
  session: MobileSession;
  view: MobileProgram;
  ip: string;
  headers: Record<string, string | number>;
  requestId: string;
  started: bigint;
}

/** Characters a visit id and a receipt are made of: nothing JSON would escape, one byte each in UTF-8. */
const PLAIN = /^[\w.-]*$/;

/**
 * MV1's answer as JSON: the text `JSON.stringify` makes, written out for the usual RECORDED answer
 * (a third of the cost) when its strings need no escaping; anything else goes through `JSON.stringify`.
 */
export function visitAnswerJson(a: Awaited<ReturnType<typeof recordVisit.handler>>): string {
  if (a.status === 'RECORDED' && PLAIN.test(a.visitId) && a.receipts !== undefined) {
    const r = a.receipts;
    if (r === null) return `{"status":"RECORDED","visitId":"${a.visitId}","receipts":null}`;
    if (PLAIN.test(r.firstVisit) && PLAIN.test(r.lastVisit)) return `{"status":"RECORDED","visitId":"${a.visitId}","receipts":{"firstVisit":"${r.firstVisit}","lastVisit":"${r.lastVisit}"}}`;
  }
  return JSON.stringify(a);
}

function send(t: Taken, status: number, json: string): void {
  t.headers['Content-Type'] = 'application/json; charset=utf-8';
  t.headers['Content-Length'] = Buffer.byteLength(json);
  t.res.writeHead(status, t.headers);
  t.res.end(json);
  logRequest(t.deps.log, t.requestId, 'POST', PATH, status, t.started);
}

/** What the router runs for MV1 after its credential checks, in the same order. */
async function handle(t: Taken): Promise<void> {
  const { deps, view, session } = t;
  try {
    Object.assign(t.headers, await deps.mobileLimits.call(t.ip, session.instanceId, view.program.id, 'visits'));
    const raw = await readJson(t.req, t.req.headers['content-type'] ?? '');
    const body = recordVisit.fastBody!(raw) ?? parse(recordVisit.body!, raw, 'body');
    const h = t.req.headers;
    const country = deps.config.mobile.countryHeader ? countryOf(String(h[deps.config.mobile.countryHeader] ?? '')) : null;
    const userAgent = h['user-agent'] ?? '';
    const answer = await recordVisit.handler({ body, query: {}, params: {}, view, session, participantId: null, ip: t.ip, app: session.app, country, userAgent, deps });
    send(t, 200, visitAnswerJson(answer));
  } catch (err) {
    const failed = errorResponse(err, deps.log, deps.config.supportUrl, { requestId: t.requestId, method: 'POST', path: PATH });
    if (failed.headers) Object.assign(t.headers, failed.headers);
    if (!t.res.headersSent) send(t, failed.body.status, JSON.stringify(failed.body));
  }
}

/**
 * `POST /mobile/v2/visits` without Koa: the hottest request of the system (every page view of a
 * shared link) spent about half of its CPU in Koa's context, the middleware chain and the router.
 * Only a request whose credentials, program, origin and framing the router would accept is taken
 * here, decided from its headers alone before a byte of the body is read; anything else (a missing
 * or expired session, an uncached program, a foreign origin, a public key to check, a query string,
 * a body without Content-Length or over the cap) returns false and goes through the router, which
 * words the error. Once taken, the request runs what the router runs, in the same order: the
 * caller's and the program's budgets (the same `deps.mobileLimits`), the JSON body, the visit
 * body check (`fastBody`, else the zod schema), MV1's handler; it answers with the same headers
 * and, on failure, the same error object (`errorResponse`).
 */
export function visitFastPath(deps: Deps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const base = baseHeaders(deps.config.publicUrl.startsWith('https:'));
  const { trustProxy } = deps.config;

  return (req, res) => {
    if (req.method !== 'POST' || req.url !== PATH) return false;
    const h = req.headers;
    const token = h['x-session-token'];
    if (typeof token !== 'string' || !token) return false;
    const session = deps.mobileSessions.verify(token);
    if (typeof session === 'string') return false;
    const named = h['x-program-id'];
    if (named !== undefined && named !== session.programId) return false;
    const view = deps.mobilePrograms.peek(session.programId);
    if (!view || view.team.disabled || h['x-public-key'] !== undefined) return false;
    const origin = h.origin;
    if (origin !== undefined) {
      const host = originHost(origin);
      if (!host || !hostAllowed(view.hosts, host)) return false;
    } else if (!view.publicKey && h['sec-fetch-site'] !== 'same-origin') {
      return false;
    }
    const type = h['content-type'];
    if (type !== undefined && !JSON_BODY_TYPE.test(type)) return false;
    const length = Number(h['content-length']);
    if (!(length >= 0 && length <= MOBILE_BODY_LIMIT) || h['transfer-encoding'] !== undefined) return false;

    const requestId = crypto.randomUUID();
    const headers: Record<string, string | number> = { ...base, 'X-Request-Id': requestId };
    if (origin) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers.Vary = 'Origin';
      headers['Access-Control-Expose-Headers'] = EXPOSE_HEADERS;
    }
    void handle({ deps, req, res, session, view, ip: clientIp(req, trustProxy), headers, requestId, started: process.hrtime.bigint() });
    return true;
  };
}
