import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import * as companyCountries from "../../domain/catalog/company-countries.js";
import { companyCountryCreateBody, companyCountryListQuery, companyCountrySchema } from "../../domain/catalog/company-country-schemas.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Company countries"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const companyCountryResponse = withMeta({ company_country: companyCountrySchema });

export async function companyCountryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/company_countries",
    {
      schema: {
        tags,
        security,
        summary: "List the countries the company's agreements apply to (what their company_country_ids name), by country code; carts are not limited to them",
        querystring: companyCountryListQuery,
        response: { 200: withListMeta({ company_countries: z.array(companyCountrySchema) }) },
      },
    },
    async (request) => {
      const result = await companyCountries.listCompanyCountries(companyContext(request), request.query);
      return listEnvelope(request, { company_countries: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/company_countries",
    {
      schema: {
        tags,
        security,
        summary: "Add a country the company's agreements may name (409 when it already has it); carts are not limited to these countries",
        body: companyCountryCreateBody,
        response: { 201: companyCountryResponse },
      },
    },
    async (request, reply) => {
      const created = await companyCountries.createCompanyCountry(companyContext(request), request.body.company_country);
      return reply.code(201).send(envelope(request, { company_country: created }));
    },
  );

  app.get(
    "/api/company_countries/:id",
    { schema: { tags, security, summary: "Show a company country", params, response: { 200: companyCountryResponse } } },
    async (request) => envelope(request, { company_country: await companyCountries.getCompanyCountry(companyContext(request), request.params.id) }),
  );

  app.delete(
    "/api/company_countries/:id",
    { schema: { tags, security, summary: "Delete a company country (409 while an agreement names it)", params, response: { 200: companyCountryResponse } } },
    async (request) => envelope(request, { company_country: await companyCountries.deleteCompanyCountry(companyContext(request), request.params.id) }),
  );
}
