import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { Config } from "../../config.js";
import { cartReader } from "../../domain/carts/cart-repository.js";
import { CheckoutUrls } from "../../domain/carts/links.js";
import type { SessionCookieOrigins } from "../../domain/carts/session-cookie.js";
import { userTokenKey } from "../../platform/auth/user-tokens.js";
import { useBodyLimit } from "../../platform/http/body-limit.js";
import { type CorsPolicy, STOREFRONT_EXPOSED_HEADERS, useCors } from "../../platform/http/cors.js";
import { registerNotFoundHandler } from "../../platform/http/error-handler.js";
import { REPLAYED_HEADER, scopeFromSecret, useIdempotencyKeys } from "../../platform/http/idempotency.js";
import { cartBuyerRoutes } from "./cart-buyer.js";
import { checkedCredential } from "./cart-credentials.js";
import { cartDiscountRoutes } from "./cart-discounts.js";
import { cartItemRoutes } from "./cart-items.js";
import { cartMetadataRoutes } from "./cart-metadata.js";
import { cartRoutes } from "./carts.js";

/** Where the surface is registered. */
export const CART_PREFIX = "/api/carts";

/**
 * Storefronts call carts with the session cookie or a bearer credential, and change them with
 * PATCH and DELETE. Only the pages that may send the shopper's cookie get credentials (the
 * listed origins, or with `*` the shops' own pages), and the cookie then acts only for the
 * carts of the company the page may act for (SessionCookieOrigins); every other origin still
 * calls carts by their token, without the cookie.
 */
export function cartCorsPolicy(config: Config, sessionCookieOrigins: SessionCookieOrigins): CorsPolicy {
  return {
    origins: config.corsOrigins,
    credentials: (origin) => sessionCookieOrigins.mayCarry(origin),
    methods: ["GET", "HEAD", "POST", "PATCH", "DELETE"],
    // A storefront script reads WWW-Authenticate to tell a missing credential from a refused one (RFC 6750 §3.1).
    exposedHeaders: [...STOREFRONT_EXPOSED_HEADERS, REPLAYED_HEADER, "www-authenticate"],
  };
}

interface CartSurfaceOptions {
  /** The app's rate limit of unknown paths, which this surface's own 404 answers share. */
  notFoundPreHandler: preHandlerAsyncHookHandler;
  /** cartCorsPolicy's answer, made once per app: the app answers routing errors under this surface with it too. */
  cors: CorsPolicy;
  /** The one the CORS policy asks too. */
  sessionCookieOrigins: SessionCookieOrigins;
}

/** Storefront cart endpoints, addressed by cart token; answers CORS from storefront origins. */
export async function cartSurface(app: FastifyInstance, options: CartSurfaceOptions): Promise<void> {
  useBodyLimit(app, app.config.cartBodyLimit);
  app.decorate("cartReader", cartReader(app.db.sql, app.clock));
  app.decorate("checkoutUrls", new CheckoutUrls(app.config.checkoutBaseUrl, app.config.jwtSecret, app.clock));
  app.decorate("userTokenKey", userTokenKey(app.config.jwtSecret));
  app.decorate("sessionCookieOrigins", options.sessionCookieOrigins);
  app.decorateRequest("paymentMethodCredential", null);
  // The cart token is the credential of every cart operation but create, which has none and
  // ignores the header (see its route). The operations that also take a bearer credential are
  // scoped by whom it names too (checked before the key is looked up), so that a stored answer
  // is never replayed to another company or customer.
  useIdempotencyKeys(app, {
    scopeOf: (request) => {
      const cartToken = (request.params as { cart_token?: unknown } | undefined)?.cart_token;
      if (typeof cartToken !== "string" || cartToken === "") return null;
      const cart = scopeFromSecret("cart", cartToken);
      const credential = checkedCredential(request);
      return credential === null ? cart : `${cart}:${credential}`;
    },
  });
  await useCors(app, options.cors);
  // Its own 404, so that a storefront calling a path it does not have reads the error, CORS allowing.
  registerNotFoundHandler(app, { preHandler: options.notFoundPreHandler });
  await app.register(cartRoutes);
  await app.register(cartItemRoutes);
  await app.register(cartDiscountRoutes);
  await app.register(cartMetadataRoutes);
  await app.register(cartBuyerRoutes);
}
