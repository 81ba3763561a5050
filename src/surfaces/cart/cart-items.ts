import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  addItems,
  changeVariant,
  removeItem,
  removeItemsByVariant,
  setBundledItems,
  subscribeItem,
  unsubscribeItem,
  updateVolumes,
} from "../../domain/carts/items.js";
import {
  addItemsBody,
  bundledItemsBody,
  cartItemParams,
  cartChangeResponse,
  cartTokenParams,
  changeVariantBody,
  removeItemsBody,
  subscribeQuery,
  updateVolumesBody,
} from "../../domain/carts/schemas.js";
import { requiredCompany } from "../../platform/http/company-auth.js";
import { checkCompanyToken } from "./cart-credentials.js";
import { cartContext } from "./cart-context.js";
import { sendCart } from "./cart-reply.js";

const tags = ["Cart items"];
const response = cartChangeResponse;

export async function cartItemRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/:cart_token/items",
    {
      schema: {
        tags,
        summary: "Add items, or set a line's quantity",
        description:
          "An entry's quantity is added to the variant's line; an entry with `item_id` sets that line's quantity (and `display_to_customer`, when sent), and an `item_id` the cart does not have is a 422; quantity 0 removes. Unavailable variants are skipped (`skipped_items`); when every entry is skipped the request is a 422.",
        params: cartTokenParams,
        body: addItemsBody,
        response,
      },
    },
    async (request, reply) => sendCart(request, reply, await addItems(cartContext(request), request.params.cart_token, request.body.items)),
  );

  app.delete(
    "/:cart_token/items",
    { schema: { tags, summary: "Remove the lines of the given variants", params: cartTokenParams, body: removeItemsBody, response } },
    async (request, reply) =>
      sendCart(request, reply, await removeItemsByVariant(cartContext(request), request.params.cart_token, request.body.items.map((item) => item.variant_id))),
  );

  app.delete(
    "/:cart_token/items/:item_id",
    { schema: { tags, summary: "Remove a line (and its bundled items)", params: cartItemParams, response } },
    async (request, reply) => sendCart(request, reply, await removeItem(cartContext(request), request.params.cart_token, request.params.item_id)),
  );

  app.post(
    "/:cart_token/items/:item_id/subscribe",
    {
      schema: {
        tags,
        summary: "Subscribe a line",
        description: "The plan must be linked to the line's product; without `subscription_plan_id` the product's default plan is used (422 when it has none).",
        params: cartItemParams,
        querystring: subscribeQuery,
        response,
      },
    },
    async (request, reply) =>
      sendCart(request, reply, await subscribeItem(cartContext(request), request.params.cart_token, request.params.item_id, request.query.subscription_plan_id)),
  );

  app.delete(
    "/:cart_token/items/:item_id/subscribe",
    { schema: { tags, operationId: "unsubscribeCartItem", summary: "Unsubscribe a line", params: cartItemParams, response } },
    async (request, reply) => sendCart(request, reply, await unsubscribeItem(cartContext(request), request.params.cart_token, request.params.item_id)),
  );

  app.patch(
    "/:cart_token/items/:item_id/bundled_items",
    {
      schema: {
        tags,
        summary: "Set a line's bundled items",
        description: "Quantity 0 removes an entry. Unknown or unavailable variants are reported in `messages.errors` while the other entries are applied.",
        params: cartItemParams,
        body: bundledItemsBody,
        response,
      },
    },
    async (request, reply) =>
      sendCart(request, reply, await setBundledItems(cartContext(request), request.params.cart_token, request.params.item_id, request.body.bundled_items)),
  );

  app.patch(
    "/:cart_token/items/:item_id/update_volumes",
    {
      schema: {
        tags,
        security: [{ bearer: [] }],
        summary: "Set a line's unit volumes (company token)",
        description: "Only the sent volumes change; cv_total and qv_total are recalculated.",
        params: cartItemParams,
        body: updateVolumesBody,
        response,
      },
      onRequest: checkCompanyToken,
    },
    async (request, reply) => {
      return sendCart(request, reply, await updateVolumes(cartContext(request), request.params.cart_token, requiredCompany(request), request.params.item_id, request.body));
    },
  );

  app.patch(
    "/:cart_token/items/:item_id/variant",
    {
      schema: {
        tags,
        summary: "Change a line's variant",
        description:
          "When a line of the target variant exists, the quantity (the sent one, else the line's) is added to it, this line's bundled items move to it (a bundled variant it has already gets their quantity added) and this line is removed.",
        params: cartItemParams,
        body: changeVariantBody,
        response,
      },
    },
    async (request, reply) => sendCart(request, reply, await changeVariant(cartContext(request), request.params.cart_token, request.params.item_id, request.body)),
  );
}
