import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { dropletListQuery, dropletSchema } from "../../domain/droplets/schemas.js";
import * as droplets from "../../domain/droplets/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { listEnvelope } from "../../platform/http/envelope.js";
import { withListMeta } from "../../platform/http/schemas.js";

const tags = ["Droplets"];
const security = [{ bearer: [] }];

/** The platform's droplet catalog, read-only: operators add droplets with the CLI. */
export async function dropletRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/droplets",
    {
      schema: {
        tags,
        security,
        summary: "List the droplets a company can install, with their uuid and scopes",
        querystring: dropletListQuery,
        response: { 200: withListMeta({ droplets: z.array(dropletSchema) }) },
      },
    },
    async (request) => {
      const result = await droplets.listDroplets(companyContext(request).db, request.query);
      return listEnvelope(request, { droplets: result.rows }, result.pagination);
    },
  );
}
