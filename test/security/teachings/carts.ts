import { randomBytes } from "node:crypto";
import { createCard, createDiscount, createPlan, createProduct, createShippingMethod, createUserWithToken } from "../../helpers/fixtures.js";
import { createRep } from "../../helpers/public-sdk.js";
import type { TaughtRequest, TeachingContext, Teachings } from "./types.js";

const unique = () => randomBytes(4).toString("hex");

/** Two variants of one product of the owner's, priced in the US and Canada, with a default subscription plan. */
async function catalog(ctx: TeachingContext) {
  const { product, variants } = await createProduct(ctx.db, ctx.owner.id, { variants: [{ prices: { US: 1999, CA: 2599 } }, { prices: { US: 999, CA: 1299 } }] });
  const plan = await createPlan(ctx.db, ctx.owner.id, { productIds: [product.id], defaultFor: [product.id] });
  return { variant: variants[0] as { id: number }, other: variants[1] as { id: number }, plan };
}

/** A US cart of the owner's shop holding one line of `catalog`'s first variant. */
async function cart(ctx: TeachingContext, extra: { query?: string; subscribed?: boolean } = {}) {
  const goods = await catalog(ctx);
  const response = await ctx.call("POST", `/api/carts${extra.query ?? ""}`, {
    body: { country_code: "US", svc_shop: ctx.owner.shop, items: [{ variant_id: goods.variant.id, quantity: 1, ...(extra.subscribed ? { subscription: true } : {}) }] },
  });
  if (response.status !== 200) throw new Error(`could not create a cart: ${response.status} ${response.text}`);
  const { cart_token, items } = response.body.cart as { cart_token: string; items: Array<{ id: number }> };
  return { ...goods, token: cart_token, itemId: String((items[0] as { id: number }).id) };
}

type CartFixture = Awaited<ReturnType<typeof cart>>;

/** A request on one fresh cart of the owner's shop (the cart token is its credential and its marker). */
function onCart(request: (cart: CartFixture, ctx: TeachingContext) => Promise<Omit<TaughtRequest, "params">> | Omit<TaughtRequest, "params"> = () => ({})) {
  return async (ctx: TeachingContext): Promise<TaughtRequest> => {
    const created = await cart(ctx);
    const taught = await request(created, ctx);
    return { ...taught, params: { cart_token: created.token }, markers: [created.token, ...(taught.markers ?? [])] };
  };
}

/** The same, on the cart's line (`item_id`). */
function onLine(request: (cart: CartFixture, ctx: TeachingContext) => Promise<Omit<TaughtRequest, "params">> | Omit<TaughtRequest, "params"> = () => ({}), subscribed = false) {
  return async (ctx: TeachingContext): Promise<TaughtRequest> => {
    const created = await cart(ctx, { subscribed });
    const taught = await request(created, ctx);
    return { ...taught, params: { cart_token: created.token, item_id: created.itemId }, markers: [created.token, ...(taught.markers ?? [])] };
  };
}

const address = { first_name: "Casey", last_name: "Buyer", address1: "1 Main St", city: "Springfield", state: "IL", postal_code: "62701", country_code: "US" };

export const cartTeachings: Teachings = {
  "POST /api/carts": {
    // A customer's token makes them the cart's customer; the credentials suite swaps in bad ones.
    async setup(ctx) {
      const { variant } = await catalog(ctx);
      const customer = await createUserWithToken(ctx.db, ctx.owner.id, "customer");
      return { query: { jwt: customer.token }, body: { country_code: "US", svc_shop: ctx.owner.shop, items: [{ variant_id: variant.id, quantity: 2 }], session_uuid: `session-${unique()}` } };
    },
  },
  "GET /api/carts/{cart_token}": { setup: onCart(() => ({ query: { payment_methods_includes: "saved_payment_methods" } })) },
  "PATCH /api/carts/{cart_token}": { setup: onCart(() => ({ body: { email: `buyer-${unique()}@example.com`, phone: "+1 555 010 2030", email_marketing: true, sms_marketing: false } })) },
  "POST /api/carts/{cart_token}": {
    setup: onCart(async (_cart, ctx) => ({ body: { shipping_method: { id: (await createShippingMethod(ctx.db, ctx.owner.id, { price: 799 })).id } } })),
  },
  "POST /api/carts/{cart_token}/address": {
    setup: onCart(async (_cart, ctx) => ({ body: { type: "ship_to", use_shipping_address_for_billing: true, jwt: (await createUserWithToken(ctx.db, ctx.owner.id, "customer")).token, address } })),
  },
  "PATCH /api/carts/{cart_token}/change_language": { setup: onCart(() => ({ body: { language_iso: "fr" } })) },
  "PATCH /api/carts/{cart_token}/update_country": { setup: onCart(() => ({ body: { country_code: "CA" } })) },
  "POST /api/carts/{cart_token}/items": { setup: onCart(({ other }) => ({ body: { items: [{ variant_id: other.id, quantity: 2 }] } })) },
  "DELETE /api/carts/{cart_token}/items": { setup: onCart(({ variant }) => ({ body: { items: [{ variant_id: variant.id }] } })) },
  "DELETE /api/carts/{cart_token}/items/{item_id}": { setup: onLine() },
  "POST /api/carts/{cart_token}/items/{item_id}/subscribe": { setup: onLine(({ plan }) => ({ query: { subscription_plan_id: String(plan.id) } })) },
  "DELETE /api/carts/{cart_token}/items/{item_id}/subscribe": { setup: onLine(() => ({}), true) },
  "PATCH /api/carts/{cart_token}/items/{item_id}/bundled_items": {
    setup: onLine(({ other }) => ({ body: { bundled_items: [{ variant_id: other.id, quantity: 1, display_to_customer: true }] } })),
  },
  "PATCH /api/carts/{cart_token}/items/{item_id}/update_volumes": {
    // The company token decides which carts are reachable: another company's is not found.
    setup: onLine(() => ({ body: { cv: 12, qv: 6 } })),
    isolation: { expect: "not_found" },
  },
  "PATCH /api/carts/{cart_token}/items/{item_id}/variant": { setup: onLine(({ other }) => ({ body: { variant_id: other.id, quantity: 2 } })) },
  "POST /api/carts/{cart_token}/discount": {
    setup: onCart(async (_cart, ctx) => {
      const code = `SAVE${unique()}`.toUpperCase();
      await createDiscount(ctx.db, ctx.owner.id, { code, amount: "10" });
      return { body: { discount_codes: [code] } };
    }),
  },
  "DELETE /api/carts/{cart_token}/discount": {
    setup: onCart(async ({ token }, ctx) => {
      const code = `SAVE${unique()}`.toUpperCase();
      await createDiscount(ctx.db, ctx.owner.id, { code, amount: "10" });
      const applied = await ctx.call("POST", `/api/carts/${token}/discount`, { body: { discount_codes: [code] } });
      if (applied.status !== 200) throw new Error(`could not apply a discount: ${applied.status} ${applied.text}`);
      return { body: { discount_codes: [code] } };
    }),
  },
  "PATCH /api/carts/{cart_token}/append_metadata": { setup: onCart(() => ({ body: { metadata: { gift: { wrap: true, note: "Happy birthday" } } } })) },
  "PATCH /api/carts/{cart_token}/remove_metadata": {
    setup: onCart(async ({ token }, ctx) => {
      await ctx.call("PATCH", `/api/carts/${token}/metadata`, { body: { metadata: { gift: { wrap: true }, keep: 1 } } });
      return { body: { cart: { metadata: ["gift.wrap"] } } };
    }),
  },
  "PATCH /api/carts/{cart_token}/json_data": { setup: onCart(() => ({ body: { json_data: { source: "quiz", answers: [1, 2, 3] } } })) },
  "PATCH /api/carts/{cart_token}/metadata": { setup: onCart(() => ({ body: { metadata: { campaign: "spring" } } })) },
  "DELETE /api/carts/{cart_token}/logout": { setup: onCart() },
  "PATCH /api/carts/{cart_token}/attribution": {
    setup: onCart(async (_cart, ctx) => ({ body: { attribution: { username: (await createRep(ctx.db, ctx.owner.id)).username } } })),
  },
  "POST /api/carts/{cart_token}/set_saved_payment_method": {
    // A cart whose customer (from their token) has a saved card; the owner's company token chooses it.
    async setup(ctx) {
      const customer = await createUserWithToken(ctx.db, ctx.owner.id, "customer");
      const card = await createCard(ctx.db, customer.user.id);
      const created = await cart(ctx, { query: `?jwt=${customer.token}` });
      return { params: { cart_token: created.token }, body: { payment_method_id: card.id }, markers: [created.token, customer.user.email] };
    },
    isolation: { expect: "not_found" },
  },
};
