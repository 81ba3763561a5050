// Stored rows -> the wire shape. Amounts are integer minor units in the database and JSON
// numbers on the wire (rounded to the currency's decimals), each with a display_* twin.

import type {
  Country,
  Currency,
  PaymentMethod,
  Product,
  SubscriptionOrder,
  SubscriptionOrderActivity,
  SubscriptionOrderItem,
  User,
  Variant,
} from "../../generated/prisma/client.js";
import { formatMoneyDisplay, minorToNumber } from "../../platform/money.js";
import { daysUntil, type IntervalUnit } from "../subscription-plans/schedule.js";
import { isoDay, statusOf } from "./records.js";
import type { ActivityView, SubscriptionOrderView } from "./schemas.js";

type CountryRecord = Pick<Country, "id" | "iso" | "name">;
type Person = Pick<User, "id" | "email" | "first_name" | "last_name">;
type AddressColumn = `${"ship_to" | "bill_to"}_${"name" | "address1" | "address2" | "city" | "state" | "postal_code"}`;

/**
 * The columns and relations orderView reads: what a change holds of its order (Prisma's OrderRow)
 * is one.
 */
type OrderFields = Pick<
  SubscriptionOrder,
  | "id"
  | "order_number"
  | "status"
  | "subscription_plan_id"
  | "subscription_interval"
  | "subscription_interval_unit"
  | "subtotal"
  | "discount"
  | "tax"
  | "shipping"
  | "total"
  | "created_at"
  | "updated_at"
  | "bill_date"
  | "next_bill_date"
  | "skips_count"
  | "cancellation_reason"
  | "additional_feedback"
  | AddressColumn
> & {
  currency: CurrencyRecord;
  ship_to_country: CountryRecord;
  bill_to_country: CountryRecord;
  customer: Person;
  user: Person | null;
  buyer: Person | null;
  payment_method: Pick<PaymentMethod, "id" | "kind" | "card_type" | "last_four" | "exp_month" | "exp_year" | "paypal_email"> | null;
  items: Array<
    Pick<SubscriptionOrderItem, "id" | "variant_id" | "quantity" | "option_value_ids" | "unit_price" | "subtotal" | "discount" | "tax"> & {
      variant: Pick<Variant, "id" | "product_id" | "sku" | "title" | "image_url"> & { product: Pick<Product, "id" | "title" | "image_url"> };
    }
  >;
};

export type ActivityRecord = Pick<SubscriptionOrderActivity, "id" | "action" | "actor_type" | "actor_id" | "before" | "after" | "created_at">;

/**
 * What toView reads: the order with its most recent activities (at most RECENT_ACTIVITIES, oldest
 * first) and how many it has. The plain-pg reads' row (sql-reads.ts) is one, and so is what a
 * change answers with (requireOrderRecord): one rendering for both.
 */
export type OrderRecord = OrderFields & { activities: ActivityRecord[]; activities_count: number };

function addressView(row: OrderFields, prefix: "ship_to" | "bill_to", country: CountryRecord) {
  return {
    name: row[`${prefix}_name`],
    address1: row[`${prefix}_address1`],
    address2: row[`${prefix}_address2`],
    city: row[`${prefix}_city`],
    state: row[`${prefix}_state`],
    postal_code: row[`${prefix}_postal_code`],
    country_id: country.id,
    country_code: country.iso,
    country_name: country.name,
  };
}

function personView(person: Person) {
  return { id: person.id, email: person.email, first_name: person.first_name, last_name: person.last_name };
}

type CurrencyRecord = Pick<Currency, "code" | "decimal_places">;

/**
 * An order's total as its activities record it: in the units the order's wire shows (84.39,
 * not 8439) and with its currency, because an address change can move the order to another
 * currency between an activity's before and after.
 */
export function totalSnapshot(order: { total: number; currency: CurrencyRecord }) {
  return { total: minorToNumber(order.total, order.currency.decimal_places), currency_code: order.currency.code };
}

export function activityView(activity: ActivityRecord): ActivityView {
  return {
    id: activity.id,
    action: activity.action,
    performed_by: { type: activity.actor_type, id: activity.actor_id },
    before: activity.before as Record<string, unknown> | null,
    after: activity.after as Record<string, unknown> | null,
    created_at: activity.created_at.toISOString(),
  };
}

/** The order without its activities (what the reminder mail quotes). */
export function orderView(row: OrderFields, now: Date): Omit<SubscriptionOrderView, "activities" | "activities_count"> {
  const { code, decimal_places: places } = row.currency;
  const amount = (minor: number) => minorToNumber(minor, places);
  const display = (minor: number) => formatMoneyDisplay(minor, code, places);
  const firstItem = row.items[0];
  const method = row.payment_method;
  return {
    id: row.id,
    order_number: row.order_number,
    status: statusOf(row),
    subscription_plan_id: row.subscription_plan_id,
    subscription_interval: row.subscription_interval,
    subscription_interval_unit: row.subscription_interval_unit as IntervalUnit,
    currency_code: code,
    amount: amount(row.total),
    display_amount: display(row.total),
    subtotal: amount(row.subtotal),
    display_subtotal: display(row.subtotal),
    tax: amount(row.tax),
    display_tax: display(row.tax),
    discount: amount(row.discount),
    display_discount: display(row.discount),
    shipping: amount(row.shipping),
    display_shipping: display(row.shipping),
    total: amount(row.total),
    display_total: display(row.total),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    bill_date: row.bill_date ? isoDay(row.bill_date) : null,
    next_bill_date: isoDay(row.next_bill_date),
    days_until_next_bill_date: daysUntil(row.next_bill_date, now),
    skips_count: row.skips_count,
    cancellation_reason: row.cancellation_reason,
    additional_feedback: row.additional_feedback,
    order_thumbnail: firstItem ? (firstItem.variant.image_url ?? firstItem.variant.product.image_url ?? "") : "",
    bill_to: addressView(row, "bill_to", row.bill_to_country),
    ship_to: addressView(row, "ship_to", row.ship_to_country),
    customer: personView(row.customer),
    user: row.user ? personView(row.user) : null,
    buyer: row.buyer ? personView(row.buyer) : null,
    payment_method: method
      ? {
          id: method.id,
          kind: method.kind as "credit_card" | "paypal",
          card_type: method.card_type,
          last_four: method.last_four,
          exp_month: method.exp_month,
          exp_year: method.exp_year,
          paypal_email: method.paypal_email,
        }
      : null,
    items: row.items.map((item) => ({
      id: item.id,
      variant_id: item.variant_id,
      product_id: item.variant.product_id,
      quantity: item.quantity,
      option_value_ids: item.option_value_ids,
      price: amount(item.unit_price),
      display_price: display(item.unit_price),
      subtotal: amount(item.subtotal),
      display_subtotal: display(item.subtotal),
      discount: amount(item.discount),
      display_discount: display(item.discount),
      tax: amount(item.tax),
      display_tax: display(item.tax),
      product: { id: item.variant.product.id, title: item.variant.product.title, image_url: item.variant.product.image_url ?? "" },
      variant: { id: item.variant.id, sku: item.variant.sku, title: item.variant.title, image_url: item.variant.image_url ?? "" },
    })),
  };
}

export function toView(record: OrderRecord, now: Date): SubscriptionOrderView {
  return { ...orderView(record, now), activities_count: record.activities_count, activities: record.activities.map(activityView) };
}
