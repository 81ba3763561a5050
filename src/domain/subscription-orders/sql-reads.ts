import { Prisma } from "../../generated/prisma/client.js";
import type { SqlServiceContext } from "../../platform/context.js";
import { NotFoundError } from "../../platform/errors.js";
import { type PageRequest, pageWindow } from "../../platform/http/pagination.js";
import { RECENT_ACTIVITIES, type SubscriptionOrderFilters, type SubscriptionOrderListQuery } from "./schemas.js";
import type { ActivityRecord, OrderRecord } from "./views.js";

/*
 * The admin reads of subscription orders (show, list, stats) are statements sent through plain
 * pg, each order one row with its relations built as json by PostgreSQL. The show was Prisma's
 * findFirst with ten nested relations, and Prisma's query compiler and result mapping cost far
 * more than the query. Measured on the bench data set (16 concurrent callers in process): a
 * show took 610-715 µs of CPU through Prisma, 104-134 µs through this statement (a primary-key
 * read: 30-36 µs). Focused `npm run bench` runs of the show: 0.03-0.05 of the pk-read
 * reference and the server's RSS up 40-48 MB through the scenario before; 0.24-0.44 and up
 * 2-8 MB after. The mutations keep Prisma (they change the row they hold); both render
 * through toView, which reads an OrderRecord.
 */

const personJson = (column: string) =>
  `(SELECT json_build_object('id', u.id, 'email', u.email, 'first_name', u.first_name, 'last_name', u.last_name) FROM users u WHERE u.id = o.${column})`;
const countryJson = (alias: string) => `json_build_object('id', ${alias}.id, 'iso', ${alias}.iso, 'name', ${alias}.name)`;
const addressSelect = (prefix: string) => ["name", "address1", "address2", "city", "state", "postal_code"].map((column) => `o.${prefix}_${column}`).join(", ");
// pg reads a date as midnight in the process's time zone; Prisma, and so toView, as UTC midnight.
// Turned into that instant (a timestamptz), both drivers read it as Prisma does.
const dayColumn = (column: string) => `(o.${column}::timestamp AT TIME ZONE 'UTC') AS ${column}`;

const ACTIVITY_COLUMNS = "a.id, a.action, a.actor_type, a.actor_id, a.before, a.after, a.created_at";

/**
 * Every column and relation of OrderRecord, the order's most recent activities only. Variants and
 * products are looked up by primary key per item, so the plan never depends on the catalog's
 * statistics.
 */
const SELECT_ORDERS = Prisma.raw(`
SELECT o.id, o.order_number, o.status, o.subscription_plan_id, o.subscription_interval, o.subscription_interval_unit,
       o.subtotal, o.discount, o.tax, o.shipping, o.total, o.created_at, o.updated_at, ${dayColumn("bill_date")}, ${dayColumn("next_bill_date")},
       o.skips_count, o.cancellation_reason, o.additional_feedback, ${addressSelect("ship_to")}, ${addressSelect("bill_to")},
       json_build_object('code', cu.code, 'decimal_places', cu.decimal_places) AS currency,
       ${countryJson("sc")} AS ship_to_country, ${countryJson("bc")} AS bill_to_country,
       ${personJson("customer_id")} AS customer, ${personJson("user_id")} AS "user", ${personJson("buyer_id")} AS buyer,
       (SELECT json_build_object('id', pm.id, 'kind', pm.kind, 'card_type', pm.card_type, 'last_four', pm.last_four,
                                 'exp_month', pm.exp_month, 'exp_year', pm.exp_year, 'paypal_email', pm.paypal_email)
          FROM payment_methods pm WHERE pm.id = o.payment_method_id) AS payment_method,
       (SELECT COALESCE(json_agg(json_build_object(
                 'id', i.id, 'variant_id', i.variant_id, 'quantity', i.quantity, 'option_value_ids', i.option_value_ids,
                 'unit_price', i.unit_price, 'subtotal', i.subtotal, 'discount', i.discount, 'tax', i.tax,
                 'variant', (SELECT json_build_object('id', v.id, 'product_id', v.product_id, 'sku', v.sku, 'title', v.title, 'image_url', v.image_url,
                                                      'product', (SELECT json_build_object('id', p.id, 'title', p.title, 'image_url', p.image_url)
                                                                    FROM products p WHERE p.id = v.product_id))
                               FROM variants v WHERE v.id = i.variant_id))
               ORDER BY i.position), '[]'::json)
          FROM subscription_order_items i WHERE i.subscription_order_id = o.id) AS items,
       (SELECT COALESCE(json_agg(json_build_object('id', a.id, 'action', a.action, 'actor_type', a.actor_type, 'actor_id', a.actor_id,
                                                   'before', a.before, 'after', a.after, 'created_at', a.created_at) ORDER BY a.id), '[]'::json)
          FROM (SELECT ${ACTIVITY_COLUMNS} FROM subscription_order_activities a WHERE a.subscription_order_id = o.id
                ORDER BY a.id DESC LIMIT ${RECENT_ACTIVITIES}) a) AS activities,
       (SELECT count(*)::int FROM subscription_order_activities a WHERE a.subscription_order_id = o.id) AS activities_count
  FROM subscription_orders o
  JOIN currencies cu ON cu.code = o.currency_code
  JOIN countries sc ON sc.id = o.ship_to_country_id
  JOIN countries bc ON bc.id = o.bill_to_country_id`);

/** A row of SELECT_ORDERS: an OrderRecord whose activities' timestamps are still JSON strings. */
type OrderSqlRow = Omit<OrderRecord, "activities"> & { activities: Array<Omit<ActivityRecord, "created_at"> & { created_at: string }> };

function recordOf(row: OrderSqlRow): OrderRecord {
  return { ...row, activities: row.activities.map((activity) => ({ ...activity, created_at: new Date(activity.created_at) })) };
}

/**
 * By id, or by order number (the unique index on company and order number). Each statement's text
 * is the same for every call, so it is prepared once per connection.
 */
export async function readOrder(ctx: SqlServiceContext, idOrNumber: number | string): Promise<OrderRecord> {
  const [statement, name] =
    typeof idOrNumber === "number"
      ? [Prisma.sql`${SELECT_ORDERS} WHERE o.company_id = ${ctx.companyId} AND o.id = ${idOrNumber}`, "subscription-order-by-id"]
      : [Prisma.sql`${SELECT_ORDERS} WHERE o.company_id = ${ctx.companyId} AND o.order_number = ${idOrNumber}`, "subscription-order-by-number"];
  const [row] = await ctx.sql.query<OrderSqlRow>(statement.text, statement.values, name);
  if (!row) throw new NotFoundError("Subscription order not found");
  return recordOf(row);
}

/** The list's and the stats' filters, on `o` (subscription_orders). */
function filtersSql(ctx: SqlServiceContext, filters: SubscriptionOrderFilters): Prisma.Sql {
  const conditions = [Prisma.sql`o.company_id = ${ctx.companyId}`];
  const equal = (column: string, value: number | string | undefined) => {
    if (value !== undefined) conditions.push(Prisma.sql`${Prisma.raw(`o.${column}`)} = ${value}`);
  };
  equal("customer_id", filters.customer_id);
  equal("buyer_id", filters.buyer_id);
  equal("user_id", filters.user_company_id);
  equal("status", filters.status);
  const country = filters.ship_to_country_id;
  if (country !== undefined) {
    // An unknown code matches no subscription, as an unknown id does.
    conditions.push(
      /^\d+$/.test(country)
        ? Prisma.sql`o.ship_to_country_id = ${Number(country)}`
        : Prisma.sql`o.ship_to_country_id = (SELECT c.id FROM countries c WHERE c.iso = ${country.toUpperCase()})`,
    );
  }
  if (filters.next_bill_date_start_date) conditions.push(Prisma.sql`o.next_bill_date >= ${filters.next_bill_date_start_date}::date`);
  if (filters.next_bill_date_end_date) conditions.push(Prisma.sql`o.next_bill_date <= ${filters.next_bill_date_end_date}::date`);
  return Prisma.join(conditions, " AND ");
}

/**
 * The page's orders are chosen first, on the bare table, and only they are built as json: with
 * the json in the select list of the LIMIT and OFFSET, PostgreSQL built it for every order OFFSET
 * skipped (docs/performance.md, change 35).
 */
export async function readOrderPage(ctx: SqlServiceContext, query: SubscriptionOrderListQuery): Promise<{ records: OrderRecord[]; total: number }> {
  const where = filtersSql(ctx, query);
  const { skip, take } = pageWindow(query);
  // Its text depends on which filters are given, so it is not prepared.
  const rowsStatement = Prisma.sql`
    WITH page AS (SELECT o.id FROM subscription_orders o WHERE ${where} ORDER BY o.next_bill_date, o.id LIMIT ${take} OFFSET ${skip})
    ${SELECT_ORDERS} JOIN page ON page.id = o.id WHERE o.company_id = ${ctx.companyId} ORDER BY o.next_bill_date, o.id`;
  const countStatement = Prisma.sql`SELECT count(*)::int AS count FROM subscription_orders o WHERE ${where}`;
  const [rows, [counted]] = await Promise.all([
    ctx.sql.query<OrderSqlRow>(rowsStatement.text, rowsStatement.values),
    ctx.sql.query<{ count: number }>(countStatement.text, countStatement.values),
  ]);
  return { records: rows.map(recordOf), total: counted?.count ?? 0 };
}

export async function countByStatus(ctx: SqlServiceContext, filters: SubscriptionOrderFilters): Promise<Map<string, number>> {
  const statement = Prisma.sql`SELECT o.status, count(*)::int AS count FROM subscription_orders o WHERE ${filtersSql(ctx, filters)} GROUP BY o.status`;
  const rows = await ctx.sql.query<{ status: string; count: number }>(statement.text, statement.values);
  return new Map(rows.map((row) => [row.status, row.count]));
}

/**
 * A page of the order's activities, oldest first, and how many it has; 404 for an order that is
 * not the company's. The skipped activities are passed over in the index, never built.
 */
export async function readActivityPage(ctx: SqlServiceContext, orderId: number, page: PageRequest): Promise<{ records: ActivityRecord[]; total: number }> {
  const { skip, take } = pageWindow(page);
  const [[order], records] = await Promise.all([
    ctx.sql.query<{ activities_count: number }>(
      `SELECT (SELECT count(*)::int FROM subscription_order_activities a WHERE a.subscription_order_id = o.id) AS activities_count
         FROM subscription_orders o WHERE o.company_id = $1 AND o.id = $2`,
      [ctx.companyId, orderId],
      "subscription-order-activities-count",
    ),
    ctx.sql.query<ActivityRecord>(
      `SELECT ${ACTIVITY_COLUMNS} FROM subscription_order_activities a
        WHERE a.company_id = $1 AND a.subscription_order_id = $2 ORDER BY a.id LIMIT $3 OFFSET $4`,
      [ctx.companyId, orderId, take, skip],
      "subscription-order-activity-page",
    ),
  ]);
  if (!order) throw new NotFoundError("Subscription order not found");
  return { records, total: order.activities_count };
}
