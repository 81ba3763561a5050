import type { FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import type { Clock } from "../clock.js";
import { tokenDisplayPrefix } from "../auth/company-tokens.js";
import type { Actor, SqlServiceContext } from "../context.js";
import type { Database } from "../db/database.js";
import type { RowQueue } from "../db/row-queue.js";
import { bearerToken, requiredCompany } from "./company-auth.js";

declare module "fastify" {
  interface FastifyInstance {
    db: Database;
    clock: Clock;
    config: Config;
    /** The app's RowQueue: order changes and cart mutations take turns in it per row. */
    rowQueue: RowQueue;
  }
}

/** The service context of an authenticated admin request. */
export function companyContext(request: FastifyRequest): SqlServiceContext {
  return { db: request.server.db.prisma, sql: request.server.db.sql, clock: request.server.clock, companyId: requiredCompany(request) };
}

/**
 * companyContext plus who acts, for services that record it (the API token, by its display
 * prefix), and the app's RowQueue for the changes they make.
 */
export function actingCompanyContext(request: FastifyRequest): SqlServiceContext & { actor: Actor; rowQueue: RowQueue } {
  const token = bearerToken(request);
  return { ...companyContext(request), actor: { type: "api_token", id: token ? tokenDisplayPrefix(token) : null }, rowQueue: request.server.rowQueue };
}
