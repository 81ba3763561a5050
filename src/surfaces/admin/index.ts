import type { FastifyInstance } from "fastify";
import { useCompanyAuth } from "../../platform/http/company-auth.js";
import { useIdempotencyKeys } from "../../platform/http/idempotency.js";
import { dropletInstallationRoutes } from "./droplet-installations.js";

/** Company administration: every route needs a company API token unless it says otherwise. */
export async function adminSurface(app: FastifyInstance): Promise<void> {
  useCompanyAuth(app);
  useIdempotencyKeys(app, { scopeOf: (request) => (request.companyId === null ? null : `company:${request.companyId}`) });
  await app.register(dropletInstallationRoutes);
}
