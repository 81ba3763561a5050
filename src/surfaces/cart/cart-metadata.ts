import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { mergeMetadata, removeMetadata, replaceMetadata } from "../../domain/carts/cart-metadata.js";
import { appendMetadataBody, cartChangeResponse, cartTokenParams, jsonDataBody, removeMetadataBody, replaceMetadataBody } from "../../domain/carts/schemas.js";
import { cartContext } from "./cart-context.js";
import { sendCart } from "./cart-reply.js";

const tags = ["Cart metadata"];
const response = cartChangeResponse;

export async function cartMetadataRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.patch(
    "/:cart_token/append_metadata",
    { schema: { tags, summary: "Merge into the cart's metadata (deeply)", params: cartTokenParams, body: appendMetadataBody, response } },
    async (request, reply) => sendCart(request, reply, await mergeMetadata(cartContext(request), request.params.cart_token, request.body.metadata)),
  );

  app.patch(
    "/:cart_token/remove_metadata",
    { schema: { tags, summary: "Remove metadata keys (dot notation for nested keys)", params: cartTokenParams, body: removeMetadataBody, response } },
    async (request, reply) => sendCart(request, reply, await removeMetadata(cartContext(request), request.params.cart_token, request.body.cart.metadata)),
  );

  app.patch(
    "/:cart_token/json_data",
    {
      schema: {
        tags,
        deprecated: true,
        summary: "Merge into the cart's metadata (deprecated: use append_metadata or PATCH .../metadata)",
        params: cartTokenParams,
        body: jsonDataBody,
        response,
      },
    },
    async (request, reply) => sendCart(request, reply, await mergeMetadata(cartContext(request), request.params.cart_token, request.body.json_data, "json_data")),
  );

  app.patch(
    "/:cart_token/metadata",
    { schema: { tags, operationId: "replaceCartMetadata", summary: "Replace the cart's metadata", params: cartTokenParams, body: replaceMetadataBody, response } },
    async (request, reply) => sendCart(request, reply, await replaceMetadata(cartContext(request), request.params.cart_token, request.body.metadata)),
  );
}
