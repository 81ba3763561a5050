import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  shippingMethodCreateBody,
  shippingMethodListQuery,
  shippingMethodSchema,
  shippingMethodUpdateBody,
} from "../../domain/catalog/shipping-method-schemas.js";
import * as shippingMethods from "../../domain/catalog/shipping-methods.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Shipping methods"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const shippingMethodResponse = withMeta({ shipping_method: shippingMethodSchema });

export async function shippingMethodRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/shipping_methods",
    {
      schema: {
        tags,
        security,
        summary: "List shipping methods, newest first",
        querystring: shippingMethodListQuery,
        response: { 200: withListMeta({ shipping_methods: z.array(shippingMethodSchema) }) },
      },
    },
    async (request) => {
      const result = await shippingMethods.listShippingMethods(companyContext(request), request.query);
      return listEnvelope(request, { shipping_methods: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/shipping_methods",
    {
      schema: { tags, security, summary: "Create a shipping method for a country", body: shippingMethodCreateBody, response: { 201: shippingMethodResponse } },
    },
    async (request, reply) => {
      const created = await shippingMethods.createShippingMethod(companyContext(request), request.body.shipping_method);
      return reply.code(201).send(envelope(request, { shipping_method: created }));
    },
  );

  app.get(
    "/api/shipping_methods/:id",
    { schema: { tags, security, summary: "Show a shipping method", params, response: { 200: shippingMethodResponse } } },
    async (request) => envelope(request, { shipping_method: await shippingMethods.getShippingMethod(companyContext(request), request.params.id) }),
  );

  app.put(
    "/api/shipping_methods/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a shipping method (partial bodies allowed)",
        params,
        body: shippingMethodUpdateBody,
        response: { 200: shippingMethodResponse },
      },
    },
    async (request) =>
      envelope(request, { shipping_method: await shippingMethods.updateShippingMethod(companyContext(request), request.params.id, request.body.shipping_method) }),
  );

  app.delete(
    "/api/shipping_methods/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a shipping method (409 while carts use it)",
        params,
        response: { 200: shippingMethodResponse },
      },
    },
    async (request) => envelope(request, { shipping_method: await shippingMethods.deleteShippingMethod(companyContext(request), request.params.id) }),
  );
}
