import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { databaseFailure, isForeignKeyViolation, isRecordGone, isUniqueViolation, isWriteConflict } from "../db/errors.js";
import { AppError, FieldErrorCollector, type FieldErrors } from "../errors.js";
import { meta } from "./envelope.js";
import type { ErrorBody } from "./schemas.js";

export interface ErrorReply {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  /** For an `invalid_union`: each branch's issues, their paths relative to the union. */
  params?: { errors?: BranchIssue[][]; issues?: { message: string }[] };
}

interface BranchIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  errors?: BranchIssue[][];
}

// Fastify's own errors for what arrives before a route runs.
const FASTIFY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: "payload_too_large", message: "Request body is too large" },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: "malformed_json", message: "Request body is not valid JSON" },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: "bad_request", message: "Content-Length does not match the body" },
  FST_ERR_CTP_INVALID_TYPE: { status: 415, code: "unsupported_media_type", message: "Unsupported content type" },
  FST_ERR_NOT_FOUND: { status: 404, code: "route_not_found", message: "No route matches this method and path" },
  // Routing errors (reported through the app's frameworkErrors): a path parameter too long to
  // be an id names nothing; a URL that does not decode is malformed.
  FST_ERR_MAX_PARAM_LENGTH: { status: 404, code: "not_found", message: "Not found" },
  FST_ERR_BAD_URL: { status: 400, code: "bad_request", message: "The URL is malformed" },
};

/** The value the client sent at a path (undefined when absent), to tell "missing" from "wrong". */
function sentValue(source: unknown, segments: string[]): unknown {
  let value = source;
  for (const segment of segments) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/**
 * A value that fails a union (an object or a list of them, say) fails every branch, and zod
 * reports "Invalid input" at the union. When the value has the type of exactly one branch, that
 * branch's issues say what to fix, at the members they name.
 */
function withUnionsOpened(issue: ValidationIssue): ValidationIssue[] {
  const fitting = issue.keyword === "invalid_union" ? (issue.params?.errors ?? []).filter((branch) => !branch.some((b) => b.code === "invalid_type" && b.path.length === 0)) : [];
  if (fitting.length !== 1) return [issue];
  const base = issue.instancePath.replace(/\/$/, "");
  return (fitting[0] as BranchIssue[]).flatMap((branchIssue) =>
    withUnionsOpened({
      instancePath: `${base}/${branchIssue.path.map(String).join("/")}`,
      keyword: branchIssue.code,
      message: branchIssue.message,
      ...(branchIssue.errors ? { params: { errors: branchIssue.errors } } : {}),
    }),
  );
}

function fieldErrorsFrom(issues: ValidationIssue[], context: string | undefined, request: FastifyRequest): FieldErrors {
  const errors = new FieldErrorCollector();
  const source = context === "querystring" ? request.query : request.body;
  for (const issue of issues.flatMap(withUnionsOpened)) {
    const segments = issue.instancePath.replace(/^\//, "").split("/").filter(Boolean);
    const key = segments.join(".") || (context === "querystring" ? "query" : "body");
    // zod words a missing member (or a write's missing body) by its expected type ("expected string",
    // "Invalid option", "expected object, received null"); say what the client can fix.
    const missing = segments.length > 0 ? sentValue(source, segments) === undefined && issue.keyword !== "custom" : context === "body" && source == null;
    for (const message of missing ? ["is required"] : messagesOf(issue)) errors.add(key, message);
  }
  return errors.fieldErrors;
}

/** What to fix: for a record's key, the key schema's own messages, where zod says only "Invalid key in record". */
function messagesOf(issue: ValidationIssue): string[] {
  const keyIssues = issue.keyword === "invalid_key" ? (issue.params?.issues ?? []) : [];
  return keyIssues.length > 0 ? keyIssues.map((keyIssue) => keyIssue.message) : [issue.message ?? "is invalid"];
}

function body(request: FastifyRequest, message: string, code: string, errors: FieldErrors | null, extraMeta?: Record<string, unknown>): ErrorBody {
  return { error_message: message, error_code: code, errors, meta: { ...meta(request), ...extraMeta } };
}

function appErrorReply(error: AppError, request: FastifyRequest): ErrorReply {
  return { status: error.status, body: body(request, error.message, error.code, error.fieldErrors, error.meta), headers: error.headers ?? {} };
}

/** Every error, ours, the framework's or the database driver's, as the documented error body. */
export function toErrorReply(error: unknown, request: FastifyRequest): ErrorReply {
  if (error instanceof AppError) return appErrorReply(error, request);
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    // A malformed path id names no resource: the client asked for something that does not exist.
    if (fastifyError.validationContext === "params") {
      return { status: 404, body: body(request, "Not found", "not_found", null), headers: {} };
    }
    const errors = fieldErrorsFrom(fastifyError.validation as unknown as ValidationIssue[], fastifyError.validationContext, request);
    return { status: 422, body: body(request, "Validation failed", "validation_failed", errors), headers: {} };
  }
  if (fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    // The types the route's surface reads: the public SDK reads text/plain as JSON too (acceptPlainTextJson).
    const plainText = request.server.hasContentTypeParser("text/plain");
    const accepted = plainText ? "application/json (or text/plain JSON)" : "application/json";
    // Named in Accept (RFC 9110 §15.5.16), and for a PATCH in Accept-Patch (RFC 5789 §2.2), so
    // that a client or a generated SDK can tell what to send without reading the message.
    const mediaTypes = plainText ? "application/json, text/plain" : "application/json";
    const headers: Record<string, string> = { accept: mediaTypes, ...(request.method === "PATCH" ? { "accept-patch": mediaTypes } : {}) };
    return { status: 415, body: body(request, `Unsupported content type: send ${accepted}`, "unsupported_media_type", null), headers };
  }
  const known = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (known) return { status: known.status, body: body(request, known.message, known.code, null), headers: {} };
  // Fastify gives what failed in reading the request a 4xx statusCode. A client that hangs up
  // mid-body fails the request stream with Node's ECONNRESET, a code a lost database connection
  // shares: the statusCode, which no database error carries, says whose fault it is.
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    if (fastifyError.code === "ECONNRESET") {
      return { status, body: body(request, "The client closed the connection before its request arrived", "request_aborted", null), headers: {} };
    }
    return { status, body: body(request, fastifyError.message, "bad_request", null), headers: {} };
  }
  const failure = databaseFailure(error);
  if (failure) return appErrorReply(failure, request);
  if (isWriteConflict(error)) {
    return { status: 409, body: body(request, "Conflicts with a concurrent change, retry the request", "write_conflict", null), headers: { "retry-after": "1" } };
  }
  if (isUniqueViolation(error)) {
    return { status: 409, body: body(request, "Conflicts with an existing record", "conflict", null), headers: {} };
  }
  if (isForeignKeyViolation(error)) {
    return { status: 409, body: body(request, "Conflicts with a record changed or deleted meanwhile", "conflict", null), headers: {} };
  }
  if (isRecordGone(error)) {
    return { status: 404, body: body(request, "Not found", "not_found", null), headers: {} };
  }
  return { status: 500, body: body(request, "Internal server error", "internal_error", null), headers: {} };
}

export function sendError(reply: FastifyReply, error: ErrorReply, extraBody: Record<string, unknown> = {}): FastifyReply {
  return reply.code(error.status).headers(error.headers).send({ ...error.body, ...extraBody });
}

// Answered as retryable, not as bugs, yet each says something to look at: a deadlock is two
// code paths locking in different orders, a transaction out of time a pool or database too small
// for the load. Logged with the error: the lock-order deadlock of audit L was found by its stack.
const WARNED_ERROR_CODES = new Set(["write_conflict", "database_busy"]);

export function logError(request: FastifyRequest, error: unknown, reply: ErrorReply): void {
  const { status, body } = reply;
  if (WARNED_ERROR_CODES.has(body.error_code)) request.log.warn({ err: error, status, error_code: body.error_code }, "request failed");
  else if (status >= 500) request.log.error({ err: error }, "request failed");
  else request.log.info({ status, error_code: body.error_code }, "request rejected");
}

/**
 * The default handlers for the whole app; a surface may wrap toErrorReply in its own.
 * `notFoundPreHandler` runs before the 404 answer (the app rate-limits it: scanners probing
 * for paths are the commonest hostile traffic).
 */
export function registerErrorHandlers(app: FastifyInstance, options: { notFoundPreHandler?: preHandlerAsyncHookHandler } = {}): void {
  app.setErrorHandler((error, request, reply) => {
    const errorReply = toErrorReply(error, request);
    logError(request, error, errorReply);
    return sendError(reply, errorReply);
  });
  registerNotFoundHandler(app, { preHandler: options.notFoundPreHandler });
}

const routeNotFound = () => Object.assign(new Error("not found"), { code: "FST_ERR_NOT_FOUND" });

/**
 * The 404 of unknown paths in `app`'s context. A surface registers its own so that its hooks
 * (CORS) run for them too; `send` answers in the surface's error body (the platform's by default),
 * `notFound` is the error it reports (`route_not_found` by default).
 */
export function registerNotFoundHandler(
  app: FastifyInstance,
  {
    preHandler,
    send = (_request, reply, errorReply) => sendError(reply, errorReply),
    notFound = routeNotFound,
  }: {
    preHandler?: preHandlerAsyncHookHandler | undefined;
    send?: (request: FastifyRequest, reply: FastifyReply, errorReply: ErrorReply) => FastifyReply;
    notFound?: (() => Error) | undefined;
  },
): void {
  app.setNotFoundHandler(preHandler ? { preHandler } : {}, (request, reply) => send(request, reply, toErrorReply(notFound(), request)));
}
