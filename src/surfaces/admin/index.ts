import type { FastifyInstance } from "fastify";
import { useCompanyAuth } from "../../platform/http/company-auth.js";
import { dropletInstallationRoutes } from "./droplet-installations.js";
import { subscriptionOrderRoutes } from "./subscription-orders.js";

/** Company administration: every route needs a company API token unless it says otherwise. */
export async function adminSurface(app: FastifyInstance): Promise<void> {
  useCompanyAuth(app);
  await app.register(dropletInstallationRoutes);
  await app.register(subscriptionOrderRoutes);
}
