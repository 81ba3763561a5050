import { DatabaseBusyError, DatabaseUnavailableError } from "../errors.js";

/**
 * Recognises database failures that are not bugs: the server being unreachable, or up but too
 * busy to give a connection, a lock or finish a transaction in time (503s the client may retry), a
 * transaction PostgreSQL rolled back for conflicting with another (a 409 the client may retry),
 * constraint violations a service did not translate itself, and a record deleted by a concurrent
 * request between a service's read and its write.
 */

// Prisma error codes for "cannot reach / lost the server / pool exhausted".
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
// PostgreSQL SQLSTATEs: connection exceptions (08xxx), shutdown and start-up (57P0x).
const UNAVAILABLE_SQLSTATES = /^(08\d{3}|57P0[1-4]|53300)$/;
const UNAVAILABLE_NODE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);
// pg-pool's "Connection terminated due to connection timeout" is a new connection the server did
// not accept in time: unavailable. Its "timeout exceeded when trying to connect" is not: see isDatabaseBusy.
// pg's "Query read timeout" is a statement no answer came for within query_timeout: the server or
// the network to it went silent, and pg destroyed the connection.
const UNAVAILABLE_MESSAGES =
  /Query read timeout|Connection terminated|is not currently accepting connections|Client has encountered a connection error|Can't reach database server|DatabaseNotReachable|ConnectionClosed|SocketTimeout/i;

// An error, its causes, and what a Prisma driver adapter reports under
// `meta.driverAdapterError` (there a terminated session arrives as P2039 wrapping SQLSTATE 57P01).
function* causeChain(error: unknown): Generator<Record<string, unknown>> {
  const pending: unknown[] = [error];
  const seen = new Set<unknown>();
  while (pending.length > 0 && seen.size < 16) {
    const current = pending.shift();
    if (!current || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    yield current as Record<string, unknown>;
    const { cause, meta } = current as { cause?: unknown; meta?: { driverAdapterError?: unknown } };
    pending.push(cause, meta?.driverAdapterError);
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const link of causeChain(error)) {
    const code = typeof link.code === "string" ? link.code : undefined;
    const kind = typeof link.kind === "string" ? link.kind : undefined;
    if (code && (UNAVAILABLE_PRISMA_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_NODE_CODES.has(code))) return true;
    // The driver adapter's SQLSTATE: a connection refused past a connection limit (53300) arrives as Prisma's P2037 or P2010.
    if (typeof link.originalCode === "string" && UNAVAILABLE_SQLSTATES.test(link.originalCode)) return true;
    // PostgreSQL ends a session it will not serve with a FATAL error (a database closed to
    // connections, 55000; one dropped or renamed, 3D000; a role whose login was revoked): no
    // statement of it ran, and another instance or a later try may be served.
    if (link.severity === "FATAL") return true;
    if (kind && UNAVAILABLE_MESSAGES.test(kind)) return true;
    if (typeof link.message === "string" && UNAVAILABLE_MESSAGES.test(link.message)) return true;
  }
  return false;
}

// PostgreSQL SQLSTATEs: serialization failure, deadlock detected.
const WRITE_CONFLICT_SQLSTATES = new Set(["40001", "40P01"]);

/**
 * A transaction PostgreSQL rolled back because it conflicted with a concurrent one (Prisma P2034,
 * SQLSTATE 40001 or 40P01; a raw statement's arrives as P2010 with the SQLSTATE as the driver
 * adapter's `originalCode`). Nothing of it was written, and the same request may succeed again.
 */
export function isWriteConflict(error: unknown): boolean {
  for (const link of causeChain(error)) {
    if (link.code === "P2034") return true;
    if (WRITE_CONFLICT_SQLSTATES.has(String(link.code)) || WRITE_CONFLICT_SQLSTATES.has(String(link.originalCode))) return true;
  }
  return false;
}

// Prisma's P2028 with no connection within `maxWait` says only this.
const NO_CONNECTION_IN_TIME = "Unable to start a transaction in the given time";
// pg-pool raises this for a checkout that waited its connectionTimeoutMillis in the pool's queue
// (node_modules/pg-pool/index.js). CheckoutPool lets it through only while the pool holds an open
// connection, so the server is up and its connections busy.
const POOL_CHECKOUT_TIMED_OUT = "timeout exceeded when trying to connect";

// PostgreSQL's lock_not_available: a statement waited its lock_timeout for a lock.
const LOCK_NOT_AVAILABLE = "55P03";
// PostgreSQL's query_canceled: a statement ran its statement_timeout (or an operator cancelled it).
const QUERY_CANCELED = "57014";
const BUSY_SQLSTATES = new Set([LOCK_NOT_AVAILABLE, QUERY_CANCELED]);

/**
 * The database up but too busy to serve in time: no pooled connection within the wait (pg-pool's
 * checkout, or Prisma's `maxWait` for a transaction's), a transaction still at work when its
 * `timeout` ended (Prisma's P2028; Prisma rolled it back, and that error carries the timeout as
 * `meta.timeout`), or a statement that waited its `lock_timeout` for a lock another session held
 * (SQLSTATE 55P03; through Prisma a P2010 or P2039 with the SQLSTATE in `meta.driverAdapterError`:
 * the statement failed, so its transaction rolls back), or one that ran its `statement_timeout`
 * (57014, likewise). Under load a retry may succeed. Prisma's
 * other P2028s (a transaction used after it committed or rolled back, one it does not know, an
 * invalid isolation level) are bugs: they stay 500s.
 */
export function isDatabaseBusy(error: unknown): boolean {
  for (const link of causeChain(error)) {
    if (typeof link.message === "string" && link.message.includes(POOL_CHECKOUT_TIMED_OUT)) return true;
    if (BUSY_SQLSTATES.has(String(link.code)) || BUSY_SQLSTATES.has(String(link.originalCode))) return true;
    if (link.code !== "P2028") continue;
    const meta = link.meta as { timeout?: unknown } | undefined;
    if (meta?.timeout !== undefined || (typeof link.message === "string" && link.message.includes(NO_CONNECTION_IN_TIME))) return true;
  }
  return false;
}

/** The 503 every route answers a database's failure with (unavailable, else busy); undefined for another error. */
export function databaseFailure(error: unknown): DatabaseUnavailableError | DatabaseBusyError | undefined {
  if (isDatabaseUnavailable(error)) return new DatabaseUnavailableError({ cause: error });
  if (isDatabaseBusy(error)) return new DatabaseBusyError({ cause: error });
  return undefined;
}

/**
 * Whether the error is Prisma's `prismaCode` for a model query, or carries `sqlState`: from plain
 * pg as its `code`, from a raw query through Prisma (P2010) as the driver adapter's `originalCode`.
 */
function isConstraintViolation(error: unknown, prismaCode: string, sqlState: string): boolean {
  for (const link of causeChain(error)) {
    if (link.code === prismaCode || link.code === sqlState || link.originalCode === sqlState) return true;
  }
  return false;
}

/** A unique constraint violation (Prisma P2002 or SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return isConstraintViolation(error, "P2002", "23505");
}

/** A foreign key violation (Prisma P2003 or SQLSTATE 23503): a referenced row gone, or a referencing row left. */
export function isForeignKeyViolation(error: unknown): boolean {
  return isConstraintViolation(error, "P2003", "23503");
}

/**
 * Prisma's P2025: the record an update or delete addressed by its key no longer exists. A
 * service reads a record (404 when missing) before writing it, so this is a concurrent delete
 * that won the race.
 */
export function isRecordGone(error: unknown): boolean {
  for (const link of causeChain(error)) {
    if (link.code === "P2025") return true;
  }
  return false;
}
