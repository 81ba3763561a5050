import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { DatabaseUnavailableError } from "../errors.js";

const READY_TIMEOUT_MS = 2_000;

/** Liveness and readiness for orchestrators: /health says the process runs, /ready that it can serve. */
export async function operationsRoutes(app: FastifyInstance): Promise<void> {
  const statusSchema = z.object({ status: z.enum(["ok", "ready"]) });
  app.get("/health", { schema: { tags: ["operations"], operationId: "checkHealth", summary: "The process is up", response: { 200: statusSchema } } }, async () => ({
    status: "ok" as const,
  }));
  app.get("/ready", { schema: { tags: ["operations"], operationId: "checkReadiness", summary: "The database is reachable", response: { 200: statusSchema } } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`No answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([app.db.sql.query("SELECT 1"), timeout]);
    } catch (error) {
      throw new DatabaseUnavailableError("Database unreachable", { cause: error });
    } finally {
      clearTimeout(timer);
    }
    return { status: "ready" as const };
  });
}
