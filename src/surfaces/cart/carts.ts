import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { changeLanguage, setAddress, updateCart, updateCountry } from "../../domain/carts/cart-details.js";
import { createCart } from "../../domain/carts/create-cart.js";
import {
  addressBody,
  cartChangeResponse,
  cartResponse,
  cartTokenParams,
  changeLanguageBody,
  createCartBody,
  createCartQuery,
  selectShippingMethodBody,
  showCartQuery,
  updateCartBody,
  updateCountryBody,
} from "../../domain/carts/schemas.js";
import { showCart } from "../../domain/carts/show-cart.js";
import { cartContext } from "./cart-context.js";
import { sendCart } from "./cart-reply.js";

const tags = ["Carts"];
const response = { 200: cartResponse };
const SESSION_COOKIE = "_svc_session";

export async function cartRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/",
    {
      schema: {
        tags,
        // The user token (the `jwt` parameter, else this cookie) is optional: without one the cart has no buyer.
        security: [{ sessionCookie: [] }, {}],
        summary: "Create a cart for a shop",
        description:
          "The buyer comes from the `jwt` query parameter, else the `_svc_session` cookie (a rep token: buyer rep with rep pricing; a customer token: the cart's customer). The cookie acts only for a call without `Origin`, from an origin listed in `CORS_ORIGINS`, or (with `*`) from a page of the shop's own domain or a subdomain of it (unless that subdomain is another shop's domain, or under one); from any other page it is refused. An invalid or expired token, or a refused cookie, is a 401 `invalid_user_token` whose `errors` names where it came from (`jwt` or `_svc_session`). Items that cannot be bought are skipped and listed in `skipped_items`; when all are, nothing is created (422). Answers 200, as the platform does.",
        querystring: createCartQuery,
        body: createCartBody,
        response,
      },
      // No credential to scope a key by, and the answer holds the new cart's token: a key sent
      // here is ignored rather than shared by every anonymous caller (docs/decisions.md).
      config: { idempotencyKey: false },
    },
    async (request, reply) =>
      sendCart(request, reply, await createCart(cartContext(request), request.body, { jwt: request.query.jwt, sessionCookie: request.cookies[SESSION_COOKIE], origin: request.headers.origin })),
  );

  app.get(
    "/:cart_token",
    { schema: { tags, summary: "Show a cart with its computed totals", params: cartTokenParams, querystring: showCartQuery, response } },
    async (request, reply) => sendCart(request, reply, await showCart(cartContext(request), request.params.cart_token, request.query.payment_methods_includes)),
  );

  app.patch(
    "/:cart_token",
    { schema: { tags, summary: "Change the cart's email, phone, marketing consent or shipping method", params: cartTokenParams, body: updateCartBody, response: cartChangeResponse } },
    async (request, reply) => sendCart(request, reply, await updateCart(cartContext(request), request.params.cart_token, request.body)),
  );

  app.post(
    "/:cart_token",
    {
      schema: {
        tags,
        operationId: "selectCartShippingMethod",
        summary: "Select a shipping method, or clear it with null",
        params: cartTokenParams,
        body: selectShippingMethodBody,
        response: cartChangeResponse,
      },
    },
    async (request, reply) => sendCart(request, reply, await updateCart(cartContext(request), request.params.cart_token, request.body)),
  );

  app.post(
    "/:cart_token/address",
    {
      schema: {
        tags,
        operationId: "setCartAddress",
        summary: "Set the shipping (ship_to) or billing (bill_to) address",
        description: "`jwt`, a customer's user token, makes that customer the cart's; an invalid one is a 401 `invalid_user_token`.",
        params: cartTokenParams,
        body: addressBody,
        response: cartChangeResponse,
      },
      config: { bodyCredential: true },
    },
    async (request, reply) => sendCart(request, reply, await setAddress(cartContext(request), request.params.cart_token, request.body)),
  );

  app.patch(
    "/:cart_token/change_language",
    { schema: { tags, summary: "Change the cart's language", params: cartTokenParams, body: changeLanguageBody, response: cartChangeResponse } },
    async (request, reply) => sendCart(request, reply, await changeLanguage(cartContext(request), request.params.cart_token, request.body.language_iso)),
  );

  app.patch(
    "/:cart_token/update_country",
    {
      schema: {
        tags,
        summary: "Move the cart to another country (currency, prices, tax, shipping follow)",
        description: "Lines whose variant has no price in the new country are removed and listed in `skipped_items`.",
        params: cartTokenParams,
        body: updateCountryBody,
        response: cartChangeResponse,
      },
    },
    async (request, reply) => sendCart(request, reply, await updateCountry(cartContext(request), request.params.cart_token, request.body.country_code)),
  );
}
