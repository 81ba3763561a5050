import type { FastifyRequest } from "fastify";
import type { CartReader } from "../../domain/carts/cart-repository.js";
import type { CartContext } from "../../domain/carts/context.js";
import type { CheckoutUrls } from "../../domain/carts/links.js";
import type { SessionCookieOrigins } from "../../domain/carts/session-cookie.js";
import type { UserTokenKey } from "../../platform/auth/user-tokens.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Decorated by the cart surface only: its reads share statements across requests. */
    cartReader: CartReader;
    /** Decorated by the cart surface only: the checkout address in every cart response. */
    checkoutUrls: CheckoutUrls;
    /** Decorated by the cart surface only: verifies the rep and customer tokens carts take. */
    userTokenKey: UserTokenKey;
    /** Decorated by the cart surface only: whether the shopper's cookie acts from the calling page. */
    sessionCookieOrigins: SessionCookieOrigins;
  }
}

/** The service context of a cart request: the cart (or the shop) decides the company. */
export function cartContext(request: FastifyRequest): CartContext {
  const { server } = request;
  return {
    db: server.db.prisma,
    sql: server.db.sql,
    readCart: server.cartReader,
    rowQueue: server.rowQueue,
    clock: server.clock,
    userTokenKey: server.userTokenKey,
    shopUrlScheme: server.config.shopUrlScheme,
    sessionCookieOrigins: server.sessionCookieOrigins,
  };
}
