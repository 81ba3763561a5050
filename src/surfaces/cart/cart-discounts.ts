import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { applyDiscountCodes, removeDiscountCodes } from "../../domain/carts/discounts.js";
import { cartChangeResponse, cartTokenParams, discountCodesBody } from "../../domain/carts/schemas.js";
import { WITHOUT_RATE_LIMIT_HEADERS } from "../../platform/http/rate-limit.js";
import { cartContext } from "./cart-context.js";
import { sendCart } from "./cart-reply.js";

const tags = ["Cart discounts"];
const response = cartChangeResponse;

export async function cartDiscountRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/:cart_token/discount",
    {
      // Each attempt may try 20 codes, and a new cart costs one request: attempts are counted per
      // client address (an IPv6 /64 as one), so that guessing codes takes years rather than minutes.
      // A 429 says when to retry (Retry-After); the X-RateLimit-* headers are the public SDK's only.
      config: {
        rateLimit: {
          max: fastify.config.rateLimits.discountPerMinute,
          timeWindow: 60_000,
          ...WITHOUT_RATE_LIMIT_HEADERS,
        },
      },
      schema: {
        tags,
        operationId: "applyCartDiscountCodes",
        summary: "Apply discount codes",
        description:
          "Adds the codes to those applied. Any unknown, inactive, expired or exhausted code, or a fixed code bound to another currency than the cart's, makes the request a 422 (`errors.discount_codes`) and nothing changes; an inactive or not yet valid code is told 'is not a valid code', as an unknown one, and a code of another currency 'is only valid for carts in JPY'. A cart moved to another currency (update_country) loses its codes bound to the old one, with a warning. Attempts are limited per client address (`DISCOUNT_RATE_LIMIT_PER_MINUTE`, 30 a minute by default): past it, a 429 with Retry-After.",
        params: cartTokenParams,
        body: discountCodesBody,
        response,
      },
    },
    async (request, reply) => sendCart(request, reply, await applyDiscountCodes(cartContext(request), request.params.cart_token, request.body.discount_codes)),
  );

  app.delete(
    "/:cart_token/discount",
    { schema: { tags, operationId: "removeCartDiscountCodes", summary: "Remove discount codes", params: cartTokenParams, body: discountCodesBody, response } },
    async (request, reply) => sendCart(request, reply, await removeDiscountCodes(cartContext(request), request.params.cart_token, request.body.discount_codes)),
  );
}
