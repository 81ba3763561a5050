import { createSubscriptionOrder } from "../../src/domain/subscription-orders/service.js";
import { systemClock } from "../../src/platform/clock.js";
import type { Db } from "../../src/platform/db/database.js";
import { countryId, createCustomer, createVariant, usAddress } from "./subscription-fixtures.js";

/** A product of the company (the catalog admin that manages them is another area). */
export async function createProduct(db: Db, companyId: number, title = "Coffee") {
  return db.product.create({ data: { company_id: companyId, title } });
}

/** A subscription order of a plan, created through the subscription orders service, then put in `status`. */
export async function addSubscriptionOrder(db: Db, companyId: number, planId: number, status: string): Promise<number> {
  const ctx = { db, clock: systemClock, companyId, actor: { type: "test", id: null } };
  const us = await countryId(db, "US");
  const offered = await db.productSubscriptionPlan.findFirst({ where: { subscription_plan_id: planId } });
  const variant = offered ? await variantOf(db, companyId, offered.product_id, us) : await createVariant(db, companyId, { US: { price: 1000 } });
  const customer = await createCustomer(db, companyId);
  const order = await createSubscriptionOrder(ctx, {
    customer_id: customer.id,
    subscription_plan_id: planId,
    items: [{ variant_id: variant.id, quantity: 1 }],
    ship_to: usAddress(us),
    status: "pending",
  } as Parameters<typeof createSubscriptionOrder>[1]);
  await db.subscriptionOrder.update({ where: { id: order.id }, data: { status } });
  return order.id;
}

/** A variant of a product the plan offers, priced in the US. */
async function variantOf(db: Db, companyId: number, productId: number, usId: number) {
  return db.variant.create({
    data: { company_id: companyId, product_id: productId, sku: `SUB-${productId}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, prices: { create: { country_id: usId, price: 1000 } } },
  });
}
