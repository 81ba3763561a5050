import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  productCreateBody,
  productDeletedSchema,
  productListQuery,
  productSchema,
  productUpdateBody,
} from "../../domain/catalog/product-schemas.js";
import * as products from "../../domain/catalog/products.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Products"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });

export async function productRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/products",
    {
      schema: {
        tags,
        security,
        summary: "List products with their variants, newest first",
        querystring: productListQuery,
        response: { 200: withListMeta({ products: z.array(productSchema) }) },
      },
    },
    async (request) => {
      const result = await products.listProducts(companyContext(request), request.query);
      return listEnvelope(request, { products: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/products",
    {
      schema: {
        tags,
        security,
        summary: "Create a product with its variants",
        body: productCreateBody,
        response: { 201: withMeta({ product: productSchema }) },
      },
    },
    async (request, reply) => {
      const created = await products.createProduct(companyContext(request), request.body.product);
      return reply.code(201).send(envelope(request, { product: created }));
    },
  );

  app.get(
    "/api/products/:id",
    { schema: { tags, security, summary: "Show a product", params, response: { 200: withMeta({ product: productSchema }) } } },
    async (request) => envelope(request, { product: await products.getProduct(companyContext(request), request.params.id) }),
  );

  app.put(
    "/api/products/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a product; variants with an id are updated, without one added",
        params,
        body: productUpdateBody,
        response: { 200: withMeta({ product: productSchema }) },
      },
    },
    async (request) => envelope(request, { product: await products.updateProduct(companyContext(request), request.params.id, request.body.product) }),
  );

  app.delete(
    "/api/products/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a product and its variants (soft: carts keep their lines)",
        params,
        response: { 200: withMeta({ product: productDeletedSchema }) },
      },
    },
    async (request) => envelope(request, { product: await products.deleteProduct(companyContext(request), request.params.id) }),
  );
}
