import { describe, expect, it } from "vitest";
import { createSubscriptionOrder } from "../../../src/domain/subscription-orders/service.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { countryId, createCompanyWithToken, createPlan, createProduct, createUserWithToken } from "../../helpers/fixtures.js";
import { usAddress } from "../../helpers/subscription-orders.js";
import { rerunMigration, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Before 20261127160001 an order did not remember the day its bills fall on; the migration gives
// each stored order the day of its next_bill_date, the day it bills on now.
const MIGRATION = "20261127160001_subscription_order_billing_anchor_day";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

describe(MIGRATION, () => {
  it("anchors each stored order on the day of its next_bill_date, and the database takes only days 1 to 31", async () => {
    const db = testDb.database.prisma;
    const company = await createCompanyWithToken(db, "Legacy");
    const ctx = { db, clock: fixedClock(new Date("2026-01-31T12:00:00.000Z")), companyId: company.id, actor: { type: "test", id: null } };
    const plan = await createPlan(db, company.id);
    const { variant } = await createProduct(db, company.id, { variants: [{ prices: { US: 1000 } }] });
    const { user: customer } = await createUserWithToken(db, company.id, "customer");
    const US = await countryId(db, "US");
    const order = (next_bill_date?: string) =>
      createSubscriptionOrder(ctx, { customer_id: customer.id, subscription_plan_id: plan.id, items: [{ variant_id: variant.id, quantity: 1 }], ship_to: usAddress(US), next_bill_date });
    // Created on Jan 31 without a date: Feb 28, anchored on the 31st by the new code.
    const ids = [(await order()).id, (await order("2026-03-31")).id, (await order("2026-06-01")).id];

    // The table as it was before the migration.
    await testDb.database.sql.query('ALTER TABLE "subscription_orders" DROP COLUMN "billing_anchor_day"');
    await rerunMigration(testDb, MIGRATION);

    const anchors = await db.subscriptionOrder.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" }, select: { billing_anchor_day: true } });
    expect(anchors.map((row) => row.billing_anchor_day)).toEqual([28, 31, 1]);
    for (const day of [0, 32]) {
      await expect(testDb.database.sql.query('UPDATE "subscription_orders" SET "billing_anchor_day" = $1 WHERE id = $2', [day, ids[0]])).rejects.toThrow(/billing_anchor_day_check/);
    }
  });
});
