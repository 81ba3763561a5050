import type { FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import type { Clock } from "../clock.js";
import type { SqlServiceContext } from "../context.js";
import type { Database } from "../db/database.js";
import { requiredCompany } from "./company-auth.js";

declare module "fastify" {
  interface FastifyInstance {
    db: Database;
    clock: Clock;
    config: Config;
  }
}

/** The service context of an authenticated admin request. */
export function companyContext(request: FastifyRequest): SqlServiceContext {
  return { db: request.server.db.prisma, sql: request.server.db.sql, clock: request.server.clock, companyId: requiredCompany(request) };
}
