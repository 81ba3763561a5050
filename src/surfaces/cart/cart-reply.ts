import type { FastifyReply, FastifyRequest } from "fastify";
import type { CartRecord } from "../../domain/carts/cart-repository.js";
import { shopUrlOf } from "../../domain/carts/links.js";
import type { CartOutcome } from "../../domain/carts/mutate.js";
import { meta } from "../../platform/http/envelope.js";

/**
 * Sends `{cart, meta}` (the route's cartResponse schema) with the checkout and shop addresses and
 * what this request alone reports. The stored view's JSON text is written into the body as it
 * is: parsing it and serializing it again was a third of a cart read's CPU (docs/performance.md).
 */
export function sendCart(request: FastifyRequest, reply: FastifyReply, record: CartRecord | CartOutcome): FastifyReply {
  const { config, checkoutUrls } = request.server;
  const skipped = "skipped" in record ? record.skipped : [];
  const cartMeta = {
    ...meta(request),
    checkout_url: checkoutUrls.of(record),
    shop_url: shopUrlOf(config.shopUrlScheme, record.shopDomain),
  };
  const cart = `${record.viewJson.slice(0, -1)},"skipped_items":${JSON.stringify(skipped)}}`;
  return reply.type("application/json").send(`{"cart":${cart},"meta":${JSON.stringify(cartMeta)}}`);
}
