// The console's only way to the server: the REST operations under `/console/api/v2` (the `/v2`
// routes table with the owner session as credential) and the session document. Every write sends
// the session's CSRF value; every failure arrives as the REST error object.
import { signal } from '@preact/signals';

/** What `GET /console/api/session` answers. */
export interface SessionInfo {
  email: string;
  csrf: string;
  expiresAt: string;
  team: { id: string; name: string; role: 'OWNER' | 'ADMIN' | 'MEMBER'; emailVerified: boolean; verificationStatus: string; canManageKeys: boolean; canInvite: boolean } | null;
  scopes: string[];
  /** The server keeps mail in its outbox (no SMTP): the Outbox page is shown. */
  mailOutbox: boolean;
  /** A new API key (the first sign-in's) waits in the session, shown once on the `/keys` page. */
  keyWaiting: boolean;
  teams: Array<{ id: string; name: string; role: string }>;
  /** Two-factor sign-in (issue #35): on for this member, required by the team, and so whether only the Security page is open. */
  twoFactor: { enabled: boolean; teamRequires: boolean; mustEnrol: boolean };
}

/** A field problem of a 400, as the REST error object carries it. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
  /** On `TOO_LONG`: the most allowed (docs/errors.md, a refloop extension). */
  maximum?: number;
  /** On `TOO_SHORT`: the least allowed. */
  minimum?: number;
  /** What the bound measures: `string` (characters), `number` (the value), `array` (entries). */
  origin?: string;
}

/** A failed request: the error object's status, code, message and per-field errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }
}

/** The signed-in session; null before it is read, `false` once the server says nobody is signed in. */
export const session = signal<SessionInfo | null | false>(null);

/** Why the session ended, when the server said (`PRIVILEGES_CHANGED_ERROR`: the Owner changed this member's role, TM8); null otherwise. */
export const signedOutReason = signal<'PRIVILEGES_CHANGED' | null>(null);

async function send<T>(method: string, url: string, body?: unknown, mediaType?: string): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const s = session.value;
  if (method !== 'GET' && s) headers['X-CSRF-Token'] = s.csrf;
  if (body !== undefined) headers['Content-Type'] = mediaType ?? 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : mediaType ? (body as string) : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check your connection and try again.');
  }
  const type = res.headers.get('content-type') ?? '';
  const data = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (res.ok) return data as T;
  const e = (data && typeof data === 'object' ? data : {}) as { code?: string; message?: string; errors?: FieldError[] };
  if (res.status === 401) {
    signedOutReason.value = e.code === 'PRIVILEGES_CHANGED_ERROR' ? 'PRIVILEGES_CHANGED' : null;
    session.value = false;
  }
  throw new ApiError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? res.statusText, e.errors ?? []);
}

/** Calls a REST operation: `api('GET', '/campaigns')` is `GET /v2/campaigns` as the signed-in member. */
export function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return send<T>(method, `/console/api/v2${path}`, body);
}

/** Sends `text` as the body with its own media type (the CSV import's `text/csv`), otherwise as `api`. */
export function apiText<T>(method: 'POST', path: string, text: string, type: string): Promise<T> {
  return send<T>(method, `/console/api/v2${path}`, text, type);
}

/** Reads who is signed in (sets `session`). */
export async function loadSession(): Promise<void> {
  try {
    session.value = await send<SessionInfo>('GET', '/console/api/session');
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 401) throw e;
    session.value = false;
  }
}

/** True when the signed-in member's role grants `scope`. */
export function can(scope: string): boolean {
  const s = session.value;
  return !!s && s.scopes.includes(scope);
}

/** A query string from the defined values of `q`. */
export function query(q: Record<string, string | number | boolean | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
