import type { FastifyReply, FastifyRequest } from "fastify";
import type { CartReader, CartRecord } from "../../domain/carts/cart-repository.js";
import type { CartContext } from "../../domain/carts/context.js";
import { type CheckoutUrls, shopUrlOf } from "../../domain/carts/links.js";
import type { CartOutcome } from "../../domain/carts/mutate.js";
import type { UserTokenKey } from "../../platform/auth/user-tokens.js";
import { meta } from "../../platform/http/envelope.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Decorated by the cart surface only: its reads share statements across requests. */
    cartReader: CartReader;
    /** Decorated by the cart surface only: the checkout address in every cart response. */
    checkoutUrls: CheckoutUrls;
    /** Decorated by the cart surface only: verifies the rep and customer tokens carts take. */
    userTokenKey: UserTokenKey;
  }
}

/** The service context of a cart request: the cart (or the shop) decides the company. */
export function cartContext(request: FastifyRequest): CartContext {
  const { server } = request;
  return {
    db: server.db.prisma,
    sql: server.db.sql,
    readCart: server.cartReader,
    clock: server.clock,
    userTokenKey: server.userTokenKey,
    shopUrlScheme: server.config.shopUrlScheme,
  };
}

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
