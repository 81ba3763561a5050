import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { discountCreateBody, discountListQuery, discountSchema, discountUpdateBody } from "../../domain/catalog/discount-schemas.js";
import * as discounts from "../../domain/catalog/discounts.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Discounts"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const discountResponse = withMeta({ discount: discountSchema });

export async function discountRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/discounts",
    {
      schema: {
        tags,
        security,
        summary: "List discount codes, newest first",
        querystring: discountListQuery,
        response: { 200: withListMeta({ discounts: z.array(discountSchema) }) },
      },
    },
    async (request) => {
      const result = await discounts.listDiscounts(companyContext(request), request.query);
      return listEnvelope(request, { discounts: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/discounts",
    { schema: { tags, security, summary: "Create a discount code", body: discountCreateBody, response: { 201: discountResponse } } },
    async (request, reply) => {
      const created = await discounts.createDiscount(companyContext(request), request.body.discount);
      return reply.code(201).send(envelope(request, { discount: created }));
    },
  );

  app.get(
    "/api/discounts/:id",
    { schema: { tags, security, summary: "Show a discount code", params, response: { 200: discountResponse } } },
    async (request) => envelope(request, { discount: await discounts.getDiscount(companyContext(request), request.params.id) }),
  );

  app.put(
    "/api/discounts/:id",
    {
      schema: { tags, security, summary: "Update a discount code (partial bodies allowed)", params, body: discountUpdateBody, response: { 200: discountResponse } },
    },
    async (request) => envelope(request, { discount: await discounts.updateDiscount(companyContext(request), request.params.id, request.body.discount) }),
  );

  app.delete(
    "/api/discounts/:id",
    { schema: { tags, security, summary: "Delete a discount code; carts holding it stop applying it", params, response: { 200: discountResponse } } },
    async (request) => envelope(request, { discount: await discounts.deleteDiscount(companyContext(request), request.params.id) }),
  );
}
