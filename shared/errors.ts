/** Stable error codes of the REST error object; docs/errors.md lists when each is used. */
export const ERROR_CODES = {
  BAD_REQUEST: 'BAD_REQUEST_ERROR',
  INVALID_JSON: 'INVALID_JSON_ERROR',
  BODY_TOO_LARGE: 'REQUEST_BODY_TOO_LARGE_ERROR',
  NOT_AUTHORIZED: 'NOT_AUTHORIZED_ERROR',
  EMAIL_NOT_VERIFIED: 'EMAIL_NOT_VERIFIED_ERROR',
  ACCOUNT_DISABLED: 'ACCOUNT_DISABLED_ERROR',
  PAID_PLAN_REQUIRED: 'PAID_PLAN_REQUIRED_ERROR',
  TEAM_NOT_VERIFIED: 'TEAM_NOT_VERIFIED_ERROR',
  PAYMENT_METHOD_REQUIRED: 'PAYMENT_METHOD_REQUIRED_ERROR',
  USAGE_LIMIT: 'USAGE_LIMIT_ERROR',
  NOT_FOUND: 'NOT_FOUND_ERROR',
  INVALID_STATE: 'INVALID_STATE_ERROR',
  DUPLICATE_REQUEST: 'DUPLICATE_REQUEST_ERROR',
  CONFLICT: 'CONFLICT_ERROR',
  ACCOUNT_EXISTS: 'ACCOUNT_EXISTS_ERROR',
  /** AF9: missing or conflicting refund history (rest-v2 §3.12); nothing was changed. */
  REFUND_HISTORY_CONFLICT: 'REFUND_HISTORY_CONFLICT_ERROR',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED_ERROR',
  WRONG_PROGRAM_TYPE: 'WRONG_PROGRAM_TYPE_ERROR',
  PARTICIPANT_BLOCKED: 'PARTICIPANT_BLOCKED_ERROR',
  RATE_LIMIT: 'RATE_LIMIT',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE_ERROR',
  /** Owner console only (`/console/api/…`): no live owner session. */
  NOT_SIGNED_IN: 'NOT_SIGNED_IN_ERROR',
  /** Owner console only (401): the session ended because the member's role or Manage API access changed (TM8); sign in again. */
  PRIVILEGES_CHANGED: 'PRIVILEGES_CHANGED_ERROR',
  /** Owner console only: a sensitive action needs the password (and code) again within five minutes (issue #35). */
  REAUTHENTICATION_REQUIRED: 'REAUTHENTICATION_REQUIRED_ERROR',
  /** Owner console only: the team requires two-factor sign-in and this member has not turned it on (issue #35). */
  TWO_FACTOR_REQUIRED: 'TWO_FACTOR_REQUIRED_ERROR',
} as const;

/** One stable error code. */
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** One per-field validation detail inside `errors[]`. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
  /** refloop extension (issue #32): the largest value, length or count allowed, on `TOO_LONG`. */
  maximum?: number;
  /** refloop extension (issue #32): the smallest value, length or count allowed, on `TOO_SHORT`. */
  minimum?: number;
  /** refloop extension (issue #32): what the bound measures: `string` (characters), `number` (the value), `array` (entries). */
  origin?: string;
}

/** The error object every non-200 REST response carries. */
export interface ErrorBody {
  name: string;
  code: string;
  message: string;
  errors?: FieldError[];
  status: number;
  supportUrl?: string;
  policyName?: string;
  level: 'error' | 'warn';
  timestamp: string;
}
