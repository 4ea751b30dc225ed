import type { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { MobileProgram } from '../../domain/participant-api/mobile-programs.ts';
import type { MobileSession } from '../../domain/participant-api/mobile-sessions.ts';

/** Who may call a participant-API operation. */
export type MobileAuth =
  /** Program credentials only (X-Program-Id, plus X-Public-Key for native apps or an allowed Origin): session creation. */
  | 'program'
  /** A session token (X-Session-Token). */
  | 'session'
  /** A session token and a participant token of the same program (Authorization: Bearer). */
  | 'participant';

/** What a handler receives: validated input and the caller, never the Koa context. */
export interface MobileInput<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  view: MobileProgram;
  /** Null only on `program` operations. */
  session: MobileSession | null;
  /** The signed-in participant on `participant` operations (verified, exists in the program). */
  participantId: string | null;
  ip: string;
  /** A native app: the session was started with the program's X-Public-Key (on session creation: this call carried it). */
  app: boolean;
  /** The visitor's country from the operator's trusted proxy header (GEO_COUNTRY_HEADER), else null. */
  country: string | null;
  /** The User-Agent header ('' when absent): visits keep only its device class. */
  userAgent: string;
  /** The Accept-Language header, else null: the language of a visitor nobody knows yet (issue #27). */
  acceptLanguage?: string | null;
  deps: Deps;
}

/** One participant-API operation: path, credentials, schemas and handler in one place. */
export interface MobileOperation<B = any, Q = any, R = any> {
  /** Our identifier (MS1, MV1 …), listed in docs/participant-api.md. */
  id: string;
  /** Schema-style name, `resource.action`. */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /mobile/v2, `:param` segments allowed. */
  path: string;
  auth: MobileAuth;
  /** On `session` operations: a participant token, when sent, is verified (403 if invalid) and passed as `participantId`. */
  optionalParticipant?: boolean;
  /** Charged to the program's visit budget instead of its call budget (visit recording only). */
  visitBudget?: boolean;
  /** Request headers the answer depends on beyond Origin (`Vary`): MW1's texts follow `Accept-Language`. */
  vary?: string;
  summary: string;
  body?: z.ZodType<B>;
  /** A hand-written check of the common valid body, equal to `body`'s result; null falls back to `body` (hot paths only). */
  fastBody?: (raw: unknown) => B | null;
  query?: z.ZodType<Q>;
  response: z.ZodType<R>;
  handler(input: MobileInput<B, Q>): Promise<R>;
}

/** Declares an operation with inferred body/query/response types. */
export function mobileOperation<B, Q, R>(op: MobileOperation<B, Q, R>): MobileOperation<B, Q, R> {
  return op;
}
