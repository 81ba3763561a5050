import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { leadListQuery, leadView } from "../../domain/leads/schemas.js";
import * as leads from "../../domain/leads/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { listEnvelope } from "../../platform/http/envelope.js";
import { withListMeta } from "../../platform/http/schemas.js";

const tags = ["Leads"];
const security = [{ bearer: [] }];

export async function leadRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/leads",
    {
      schema: {
        tags,
        security,
        summary: "List leads, newest first (filter by creation date and rep)",
        querystring: leadListQuery,
        response: { 200: withListMeta({ leads: z.array(leadView) }) },
      },
    },
    async (request) => {
      const result = await leads.listLeads(companyContext(request), request.query);
      return listEnvelope(request, { leads: result.rows }, result.pagination);
    },
  );
}
