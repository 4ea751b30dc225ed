import type { z } from 'zod';
import type { Scope } from '../../shared/scopes.ts';
import type { Deps } from './deps.ts';
import type { KeyRecord } from '../domain/platform/keys.ts';
import type { Program } from '../domain/programs/programs.ts';
import type { AuditWrite } from '../domain/platform/audit.ts';

/** HTTP methods the REST API uses. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a handler receives: validated input and the caller, never the Koa context. */
export interface OperationInput<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  /** The authenticated key; null only on public operations. */
  auth: KeyRecord | null;
  /** The program named by `programParam`, loaded and gated (team, plan, type); null otherwise. */
  program: Program | null;
  ip: string;
  deps: Deps;
  /**
   * Operations whose audit mode is `inline` (the hot write paths): writes the request's audit entry
   * inside the handler's own transaction, given its answer; the handler passes it to the domain
   * service. Absent elsewhere (the pipeline writes the entry) and outside the REST pipeline.
   */
  audit?: AuditWrite;
}

/**
 * How the audit trail records a successful write (issue #35; docs/decisions.md "Audit trail"). By
 * default the pipeline runs the handler in a request transaction (server/db/ambient.ts) and appends
 * the entry at its end. `inline`: the handler's own transaction appends it (`OperationInput.audit`),
 * so the hot paths pay one INSERT and keep SQLite's group commit. `after`: appended in a transaction
 * of its own once the handler succeeded, for operations that must not hold a transaction (outbound
 * calls, a browser taking screenshots). `before` reads the fields' old values inside the request
 * transaction; `resource` names the resource type when the operation's name does not.
 */
export interface AuditSpec<B = any, Q = any> {
  mode?: 'inline' | 'after';
  resource?: string;
  before?: (input: OperationInput<B, Q>) => Promise<Record<string, unknown> | null>;
  /** Every value masked to its last four characters (payout destinations). */
  maskAll?: true;
  /**
   * A read audited like a write: the exports of people's data, payouts and the audit log itself
   * (who took a copy, with which filters). Its entry records the query's fields and is written
   * before the answer leaves (mode `after`).
   */
  reads?: true;
}

/** One REST operation: the single place its path, scope, schemas and handler are declared. */
export interface Operation<B = any, Q = any, R = any> {
  /** Identifier from rest-v2 §3.0 (T1, C2 …). */
  id: string;
  /** Schema-style name, `resource.action`. */
  name: string;
  method: Method;
  /** Path under /v2, in @koa/router syntax. */
  path: string;
  /** `public` must be written out: an operation that declares neither fails at start-up. */
  access: { scopes: Scope[]; extraScopes?: (body: B) => Scope[] } | 'public';
  /** Works with a key that is locked until the owner verifies their email. */
  allowWhileLocked?: boolean;
  /** Route parameter holding a program id, checked against the key's program grants. */
  programParam?: string;
  /**
   * Only keys for all of the team's programs may call it: it creates a program, which a key
   * limited to some programs could then not use (a program-limited key gets 403).
   */
  allProgramsKey?: true;
  /** The program type this operation is for; the other type answers 422. */
  programType?: 'REFERRAL' | 'AFFILIATE';
  /**
   * Calls another server while it runs (a webhook test, an import source check): with an
   * Idempotency-Key its claim commits before the call and its answer after, instead of one
   * transaction held open across the call (server/http/idempotency.ts).
   */
  outbound?: true;
  summary: string;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  response: z.ZodType<R>;
  /**
   * A non-JSON answer (the payout CSV export, the data exports): the handler returns the body text,
   * or a `Readable` the pipeline streams as it is read (GET only; docs/decisions.md "Data export and import").
   */
  contentType?: 'text/csv';
  /** Sent as a file download (`Content-Disposition: attachment`) with this name (from the program or the path's parameters); GET only. */
  download?: (program: Program | null, params: Record<string, string>) => string;
  /** Also takes the CSV itself as the body (`Content-Type: text/csv`, up to `limit` bytes) instead of JSON. */
  csvBody?: { limit: number };
  /** How a successful write is audited (and a read, with `reads`; see `AuditSpec`). */
  audit?: AuditSpec<B, Q>;
  handler(input: OperationInput<B, Q>): Promise<R>;
}

/** Declares an operation with inferred body/query/response types. */
export function operation<B, Q, R>(op: Operation<B, Q, R>): Operation<B, Q, R> {
  return op;
}

/** Fails start-up when an operation is missing its access declaration or duplicates another. */
export function assertOperationsDeclared(ops: Operation[]): void {
  const seen = new Set<string>();
  // The id names an operation everywhere (the audit trail's action, OpenAPI's operationId, MCP): once.
  const ids = new Map<string, string>();
  for (const op of ops) {
    const where = `${op.method} ${op.path} (${op.id})`;
    if (op.access !== 'public' && (!op.access || !Array.isArray(op.access.scopes) || op.access.scopes.length === 0)) {
      throw new Error(`Route ${where} declares no scope; declare its scopes or 'public'.`);
    }
    if (op.download && op.method !== 'GET') throw new Error(`Route ${where} is a download, which only GET may be (a streamed body is never stored for idempotency).`);
    const key = `${op.method} ${op.path}`;
    if (seen.has(key)) throw new Error(`Route ${where} is declared twice.`);
    seen.add(key);
    const other = ids.get(op.id);
    if (other) throw new Error(`Route ${where} has the id of ${other}; give it its own.`);
    ids.set(op.id, key);
  }
}
