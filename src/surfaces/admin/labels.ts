import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { labelCreateBody, labelListQuery, labelSchema } from "../../domain/labels/schemas.js";
import * as labels from "../../domain/labels/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { withListMeta, withMeta } from "../../platform/http/schemas.js";
import { companyServer } from "./company-server.js";

const tags = ["Labels"];
const security = [{ bearer: [] }];
const servers = companyServer;

export async function labelRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/company/labels",
    {
      schema: {
        tags,
        security,
        servers,
        summary: "List the company's labels by name",
        querystring: labelListQuery,
        response: { 200: withListMeta({ labels: z.array(labelSchema) }) },
      },
    },
    async (request) => {
      const result = await labels.listLabels(companyContext(request), request.query);
      return listEnvelope(request, { labels: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/company/labels",
    {
      schema: {
        tags,
        security,
        servers,
        summary: "Create a label (names are unique per company)",
        body: labelCreateBody,
        response: { 201: withMeta({ label: labelSchema }) },
      },
    },
    async (request, reply) => {
      const label = await labels.createLabel(companyContext(request), request.body.label.name);
      return reply.code(201).send(envelope(request, { label }));
    },
  );
}
