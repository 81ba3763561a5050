import { ownerProduct, unique } from "./admin-resources.js";
import type { TeachingContext, Teachings } from "./types.js";

const SCHEDULE = {
  billing_interval: 1,
  billing_interval_unit: "month",
  shipping_interval: 1,
  shipping_interval_unit: "month",
  volume_interval: 1,
  volume_interval_unit: "month",
};

/** The owner's default plan, offered (as the default plan) for one of its products. */
async function ownerPlan(ctx: TeachingContext): Promise<{ id: number; name: string; productId: number; linkId: number }> {
  const name = unique("Monthly");
  const product = await ownerProduct(ctx);
  const response = await ctx.call("POST", "/api/subscription_plans", {
    token: ctx.owner.token,
    body: { subscription_plan: { ...SCHEDULE, name, company_default: true, product_subscription_plans: [{ product_id: product.id, default: true }] } },
  });
  if (response.status !== 201) throw new Error(`could not create a subscription plan: ${response.status} ${response.text}`);
  const plan = response.body.subscription_plan;
  return { id: plan.id, name, productId: product.id, linkId: plan.product_subscription_plans[0].id };
}

export const subscriptionPlanTeachings: Teachings = {
  "GET /api/subscription_plans": {
    // Filtered by the owner's product: another company has no plan offered for it.
    async setup(ctx) {
      const plan = await ownerPlan(ctx);
      return { query: { product: String(plan.productId), "pagination[per_page]": "100", sorted_by: "name" }, markers: [plan.name] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/subscription_plans": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      return { body: { subscription_plan: { ...SCHEDULE, name: unique("Weekly"), company_default: true, product_subscription_plans: [{ product_id: product.id, default: true }] } } };
    },
    isolation: { expect: "foreign_reference", fields: ["subscription_plan.product_subscription_plans"] },
  },
  "GET /api/subscription_plans/{id}": {
    async setup(ctx) {
      const plan = await ownerPlan(ctx);
      return { params: { id: String(plan.id) }, markers: [plan.name] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/subscription_plans/{id}": {
    async setup(ctx) {
      const plan = await ownerPlan(ctx);
      const other = await ownerProduct(ctx);
      return {
        params: { id: String(plan.id) },
        body: {
          id: plan.id,
          subscription_plan: {
            name: unique("Renamed"),
            company_default: true,
            product_subscription_plans: [
              { id: plan.linkId, _destroy: true },
              { product_id: other.id, default: true },
            ],
          },
        },
        markers: [plan.name],
      };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/subscription_plans/{id}": {
    async setup(ctx) {
      const plan = await ownerPlan(ctx);
      return { params: { id: String(plan.id) }, markers: [plan.name] };
    },
    isolation: { expect: "not_found" },
  },
};
