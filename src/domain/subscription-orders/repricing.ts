// Repricing stored orders. An order's amounts are computed and stored when it changes (reads are
// one query), so whatever else moves its price must be written to it: a plan's new price
// adjustment reprices the plan's orders that are not cancelled at once, in the plan update's
// transaction; the autoship reminder reprices its order before the mail quotes it. Catalog, tax
// and shipping changes reach an order at its next change or reminder.

import type { Prisma } from "../../generated/prisma/client.js";
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
  currency: { select: { code: true, decimal_places: true } },
  items: { orderBy: { position: "asc" }, select: { id: true, variant_id: true, quantity: true, unit_price: true, subtotal: true, discount: true, tax: true } },
} as const satisfies Prisma.SubscriptionOrderSelect;

type StoredOrder = Prisma.SubscriptionOrderGetPayload<{ select: typeof pricedOrderSelect }>;

interface Repricing {
  order: StoredOrder;
  priced: PricedOrder;
}

// A plan's orders are read, priced and written this many at a time: a bounded statement and
// memory per step, however many subscribers the plan has.
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

function pricingChanged({ order, priced }: Repricing): boolean {
  const totals = totalsColumns(priced);
  return (
    (Object.keys(totals) as Array<keyof typeof totals>).some((column) => order[column] !== totals[column]) ||
    order.items.some((item, index) => LINE_AMOUNTS.some((amount) => item[amount] !== pricedLine(priced, index)[amount]))
  );
}

/**
 * Writes new amounts of orders: every line in one statement, every order's totals in another,
 * and a `repriced` activity on each order whose total moved (one more).
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
  const orders = repricings.map(({ order, priced }) => ({ id: order.id, ...totalsColumns(priced) }));
  const total = <Key extends keyof (typeof orders)[number]>(key: Key) => orders.map((order) => order[key]);
  await tx.$executeRaw`
    UPDATE subscription_orders AS o SET currency_code = u.currency_code, shipping_method_id = u.shipping_method_id, subtotal = u.subtotal,
      discount = u.discount, tax = u.tax, shipping = u.shipping, total = u.total, updated_at = ${ctx.clock.now()}
    FROM unnest(${total("id")}::int[], ${total("currency_code")}::text[], ${total("shipping_method_id")}::int[], ${total("subtotal")}::int[],
      ${total("discount")}::int[], ${total("tax")}::int[], ${total("shipping")}::int[], ${total("total")}::int[])
      AS u(id, currency_code, shipping_method_id, subtotal, discount, tax, shipping, total)
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
 * Reprices the plan's orders that are not cancelled with the plan as updated, inside the
 * transaction that updated it. Their rows are locked first, in id order, as every order
 * change locks its order: changes in flight finish first, later ones wait for the plan update and
 * price with the new plan. An order whose items no longer all price (a variant gone, or not
 * priced in its country) or that would come to more than its amounts can hold keeps its stored
 * amounts until its next change, which reports the item: one such order does not fail the update.
 */
export async function repricePlanOrders(tx: Tx, ctx: OrderContext, plan: PricedPlan): Promise<void> {
  const locked = await tx.$queryRaw<Array<{ id: number }>>`
    SELECT id FROM subscription_orders
    WHERE company_id = ${ctx.companyId} AND subscription_plan_id = ${plan.id} AND status <> 'cancelled'
    ORDER BY id FOR UPDATE`;
  for (let start = 0; start < locked.length; start += PLAN_REPRICING_BATCH) {
    const ids = locked.slice(start, start + PLAN_REPRICING_BATCH).map((row) => row.id);
    const orders = await tx.subscriptionOrder.findMany({ where: { id: { in: ids } }, select: pricedOrderSelect });
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
        if (priced && pricingChanged({ order, priced })) repricings.push({ order, priced });
      }
    }
    await storeRepricings(tx, ctx, repricings);
  }
}
