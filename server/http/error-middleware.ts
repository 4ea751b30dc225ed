import type Koa from 'koa';
import { AppError, translateDbError } from '../errors.ts';
import { ERROR_CODES, type ErrorBody } from '../../shared/errors.ts';
import type { Logger } from '../log.ts';

const NAMES: Record<number, [string, string]> = {
  400: ['BadRequestError', ERROR_CODES.BAD_REQUEST],
  403: ['NotAuthorizedError', ERROR_CODES.NOT_AUTHORIZED],
  404: ['NotFoundError', ERROR_CODES.NOT_FOUND],
  405: ['NotFoundError', ERROR_CODES.NOT_FOUND],
  413: ['BadRequestError', ERROR_CODES.BODY_TOO_LARGE],
  415: ['BadRequestError', ERROR_CODES.BAD_REQUEST],
};

/** Builds the spec's error object for an error, or null when it is unexpected. */
export function errorBodyFor(err: unknown, supportUrl: string | null, now: Date): ErrorBody | null {
  const app = err instanceof AppError ? err : translateDbError(err);
  let status: number;
  let name: string;
  let code: string;
  let message: string;
  if (app) {
    ({ status, code, errorName: name, message } = app);
  } else {
    // Koa/http-errors thrown with `expose` (client errors) keep their status; anything else is a 500.
    const e = err as { status?: number; expose?: boolean; message?: string };
    if (!e || typeof e.status !== 'number' || e.status < 400 || e.status >= 500 || !e.expose) return null;
    status = e.status === 413 || e.status === 415 ? 400 : e.status;
    [name, code] = NAMES[e.status] ?? ['BadRequestError', ERROR_CODES.BAD_REQUEST];
    message = e.message ?? 'Bad request.';
  }
  const body: ErrorBody = { name, code, message, status, level: 'error', timestamp: now.toISOString() };
  if (app?.errors?.length) body.errors = app.errors;
  if (app?.policyName) body.policyName = app.policyName;
  if (supportUrl) body.supportUrl = supportUrl;
  return body;
}

/** The error object, status and extra headers for a failure; unexpected ones become a generic 500, logged with the request id. */
export function errorResponse(err: unknown, log: Logger, supportUrl: string | null, request: { requestId: string; method: string; path: string }): { body: ErrorBody; headers: Record<string, string> | undefined } {
  let body = errorBodyFor(err, supportUrl, new Date());
  if (!body) {
    log.error('unhandled error', { ...request, error: String((err as Error)?.stack ?? err) });
    body = {
      name: 'InternalServerError',
      code: ERROR_CODES.INTERNAL,
      message: `Something went wrong on our side. Quote request id ${request.requestId} if you contact support.`,
      status: 500,
      level: 'error',
      timestamp: new Date().toISOString(),
    };
    if (supportUrl) body.supportUrl = supportUrl;
  }
  // Translated database errors may carry headers too (a deadlock's 503 says when to retry).
  return { body, headers: (err instanceof AppError ? err : translateDbError(err))?.headers };
}

/** Renders every failure as the error object with a JSON content type; unexpected ones as a generic 500 logged with the request id. */
export function errorMiddleware(log: Logger, supportUrl: string | null): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const { body, headers } = errorResponse(err, log, supportUrl, { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path });
      if (headers) ctx.set(headers);
      ctx.status = body.status;
      ctx.type = 'application/json';
      ctx.body = body;
    }
  };
}
