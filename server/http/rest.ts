import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { Operation } from './operation.ts';
import { assertOperationsDeclared } from './operation.ts';
import { sha256 } from '../crypto.ts';
import {
  AccountDisabledError,
  AppError,
  ConflictError,
  EmailNotVerifiedError,
  NotAuthorizedError,
  NotFoundError,
  ValidationError,
  WrongProgramTypeError,
} from '../errors.ts';
import type { Program } from '../domain/programs.ts';
import { IDEMPOTENCY_TTL_MS } from '../domain/maintenance.ts';
import { ERROR_CODES, type FieldError } from '../../shared/errors.ts';
import type { KeyRecord } from '../domain/keys.ts';
import { JSON_MEDIA_TYPES, parseJsonBody } from './json-body.ts';

const WRITE = new Set(['POST', 'PATCH', 'DELETE']);
const JSON_LIMIT = '1mb';

/** Converts zod issues into the error object's per-field details; `input` tells a missing field from a wrong one. */
export function fieldErrors(error: z.ZodError, root?: string, input?: unknown): FieldError[] {
  const missing = (path: PropertyKey[]) => {
    let v: unknown = input;
    for (const k of path) {
      if (v == null || typeof v !== 'object') return true;
      v = (v as Record<PropertyKey, unknown>)[k];
    }
    return v === undefined;
  };
  return error.issues.map((i) => {
    const prefix = [root, ...i.path.map(String)].filter(Boolean).join('.');
    if (i.code === 'unrecognized_keys') {
      const keys = (i as { keys: string[] }).keys;
      return { field: keys.map((k) => (prefix ? `${prefix}.${k}` : k)).join(', '), code: 'UNKNOWN_FIELD', message: `Unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}` };
    }
    let code = 'INVALID';
    if ((i.code === 'invalid_type' || i.code === 'invalid_value') && missing(i.path)) code = 'REQUIRED';
    else if (i.code === 'invalid_type') code = 'INVALID_TYPE';
    else if (i.code === 'invalid_value') code = 'INVALID_VALUE';
    else if (i.code === 'too_big') code = 'TOO_LONG';
    else if (i.code === 'too_small') code = 'TOO_SHORT';
    else if (i.code === 'invalid_format') code = `INVALID_${String((i as { format?: string }).format ?? 'FORMAT').toUpperCase()}`;
    return { field: prefix || 'body', code, message: code === 'REQUIRED' ? 'Required.' : i.message };
  });
}

/** Validates one part of the request, turning failures into a 400 with per-field errors. */
export function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, part: 'body' | 'query'): T {
  if (!schema) return value as T;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const errors = fieldErrors(r.error, part === 'query' ? 'query' : undefined, value);
  throw new ValidationError(`Invalid request ${part}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}

/** The body as the client sent it: `{}` for an empty body, whatever bodyparser produced otherwise. */
function requestBody(ctx: Koa.Context): unknown {
  const b = (ctx.request as { body?: unknown }).body;
  if (b === undefined || b === null || (typeof b === 'string' && b === '')) return {};
  return b;
}

/** Reads the bearer credential: the REST API only ever answers 403 for credential problems. */
async function authenticate(ctx: Koa.Context, op: Operation, deps: Deps): Promise<{ key: KeyRecord | null; replay?: { status: number; body: unknown } }> {
  const header = ctx.get('authorization');
  if (!header) throw new NotAuthorizedError('No API key provided. Send the header Authorization: Bearer <API_KEY>.');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new NotAuthorizedError('The API key provided is not valid. Send the header Authorization: Bearer <API_KEY>.');
  const key = await deps.keys.lookup(m[1]!);
  if (!key) throw new NotAuthorizedError('The API key provided is not valid.');
  if (key.revokedAt != null) {
    // A client retrying a rotation whose answer it lost replays the stored replacement.
    const idem = ctx.get('idempotency-key');
    if (key.revokedReason === 'ROTATED' && op.id === 'T5' && idem) {
      const stored = await loadIdempotent(deps, key.id, idem, fingerprint(ctx, key.id));
      if (stored) return { key, replay: stored };
    }
    throw new NotAuthorizedError('The API key provided is not valid.');
  }
  if (key.teamDisabled) throw new AccountDisabledError();
  if (!key.ownerEmailVerified && !op.allowWhileLocked) throw new EmailNotVerifiedError();
  return { key };
}

/** Scope and program-grant checks for an authenticated key. */
function authorize(op: Operation, key: KeyRecord, params: Record<string, string>, body: unknown): void {
  if (op.access === 'public') return;
  const needed = [...op.access.scopes, ...(op.access.extraScopes?.(body as never) ?? [])];
  const missing = needed.filter((s) => !key.scopes.includes(s));
  if (missing.length) throw new NotAuthorizedError(`This API key is missing the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} required for this operation.`);
  if (op.allProgramsKey && key.programIds) throw new NotAuthorizedError(PROGRAM_LIMITED_KEY_CANNOT_CREATE);
  if (op.programParam && key.programIds) {
    const programId = params[op.programParam];
    if (!programId || !key.programIds.includes(programId)) throw new NotAuthorizedError('This API key is not allowed to access this program.');
  }
}

/** The 403 message for a program-limited key on an operation that creates a program. */
export const PROGRAM_LIMITED_KEY_CANNOT_CREATE = 'This API key is limited to some programs, so it cannot create programs (it could not use them); use a key for all programs.';

/** Identity of a request for duplicate detection and idempotency: key, method, path, query and body. */
function fingerprint(ctx: Koa.Context, keyId: string): string {
  return sha256(`${keyId}\n${ctx.method}\n${ctx.path}\n${ctx.querystring}\n${JSON.stringify(requestBody(ctx))}`);
}

async function loadIdempotent(deps: Deps, keyId: string, idemKey: string, fp: string): Promise<{ status: number; body: unknown } | null> {
  const row = await deps.db.knex('idempotency_records').where({ api_key_id: keyId, idempotency_key: idemKey.slice(0, 255) }).first();
  if (!row || Number(row.created_at) + IDEMPOTENCY_TTL_MS < deps.clock.now()) return null;
  if (row.fingerprint !== fp) {
    throw new ValidationError('This Idempotency-Key was already used with a different request.', undefined, ERROR_CODES.IDEMPOTENCY_KEY_REUSED);
  }
  const plain = deps.sealer.open(row.body_enc);
  return plain == null ? null : { status: Number(row.status), body: JSON.parse(plain) };
}

async function storeIdempotent(deps: Deps, keyId: string, idemKey: string, fp: string, body: unknown): Promise<void> {
  await deps.db
    .knex('idempotency_records')
    .insert({ api_key_id: keyId, idempotency_key: idemKey.slice(0, 255), fingerprint: fp, status: 200, body_enc: deps.sealer.seal(JSON.stringify(body)), created_at: deps.clock.now() })
    .onConflict(['api_key_id', 'idempotency_key'])
    .ignore();
}

/** Builds the per-operation middleware: auth → scopes → team budget → duplicate → idempotency → slowdown → validate → handle. */
function handle(op: Operation, deps: Deps): Koa.Middleware {
  return async (ctx) => {
    const params = (ctx as unknown as { params: Record<string, string> }).params ?? {};
    // Control characters (NUL above all, which PostgreSQL rejects) never appear in an id or email, so no such resource exists.
    if (Object.values(params).some((v) => /[\u0000-\u001f\u007f]/.test(v) || v.length > 320)) {
      throw new NotFoundError('No resource has that id.');
    }
    let key: KeyRecord | null = null;
    if (op.access !== 'public') {
      const a = await authenticate(ctx, op, deps);
      if (a.replay) {
        ctx.status = a.replay.status;
        ctx.body = a.replay.body;
        ctx.set('Idempotent-Replayed', 'true');
        return;
      }
      key = a.key!;
      authorize(op, key, params, requestBody(ctx));
      const charge = await deps.limits.chargeTeam(key.teamId);
      ctx.set(charge.headers);
      if (charge.error) throw charge.error;
    }
    let program: Program | null = null;
    if (op.programParam && key) {
      program = await deps.programs.forRequest(key.teamId, params[op.programParam] ?? '', key);
      if (op.programType && program.type !== op.programType) {
        throw new WrongProgramTypeError(`This operation is only for ${op.programType.toLowerCase()} programs; program ${program.id} is ${program.type.toLowerCase()}.`);
      }
    }
    const isWrite = WRITE.has(ctx.method);
    const idem = key && isWrite ? ctx.get('idempotency-key') : '';
    const fp = key && isWrite ? fingerprint(ctx, key.id) : '';
    if (fp && !deps.limits.enterRequest(fp)) throw new ConflictError('An identical request is already in progress.', ERROR_CODES.DUPLICATE_REQUEST);
    try {
      if (idem && key) {
        const stored = await loadIdempotent(deps, key.id, idem, fp);
        if (stored) {
          ctx.status = stored.status;
          ctx.body = stored.body;
          ctx.set('Idempotent-Replayed', 'true');
          return;
        }
      }
      if (key && isWrite) {
        const delay = await deps.limits.writeDelay(key.teamId);
        if (delay > 0) await deps.clock.sleep(delay);
      }
      const body = parse(op.body, isWrite ? requestBody(ctx) : {}, 'body');
      const query = parse(op.query, ctx.query, 'query');
      const result = await op.handler({ body, query, params, auth: key, program, ip: ctx.ip, deps });
      ctx.status = 200;
      ctx.body = result;
      if (op.contentType) ctx.type = `${op.contentType}; charset=utf-8`;
      if (idem && key) await storeIdempotent(deps, key.id, idem, fp, result);
    } finally {
      if (fp) deps.limits.leaveRequest(fp);
    }
  };
}

/** Maps body-parser failures to our 400s (malformed JSON, body over 1 MiB). */
function bodyError(err: Error): AppError {
  const e = err as Error & { status?: number; type?: string };
  if (e.status === 413 || e.type === 'entity.too.large') {
    return new ValidationError('The request body is larger than 1 MiB.', undefined, ERROR_CODES.BODY_TOO_LARGE);
  }
  if (e.status === 415) return new ValidationError('Unsupported Content-Type; send application/json or application/x-www-form-urlencoded.');
  return new ValidationError('The request body is not valid JSON.', undefined, ERROR_CODES.INVALID_JSON);
}

/** Which group a path (after `/v2`) falls in: its first and third segments, lower-cased (routes match case-insensitively). */
function groupOf(method: string, path: string): string {
  const s = path.split('/', 4);
  return `${method === 'HEAD' ? 'GET' : method} ${(s[1] ?? '').toLowerCase()}/${(s[3] ?? '').toLowerCase()}`;
}

/**
 * The routes table, split by method and the literal first and third path segments (`campaign` …
 * `participant`): @koa/router tries every route's pattern in turn, so each request now tries the
 * few of its group (at most eight) instead of all of them. A route with a parameter in either
 * segment would go to a group every request also tries (none today).
 */
function groupedRoutes(operations: Operation[], deps: Deps): Koa.Middleware {
  const groups = new Map<string, InstanceType<typeof Router>>();
  const everywhere: InstanceType<typeof Router> = new Router({ prefix: '/v2' });
  let anywhere = false;
  const param = /^[:{*(]/;
  for (const op of operations) {
    const s = op.path.split('/', 4);
    let router: InstanceType<typeof Router> = everywhere;
    if (param.test(s[1] ?? '') || param.test(s[3] ?? '')) anywhere = true;
    else {
      const key = groupOf(op.method, op.path);
      router = groups.get(key) ?? new Router({ prefix: '/v2' });
      groups.set(key, router);
    }
    router.register(op.path, [op.method], handle(op, deps), { name: op.name });
  }
  const middleware = new Map([...groups].map(([k, r]) => [k, r.routes()]));
  const fallback = anywhere ? everywhere.routes() : null;
  return (ctx, next) => {
    const group = middleware.get(groupOf(ctx.method, ctx.path.slice(3)));
    const rest = fallback ? () => fallback(ctx as never, next) : next;
    return group ? group(ctx as never, rest) : rest();
  };
}

/**
 * The `/v2` REST API: per-IP concurrency cap and public budget first, then body parsing, then the
 * routes table. Sends no CORS headers: the REST key never belongs in a browser.
 */
export function restApi(deps: Deps, operations: Operation[]): Koa.Middleware {
  assertOperationsDeclared(operations);
  const routes = groupedRoutes(operations, deps);
  // JSON arrives as text and goes through parseJsonBody, which bounds its shape before parsing it.
  const parser = bodyParser({
    enableTypes: ['text', 'form'],
    extendTypes: { text: JSON_MEDIA_TYPES },
    textLimit: JSON_LIMIT,
    formLimit: JSON_LIMIT,
    encoding: 'utf-8',
    onError(err) {
      throw bodyError(err);
    },
  });
  return async (ctx, next) => {
    if (ctx.path !== '/v2' && !ctx.path.startsWith('/v2/')) return next();
    await deps.limits.guardIp(ctx.ip, (headers) => ctx.set(headers), async () => {
      const type = ctx.get('content-type');
      if (WRITE.has(ctx.method) && type && !ctx.is('json', 'urlencoded') && Number(ctx.get('content-length') || 0) > 0) {
        throw new ValidationError('Unsupported Content-Type; send application/json or application/x-www-form-urlencoded.');
      }
      await parser(ctx, async () => {
        const request = ctx.request as { body?: unknown };
        if (typeof request.body === 'string') request.body = parseJsonBody(request.body, { strict: true });
        await routes(ctx as never, async () => {
          throw new NotFoundError(`No operation ${ctx.method} ${ctx.path}.`);
        });
      });
    });
  };
}
