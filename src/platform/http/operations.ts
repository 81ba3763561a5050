import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Database } from "../db/database.js";
import { databaseFailure } from "../db/errors.js";
import { type AppError, DatabaseBusyError, DatabaseUnavailableError } from "../errors.js";

const READY_TIMEOUT_MS = 2_000;

/**
 * Why a readiness check failed, or undefined when it did not fail in a way that taking this
 * instance out of rotation helps. A database that is up but busy (the check waited
 * READY_TIMEOUT_MS for a pooled connection, or for its answer, while the server holds one of the
 * pool's connections open; or any failure databaseFailure calls busy) is shared by every instance:
 * each one's check fails alike, and a load balancer that takes them all out has nowhere to send
 * anything, so the instance stays ready and its requests answer 503 database_busy themselves. An
 * unreachable database (no connection open, refused, dropped, timed out) is 503
 * database_unavailable, and so is any other failure of the check.
 */
function notReady(db: Database, error: unknown, noAnswer: Error): AppError | undefined {
  if (error === noAnswer) return db.hasOpenConnection() ? undefined : new DatabaseUnavailableError({ cause: error });
  const failure = databaseFailure(error);
  if (failure instanceof DatabaseBusyError) return undefined;
  return failure ?? new DatabaseUnavailableError({ cause: error });
}

/** Liveness and readiness for orchestrators: /health says the process runs, /ready that it can serve. */
export async function operationsRoutes(app: FastifyInstance): Promise<void> {
  const statusSchema = z.object({ status: z.enum(["ok", "ready"]) });
  app.get("/health", { schema: { tags: ["operations"], operationId: "checkHealth", summary: "The process is up", response: { 200: statusSchema } } }, async () => ({
    status: "ok" as const,
  }));
  app.get("/ready", { schema: { tags: ["operations"], operationId: "checkReadiness", summary: "The database is reachable", response: { 200: statusSchema } } }, async (request) => {
    const noAnswer = new Error(`No answer within ${READY_TIMEOUT_MS} ms`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(noAnswer), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([app.db.sql.query("SELECT 1"), timeout]);
    } catch (error) {
      const failure = notReady(app.db, error, noAnswer);
      if (failure) throw failure;
      request.log.warn({ err: error }, "readiness check: the database is busy; staying in rotation");
    } finally {
      clearTimeout(timer);
    }
    return { status: "ready" as const };
  });
}
