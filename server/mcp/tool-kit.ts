import { z } from 'zod';
import type { Deps } from '../http/deps.ts';
import type { KeyRecord } from '../domain/platform/keys.ts';
import type { Scope } from '../../shared/scopes.ts';
import type { Operation } from '../http/operation.ts';
import { auditedRun, parse, PROGRAM_LIMITED_KEY_CANNOT_CREATE, runWrite } from '../http/rest.ts';
import type { AuditActor } from '../domain/platform/audit.ts';
import { AccountDisabledError, EmailNotVerifiedError, NotAuthorizedError, NotFoundError, ValidationError, WrongProgramTypeError } from '../errors.ts';
import type { Program } from '../domain/programs/programs.ts';

/** The four standard annotations plus the risk tier of mcp.md §1, by profile name. */
export const PROFILES = {
  READ: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, riskTier: 'READ' },
  CONTENT_ADD: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, riskTier: 'CONTENT' },
  CONTENT_SET: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false, riskTier: 'CONTENT' },
  CONTENT_IDEMPOTENT: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, riskTier: 'CONTENT' },
  CONTENT_EXTERNAL: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true, riskTier: 'CONTENT' },
  DESTRUCTIVE: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false, riskTier: 'DESTRUCTIVE' },
  MONEY_CREATE: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, riskTier: 'MONEY' },
  MONEY_IDEMPOTENT: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, riskTier: 'MONEY' },
  MONEY_EXTERNAL: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true, riskTier: 'MONEY' },
  MONEY_SET: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false, riskTier: 'MONEY' },
} as const;

/** A hint profile of mcp.md §1. */
export type Profile = keyof typeof PROFILES;

/** Credential types of mcp.md §6 that reach our endpoint (every key of ours is bound to one team). */
export type CredentialKind = 'MCP_OAUTH' | 'TEAM_API_KEY';

/** Who is calling: an OAuth grant or a team API key, shaped as a key record so REST handlers accept it. */
export interface McpCredential {
  kind: CredentialKind;
  key: KeyRecord;
  /** A team API key's display prefix (its first 11 characters), for the audit trail. */
  prefix?: string;
}

/** What a tool receives besides its arguments. */
export interface ToolContext {
  deps: Deps;
  credential: McpCredential | null;
  ip: string;
}

/** A JSON Schema object as tools/list publishes it. */
export type JsonSchema = Record<string, unknown>;

/** One MCP tool: name, scopes, hints, schemas and the function producing its structured result. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** Every scope the caller must hold; empty = no credential needed (always listed). */
  scopes: Scope[];
  profile: Profile;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>>;
  /** The text block; pretty JSON unless a tool says otherwise. */
  text?(result: Record<string, unknown>): string;
}

/** Converts a zod schema to an inline JSON Schema object (root `$ref` resolved, `$defs` kept). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const j = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete j.$schema;
  const ref = typeof j.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(j.$ref) : null;
  if (ref) {
    const defs = j.$defs as Record<string, JsonSchema>;
    const root = { ...defs[decodeURIComponent(ref[1]!)]! };
    return { ...root, $defs: defs };
  }
  return j;
}

/** Output schemas never require a field nor forbid extra ones (mcp.md §4: drift-tolerant). */
export function loosen(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(loosen);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'required') continue;
    if (k === 'additionalProperties' && v === false) continue;
    // zod's integer bounds say nothing to a reader.
    if ((k === 'minimum' || k === 'maximum') && Math.abs(Number(v)) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = loosen(v);
  }
  return out;
}

/**
 * Inlines `$ref`s and cuts the schema below `depth` levels of properties/items: the Program Editor
 * documents run to 50 KB of schema, which a host would put into the model's context on every
 * tools/list. The cut parts stay `{}` (anything); the operation's zod schema still validates input.
 */
export function trim(schema: JsonSchema, depth: number): JsonSchema {
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const walk = (node: unknown, level: number): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, level));
    if (!node || typeof node !== 'object') return node;
    let n = node as JsonSchema;
    const ref = typeof n.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(n.$ref) : null;
    if (ref) {
      const { $ref: _r, ...rest } = n;
      n = { ...defs[decodeURIComponent(ref[1]!)], ...rest };
    }
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(n)) {
      if (k === '$defs') continue;
      if (k === 'properties' || k === 'patternProperties') {
        if (level >= depth) continue;
        out[k] = Object.fromEntries(Object.entries(v as JsonSchema).map(([name, sub]) => [name, walk(sub, level + 1)]));
      } else if (k === 'items' || k === 'additionalProperties' || k === 'anyOf' || k === 'oneOf' || k === 'allOf') {
        if (level >= depth && k !== 'anyOf' && k !== 'oneOf') continue;
        out[k] = walk(v, k === 'items' || k === 'additionalProperties' ? level + 1 : level);
      } else {
        out[k] = v;
      }
    }
    return out;
  };
  return walk(schema, 0) as JsonSchema;
}

/** MCP wants `type: "object"` at the root; a union of object shapes (a response with branches) gets it added. */
export function objectRoot(schema: JsonSchema): JsonSchema {
  return schema.type === 'object' ? schema : { type: 'object', ...schema };
}

/** An object output schema with the given loose properties. */
export function objectOutput(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties };
}

const ID = { type: 'string', minLength: 1, maxLength: 64 } as const;
const CAMPAIGN_ID = { ...ID, description: 'Program (campaign) id. Required here: a hosted connection has no default program; list programs with growsurf_list_campaigns.' };
const PARTICIPANT_ID = { type: 'string', minLength: 1, maxLength: 64, description: 'Participant id.' };
const PARTICIPANT_EMAIL = { type: 'string', minLength: 3, maxLength: 254, description: 'Participant email (alternative to participantId).' };

/** How a REST-backed tool lays its arguments onto the operation. */
export interface RestToolSpec {
  name: string;
  title: string;
  description: string;
  op: Operation;
  profile: Profile;
  /** `spread`: body fields are top-level arguments; `fields`: one `fields` object is the body; `none`: no body. */
  body?: 'spread' | 'fields' | 'none';
  /** Route parameters (besides the program and participant) named as arguments, e.g. `webhookId`. */
  pathArgs?: string[];
  /** Tool-level guard run on the raw arguments before the operation. */
  check?(args: Record<string, unknown>): void;
  text?(result: Record<string, unknown>): string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function requiredString(args: Record<string, unknown>, field: string): string {
  const v = args[field];
  if (v === undefined || v === null || v === '') throw new ValidationError(`${field} is required.`, [{ field, code: 'REQUIRED', message: 'Required.' }]);
  if (typeof v !== 'string' || v.length > 320) throw new ValidationError(`${field} must be a string of at most 320 characters.`, [{ field, code: 'INVALID_TYPE', message: 'Expected a string.' }]);
  return v;
}

/** Authentication-free checks of rest.ts repeated for a tool call: lock, scopes, program grant. */
function authorizeCall(op: Operation, key: KeyRecord, programId: string | null, body: unknown): void {
  if (key.teamDisabled) throw new AccountDisabledError();
  if (!key.ownerEmailVerified && !op.allowWhileLocked) throw new EmailNotVerifiedError();
  if (op.access === 'public') return;
  const needed = [...op.access.scopes, ...(op.access.extraScopes?.(body as never) ?? [])];
  const missing = needed.filter((s) => !key.scopes.includes(s));
  if (missing.length) throw new NotAuthorizedError(`This connection is missing the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} required for this tool.`);
  if (op.allProgramsKey && key.programIds) throw new NotAuthorizedError(PROGRAM_LIMITED_KEY_CANNOT_CREATE);
  if (op.programParam && key.programIds && (!programId || !key.programIds.includes(programId))) {
    throw new NotAuthorizedError('This API key is not allowed to access this program.');
  }
}

/**
 * Builds a tool over a REST operation: the same scope, program grant, program type, zod schemas
 * and handler as `/v2`, called in-process. Query values are passed as strings, as a URL would carry
 * them, so validation is exactly REST's.
 */
export function restTool(spec: RestToolSpec): ToolDef {
  const { op } = spec;
  const bodyMode = spec.body ?? (op.body ? 'spread' : 'none');
  const pathParams = [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  const participant = pathParams.includes('participantIdOrEmail');
  const campaignScoped = !!op.programParam;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  let defs: unknown;
  const absorb = (schema: z.ZodType | undefined) => {
    if (!schema) return;
    const j = jsonSchema(schema, 'input');
    Object.assign(properties, (j.properties as object) ?? {});
    if (Array.isArray(j.required)) required.push(...(j.required as string[]));
    if (j.$defs) defs = { ...(defs as object), ...(j.$defs as object) };
  };
  if (bodyMode === 'spread') absorb(op.body);
  if (bodyMode === 'fields' && op.body) {
    const j = trim(jsonSchema(op.body, 'input'), 1);
    properties.fields = { ...j, description: 'The PATCH body: only sent fields change, objects merge, arrays replace wholesale. Read the document first with the matching get tool to see every field.' };
    required.push('fields');
  }
  absorb(op.query);
  if (campaignScoped) properties.campaignId = CAMPAIGN_ID;
  for (const p of spec.pathArgs ?? []) {
    properties[p] = { ...ID, description: `The ${p} from the matching list tool.` };
    required.push(p);
  }
  if (participant) {
    properties.participantId = PARTICIPANT_ID;
    properties.participantEmail = PARTICIPANT_EMAIL;
  }
  const inputSchema: JsonSchema = { type: 'object', properties };
  if (required.length) inputSchema.required = [...new Set(required)];
  if (participant) inputSchema.anyOf = [{ required: ['participantId'] }, { required: ['participantEmail'] }];
  if (defs) inputSchema.$defs = defs;
  const ownArgs = new Set(['campaignId', 'participantId', 'participantEmail', ...(spec.pathArgs ?? [])]);
  const scopes = op.access === 'public' ? [] : [...op.access.scopes];

  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    scopes,
    profile: spec.profile,
    inputSchema,
    outputSchema: objectRoot(loosen(trim(jsonSchema(op.response, 'output'), 2))),
    text: spec.text,
    async run(args, ctx) {
      spec.check?.(args);
      const { deps } = ctx;
      const key = ctx.credential?.key ?? null;
      if (op.access !== 'public' && !key) throw new NotAuthorizedError('This tool needs a credential.');
      const params: Record<string, string> = {};
      let programId: string | null = null;
      if (campaignScoped) {
        programId = requiredString(args, 'campaignId');
        params[op.programParam!] = programId;
      }
      for (const p of spec.pathArgs ?? []) params[p] = requiredString(args, p);
      if (participant) {
        const byId = args.participantId;
        const value = byId !== undefined && byId !== null && byId !== '' ? requiredString(args, 'participantId') : args.participantEmail !== undefined ? requiredString(args, 'participantEmail') : null;
        if (!value) throw new ValidationError('participantId or participantEmail is required.', [{ field: 'participantId', code: 'REQUIRED', message: 'Name the participant by id or email.' }]);
        params.participantIdOrEmail = value;
      }
      // Control characters never appear in an id or email (rest.ts answers 404 the same way).
      if (Object.values(params).some((v) => /[\u0000-\u001f\u007f]/.test(v))) throw new NotFoundError('No resource has that id.');
      const rest: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(args)) if (!ownArgs.has(k)) rest[k] = v;
      let rawBody: unknown = {};
      let rawQuery: Record<string, unknown> = {};
      if (bodyMode === 'fields') {
        rawBody = args.fields;
        if (!isRecord(rawBody)) throw new ValidationError('fields must be an object.', [{ field: 'fields', code: 'REQUIRED', message: 'Send the fields to change as an object.' }]);
        const { fields: _f, ...others } = rest;
        rawQuery = others;
      } else if (bodyMode === 'spread') {
        rawBody = rest;
      } else {
        rawQuery = rest;
      }
      if (key) authorizeCall(op, key, programId, rawBody);
      let program: Program | null = null;
      if (op.programParam && key) {
        program = await deps.programs.forRequest(key.teamId, programId!, key);
        if (op.programType && program.type !== op.programType) {
          throw new WrongProgramTypeError(`This operation is only for ${op.programType.toLowerCase()} programs; program ${program.id} is ${program.type.toLowerCase()}.`);
        }
      }
      if (key && op.method !== 'GET') {
        const delay = await deps.limits.writeDelay(key.teamId);
        if (delay > 0) await deps.clock.sleep(delay);
      }
      const body = parse(op.body, op.method === 'GET' ? {} : rawBody, 'body');
      const query = parse(op.query, stringifyQuery(bodyMode === 'none' || bodyMode === 'fields' ? rawQuery : {}), 'query');
      const input = { body, query, params, auth: key, program, ip: ctx.ip, deps };
      if (op.method === 'GET') return (await op.handler(input)) as Record<string, unknown>;
      // A write is audited as through REST (issue #35): by its key's prefix, or the OAuth grant's id.
      const actor: AuditActor = key ? { type: 'API_KEY', id: key.id, label: ctx.credential?.prefix ?? (ctx.credential?.kind === 'MCP_OAUTH' ? 'mcp-oauth' : null) } : { type: 'ANONYMOUS', id: null, label: null };
      return (await runWrite(deps, op, auditedRun(op, input, { actor, ip: ctx.ip || null, userAgent: null }))) as Record<string, unknown>;
    },
  };
}

/** Query values as a URL carries them: strings (arrays of strings for repeats). */
function stringifyQuery(q: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    out[k] = Array.isArray(v) ? v.map(String) : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}
