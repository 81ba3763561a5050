import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { roleListQuery, roleSchema } from "../../domain/roles/schemas.js";
import * as roles from "../../domain/roles/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { listEnvelope } from "../../platform/http/envelope.js";
import { withListMeta } from "../../platform/http/schemas.js";

const tags = ["Roles"];
const security = [{ bearer: [] }];

/** The company's roles, read-only: operators add them with the CLI. */
export async function roleRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/roles",
    {
      schema: {
        tags,
        security,
        summary: "List the company's roles, whose ids a droplet installation's role_id names",
        querystring: roleListQuery,
        response: { 200: withListMeta({ roles: z.array(roleSchema) }) },
      },
    },
    async (request) => {
      const result = await roles.listRoles(companyContext(request), request.query);
      return listEnvelope(request, { roles: result.rows }, result.pagination);
    },
  );
}
