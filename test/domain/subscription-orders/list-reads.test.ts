import { beforeAll, describe, expect, it } from "vitest";
import { listSubscriptionOrders } from "../../../src/domain/subscription-orders/service.js";
import { createCompanyWithToken, createPlan } from "../../helpers/fixtures.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { scanCountingPool } from "../../helpers/query-plans.js";
import { addSubscriptionOrder } from "../../helpers/subscription-orders.js";
import { type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Found by an audit: the list built the json of every order OFFSET skipped (its people, items and
// activities), so page 2,000 of 200,000 orders took 10 s. What it reads of the orders' relations
// must be the page's, whatever page it is.
const ORDERS = 200;

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

let companyId: number;

beforeAll(async () => {
  const db = testDb.database.prisma;
  companyId = (await createCompanyWithToken(db, "Busy")).id;
  const first = await addSubscriptionOrder(db, companyId, (await createPlan(db, companyId)).id, "active");
  // Copies of the first order (its item and its created activity), billed over four weeks, a quarter of them cancelled.
  const copy = (table: string, overrides: string, from: string) =>
    testDb.database.sql.query(
      `INSERT INTO ${table} SELECT (jsonb_populate_record(r, jsonb_build_object('id', nextval(pg_get_serial_sequence('${table}', 'id')), ${overrides}))).* FROM ${from}`,
      [first],
    );
  await copy(
    "subscription_orders",
    `'order_number', 'SO-COPY-' || g, 'next_bill_date', date '2026-03-01' + g % 28, 'status', CASE WHEN g % 4 = 0 THEN 'cancelled' ELSE 'active' END`,
    `subscription_orders r, generate_series(2, ${ORDERS}) g WHERE r.id = $1`,
  );
  for (const table of ["subscription_order_items", "subscription_order_activities"]) {
    await copy(table, "'subscription_order_id', o.id", `${table} r, subscription_orders o WHERE r.subscription_order_id = $1 AND o.id <> $1`);
  }
});

describe("listSubscriptionOrders", () => {
  it.each([
    ["the first page", { page: 1, per_page: 5 }, ""],
    ["a later page", { page: 30, per_page: 5 }, ""],
    ["the last order", { page: ORDERS, per_page: 1 }, ""],
    ["a later page of a status", { page: 20, per_page: 5, status: "active" as const }, "AND status = 'active'"],
  ])("builds the people, items and activities of the page's orders only: %s", async (_, query, condition) => {
    const scans = new Map<string, number>();
    const ctx = { db: testDb.database.prisma, sql: scanCountingPool(testDb.database.sql, scans), clock: fixedClock(new Date("2026-02-01T00:00:00Z")), companyId };
    const list = await listSubscriptionOrders(ctx, query);

    const expected = await testDb.database.sql.query<{ id: number }>(
      `SELECT id FROM subscription_orders WHERE company_id = $1 ${condition} ORDER BY next_bill_date, id LIMIT $2 OFFSET $3`,
      [companyId, query.per_page, (query.page - 1) * query.per_page],
    );
    expect(list.rows.map((order) => order.id)).toEqual(expected.map((row) => row.id));
    expect(list.rows).toHaveLength(query.per_page);
    // An order's relations are looked up for each order built: once its items (one here) and payment
    // method, three times users (customer, rep, buyer), twice its activities (the most recent, and
    // their count). The page is chosen on subscription_orders alone.
    const lookups = { subscription_order_items: 1, variants: 1, products: 1, payment_methods: 1, users: 3, subscription_order_activities: 2 };
    for (const [table, perOrder] of Object.entries(lookups)) expect(scans.get(table) ?? 0, table).toBeLessThanOrEqual(perOrder * query.per_page);
  });
});
