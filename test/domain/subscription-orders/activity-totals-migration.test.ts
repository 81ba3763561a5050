import { describe, expect, it } from "vitest";
import { createSubscriptionOrder, updateShippingAddress } from "../../../src/domain/subscription-orders/service.js";
import type { Prisma } from "../../../src/generated/prisma/client.js";
import { RowQueue } from "../../../src/platform/db/row-queue.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { countryId, createCompanyWithToken, createPlan, createProduct, createUserWithToken } from "../../helpers/fixtures.js";
import { usAddress } from "../../helpers/subscription-orders.js";
import { rerunMigration, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Activities stored before 20261124093000 held `total` in minor units without a currency; the
// migration gives each snapshot its currency and the wire's units.
const MIGRATION = "20261124093000_activity_totals_in_currency_units";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

describe(MIGRATION, () => {
  it("converts each stored total in the currency of its moment, and leaves the rest as it was", async () => {
    const db = testDb.database.prisma;
    const company = await createCompanyWithToken(db, "Legacy");
    const ctx = { db, clock: fixedClock(new Date("2026-01-15T12:00:00.000Z")), companyId: company.id, actor: { type: "test", id: null }, rowQueue: new RowQueue() };
    const [KW, JP, US] = [await countryId(db, "KW"), await countryId(db, "JP"), await countryId(db, "US")];
    const plan = await createPlan(db, company.id);
    const { variant } = await createProduct(db, company.id, { variants: [{ prices: { KW: 8439, JP: 4050, US: 9740 } }] });
    const { user: customer } = await createUserWithToken(db, company.id, "customer");
    const order = (country: number) =>
      createSubscriptionOrder(ctx, { customer_id: customer.id, subscription_plan_id: plan.id, items: [{ variant_id: variant.id, quantity: 1 }], ship_to: usAddress(country) });

    // An order that went Kuwait -> Japan -> United States, and one that never moved.
    const travelled = await order(KW);
    await updateShippingAddress(ctx, travelled.id, usAddress(JP));
    await updateShippingAddress(ctx, travelled.id, usAddress(US));
    const stayed = await order(US);

    // Their histories as the old code wrote them.
    const items = travelled.items.map((item) => ({ id: item.id, variant_id: item.variant_id, quantity: item.quantity }));
    const shipTo = (country: number) => ({ ...usAddress(country), country_id: country });
    const legacy: Array<[number, string, Prisma.InputJsonValue | undefined, Prisma.InputJsonValue | undefined]> = [
      [travelled.id, "created", undefined, { status: "pending", next_bill_date: "2026-02-15", total: 8439 }],
      [travelled.id, "items_updated", { items, total: 8439 }, { items, total: 16878 }],
      [travelled.id, "shipping_address_updated", { ship_to: shipTo(KW), total: 16878 }, { ship_to: shipTo(JP), total: 8100 }],
      [travelled.id, "items_updated", { items, total: 8100 }, { items, total: 4050 }],
      [travelled.id, "shipping_address_updated", { ship_to: shipTo(JP), total: 4050 }, { ship_to: shipTo(US), total: 9740 }],
      [travelled.id, "skipped", { next_bill_date: "2026-02-15", skips_count: 0 }, { next_bill_date: "2026-03-15", skips_count: 1 }],
      [stayed.id, "created", undefined, { status: "pending", next_bill_date: "2026-02-15", total: 9740 }],
      // Written by the new code before the migration ran: already converted.
      [stayed.id, "items_updated", { items, total: 97.4, currency_code: "USD" }, { items, total: 194.8, currency_code: "USD" }],
    ];
    await db.subscriptionOrderActivity.deleteMany({ where: { company_id: company.id } });
    for (const [orderId, action, before, after] of legacy) {
      await db.subscriptionOrderActivity.create({
        data: { company_id: company.id, subscription_order_id: orderId, action, actor_type: "api_token", actor_id: null, before, after },
      });
    }

    await rerunMigration(testDb, MIGRATION);

    const activities = await db.subscriptionOrderActivity.findMany({ where: { company_id: company.id }, orderBy: { id: "asc" } });
    const totals = (snapshot: Prisma.JsonValue) => {
      if (snapshot === null || typeof snapshot !== "object" || Array.isArray(snapshot) || !("total" in snapshot)) return snapshot;
      return { total: snapshot.total, currency_code: snapshot.currency_code };
    };
    expect(activities.map((activity) => [activity.action, totals(activity.before), totals(activity.after)])).toEqual([
      ["created", null, { total: 8.439, currency_code: "KWD" }],
      ["items_updated", { total: 8.439, currency_code: "KWD" }, { total: 16.878, currency_code: "KWD" }],
      ["shipping_address_updated", { total: 16.878, currency_code: "KWD" }, { total: 8100, currency_code: "JPY" }],
      ["items_updated", { total: 8100, currency_code: "JPY" }, { total: 4050, currency_code: "JPY" }],
      ["shipping_address_updated", { total: 4050, currency_code: "JPY" }, { total: 97.4, currency_code: "USD" }],
      ["skipped", { next_bill_date: "2026-02-15", skips_count: 0 }, { next_bill_date: "2026-03-15", skips_count: 1 }],
      ["created", null, { total: 97.4, currency_code: "USD" }],
      ["items_updated", { total: 97.4, currency_code: "USD" }, { total: 194.8, currency_code: "USD" }],
    ]);
    // Only total and currency_code change: the rest of a snapshot is kept.
    expect(activities[2]?.before).toEqual({ ship_to: shipTo(KW), total: 16.878, currency_code: "KWD" });
    expect(activities[1]?.after).toEqual({ items, total: 16.878, currency_code: "KWD" });
  });
});
