import type { FastifyRequest } from "fastify";
import type { CartRecord } from "../../domain/carts/cart-repository.js";
import type { CartContext } from "../../domain/carts/context.js";
import { checkoutUrlOf, shopUrlOf } from "../../domain/carts/links.js";
import type { CartOutcome } from "../../domain/carts/mutate.js";
import { meta } from "../../platform/http/envelope.js";

/** The service context of a cart request: the cart (or the shop) decides the company. */
export function cartContext(request: FastifyRequest): CartContext {
  const { server } = request;
  return { db: server.db.prisma, sql: server.db.sql, clock: server.clock, jwtSecret: server.config.jwtSecret, shopUrlScheme: server.config.shopUrlScheme };
}

/** `{cart, meta}` with the checkout and shop addresses; adds what this request alone reports. */
export async function cartReply(request: FastifyRequest, record: CartRecord | CartOutcome) {
  const { config, clock } = request.server;
  const outcome = "skipped" in record ? record : { ...record, skipped: [], operationErrors: [] };
  const { view } = outcome;
  const messages = outcome.operationErrors.length === 0 ? view.messages : { ...view.messages, errors: [...view.messages.errors, ...outcome.operationErrors] };
  return {
    cart: { ...view, messages, skipped_items: outcome.skipped },
    meta: {
      ...meta(request),
      checkout_url: await checkoutUrlOf(config.checkoutBaseUrl, { cartToken: view.cart_token, companyId: outcome.companyId }, config.jwtSecret, clock.now()),
      shop_url: shopUrlOf(config.shopUrlScheme, outcome.shopDomain),
    },
  };
}
