import { beforeEach, describe, expect, inject, it, onTestFinished } from "vitest";
import { catchUpPlanRepricings } from "../../../src/domain/subscription-orders/repricing.js";
import { systemClock } from "../../../src/platform/clock.js";
import type { SqlConnection } from "../../../src/platform/db/sql.js";
import { type CompanyFixture, countryId, createCard, createPlan, createProduct, createShippingMethod, createUserWithToken, setTaxRate } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { addSubscriptionOrder, usAddress } from "../../helpers/subscription-orders.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

// Found by an audit: a plan update repriced all of its orders in one transaction that held their
// row locks for seconds (about 0.3 s per thousand orders), so an order change made meanwhile
// waited past its transaction's 5 s and answered 500, and enough such waiters took every pooled
// connection from every other request.

const ORDERS = "/api/v2/subscription_orders";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let US: number;
let bottle: { id: number }; // US $25.00
let customer: { id: number };
let card: { id: number };

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  const db = t.db.prisma;
  US = await countryId(db, "US");
  await setTaxRate(db, acme.id, "US", "8.25");
  await createShippingMethod(db, acme.id, { country: "US", price: 599 });
  bottle = (await createProduct(db, acme.id, { title: "Bottle", variants: [{ prices: { US: 2500 } }] })).variant;
  customer = (await createUserWithToken(db, acme.id, "customer")).user;
  card = await createCard(db, customer.id);
});

beforeEach(async () => {
  await t.db.prisma.subscriptionOrder.deleteMany();
  await t.db.prisma.subscriptionPlan.deleteMany();
});

const putPlan = (id: number, plan: Record<string, unknown>) => call("PUT", `/api/subscription_plans/${id}`, { token: acme.token, body: { subscription_plan: plan } });
const patch = (id: number, action: string, body?: unknown) => call("PATCH", `${ORDERS}/${id}/${action}`, { token: acme.token, body });
const show = async (id: number) => (await call("GET", `${ORDERS}/${id}`, { token: acme.token })).body.subscription_order;

async function createOrder(planId: number): Promise<{ id: number; total: number }> {
  const body = { subscription_order: { customer_id: customer.id, subscription_plan_id: planId, payment_method_id: card.id, items: [{ variant_id: bottle.id, quantity: 2 }], ship_to: usAddress(US) } };
  const response = await call("POST", ORDERS, { token: acme.token, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.subscription_order;
}

/**
 * `count` copies of an order made over the API, written with SQL as an import would (thousands
 * of orders over the API would take minutes); returns every id of the plan's orders, ascending.
 */
async function copiesOf(orderId: number, count: number): Promise<number[]> {
  const columnsOf = async (table: string) =>
    (await t.db.sql.query<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 AND column_name <> 'id' ORDER BY ordinal_position", [table])).map(
      (row) => `"${row.name}"`,
    );
  const orderColumns = await columnsOf("subscription_orders");
  const itemColumns = await columnsOf("subscription_order_items");
  const copied = (column: string, value: string) => orderColumns.map((name) => (name === `"${column}"` ? value : `o.${name}`)).join(", ");
  await t.db.sql.query(
    `WITH copies AS (
       INSERT INTO subscription_orders (${orderColumns.join(", ")})
       SELECT ${copied("order_number", "o.order_number || '-' || g")} FROM subscription_orders o, generate_series(1, $2) g WHERE o.id = $1
       RETURNING id)
     INSERT INTO subscription_order_items (${itemColumns.join(", ")})
     SELECT ${itemColumns.map((name) => (name === '"subscription_order_id"' ? "c.id" : `i.${name}`)).join(", ")}
     FROM copies c, subscription_order_items i WHERE i.subscription_order_id = $1`,
    [orderId, count],
  );
  const order = await t.db.prisma.subscriptionOrder.findUniqueOrThrow({ where: { id: orderId }, select: { subscription_plan_id: true } });
  return (await t.db.prisma.subscriptionOrder.findMany({ where: { subscription_plan_id: order.subscription_plan_id }, orderBy: { id: "asc" }, select: { id: true } })).map((row) => row.id);
}

const lockWaiters = async () =>
  (await t.db.sql.query<{ waiting: number }>("SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0]?.waiting;

describe("a plan's new price adjustment reprices its orders in batches", () => {
  it.skipIf(!inject("databaseServer"))("an order change made while the repricing runs waits for its order's batch only, answers 200 before the repricing ends, and keeps its effect and the new price", async () => {
    const plan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10", maxSkips: 3 });
    const first = await createOrder(plan.id);
    expect(first.total).toBe(54.7); // 2 x 22.50 + 3.71 tax + 5.99 shipping
    // Batches of 500: ids[0..499], ids[500..999], ids[1000..1499], ids[1500].
    const ids = await copiesOf(first.id, 1_500);
    const [heldInBatch, changed, heldLast] = [ids[1_250], ids[1_000], ids[1_500]] as [number, number, number];
    // Other changes hold an order in the middle of the third batch and the order of the fourth.
    const holders: SqlConnection[] = [];
    const hold = async (id: number) => {
      const holder = await t.db.sql.connect();
      holders.push(holder);
      await holder.query("BEGIN");
      await holder.query("SELECT id FROM subscription_orders WHERE id = $1 FOR UPDATE", [id]);
      return holder;
    };
    try {
      const [batchHolder, lastHolder] = [await hold(heldInBatch), await hold(heldLast)];
      const repricing = putPlan(plan.id, { price_adjustment_amount: 50 });
      // The third batch waits, holding the orders it locked before the held one, `changed` among them.
      await expect.poll(lockWaiters, { timeout: 15_000 }).toBe(1);
      const skipped = patch(changed, "skip_order");
      await expect.poll(lockWaiters, { timeout: 15_000 }).toBe(2);

      await batchHolder.query("COMMIT");
      // The third batch commits and the change goes on, while the fourth batch waits for its order.
      expect((await skipped).status).toBe(200);
      await expect.poll(lockWaiters, { timeout: 15_000 }).toBe(1);
      await lastHolder.query("COMMIT");
      expect((await repricing).status).toBe(200);
    } finally {
      for (const holder of holders) {
        await holder.query("ROLLBACK");
        await holder.release();
      }
    }
    // 2 x 12.50 + 2.06 tax + 5.99 shipping.
    expect(await show(changed)).toMatchObject({ skips_count: 1, total: 33.05 });
    expect(await show(heldLast)).toMatchObject({ skips_count: 0, total: 33.05 });
    expect(await t.db.prisma.subscriptionOrder.count({ where: { subscription_plan_id: plan.id, total: { not: 3305 } } })).toBe(0);
  });

  it("two updates of the plan at once, and changes of its orders meanwhile, leave every order priced with the plan as it ends", async () => {
    const plan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10", maxSkips: 3 });
    const first = await createOrder(plan.id);
    const ids = await copiesOf(first.id, 1_200);
    const changed = [ids[0], ids[600], ids.at(-1)] as number[];
    const [half, fifth, ...skips] = await Promise.all([
      putPlan(plan.id, { price_adjustment_amount: 50 }),
      putPlan(plan.id, { price_adjustment_amount: 20 }),
      ...changed.map((id) => patch(id, "skip_order")),
    ]);
    expect([half?.status, fifth?.status, ...skips.map((skip) => skip.status)]).toEqual([200, 200, 200, 200, 200]);
    const final = (await call("GET", `/api/subscription_plans/${plan.id}`, { token: acme.token })).body.subscription_plan.price_adjustment_amount;
    // 50 % off: 2 x 12.50 + 2.06 tax + 5.99 shipping; 20 % off: 2 x 20.00 + 3.30 + 5.99.
    const expectedTotal = final === 50 ? 3305 : 4929;
    const stored = await t.db.prisma.subscriptionOrder.groupBy({ by: ["total", "plan_pricing_revision"], where: { subscription_plan_id: plan.id }, _count: true });
    const { pricing_revision, orders_repriced_revision } = await t.db.prisma.subscriptionPlan.findUniqueOrThrow({ where: { id: plan.id } });
    expect(stored).toEqual([{ total: expectedTotal, plan_pricing_revision: 2, _count: ids.length }]);
    expect([pricing_revision, orders_repriced_revision]).toEqual([2, 2]);
    for (const id of changed) expect(await show(id)).toMatchObject({ skips_count: 1, total: expectedTotal / 100 });
  });
});

// Found by a review: the plan's change commits before its repricing's batches, so a batch's
// failure answers an error after a write. The answer says the work is not done, and a retry does it.
describe("a repricing batch that fails after the plan's change committed", () => {
  it("answers the failure with the change committed, and the same request again finishes the repricing and answers 200", async () => {
    const plan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const order = await createOrder(plan.id);
    // PostgreSQL's deadlock error, raised where the batch writes the orders' totals.
    await t.db.sql.query("CREATE FUNCTION deadlock_on_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END $$");
    await t.db.sql.query("CREATE TRIGGER deadlock_on_update BEFORE UPDATE ON subscription_orders FOR EACH ROW EXECUTE FUNCTION deadlock_on_update()");
    let failed: Awaited<ReturnType<typeof putPlan>>;
    try {
      failed = await putPlan(plan.id, { price_adjustment_amount: 50 });
    } finally {
      await t.db.sql.query("DROP TRIGGER deadlock_on_update ON subscription_orders");
      await t.db.sql.query("DROP FUNCTION deadlock_on_update()");
    }
    expect(failed.status).toBe(409);
    expect(failed.body).toMatchObject({ error_code: "write_conflict" });
    expect(failed.headers["retry-after"]).toBe("1");
    const stored = () => t.db.prisma.subscriptionPlan.findUniqueOrThrow({ where: { id: plan.id }, select: { pricing_revision: true, orders_repriced_revision: true } });
    expect((await call("GET", `/api/subscription_plans/${plan.id}`, { token: acme.token })).body.subscription_plan.price_adjustment_amount).toBe(50);
    expect(await stored()).toEqual({ pricing_revision: 1, orders_repriced_revision: 0 });
    expect(await show(order.id)).toMatchObject({ total: 54.7 });

    const retried = await putPlan(plan.id, { price_adjustment_amount: 50 });
    expect(retried.status).toBe(200);
    expect(await stored()).toEqual({ pricing_revision: 1, orders_repriced_revision: 1 });
    expect(await show(order.id)).toMatchObject({ total: 33.05 });
  });
});

// A repricing cut short (the process stopped between two batches) is simulated by committing
// what the plan update commits first, a new adjustment and revision, and no batch.
describe("a repricing that did not run to its end", () => {
  async function cutShort(planId: number, amount: string) {
    await t.db.sql.query("UPDATE subscription_plans SET price_adjustment_amount = $2, pricing_revision = pricing_revision + 1 WHERE id = $1", [planId, amount]);
  }

  it("is finished at the next start for every company, each order once; an order whose items no longer price keeps its amounts", async () => {
    const plan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const first = await createOrder(plan.id);
    const ids = await copiesOf(first.id, 700);
    const soap = (await createProduct(t.db.prisma, acme.id, { title: "Soap", variants: [{ prices: { US: 1000 } }] })).variant;
    const stranded = (await call("POST", ORDERS, { token: acme.token, body: { subscription_order: { customer_id: customer.id, subscription_plan_id: plan.id, items: [{ variant_id: soap.id, quantity: 1 }], ship_to: usAddress(US) } } })).body.subscription_order;
    await t.db.prisma.variant.update({ where: { id: soap.id }, data: { active: false } });
    const untouchedPlan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const untouched = await createOrder(untouchedPlan.id);
    const foreignPlan = await createPlan(t.db.prisma, globex.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const foreignOrder = await addSubscriptionOrder(t.db.prisma, globex.id, foreignPlan.id, "active");
    await cutShort(plan.id, "50");
    await cutShort(foreignPlan.id, "20");

    expect(await catchUpPlanRepricings({ db: t.db.prisma, sql: t.db.sql, clock: systemClock })).toEqual({ repriced: [plan.id, foreignPlan.id], failed: [] });
    expect(await t.db.prisma.subscriptionOrder.count({ where: { id: { in: ids }, total: 3305, plan_pricing_revision: 1 } })).toBe(ids.length);
    expect(await t.db.prisma.subscriptionOrderActivity.count({ where: { subscription_order_id: { in: ids }, action: "repriced" } })).toBe(ids.length);
    expect((await show(first.id)).activities.map((activity: { action: string; performed_by: unknown }) => [activity.action, activity.performed_by])).toEqual([
      ["created", { type: "api_token", id: acme.token.slice(0, 12) }],
      ["repriced", { type: "system", id: "repricing_catch_up" }],
    ]);
    expect(await show(stranded.id)).toMatchObject({ total: stranded.total, activities: [{ action: "created" }] });
    // Its next change still goes through, with the amounts it has.
    const skipped = await patch(stranded.id, "skip_order");
    expect(skipped.status).toBe(200);
    expect(skipped.body.subscription_order).toMatchObject({ skips_count: 1, total: stranded.total });
    expect(await show(untouched.id)).toMatchObject({ total: 54.7, activities: [{ action: "created" }] });
    // $10.00 - 20 %, no tax or shipping set up for Globex.
    expect(await t.db.prisma.subscriptionOrder.findUniqueOrThrow({ where: { id: foreignOrder } })).toMatchObject({ total: 800, plan_pricing_revision: 1 });
    expect(await t.db.prisma.subscriptionPlan.findUniqueOrThrow({ where: { id: plan.id } })).toMatchObject({ pricing_revision: 1, orders_repriced_revision: 1 });
    // Done: the next start finds nothing to finish.
    expect(await catchUpPlanRepricings({ db: t.db.prisma, sql: t.db.sql, clock: systemClock })).toEqual({ repriced: [], failed: [] });
  });

  it("goes on past a plan whose repricing fails, which stays behind for the next start", async () => {
    const failing = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const failingOrder = await createOrder(failing.id);
    const later = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const laterOrder = await createOrder(later.id);
    await cutShort(failing.id, "50");
    await cutShort(later.id, "50");
    // The database refuses the first plan's order update, as it would a lock held past lock_timeout.
    await t.db.sql.query(`CREATE FUNCTION refuse_repricing() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`);
    await t.db.sql.query(`CREATE TRIGGER refuse_repricing BEFORE UPDATE ON subscription_orders FOR EACH ROW WHEN (OLD.id = ${failingOrder.id}) EXECUTE FUNCTION refuse_repricing()`);
    const allowRepricing = async () => {
      await t.db.sql.query("DROP TRIGGER IF EXISTS refuse_repricing ON subscription_orders");
      await t.db.sql.query("DROP FUNCTION IF EXISTS refuse_repricing()");
    };
    onTestFinished(allowRepricing);

    const outcome = await catchUpPlanRepricings({ db: t.db.prisma, sql: t.db.sql, clock: systemClock });
    expect(outcome.repriced).toEqual([later.id]);
    expect(outcome.failed.map(({ planId }) => planId)).toEqual([failing.id]);
    expect(String(outcome.failed[0]?.error)).toContain("refused");
    expect(await show(laterOrder.id)).toMatchObject({ total: 33.05 });
    expect(await show(failingOrder.id)).toMatchObject({ total: failingOrder.total });
    expect(await t.db.prisma.subscriptionPlan.findUniqueOrThrow({ where: { id: failing.id } })).toMatchObject({ pricing_revision: 1, orders_repriced_revision: 0 });

    await allowRepricing();
    expect(await catchUpPlanRepricings({ db: t.db.prisma, sql: t.db.sql, clock: systemClock })).toEqual({ repriced: [failing.id], failed: [] });
    expect(await show(failingOrder.id)).toMatchObject({ total: 33.05 });
  });

  it("is finished for an order by its next change, which then applies", async () => {
    const plan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10", maxSkips: 3 });
    const order = await createOrder(plan.id);
    const other = await createOrder(plan.id);
    await cutShort(plan.id, "50");

    const skipped = await patch(order.id, "skip_order");
    expect(skipped.status).toBe(200);
    expect(skipped.body.subscription_order).toMatchObject({ skips_count: 1, total: 33.05 });
    expect(skipped.body.subscription_order.activities.map((activity: { action: string }) => activity.action)).toEqual(["created", "repriced", "skipped"]);
    const feedback = await patch(other.id, "cancellation_feedback", { reason: "too many boxes" });
    expect(feedback.body.subscription_order).toMatchObject({ cancellation_reason: "too many boxes", total: 33.05 });
  });

  it("is finished by the plan's next update, whatever it changes, before it answers", async () => {
    const plan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const order = await createOrder(plan.id);
    await cutShort(plan.id, "50");

    expect((await putPlan(plan.id, { name: "Renamed" })).status).toBe(200);
    expect(await show(order.id)).toMatchObject({ total: 33.05 });
    expect(await catchUpPlanRepricings({ db: t.db.prisma, sql: t.db.sql, clock: systemClock })).toEqual({ repriced: [], failed: [] });
  });
});
