import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { companyContactView, companyLeadBody, leadView } from "../../domain/leads/schemas.js";
import * as leads from "../../domain/leads/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope } from "../../platform/http/envelope.js";
import { withMeta } from "../../platform/http/schemas.js";
import { companyServer } from "./company-server.js";

const tags = ["Leads"];
const security = [{ bearer: [] }];

/** The company-server variant of lead capture: a company's own server reports its contacts. */
export async function companyLeadRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/api/company/leads",
    {
      schema: {
        tags,
        security,
        servers: companyServer,
        summary: "Capture a lead from the company's server",
        description: "Creates the contact, or updates the one with this `contact.id` (the company server's id), and stores the lead.",
        body: companyLeadBody,
        response: { 201: withMeta({ lead: leadView, contact: companyContactView }) },
      },
    },
    async (request, reply) => reply.code(201).send(envelope(request, await leads.captureCompanyLead(companyContext(request), request.body))),
  );
}
