/**
 * The one error hierarchy. Services throw these; the HTTP layer turns each into the documented
 * error body (`error_message`, `error_code`, `errors`, `meta`) with its status code.
 */
export type FieldErrors = Record<string, string[]>;

interface AppErrorOptions {
  code?: string;
  fieldErrors?: FieldErrors | null;
  /** Extra members for the body's `meta` (a locked cart adds `cart` and `shop_url`). */
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export abstract class AppError extends Error {
  abstract readonly status: number;
  readonly code: string;
  readonly fieldErrors: FieldErrors | null;
  readonly meta: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(message: string, defaultCode: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code ?? defaultCode;
    this.fieldErrors = options.fieldErrors ?? null;
    this.meta = options.meta;
    this.headers = options.headers;
  }
}

export class BadRequestError extends AppError {
  readonly status = 400;
  constructor(message: string, options?: AppErrorOptions) {
    super(message, "bad_request", options);
  }
}

/**
 * The WWW-Authenticate challenge of a 401 or 403 (RFC 6750 §3): bare when the request carried
 * no credential; else the error code and, as `error_description`, the error's message (ours,
 * never the credential). A description may hold only printable ASCII but `"` and `\` (§3).
 */
function bearerChallenge(error?: { code: "invalid_token" | "insufficient_scope"; description: string }): string {
  const challenge = 'Bearer realm="svc-commerce"';
  if (error === undefined) return challenge;
  return `${challenge}, error="${error.code}", error_description="${error.description.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "")}"`;
}

/** A 401 for a request that carried no credential (or one of a scheme we do not take): the bare challenge. */
export class UnauthorizedError extends AppError {
  readonly status = 401;
  constructor(message = "Authentication required", options?: AppErrorOptions) {
    super(message, "unauthorized", { ...options, headers: { "www-authenticate": bearerChallenge(), ...options?.headers } });
  }
}

/**
 * A 401 for a credential that was sent but is invalid, expired, revoked or malformed: the
 * challenge says `error="invalid_token"`, so that a client knows to get a new one rather than to
 * add one it forgot.
 */
export class InvalidCredentialError extends UnauthorizedError {
  constructor(message: string, options?: AppErrorOptions) {
    super(message, { code: "invalid_token", ...options, headers: { "www-authenticate": bearerChallenge({ code: "invalid_token", description: message }), ...options?.headers } });
  }
}

/** A 403: a valid credential without the right (`error="insufficient_scope"`, RFC 6750 §3.1). */
export class ForbiddenError extends AppError {
  readonly status = 403;
  constructor(message = "Not allowed", options?: AppErrorOptions) {
    super(message, "forbidden", { ...options, headers: { "www-authenticate": bearerChallenge({ code: "insufficient_scope", description: message }), ...options?.headers } });
  }
}

export class NotFoundError extends AppError {
  readonly status = 404;
  constructor(message = "Not found", options?: AppErrorOptions) {
    super(message, "not_found", options);
  }
}

export class ConflictError extends AppError {
  readonly status = 409;
  constructor(message: string, options?: AppErrorOptions) {
    super(message, "conflict", options);
  }
}

export class GoneError extends AppError {
  readonly status = 410;
  constructor(message: string, options?: AppErrorOptions) {
    super(message, "gone", options);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  readonly status = 415;
  constructor(message: string, options?: AppErrorOptions) {
    super(message, "unsupported_media_type", options);
  }
}

export class ValidationError extends AppError {
  readonly status = 422;
  constructor(fieldErrors: FieldErrors | null, message = "Validation failed", options?: AppErrorOptions) {
    super(message, "validation_failed", { ...options, fieldErrors });
  }

  /** The common case: one field, one message. */
  static field(path: string, message: string): ValidationError {
    return new ValidationError({ [path]: [message] });
  }
}

/**
 * At most this many messages are listed in a 422: one body nesting past the bound in every
 * element of a wide array, or holding thousands of NULs, answered a message for each, a response
 * 70 times its request (17 MB for 256 KB) that took a second to build.
 */
export const MAX_LISTED_FIELD_ERRORS = 100;

/**
 * Collects every field error of a request before answering, so a client fixing a 422 sees
 * all its mistakes at once rather than one per round trip. A path's messages keep the order
 * they were added in, and paths the order they first appeared in. Past MAX_LISTED_FIELD_ERRORS
 * messages, the first path left out gets one more message saying how many were left out.
 */
export class FieldErrorCollector {
  // Paths can be the client's member names: without a prototype, "constructor" is a name like any other.
  private readonly listed: FieldErrors = Object.create(null);
  private listedCount = 0;
  private leftOut: { path: string; count: number } | null = null;

  add(path: string, message: string): void {
    if (this.listedCount < MAX_LISTED_FIELD_ERRORS) {
      (this.listed[path] ??= []).push(message);
      this.listedCount += 1;
      return;
    }
    this.leftOut ??= { path, count: 0 };
    this.leftOut.count += 1;
  }

  /** Adds the errors another check returned after those collected so far. */
  merge(errors: FieldErrors): void {
    for (const [path, messages] of Object.entries(errors)) for (const message of messages) this.add(path, message);
  }

  get fieldErrors(): FieldErrors {
    if (this.leftOut === null) return this.listed;
    const { path, count } = this.leftOut;
    const fieldErrors: FieldErrors = Object.assign(Object.create(null), this.listed);
    fieldErrors[path] = [...(fieldErrors[path] ?? []), `and ${count} more ${count === 1 ? "error" : "errors"} not listed (a response lists at most ${MAX_LISTED_FIELD_ERRORS})`];
    return fieldErrors;
  }

  get empty(): boolean {
    return this.listedCount === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.fieldErrors);
  }
}

export class RateLimitedError extends AppError {
  readonly status = 429;
  /** A limit of one resource (not of the client's request rate) says which, with a message and code of its own. */
  constructor(retryAfterSeconds: number, message = "Too many requests", options?: Pick<AppErrorOptions, "code">) {
    super(message, "rate_limited", { ...options, headers: { "retry-after": String(retryAfterSeconds) } });
  }
}

export class BadGatewayError extends AppError {
  readonly status = 502;
  constructor(message: string, options?: AppErrorOptions) {
    super(message, "bad_gateway", options);
  }
}

/** A 503: the request may be sent again after Retry-After. */
abstract class ServiceUnavailableError extends AppError {
  readonly status = 503;
  constructor(message: string, code: string, options?: AppErrorOptions) {
    super(message, code, { ...options, headers: { "retry-after": "5" } });
  }
}

/**
 * The database is up but did not get to the request in time: a lock, a pooled connection, a turn
 * in a RowQueue or the transaction itself waited too long.
 */
export class DatabaseBusyError extends ServiceUnavailableError {
  constructor(options?: AppErrorOptions) {
    super("The database did not finish in time, retry shortly", "database_busy", options);
  }
}

/** The process is shutting down: another instance, or this one restarted, takes the retry. */
export class ShuttingDownError extends ServiceUnavailableError {
  constructor() {
    super("The server is shutting down, retry shortly", "shutting_down");
  }
}

/** The database cannot be reached, or a connection to it not set up. */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  constructor(options?: AppErrorOptions) {
    super("Database unavailable, retry shortly", "database_unavailable", options);
  }
}
