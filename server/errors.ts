import { ERROR_CODES, type FieldError } from '../shared/errors.ts';

/** Base of every expected failure; the error middleware renders it as the spec's error object. */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errorName: string;
  readonly errors?: FieldError[];
  readonly policyName?: string;
  readonly headers?: Record<string, string>;
  constructor(
    status: number,
    code: string,
    errorName: string,
    message: string,
    extra: { errors?: FieldError[]; policyName?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.errorName = errorName;
    this.errors = extra.errors;
    this.policyName = extra.policyName;
    this.headers = extra.headers;
  }
}

/** 400: the request is malformed or fails validation. */
export class ValidationError extends AppError {
  constructor(message: string, errors?: FieldError[], code: string = ERROR_CODES.BAD_REQUEST) {
    super(400, code, 'BadRequestError', message, { errors });
  }
}

/** 403 NOT_AUTHORIZED_ERROR: missing/invalid credential, scope, program or team. */
export class NotAuthorizedError extends AppError {
  constructor(message = 'You are not authorized to perform this action.') {
    super(403, ERROR_CODES.NOT_AUTHORIZED, 'NotAuthorizedError', message);
  }
}

/** 403 EMAIL_NOT_VERIFIED_ERROR: the key is locked until the owner verifies their email. */
export class EmailNotVerifiedError extends AppError {
  constructor() {
    super(
      403,
      ERROR_CODES.EMAIL_NOT_VERIFIED,
      'EmailNotVerifiedError',
      'The team owner has not verified their email address yet. Open the verification link we emailed, or resend it with POST /v2/team/owner/verification-email; GET /v2/team shows the state.',
    );
  }
}

/** 403: the team is disabled. */
export class AccountDisabledError extends AppError {
  constructor() {
    super(403, ERROR_CODES.ACCOUNT_DISABLED, 'AccountDisabledError', 'This account has been disabled.');
  }
}

/** 403: referral-program REST use needs a paid plan. */
export class PaidPlanRequiredError extends AppError {
  constructor() {
    super(403, ERROR_CODES.PAID_PLAN_REQUIRED, 'PaidPlanRequiredError', 'The REST API for referral programs requires a paid plan.');
  }
}

/** 403: participant emails need a VERIFIED team. */
export class TeamNotVerifiedError extends AppError {
  constructor(message = 'The team must be verified before participant emails can be sent. Request verification with POST /v2/team/verification-request.') {
    super(403, ERROR_CODES.TEAM_NOT_VERIFIED, 'TeamNotVerifiedError', message);
  }
}

/** 402: affiliate-program REST use needs a payment method on file. */
export class PaymentMethodRequiredError extends AppError {
  constructor() {
    super(402, ERROR_CODES.PAYMENT_METHOD_REQUIRED, 'PaymentMethodRequiredError', 'The REST API for affiliate programs requires a payment method on file.');
  }
}

/** 402: a plan limit (programs, participants) is reached. */
export class UsageLimitError extends AppError {
  constructor(message: string) {
    super(402, ERROR_CODES.USAGE_LIMIT, 'UsageLimitError', message);
  }
}

/** 404: the resource does not exist or was deleted. */
export class NotFoundError extends AppError {
  constructor(message = 'Resource not found.') {
    super(404, ERROR_CODES.NOT_FOUND, 'NotFoundError', message);
  }
}

/** 406: the operation is not permitted from the current state. */
export class InvalidStateError extends AppError {
  constructor(message: string) {
    super(406, ERROR_CODES.INVALID_STATE, 'InvalidStateError', message);
  }
}

/** 409: a conflicting or duplicate request. */
export class ConflictError extends AppError {
  constructor(message: string, code: string = ERROR_CODES.CONFLICT) {
    super(409, code, 'ConflictError', message);
  }
}

/** 422: the endpoint is for the other program type. */
export class WrongProgramTypeError extends AppError {
  constructor(message: string) {
    super(422, ERROR_CODES.WRONG_PROGRAM_TYPE, 'UnprocessableEntityError', message);
  }
}

/** 422: the participant was blocked as a high-risk fraudster. */
export class ParticipantBlockedError extends AppError {
  constructor(message = 'This participant was blocked as a high-risk fraud signup.') {
    super(422, ERROR_CODES.PARTICIPANT_BLOCKED, 'ParticipantBlockedError', message);
  }
}

/** 429: a rate, slowdown or concurrency limit was hit. */
export class RateLimitedError extends AppError {
  constructor(policyName: string, message: string, headers: Record<string, string> = {}) {
    super(429, ERROR_CODES.RATE_LIMIT, 'RateLimit', message, { policyName, headers });
  }
}

/** 503: a dependency (usually the database) could not be reached. */
export class UnavailableError extends AppError {
  constructor(message = 'The service is temporarily unavailable. Try again shortly.', headers?: Record<string, string>) {
    super(503, ERROR_CODES.UNAVAILABLE, 'ServiceUnavailableError', message, { headers });
  }
}

/** Turns a database error we can explain (unique, foreign key, connection) into an AppError, else null. */
export function translateDbError(err: unknown): AppError | null {
  const e = err as { code?: string; errno?: string | number; message?: string };
  const code = String(e?.code ?? '');
  if (code === '23505' || code.startsWith('SQLITE_CONSTRAINT_UNIQUE') || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new ConflictError('A record with these details already exists.');
  }
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new ValidationError('The request refers to a record that does not exist.');
  }
  // PostgreSQL deadlock or serialization failure still there after the db layer's retries
  // (server/db/retry.ts): nothing was written, so the same request may simply be sent again.
  if (code === '40P01' || code === '40001') {
    return new UnavailableError('The request collided with concurrent changes and was not applied. Send it again.', { 'Retry-After': '1' });
  }
  if (code === 'ECONNREFUSED' || code === '57P01' || code === 'SQLITE_BUSY' || code === 'ETIMEDOUT' || /Knex: Timeout acquiring/.test(e?.message ?? '')) {
    return new UnavailableError();
  }
  return null;
}
