import { z } from "zod";
import { pageNumberBounds, paginationQuery } from "../../platform/http/pagination.js";
import { blankFilter, httpUrl, idParam, INT32_MAX, int32Id, optionalOrNull, storableInstant, timestamp, wireInteger } from "../../platform/http/schemas.js";
import { PAYPAL_ID_MAX_LENGTH } from "../payments/paypal-client.js";
import { CREATABLE_STATUSES, SUBSCRIPTION_STATUSES } from "./lifecycle.js";
import { ORDER_NUMBER_PATTERN } from "./order-numbers.js";

// A date-time is ISO 8601 too, so zod's "Invalid ISO date" left a client sending one guessing.
const isoDate = storableInstant(z.iso.date({ error: "must be a calendar date, YYYY-MM-DD, without a time or time zone" })).describe("ISO 8601 calendar date, YYYY-MM-DD");
const text = (max: number) => z.string().trim().min(1).max(max);
const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();
const quantity = z.number().int().min(1).max(9_999);
const optionValueIds = z.array(int32Id).max(50);

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

const addressInput = z
  .object({
    country_id: optionalOrNull(int32Id).describe("A country's id (GET /api/countries); or send country_code"),
    country_code: optionalOrNull(z.string().regex(/^[A-Za-z]{2}$/, "must be a two-letter ISO country code")),
    name: text(200),
    address1: text(200),
    address2: optionalText(200),
    city: text(100),
    state: optionalText(100),
    postal_code: optionalText(20),
  });

const createItemInput = z.object({
  variant_id: int32Id,
  quantity,
  option_value_ids: optionalOrNull(optionValueIds),
});

export const subscriptionOrderCreateBody = z.object({
  subscription_order: z.object({
    customer_id: int32Id.describe("A customer of the company"),
    subscription_plan_id: int32Id,
    user_id: int32Id.nullable().optional().describe("The rep credited with the subscription"),
    buyer_id: int32Id.nullable().optional().describe("The buyer rep: rep prices apply"),
    items: z.array(createItemInput).min(1).max(100),
    ship_to: addressInput,
    bill_to: optionalOrNull(addressInput).describe("Defaults to ship_to"),
    payment_method_id: int32Id.nullable().optional().describe("One of the customer's saved payment methods, not an expired card"),
    next_bill_date: optionalOrNull(isoDate).describe("Defaults to today plus the plan's trial, else one billing interval"),
    status: optionalOrNull(z.enum(CREATABLE_STATUSES)).describe("Defaults to active with a payment method, else pending"),
  }),
});

const itemUpdateInput = z
  .object({
    id: optionalOrNull(int32Id).describe("A subscription order item's id: keeps that item"),
    variant_id: optionalOrNull(int32Id).describe("Without id: adds an item; with id: swaps that item's variant"),
    quantity,
    option_value_ids: optionalOrNull(optionValueIds),
  });

export const subscriptionOrderUpdateBody = z.object({
  update: z
    .boolean()
    .nullable()
    .optional()
    .describe("true: the items replace the order's items and are saved; otherwise the response previews the change and nothing is saved"),
  items: z.array(itemUpdateInput).max(100),
});

export const shippingAddressBody = z.object({ address: addressInput });

export const updatePaymentBody = z
  .discriminatedUnion("payment_method", [
    z
      .object({ payment_method: z.literal("credit_card"), card_id: int32Id.describe("One of the customer's saved cards, not expired (valid through its expiry month)") })
      .meta({ id: "SubscriptionOrderCardPayment" }),
    z
      .object({
        payment_method: z.literal("paypal"),
        return_url: httpUrl,
        cancel_url: httpUrl,
      })
      .meta({ id: "SubscriptionOrderPaypalPayment" }),
  ])
  .meta({
    id: "SubscriptionOrderPayment",
    // OpenAPI's own marker for a tagged union, so generated clients pick the variant by tag.
    // Request components get the "Input" suffix from the OpenAPI transform.
    discriminator: {
      propertyName: "payment_method",
      mapping: {
        credit_card: "#/components/schemas/SubscriptionOrderCardPaymentInput",
        paypal: "#/components/schemas/SubscriptionOrderPaypalPaymentInput",
      },
    },
  });

export const cancellationFeedbackBody = z.object({
  reason: optionalText(500),
  feedback: optionalText(5_000),
});

export const authorizePaypalQuery = z.object({
  token: z.string().min(1).max(PAYPAL_ID_MAX_LENGTH).describe("PayPal's approval token (the approval_token_id PayPal adds to return_url)"),
});

const filterQuery = {
  customer_id: blankFilter(idParam).describe("Blank filters nothing"),
  buyer_id: blankFilter(idParam).describe("Blank filters nothing"),
  ship_to_country_id: blankFilter(
    z
      .string()
      // The range only on what the pattern took: eleven digits failed both, with the same message twice (audit T).
      .regex(/^(\d{1,10}|[A-Za-z]{2})$/, { message: "must be a country id or a two-letter ISO code", abort: true })
      .refine((value) => !/^\d+$/.test(value) || Number(value) <= INT32_MAX, "must be a country id or a two-letter ISO code"),
  ).describe("A country id or a two-letter ISO code; blank filters nothing"),
  next_bill_date_start_date: blankFilter(isoDate).describe("Inclusive; blank filters nothing"),
  next_bill_date_end_date: blankFilter(isoDate).describe("Inclusive; blank filters nothing"),
  status: blankFilter(z.enum(SUBSCRIPTION_STATUSES)).describe("Blank filters nothing"),
};

export const subscriptionOrderListQuery = paginationQuery(25).extend({
  ...filterQuery,
  user_company_id: blankFilter(idParam).describe("The credited rep's user id; blank filters nothing"),
});

export const subscriptionOrderStatsQuery = z.object({
  ...filterQuery,
  page: wireInteger(pageNumberBounds.default(1)).describe("Accepted for compatibility; stats are not paged"),
});

export const subscriptionOrderIdParams = z.object({ id: idParam });

/** The retrieve's path names an order by id or by its order number (never digits only, so never an id). */
export const subscriptionOrderRetrieveParams = z.object({
  id: z
    .union([idParam, z.string().regex(ORDER_NUMBER_PATTERN)])
    .describe("The order's id, or its order_number (SO-000123): digits are an id, an order number starts with SO-"),
});

export const subscriptionOrderActivitiesQuery = paginationQuery(25);

export type AddressInput = z.infer<typeof addressInput>;
export type SubscriptionOrderCreateInput = z.infer<typeof subscriptionOrderCreateBody>["subscription_order"];
export type ItemUpdateInput = z.infer<typeof itemUpdateInput>;
export type SubscriptionOrderListQuery = z.infer<typeof subscriptionOrderListQuery>;
export type SubscriptionOrderFilters = Omit<SubscriptionOrderListQuery, "page" | "per_page">;

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

const amount = z.number().describe("In currency units, rounded to the currency's decimals");
const display = z.string().describe("With the currency symbol");

const addressView = z
  .object({
    name: z.string(),
    address1: z.string(),
    address2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable(),
    postal_code: z.string().nullable(),
    country_id: z.number().int(),
    country_code: z.string(),
    country_name: z.string(),
  })
  .meta({ id: "SubscriptionOrderAddress" });

const personView = z
  .object({ id: z.number().int(), email: z.string(), first_name: z.string().nullable(), last_name: z.string().nullable() })
  .meta({ id: "SubscriptionOrderPerson" });

const paymentMethodView = z
  .object({
    id: z.number().int(),
    kind: z.enum(["credit_card", "paypal"]),
    card_type: z.string().nullable(),
    last_four: z.string().nullable(),
    exp_month: z.number().int().nullable(),
    exp_year: z.number().int().nullable(),
    paypal_email: z.string().nullable(),
  })
  .meta({ id: "SubscriptionOrderPaymentMethod" });

const itemView = z
  .object({
    id: z.number().int(),
    variant_id: z.number().int(),
    product_id: z.number().int(),
    quantity: z.number().int(),
    option_value_ids: z.array(z.number().int()),
    price: amount.describe("Unit price after the plan's price adjustment"),
    display_price: display,
    subtotal: amount,
    display_subtotal: display,
    discount: amount,
    display_discount: display,
    tax: amount,
    display_tax: display,
    product: z.object({ id: z.number().int(), title: z.string(), image_url: z.string() }),
    variant: z.object({ id: z.number().int(), sku: z.string(), title: z.string().nullable(), image_url: z.string() }),
  })
  .meta({ id: "SubscriptionOrderItem" });

/** How many of its activities, the most recent, an order carries; GET .../activities pages through them all. */
export const RECENT_ACTIVITIES = 20;

const snapshotDescription = "What the change touched; a snapshot with money has `total` as the order showed it (in currency units) and its `currency_code`";

export const activityView = z
  .object({
    id: z.number().int(),
    action: z.string().describe(
      "What happened: created, items_updated, shipping_address_updated, paypal_approval_started, paypal_approval_superseded, payment_updated, skipped, cancelled, cancellation_feedback, reminder_email_queued, repriced",
    ),
    performed_by: z.object({ type: z.string(), id: z.string().nullable() }).describe(
      "Who did it: an API token (type `api_token`, id its display prefix), or the service itself (type `system`, id `repricing_catch_up`: a plan's repricing finished at server start)",
    ),
    before: z.record(z.string(), z.unknown()).nullable().describe(snapshotDescription),
    after: z.record(z.string(), z.unknown()).nullable().describe(snapshotDescription),
    created_at: timestamp,
  })
  .meta({ id: "SubscriptionOrderActivity" });

const subscriptionOrderFields = {
  id: z.number().int(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  subscription_plan_id: z.number().int().nullable().describe("null once the plan is deleted"),
  subscription_interval: z.number().int().describe("The billing interval the customer signed up for"),
  subscription_interval_unit: z.enum(["day", "week", "month", "year"]),
  currency_code: z.string(),
  amount: amount.describe("What the next bill charges: the total"),
  display_amount: display,
  subtotal: amount,
  display_subtotal: display,
  tax: amount,
  display_tax: display,
  discount: amount,
  display_discount: display,
  shipping: amount,
  display_shipping: display,
  total: amount,
  display_total: display,
  created_at: timestamp,
  updated_at: timestamp,
  bill_date: isoDate.nullable().describe("The last billing day"),
  next_bill_date: isoDate,
  days_until_next_bill_date: z.number().int(),
  skips_count: z.number().int(),
  cancellation_reason: z.string().nullable(),
  additional_feedback: z.string().nullable(),
  order_thumbnail: z.string().describe("The first item's image URL, \"\" when none"),
  bill_to: addressView,
  ship_to: addressView,
  customer: personView,
  user: personView.nullable(),
  buyer: personView.nullable(),
  payment_method: paymentMethodView.nullable(),
  items: z.array(itemView),
  activities: z
    .array(activityView)
    .describe(`The ${RECENT_ACTIVITIES} most recent, oldest first; GET /api/v2/subscription_orders/{id}/activities pages through them all`),
  activities_count: z.number().int().describe("How many activities the order has in all"),
};

// The specification shows order_number in the retrieve response only.
export const subscriptionOrderListItem = z.object(subscriptionOrderFields).meta({ id: "SubscriptionOrderListItem" });
export const subscriptionOrderShown = z
  .object({ ...subscriptionOrderFields, order_number: z.string() })
  .meta({ id: "SubscriptionOrder" });

export type SubscriptionOrderView = z.infer<typeof subscriptionOrderShown>;
export type ActivityView = z.infer<typeof activityView>;
