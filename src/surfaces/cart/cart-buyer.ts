import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { logout, setAttribution, setSavedPaymentMethod } from "../../domain/carts/cart-buyer.js";
import { attributionBody, cartChangeResponse, cartTokenParams, savedPaymentMethodBody } from "../../domain/carts/schemas.js";
import { checkPaymentMethodCredential, requiredPaymentMethodCredential } from "./cart-credentials.js";
import { cartContext } from "./cart-context.js";
import { sendCart } from "./cart-reply.js";

const tags = ["Cart buyer"];
const response = cartChangeResponse;

export async function cartBuyerRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.delete(
    "/:cart_token/logout",
    { schema: { tags, summary: "Remove the buyer rep and the customer (retail pricing again)", params: cartTokenParams, response } },
    async (request, reply) => sendCart(request, reply, await logout(cartContext(request), request.params.cart_token)),
  );

  app.patch(
    "/:cart_token/attribution",
    { schema: { tags, summary: "Attribute the cart to a referring rep", params: cartTokenParams, body: attributionBody, response } },
    async (request, reply) => sendCart(request, reply, await setAttribution(cartContext(request), request.params.cart_token, request.body.attribution)),
  );

  app.post(
    "/:cart_token/set_saved_payment_method",
    {
      schema: {
        tags,
        security: [{ bearer: [] }, { userToken: [] }],
        summary: "Use one of the customer's saved payment methods",
        description: "Bearer: a company API token of the cart's company, or the cart customer's user token. The method must be one of the customer's saved payment methods (422 otherwise).",
        params: cartTokenParams,
        body: savedPaymentMethodBody,
        response,
      },
      onRequest: checkPaymentMethodCredential,
    },
    async (request, reply) => {
      const credential = requiredPaymentMethodCredential(request);
      return sendCart(request, reply, await setSavedPaymentMethod(cartContext(request), request.params.cart_token, credential, request.body.payment_method_id));
    },
  );
}
