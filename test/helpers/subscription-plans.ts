import type { Db } from "../../src/platform/db/database.js";

/** A product of the company (the catalog admin that manages them is another area). */
export async function createProduct(db: Db, companyId: number, title = "Coffee") {
  return db.product.create({ data: { company_id: companyId, title } });
}

/**
 * A subscription order of a plan, with the members the plan service reads. Subscription
 * orders are built by another area in parallel: while their table is not in the migrations
 * yet, this creates a stand-in with just those columns in the test's own database. Once the
 * subscription orders branch is merged, replace this with that area's fixture.
 */
export async function addSubscriptionOrder(db: Db, companyId: number, planId: number, status: string): Promise<number> {
  const [table] = await db.$queryRaw<{ present: boolean }[]>`SELECT to_regclass('subscription_orders') IS NOT NULL AS present`;
  if (!table?.present) {
    await db.$executeRaw`CREATE TABLE subscription_orders (id serial PRIMARY KEY, company_id integer NOT NULL, subscription_plan_id integer NOT NULL, status text NOT NULL)`;
  }
  const [row] = await db.$queryRaw<{ id: number }[]>`
    INSERT INTO subscription_orders (company_id, subscription_plan_id, status) VALUES (${companyId}, ${planId}, ${status}) RETURNING id`;
  return (row as { id: number }).id;
}
