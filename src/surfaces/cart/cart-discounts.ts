import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { applyDiscountCodes, removeDiscountCodes } from "../../domain/carts/discounts.js";
import { cartResponse, cartTokenParams, discountCodesBody } from "../../domain/carts/schemas.js";
import { cartContext } from "./cart-context.js";
import { sendCart } from "./cart-reply.js";

const tags = ["Cart discounts"];
const response = { 200: cartResponse };

export async function cartDiscountRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/:cart_token/discount",
    {
      schema: {
        tags,
        summary: "Apply discount codes",
        description: "Adds the codes to those applied. Any unknown, inactive, expired or exhausted code makes the request a 422 (`errors.discount_codes`) and nothing changes.",
        params: cartTokenParams,
        body: discountCodesBody,
        response,
      },
    },
    async (request, reply) => sendCart(request, reply, await applyDiscountCodes(cartContext(request), request.params.cart_token, request.body.discount_codes)),
  );

  app.delete(
    "/:cart_token/discount",
    { schema: { tags, summary: "Remove discount codes", params: cartTokenParams, body: discountCodesBody, response } },
    async (request, reply) => sendCart(request, reply, await removeDiscountCodes(cartContext(request), request.params.cart_token, request.body.discount_codes)),
  );
}
