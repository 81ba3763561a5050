import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { taxRateListQuery, taxRateParams, taxRatePutBody, taxRateSchema } from "../../domain/catalog/tax-rate-schemas.js";
import * as taxRates from "../../domain/catalog/tax-rates.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Tax rates"];
const security = [{ bearer: [] }];
const taxRateResponse = withMeta({ tax_rate: taxRateSchema });

export async function taxRateRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/tax_rates",
    {
      schema: {
        tags,
        security,
        summary: "List the company's tax rates by country",
        querystring: taxRateListQuery,
        response: { 200: withListMeta({ tax_rates: z.array(taxRateSchema) }) },
      },
    },
    async (request) => {
      const result = await taxRates.listTaxRates(companyContext(request), request.query);
      return listEnvelope(request, { tax_rates: result.rows }, result.pagination);
    },
  );

  app.get(
    "/api/tax_rates/:country_code",
    {
      schema: {
        tags,
        security,
        summary: "Show the company's tax rate for a country (404 when it has none there)",
        params: taxRateParams,
        response: { 200: taxRateResponse },
      },
    },
    async (request) => envelope(request, { tax_rate: await taxRates.getTaxRate(companyContext(request), request.params.country_code) }),
  );

  app.put(
    "/api/tax_rates/:country_code",
    {
      schema: {
        tags,
        security,
        summary: "Set the company's tax rate (percent) for a country",
        params: taxRateParams,
        body: taxRatePutBody,
        response: { 200: taxRateResponse },
      },
    },
    async (request) =>
      envelope(request, { tax_rate: await taxRates.setTaxRate(companyContext(request), request.params.country_code, request.body.tax_rate.rate) }),
  );

  app.delete(
    "/api/tax_rates/:country_code",
    {
      schema: {
        tags,
        security,
        summary: "Remove the company's tax rate for a country (404 when it has none there); carts there are then taxed at 0 from their next change",
        params: taxRateParams,
        response: { 200: taxRateResponse },
      },
    },
    async (request) => envelope(request, { tax_rate: await taxRates.deleteTaxRate(companyContext(request), request.params.country_code) }),
  );
}
