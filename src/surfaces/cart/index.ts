import fastifyCors from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import { cartReader } from "../../domain/carts/cart-repository.js";
import { useBodyLimit } from "../../platform/http/body-limit.js";
import { scopeFromSecret, useIdempotencyKeys } from "../../platform/http/idempotency.js";
import { cartBuyerRoutes } from "./cart-buyer.js";
import { checkedCredential } from "./cart-credentials.js";
import { cartDiscountRoutes } from "./cart-discounts.js";
import { cartItemRoutes } from "./cart-items.js";
import { cartMetadataRoutes } from "./cart-metadata.js";
import { cartRoutes } from "./carts.js";

/** Storefront cart endpoints, addressed by cart token; answers CORS from storefront origins. */
export async function cartSurface(app: FastifyInstance): Promise<void> {
  useBodyLimit(app, app.config.cartBodyLimit);
  app.decorate("cartReader", cartReader(app.db.sql));
  app.decorateRequest("paymentMethodCredential", null);
  // The cart token is the credential of every cart operation but create, which has none: a
  // key there is ignored rather than shared by every anonymous caller. The operations that also
  // take a bearer credential are scoped by whom it names too (checked before the key is looked
  // up), so that a stored answer is never replayed to another company or customer.
  useIdempotencyKeys(app, {
    scopeOf: (request) => {
      const cartToken = (request.params as { cart_token?: unknown } | undefined)?.cart_token;
      if (typeof cartToken !== "string" || cartToken === "") return null;
      const cart = scopeFromSecret("cart", cartToken);
      const credential = checkedCredential(request);
      return credential === null ? cart : `${cart}:${credential}`;
    },
  });
  await app.register(fastifyCors, {
    origin: app.config.corsOrigins.includes("*") ? true : app.config.corsOrigins,
    credentials: true,
    // @fastify/cors allows only GET, HEAD and POST by default; carts change with PATCH and DELETE.
    methods: ["GET", "HEAD", "POST", "PATCH", "DELETE"],
  });
  await app.register(cartRoutes);
  await app.register(cartItemRoutes);
  await app.register(cartDiscountRoutes);
  await app.register(cartMetadataRoutes);
  await app.register(cartBuyerRoutes);
}
