import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Database } from "../db/database.js";
import { databaseFailure } from "../db/errors.js";
import { type AppError, DatabaseBusyError, DatabaseUnavailableError } from "../errors.js";

const READY_TIMEOUT_MS = 2_000;

/**
 * Why a readiness check failed, answered as every route answers its database's failures: 503
 * database_busy or database_unavailable (databaseFailure), and any other failure of the check
 * unavailable. A check with no answer within READY_TIMEOUT_MS waited for a busy database when the
 * server holds one of the pool's connections open, else for one that accepts none (as
 * CheckoutPool tells them apart).
 */
function notReady(db: Database, error: unknown, noAnswer: Error): AppError {
  if (error === noAnswer && db.hasOpenConnection()) return new DatabaseBusyError({ cause: error });
  return databaseFailure(error) ?? new DatabaseUnavailableError({ cause: error });
}

/** Liveness and readiness for orchestrators: /health says the process runs, /ready that it can serve. */
export async function operationsRoutes(app: FastifyInstance): Promise<void> {
  const statusSchema = z.object({ status: z.enum(["ok", "ready"]) });
  app.get("/health", { schema: { tags: ["operations"], operationId: "checkHealth", summary: "The process is up", response: { 200: statusSchema } } }, async () => ({
    status: "ok" as const,
  }));
  app.get("/ready", { schema: { tags: ["operations"], operationId: "checkReadiness", summary: "The database is reachable", response: { 200: statusSchema } } }, async () => {
    const noAnswer = new Error(`No answer within ${READY_TIMEOUT_MS} ms`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(noAnswer), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([app.db.sql.query("SELECT 1"), timeout]);
    } catch (error) {
      throw notReady(app.db, error, noAnswer);
    } finally {
      clearTimeout(timer);
    }
    return { status: "ready" as const };
  });
}
