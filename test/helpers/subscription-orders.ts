import { createSubscriptionOrder } from "../../src/domain/subscription-orders/service.js";
import { systemClock } from "../../src/platform/clock.js";
import type { Db } from "../../src/platform/db/database.js";
import { countryId, createProduct, createUserWithToken, createVariant } from "./fixtures.js";

export function usAddress(countryIdValue: number, overrides: Record<string, unknown> = {}) {
  return { country_id: countryIdValue, name: "Casey Customer", address1: "1 Main St", address2: "Apt 2", city: "Springfield", state: "IL", postal_code: "62701", ...overrides };
}

/** A subscription order of a plan, created through the subscription orders service, then put in `status`. */
export async function addSubscriptionOrder(db: Db, companyId: number, planId: number, status: string): Promise<number> {
  const ctx = { db, clock: systemClock, companyId, actor: { type: "test", id: null } };
  // A plan that offers products accepts only their variants.
  const offered = await db.productSubscriptionPlan.findFirst({ where: { subscription_plan_id: planId } });
  const productId = offered?.product_id ?? (await createProduct(db, companyId, { variants: [] })).product.id;
  const variant = await createVariant(db, companyId, productId, { prices: { US: 1000 } });
  const { user: customer } = await createUserWithToken(db, companyId, "customer");
  const order = await createSubscriptionOrder(ctx, {
    customer_id: customer.id,
    subscription_plan_id: planId,
    items: [{ variant_id: variant.id, quantity: 1 }],
    ship_to: usAddress(await countryId(db, "US")),
    status: "pending",
  } as Parameters<typeof createSubscriptionOrder>[1]);
  await db.subscriptionOrder.update({ where: { id: order.id }, data: { status } });
  return order.id;
}
