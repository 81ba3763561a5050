import type { FastifyRequest } from "fastify";
import type { CartReader } from "../../domain/carts/cart-repository.js";
import type { CartContext } from "../../domain/carts/context.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Decorated by the cart surface only: its reads share statements across requests. */
    cartReader: CartReader;
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
    jwtSecret: server.config.jwtSecret,
    shopUrlScheme: server.config.shopUrlScheme,
  };
}
