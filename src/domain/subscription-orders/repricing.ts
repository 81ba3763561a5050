// Repricing stored orders. An order's amounts are computed and stored when it changes (reads are
// one query), so whatever else moves its price must be written to it: a plan's new price
// adjustment reprices the plan's orders that are not cancelled, in batches that follow the plan
// update's commit; the autoship reminder reprices its order before the mail quotes it. Catalog,
// tax and shipping changes reach an order at its next change or reminder.
//
// A plan counts its price adjustments (pricing_revision) and an order stores the revision it is
// priced with. A revision only grows, on the plan and on each order, so the writers cannot undo
// one another: a batch reprices only orders behind the plan as it reads it, and a change prices
// with the plan it reads under the order's lock. An order left behind (a repricing cut short by
// the process's end) is brought up by its next change, or by the catch-up at the next start.

import type { Prisma } from "../../generated/prisma/client.js";
import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import type { SqlPool } from "../../platform/db/sql.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { ValidationError } from "../../platform/errors.js";
import type { IntervalUnit } from "../subscription-plans/schedule.js";
import { type CountryCatalog, LINE_AMOUNTS, type PricedOrder, type PricedPlan, type PricingRequest, priceItems, priceWithCatalog, readCountryCatalog, totalsColumns } from "./pricing.js";
import { appendActivities, type OrderContext, type OrderRow, requireOrderRow } from "./records.js";
import { totalSnapshot } from "./views.js";

type Tx = Prisma.TransactionClient;

/** An order's stored amounts and what prices them. */
const pricedOrderSelect = {
  id: true,
  ship_to_country_id: true,
  buyer_id: true,
  subscription_interval: true,
  subscription_interval_unit: true,
  currency_code: true,
  shipping_method_id: true,
  subtotal: true,
  discount: true,
  tax: true,
  shipping: true,
  total: true,
  plan_pricing_revision: true,
  currency: { select: { code: true, decimal_places: true } },
  items: { orderBy: { position: "asc" }, select: { id: true, variant_id: true, quantity: true, unit_price: true, subtotal: true, discount: true, tax: true } },
} as const satisfies Prisma.SubscriptionOrderSelect;

type StoredOrder = Prisma.SubscriptionOrderGetPayload<{ select: typeof pricedOrderSelect }>;

interface Repricing {
  order: StoredOrder;
  priced: PricedOrder;
}

// A plan's orders are repriced this many at a time, each batch in a transaction of its own: an
// order change waits for one batch at most (0.1 to 0.3 s), and each step's statements and memory
// are bounded however many subscribers the plan has.
const PLAN_REPRICING_BATCH = 500;

function pricingRequest(companyId: number, order: StoredOrder, plan: PricedPlan | null): PricingRequest {
  return {
    companyId,
    countryId: order.ship_to_country_id,
    interval: { count: order.subscription_interval, unit: order.subscription_interval_unit as IntervalUnit },
    plan,
    buyerId: order.buyer_id,
    items: order.items,
    itemsPath: "items",
  };
}

function pricedLine(priced: PricedOrder, index: number) {
  const line = priced.lines[index];
  if (!line) throw new Error("the totals engine returned fewer lines than it was given");
  return line;
}

/** Whether the pricing moves any of the order's stored amounts (its items priced in their order). */
export function pricingChanged({ order, priced }: Repricing): boolean {
  const totals = totalsColumns(priced);
  return (
    (Object.keys(totals) as Array<keyof typeof totals>).some((column) => order[column] !== totals[column]) ||
    order.items.some((item, index) => LINE_AMOUNTS.some((amount) => item[amount] !== pricedLine(priced, index)[amount]))
  );
}

/**
 * Writes new amounts of orders and the plan revision they are priced with: every line in one
 * statement, every order's totals in another, and a `repriced` activity on each order whose total
 * moved (one more).
 */
async function storeRepricings(tx: Tx, ctx: OrderContext, repricings: Repricing[]): Promise<void> {
  if (repricings.length === 0) return;
  const lines = repricings.flatMap(({ order, priced }) => order.items.map((item, index) => ({ id: item.id, ...pricedLine(priced, index) })));
  const column = <Key extends keyof (typeof lines)[number]>(key: Key) => lines.map((line) => line[key]);
  await tx.$executeRaw`
    UPDATE subscription_order_items AS i SET unit_price = u.unit_price, subtotal = u.subtotal, discount = u.discount, tax = u.tax
    FROM unnest(${column("id")}::int[], ${column("unit_price")}::int[], ${column("subtotal")}::int[], ${column("discount")}::int[], ${column("tax")}::int[])
      AS u(id, unit_price, subtotal, discount, tax)
    WHERE i.id = u.id`;
  const orders = repricings.map(({ order, priced }) => ({ id: order.id, ...totalsColumns(priced), plan_pricing_revision: priced.plan_pricing_revision }));
  const total = <Key extends keyof (typeof orders)[number]>(key: Key) => orders.map((order) => order[key]);
  await tx.$executeRaw`
    UPDATE subscription_orders AS o SET currency_code = u.currency_code, shipping_method_id = u.shipping_method_id, subtotal = u.subtotal,
      discount = u.discount, tax = u.tax, shipping = u.shipping, total = u.total,
      plan_pricing_revision = COALESCE(u.plan_pricing_revision, o.plan_pricing_revision), updated_at = ${ctx.clock.now()}
    FROM unnest(${total("id")}::int[], ${total("currency_code")}::text[], ${total("shipping_method_id")}::int[], ${total("subtotal")}::int[],
      ${total("discount")}::int[], ${total("tax")}::int[], ${total("shipping")}::int[], ${total("total")}::int[], ${total("plan_pricing_revision")}::int[])
      AS u(id, currency_code, shipping_method_id, subtotal, discount, tax, shipping, total, plan_pricing_revision)
    WHERE o.id = u.id`;
  await appendActivities(
    tx,
    ctx,
    repricings
      .filter(({ order, priced }) => order.total !== priced.total)
      .map(({ order, priced }) => ({ orderId: order.id, action: "repriced", before: totalSnapshot(order), after: totalSnapshot(priced) })),
  );
}

/**
 * Reprices one order (inside changeOrder) as its next bill will charge it, and stores what
 * changed. An item that no longer prices, or an amount past what the order can hold, is a 422
 * naming the item (or the items). Returns the order as stored.
 */
export async function repriceOrder(tx: Tx, ctx: OrderContext, row: OrderRow): Promise<OrderRow> {
  const repricing = { order: row, priced: await priceItems(tx, pricingRequest(ctx.companyId, row, row.subscription_plan)) };
  if (!pricingChanged(repricing)) return row;
  await storeRepricings(tx, ctx, [repricing]);
  return requireOrderRow(tx, ctx.companyId, row.id);
}

/** The pricing of an order with what was read for its country, or null when it no longer prices (priceWithCatalog's 422). */
function priceIfPossible(catalog: CountryCatalog, request: PricingRequest): PricedOrder | null {
  try {
    return priceWithCatalog(catalog, request);
  } catch (error) {
    if (error instanceof ValidationError) return null;
    throw error;
  }
}

/**
 * Brings an order priced with an older revision of its plan up to the plan, as the plan's
 * repricing would have (inside changeOrder, before the change). An order whose items no longer
 * all price keeps its amounts, as there: the change goes on, and a change that prices the items
 * reports them.
 */
export async function repriceIfBehindPlan(tx: Tx, ctx: OrderContext, row: OrderRow): Promise<OrderRow> {
  const plan = row.subscription_plan;
  if (plan === null || row.status === "cancelled" || row.plan_pricing_revision >= plan.pricing_revision) return row;
  const catalog = await readCountryCatalog(tx, { companyId: ctx.companyId, countryId: row.ship_to_country_id, plan, variantIds: row.items.map((item) => item.variant_id) });
  const priced = priceIfPossible(catalog, pricingRequest(ctx.companyId, row, plan));
  if (priced === null) return row;
  await storeRepricings(tx, ctx, [{ order: row, priced }]);
  return requireOrderRow(tx, ctx.companyId, row.id);
}

/**
 * One batch of a plan's repricing, after the order `after`: reads the plan as it is now, locks
 * the next orders behind it (in id order, as every change locks its order; one that another
 * pricing reached while this waited drops out) and reprices them. An order whose items no longer
 * all price (a variant gone, or not priced in its country) or that would come to more than its
 * amounts can hold keeps its stored amounts and stays behind until its next change, which
 * reports the item: one such order does not stop the repricing. Null when the plan is gone.
 */
async function repriceBatch(tx: Tx, ctx: OrderContext, planId: number, after: number): Promise<{ revision: number; lastId: number | null } | null> {
  const plan = await tx.subscriptionPlan.findFirst({ where: { id: planId, company_id: ctx.companyId } });
  if (!plan) return null;
  const behind = await tx.$queryRaw<Array<{ id: number }>>`
    SELECT id FROM subscription_orders
    WHERE company_id = ${ctx.companyId} AND subscription_plan_id = ${planId} AND id > ${after}
      AND status <> 'cancelled' AND plan_pricing_revision < ${plan.pricing_revision}
    ORDER BY id LIMIT ${PLAN_REPRICING_BATCH}`;
  if (behind.length === 0) return { revision: plan.pricing_revision, lastId: null };
  const locked = await tx.$queryRaw<Array<{ id: number }>>`
    SELECT id FROM subscription_orders
    WHERE id = ANY(${behind.map((row) => row.id)}) AND company_id = ${ctx.companyId} AND subscription_plan_id = ${planId}
      AND status <> 'cancelled' AND plan_pricing_revision < ${plan.pricing_revision}
    ORDER BY id FOR UPDATE`;
  const orders = await tx.subscriptionOrder.findMany({ where: { id: { in: locked.map((row) => row.id) }, company_id: ctx.companyId }, select: pricedOrderSelect });
  const byCountry = new Map<number, StoredOrder[]>();
  for (const order of orders) {
    const inCountry = byCountry.get(order.ship_to_country_id);
    if (inCountry) inCountry.push(order);
    else byCountry.set(order.ship_to_country_id, [order]);
  }
  const repricings: Repricing[] = [];
  for (const [countryId, inCountry] of byCountry) {
    const variantIds = inCountry.flatMap((order) => order.items.map((item) => item.variant_id));
    const catalog = await readCountryCatalog(tx, { companyId: ctx.companyId, countryId, plan, variantIds });
    for (const order of inCountry) {
      const priced = priceIfPossible(catalog, pricingRequest(ctx.companyId, order, plan));
      if (priced) repricings.push({ order, priced });
    }
  }
  await storeRepricings(tx, ctx, repricings);
  return { revision: plan.pricing_revision, lastId: behind.at(-1)?.id ?? null };
}

/**
 * Reprices the plan's orders that are not cancelled and are priced with an older revision of it,
 * a batch per transaction, each recorded as done by the caller; resolves once every batch has
 * committed, and records on the plan the revision every order that prices has now reached. Runs
 * after the plan update's own transaction (which takes the plan's row lock, so orders being
 * created meanwhile commit first or price with the new plan). Two repricings of one plan, or
 * changes of its orders, may run at once: each batch reads the plan as it is, so all of them end
 * with the latest plan. `signal` stops it between batches (the server shutting down).
 */
export async function repricePlanOrders(ctx: OrderContext, planId: number, signal?: AbortSignal): Promise<void> {
  let reached: number | null = null;
  for (let after = 0; ; ) {
    signal?.throwIfAborted();
    const batch = await ctx.db.$transaction((tx) => repriceBatch(tx, ctx, planId, after), LOCK_WAITING_TRANSACTION);
    if (batch === null) return;
    // The first batch's revision: later batches read it or a newer one, and orders before them were already there.
    reached ??= batch.revision;
    if (batch.lastId === null) break;
    after = batch.lastId;
  }
  await ctx.db.$executeRaw`
    UPDATE subscription_plans SET orders_repriced_revision = ${reached}
    WHERE id = ${planId} AND company_id = ${ctx.companyId} AND orders_repriced_revision < ${reached}`;
}

/** Whose the `repriced` activities of the catch-up at start are: no request made them. */
const CATCH_UP_ACTOR = { type: "system", id: "repricing_catch_up" };

/** What the catch-up at start did: the plans it finished, and those it could not, with why. */
interface CatchUpOutcome {
  repriced: number[];
  failed: Array<{ planId: number; error: unknown }>;
}

/**
 * Finishes the plans' repricings that did not run to their end (the process stopped during a plan
 * update), of every company: run at server start. A plan that fails (a lock held past the pool's
 * lock_timeout, the database going away) stays behind, as before the start, and the catch-up goes
 * on with the next plan: one plan's trouble does not leave every later plan's orders unpriced.
 * `signal` stops it for good. The plans are found through plain pg: a start with nothing to finish
 * does not pay for Prisma's first query (its engine's set-up keeps the event loop busy for a moment).
 */
export async function catchUpPlanRepricings(deps: { db: Db; sql: SqlPool; clock: Clock; signal?: AbortSignal }): Promise<CatchUpOutcome> {
  const plans = await deps.sql.query<{ id: number; company_id: number }>(
    "SELECT id, company_id FROM subscription_plans WHERE orders_repriced_revision < pricing_revision ORDER BY id",
  );
  const outcome: CatchUpOutcome = { repriced: [], failed: [] };
  for (const plan of plans) {
    try {
      await repricePlanOrders({ db: deps.db, clock: deps.clock, companyId: plan.company_id, actor: CATCH_UP_ACTOR }, plan.id, deps.signal);
      outcome.repriced.push(plan.id);
    } catch (error) {
      if (deps.signal?.aborted) throw error;
      outcome.failed.push({ planId: plan.id, error });
    }
  }
  return outcome;
}
