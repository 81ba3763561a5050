import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { countrySchema, languageSchema, referenceListQuery } from "../../domain/catalog/reference-data-schemas.js";
import * as referenceData from "../../domain/catalog/reference-data.js";
import { companyContext } from "../../platform/http/app-context.js";
import { listEnvelope } from "../../platform/http/envelope.js";
import { withListMeta } from "../../platform/http/schemas.js";

const tags = ["Reference data"];
const security = [{ bearer: [] }];

export async function referenceDataRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/countries",
    {
      schema: {
        tags,
        security,
        summary: "List the countries a shop can sell in, with their currency",
        querystring: referenceListQuery,
        response: { 200: withListMeta({ countries: z.array(countrySchema) }) },
      },
    },
    async (request) => {
      const result = await referenceData.listCountries(companyContext(request), request.query);
      return listEnvelope(request, { countries: result.rows }, result.pagination);
    },
  );

  app.get(
    "/api/languages",
    {
      schema: {
        tags,
        security,
        summary: "List the languages content can be translated into",
        querystring: referenceListQuery,
        response: { 200: withListMeta({ languages: z.array(languageSchema) }) },
      },
    },
    async (request) => {
      const result = await referenceData.listLanguages(companyContext(request), request.query);
      return listEnvelope(request, { languages: result.rows }, result.pagination);
    },
  );
}
