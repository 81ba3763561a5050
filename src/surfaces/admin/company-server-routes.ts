import type { FastifyInstance } from "fastify";
import { companyLeadRoutes } from "./company-leads.js";
import { useCompanyHostCheck } from "./company-server.js";
import { conversationRoutes } from "./conversations.js";
import { customPageRoutes } from "./custom-pages.js";
import { labelRoutes } from "./labels.js";

/** The operations the specification places on the company server (`{company_base_url}`). */
export async function companyServerRoutes(app: FastifyInstance): Promise<void> {
  useCompanyHostCheck(app);
  await app.register(labelRoutes);
  await app.register(customPageRoutes);
  await app.register(conversationRoutes);
  await app.register(companyLeadRoutes);
}
