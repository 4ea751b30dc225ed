import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import { z } from 'zod';
import type { Deps } from './deps.ts';
import type { Operation } from './operation.ts';
import { assertOperationsDeclared } from './operation.ts';
import { sha256 } from '../crypto.ts';
import { Readable } from 'node:stream';
import {
  AccountDisabledError,
  AppError,
  ConflictError,
  EmailNotVerifiedError,
  NotAuthorizedError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
  WrongProgramTypeError,
} from '../errors.ts';
import type { Program } from '../domain/programs/programs.ts';
import { recordedAnswer, runKeyed, type Replay } from './idempotency.ts';
import { ERROR_CODES, type FieldError } from '../../shared/errors.ts';
import type { KeyRecord } from '../domain/platform/keys.ts';
import { JSON_MEDIA_TYPES, parseJsonBody } from './json-body.ts';
import { fieldErrors } from '../../shared/field-errors.ts';
import { ambient, settleAfter, withinTransaction } from '../db/ambient.ts';
import { changesOf, type AuditActor, type AuditWrite } from '../domain/platform/audit.ts';
import type { Knex } from 'knex';

export { fieldErrors };

const WRITE = new Set(['POST', 'PATCH', 'DELETE']);
const JSON_LIMIT = '1mb';
/** The methods whose body the parser reads (`parsedMethods`, also passed to it). */
const PARSED = new Set(['POST', 'PUT', 'PATCH']);

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

/** Who a request acts as: the key the REST pipeline checks, or a stored answer to replay. */
export type Authenticate = (ctx: Koa.Context, op: Operation, deps: Deps) => Promise<{ key: KeyRecord | null; replay?: { status: number; body: unknown } }>;

/** Reads the bearer credential: the REST API only ever answers 403 for credential problems. */
const bearerKey: Authenticate = async (ctx, op, deps) => {
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
      const stored = await recordedAnswer(deps, key.id, idem, fingerprint(ctx, key.id));
      if (stored) return { key, replay: stored };
    }
    throw new NotAuthorizedError('The API key provided is not valid.');
  }
  if (key.teamDisabled) throw new AccountDisabledError();
  if (!key.ownerEmailVerified && !op.allowWhileLocked) throw new EmailNotVerifiedError();
  return { key };
};

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

/** Builds the per-operation middleware: auth → scopes → team budget → duplicate → idempotency → slowdown → validate → handle. */
function handle(op: Operation, deps: Deps, authenticate: Authenticate): Koa.Middleware {
  return async (ctx) => {
    const params = (ctx as unknown as { params: Record<string, string> }).params ?? {};
    // Control characters (NUL above all, which PostgreSQL rejects) never appear in an id or email, so no such resource exists.
    if (Object.values(params).some((v) => /[\u0000-\u001f\u007f]/.test(v) || v.length > 320)) {
      throw new NotFoundError('No resource has that id.');
    }
    let key: KeyRecord | null = null;
    if (op.access !== 'public') {
      const a = await authenticate(ctx, op, deps);
      if (a.replay) return replay(ctx, a.replay);
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
    if (isWrite && ctx.is('text/csv')) {
      if (!op.csvBody) throw new ValidationError(UNSUPPORTED_TYPE);
      (ctx.request as { body?: unknown }).body = await csvRequestBody(ctx, op.csvBody.limit);
    }
    const idem = key && isWrite ? ctx.get('idempotency-key') : '';
    const fp = key && isWrite ? fingerprint(ctx, key.id) : '';
    if (fp && !(await deps.limits.claimRequest(fp))) throw new ConflictError('An identical request is already in progress.', ERROR_CODES.DUPLICATE_REQUEST);
    try {
      // A replay answers at once, without the write slowdown (the claim below decides races).
      const stored = idem && key ? await recordedAnswer(deps, key.id, idem, fp) : null;
      if (stored) return replay(ctx, stored);
      if (key && isWrite) {
        const delay = await deps.limits.writeDelay(key.teamId);
        if (delay > 0) await deps.clock.sleep(delay);
      }
      const body = parse(op.body, isWrite ? requestBody(ctx) : {}, 'body');
      const query = parse(op.query, ctx.query, 'query');
      const input = { body, query, params, auth: key, program, ip: ctx.ip, deps };
      const audited = isWrite || op.audit?.reads ? auditedRun(op, input, { actor: actorOf(ctx, key), ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null }) : null;
      const run = audited ?? (() => op.handler(input));
      let result: unknown;
      if (idem && key) {
        const outcome = await runKeyed(deps, key.id, idem, fp, op.outbound === true, run);
        if ('replay' in outcome) return replay(ctx, outcome.replay);
        result = outcome.result;
      } else if (audited) result = await runWrite(deps, op, audited);
      else result = await run();
      // With Redis, a write answers once the invalidations it published reached Redis, so a client's
      // next request on another host finds that host's caches already told (read-your-writes across hosts).
      if (isWrite && deps.redis) await deps.invalidation.settled();
      ctx.status = 200;
      if (result instanceof Readable) streamBody(ctx, deps, result);
      else ctx.body = result;
      if (op.download) ctx.attachment(op.download(program, params));
      if (op.contentType) ctx.type = `${op.contentType}; charset=utf-8`;
    } finally {
      if (fp) await deps.limits.releaseRequest(fp);
    }
  };
}

/** The API key prefix a bearer credential shows (its first 11 characters, as `api_keys.prefix` stores them). */
const KEY_PREFIX_LENGTH = 11;

/** Who a REST write acts as, for the audit trail: the console's member, or the API key by its prefix. */
export function actorOf(ctx: Koa.Context, key: KeyRecord | null): AuditActor {
  if (!key) return { type: 'ANONYMOUS', id: null, label: null };
  if (key.owner) return { type: 'MEMBER', id: key.owner.userId, label: key.owner.email };
  const m = /^Bearer\s+(\S+)/i.exec(ctx.get('authorization'));
  return { type: 'API_KEY', id: key.id, label: m ? m[1]!.slice(0, KEY_PREFIX_LENGTH) : null };
}

/**
 * A write's handler with its audit entry (issue #35): one entry for a successful call, written in
 * the transaction of the change (see `AuditSpec` in operation.ts for the three ways); a call that
 * throws writes none, because its transaction rolls back. A transaction run again after a deadlock
 * writes the entry again in its new transaction.
 */
export function auditedRun(op: Operation, input: Parameters<Operation['handler']>[0], who: { actor: AuditActor; ip: string | null; userAgent: string | null }): () => Promise<unknown> {
  const { deps, auth: key } = input;
  const { actor, userAgent } = who;
  const last = [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)].pop()?.[1];
  const endsWithParam = /\/:[A-Za-z0-9_]+$/.test(op.path);
  let before: Record<string, unknown> | null = null;
  let writtenIn: Knex.Transaction | null | undefined;
  const write: AuditWrite = async (trx, result) => {
    if (writtenIn !== undefined && writtenIn === trx) return;
    writtenIn = trx;
    const r = result && typeof result === 'object' ? (result as Record<string, unknown>) : {};
    let teamId = key?.teamId ?? null;
    // A0 (the one public write) makes the team: its entry opens the new team's chain.
    if (!teamId && typeof r.apiKey === 'string') teamId = (await deps.keys.lookup(r.apiKey))?.teamId ?? null;
    if (!teamId) return;
    const resourceId = (!endsWithParam && typeof r.id === 'string' ? r.id : null) ?? (last ? (input.params[last] ?? null) : null);
    await deps.audit.append(trx, {
      teamId,
      actor,
      ip: who.ip,
      userAgent,
      action: op.id,
      resourceType: op.audit?.resource ?? op.name.split('.')[0]!,
      resourceId,
      changes: changesOf({ params: input.params, body: op.method === 'GET' ? input.query : input.body, result, before, maskAll: op.audit?.maskAll }),
    });
  };
  const mode = op.outbound ? 'after' : op.audit?.mode;
  if (mode === 'inline') {
    return async () => {
      writtenIn = undefined;
      const result = await op.handler({ ...input, audit: write });
      // A branch that changed nothing inside a transaction (a duplicate, an existing email) still answered 200: its entry stands alone.
      if (writtenIn === undefined) await write(null, result);
      return result;
    };
  }
  if (mode === 'after') {
    return async () => {
      writtenIn = undefined;
      const result = await op.handler(input);
      await write(ambient()?.trx ?? null, result);
      return result;
    };
  }
  return async () => {
    writtenIn = undefined;
    if (op.audit?.before) before = await op.audit.before(input);
    const result = await op.handler(input);
    await write(ambient()!.trx, result);
    return result;
  };
}

/**
 * Runs a write's audited handler (`auditedRun`) without an Idempotency-Key: in a request
 * transaction, so the change and its entry commit together, unless its audit mode says the handler
 * or a later transaction writes the entry.
 */
export async function runWrite(deps: Deps, op: Operation, run: () => Promise<unknown>): Promise<unknown> {
  if (op.outbound || op.audit?.mode) return run();
  const after: Array<Promise<unknown>> = [];
  let result: unknown;
  try {
    result = await deps.db.knex.transaction((trx) => withinTransaction(trx, run, after));
  } finally {
    // What the handler left for after the transaction (a refusal's access events) is stored before the answer.
    await settleAfter(after);
  }
  // Work the handler queued (webhooks, emails) became visible only now.
  deps.jobs.kick();
  return result;
}

/** Answers with a recorded answer of an earlier request with the same Idempotency-Key. */
function replay(ctx: Koa.Context, stored: Replay): void {
  ctx.status = stored.status;
  ctx.body = stored.body;
  ctx.set('Idempotent-Replayed', 'true');
}

const UNSUPPORTED_TYPE = 'Unsupported Content-Type; send application/json or application/x-www-form-urlencoded.';

/** Reads a `text/csv` body as UTF-8 text, refusing one over `limit` bytes (the limit is in the message). */
async function csvRequestBody(ctx: Koa.Context, limit: number): Promise<string> {
  const tooLarge = () => new ValidationError(`The CSV file is larger than ${limit / 1024 / 1024} MiB, the import's limit; split it.`, undefined, ERROR_CODES.BODY_TOO_LARGE);
  if (Number(ctx.get('content-length') || 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ValidationError('The CSV file is not UTF-8 text; save it as "CSV UTF-8".');
  }
}

/**
 * Sends a streamed answer (the data exports). The request's per-IP slot is released when the
 * middleware returns, before the body is written, so the stream takes one of its own until it
 * closes (ended, failed, or the client went away): a slow download still counts against
 * CONCURRENCY_PER_IP. Nothing else of the pipeline applies after the handler: a stream is only ever
 * a GET's answer, which is never stored for idempotency.
 */
function streamBody(ctx: Koa.Context, deps: Deps, stream: Readable): void {
  if (!deps.limits.enterIp(ctx.ip)) {
    stream.destroy();
    throw new RateLimitedError('CONCURRENCY', 'Too many concurrent requests from this address.', { 'Retry-After': '1' });
  }
  stream.once('close', () => deps.limits.leaveIp(ctx.ip));
  ctx.body = stream;
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
function groupedRoutes(operations: Operation[], deps: Deps, prefix: string, authenticate: Authenticate): Koa.Middleware {
  const groups = new Map<string, InstanceType<typeof Router>>();
  const everywhere: InstanceType<typeof Router> = new Router({ prefix });
  let anywhere = false;
  const param = /^[:{*(]/;
  for (const op of operations) {
    const s = op.path.split('/', 4);
    let router: InstanceType<typeof Router> = everywhere;
    if (param.test(s[1] ?? '') || param.test(s[3] ?? '')) anywhere = true;
    else {
      const key = groupOf(op.method, op.path);
      router = groups.get(key) ?? new Router({ prefix });
      groups.set(key, router);
    }
    router.register(op.path, [op.method], handle(op, deps, authenticate), { name: op.name });
  }
  const middleware = new Map([...groups].map(([k, r]) => [k, r.routes()]));
  const fallback = anywhere ? everywhere.routes() : null;
  return (ctx, next) => {
    const group = middleware.get(groupOf(ctx.method, ctx.path.slice(prefix.length)));
    const rest = fallback ? () => fallback(ctx as never, next) : next;
    return group ? group(ctx as never, rest) : rest();
  };
}

/**
 * The `/v2` REST API: per-IP concurrency cap and public budget first, then body parsing, then the
 * routes table. Sends no CORS headers: the REST key never belongs in a browser. The owner console
 * mounts the same table under its own prefix with the session as the credential
 * (server/http/console/api.ts).
 */
export function restApi(deps: Deps, operations: Operation[], opts: { prefix?: string; authenticate?: Authenticate } = {}): Koa.Middleware {
  assertOperationsDeclared(operations);
  const prefix = opts.prefix ?? '/v2';
  const routes = groupedRoutes(operations, deps, prefix, opts.authenticate ?? bearerKey);
  // JSON arrives as text and goes through parseJsonBody, which bounds its shape before parsing it.
  const parser = bodyParser({
    enableTypes: ['text', 'form'],
    extendTypes: { text: JSON_MEDIA_TYPES },
    textLimit: JSON_LIMIT,
    formLimit: JSON_LIMIT,
    encoding: 'utf-8',
    parsedMethods: [...PARSED],
    onError(err) {
      throw bodyError(err);
    },
  });
  return async (ctx, next) => {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
    await deps.limits.guardIp(ctx.ip, (headers) => ctx.set(headers), async () => {
      const type = ctx.get('content-type');
      // text/csv passes here; only an operation that takes a CSV body (the import) reads it.
      if (WRITE.has(ctx.method) && type && !ctx.is('json', 'urlencoded', 'text/csv') && Number(ctx.get('content-length') || 0) > 0) {
        throw new ValidationError(UNSUPPORTED_TYPE);
      }
      const route = async () => {
        const request = ctx.request as { body?: unknown };
        if (typeof request.body === 'string') request.body = parseJsonBody(request.body, { strict: true });
        await routes(ctx as never, async () => {
          throw new NotFoundError(`No operation ${ctx.method} ${ctx.path}.`);
        });
      };
      // The body parser reads only the methods it parses (its default, POST, PUT and PATCH); a GET skips its hop.
      if (PARSED.has(ctx.method)) await parser(ctx, route);
      else await route();
    });
  };
}
