import { request } from "undici";
import { countryId, createCard, createPlan, createProduct, createUserWithToken } from "../../helpers/fixtures.js";
import { usAddress } from "../../helpers/subscription-orders.js";
import type { TaughtRequest, TeachingContext, Teachings } from "./types.js";

const BASE = "/api/v2/subscription_orders";

/** What a subscription order of the owner's references: customer (with a saved card), plan, variant. */
async function references(ctx: TeachingContext) {
  const [{ user: customer }, plan, { variant }] = await Promise.all([
    createUserWithToken(ctx.db, ctx.owner.id, "customer"),
    createPlan(ctx.db, ctx.owner.id),
    createProduct(ctx.db, ctx.owner.id, { variants: [{ prices: { US: 2500 } }] }),
  ]);
  const card = await createCard(ctx.db, customer.id);
  return { customer, plan, variant, card, US: await countryId(ctx.db, "US") };
}

function createBody(refs: Awaited<ReturnType<typeof references>>) {
  return {
    subscription_order: {
      customer_id: refs.customer.id,
      subscription_plan_id: refs.plan.id,
      items: [{ variant_id: refs.variant.id, quantity: 1 }],
      ship_to: usAddress(refs.US),
      payment_method_id: refs.card.id,
    },
  };
}

/** An active order of the owner's; its customer's email (in lists too) and its number mark it in answers. */
async function order(ctx: TeachingContext) {
  const refs = await references(ctx);
  const response = await ctx.call("POST", BASE, { token: ctx.owner.token, body: createBody(refs) });
  if (response.status !== 201) throw new Error(`could not create a subscription order: ${response.status} ${response.text}`);
  const { id, order_number } = response.body.subscription_order as { id: number; order_number: string };
  return { ...refs, id, markers: [refs.customer.email, order_number] };
}

/** A request on one order of the owner's. */
function onOrder(request: (refs: Awaited<ReturnType<typeof order>>) => Omit<TaughtRequest, "params" | "markers"> = () => ({})) {
  return async (ctx: TeachingContext): Promise<TaughtRequest> => {
    const created = await order(ctx);
    return { params: { id: String(created.id) }, markers: created.markers, ...request(created) };
  };
}

/** PayPal's approval of the owner's order, as the buyer gives it (at the fake PayPal the suites run). */
async function approvedPaypalToken(ctx: TeachingContext, id: number): Promise<string> {
  const started = await ctx.call("PATCH", `${BASE}/${id}/update_payment`, {
    token: ctx.owner.token,
    body: { payment_method: "paypal", return_url: "https://shop.example.com/paypal/return", cancel_url: "https://shop.example.com/paypal/cancel" },
  });
  if (started.status !== 200) throw new Error(`could not start a PayPal approval: ${started.status} ${started.text}`);
  const approval = await request(started.body.payer_action_url as string);
  const { redirect } = (await approval.body.json()) as { redirect: string };
  return new URL(redirect).searchParams.get("approval_token_id") as string;
}

const notFound = { expect: "not_found" } as const;

export const subscriptionOrderTeachings: Teachings = {
  "GET /api/v2/subscription_orders": {
    async setup(ctx) {
      return { query: { per_page: "100" }, markers: [(await order(ctx)).customer.email] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "GET /api/v2/subscription_orders/stats": {
    // Counts carry no identifiers; what must not happen is the owner's orders counting for another company.
    async setup(ctx) {
      const { customer } = await order(ctx);
      return { query: { customer_id: String(customer.id) }, markers: [] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/v2/subscription_orders": {
    async setup(ctx) {
      const refs = await references(ctx);
      return { body: createBody(refs), markers: [refs.customer.email] };
    },
    isolation: { expect: "foreign_reference", fields: ["subscription_order.customer_id", "subscription_order.subscription_plan_id"] },
  },
  "GET /api/v2/subscription_orders/{id}": { setup: onOrder(), isolation: notFound },
  "GET /api/v2/subscription_orders/{id}/activities": { setup: onOrder(), isolation: notFound },
  "PATCH /api/v2/subscription_orders/{id}": {
    setup: onOrder(({ variant }) => ({ body: { update: true, items: [{ variant_id: variant.id, quantity: 3 }] } })),
    isolation: notFound,
  },
  "PATCH /api/v2/subscription_orders/{id}/update_shipping_address": {
    setup: onOrder(({ US }) => ({ body: { address: usAddress(US, { address1: "2 Elm St" }) } })),
    isolation: notFound,
  },
  "PATCH /api/v2/subscription_orders/{id}/update_payment": {
    setup: onOrder(({ card }) => ({ body: { payment_method: "credit_card", card_id: card.id } })),
    isolation: notFound,
  },
  "PATCH /api/v2/subscription_orders/{id}/skip_order": { setup: onOrder(), isolation: notFound },
  "PATCH /api/v2/subscription_orders/{id}/cancel_subscription": { setup: onOrder(), isolation: notFound },
  "PATCH /api/v2/subscription_orders/{id}/cancellation_feedback": {
    setup: onOrder(() => ({ body: { reason: "Too expensive", feedback: "I have too much left" } })),
    isolation: notFound,
  },
  "GET /api/v2/subscription_orders/{id}/authorize_paypal": {
    async setup(ctx) {
      const created = await order(ctx);
      return { params: { id: String(created.id) }, query: { token: await approvedPaypalToken(ctx, created.id) }, markers: created.markers };
    },
    isolation: notFound,
  },
  "PATCH /api/v2/subscription_orders/{id}/send_autoship_reminder_email": { setup: onOrder(), isolation: notFound },
};
