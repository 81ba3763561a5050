import { z } from "zod";
import { pageNumberBounds, perPageBounds } from "../../platform/http/pagination.js";
import { blankFilter, booleanQuery, idParam, int32Id, optionalOrNull, searchQuery, timestamp, visibleName, wireInteger } from "../../platform/http/schemas.js";
import { isValidDecimalString } from "../../platform/money.js";
import { PRICE_ADJUSTMENT_DECIMALS, PRICE_ADJUSTMENT_MAX } from "./rules.js";

const intervalUnit = z.enum(["day", "week", "month", "year"]);
const interval = z.number().int().min(1).max(29);
// The seed bounds these from below only; the upper bound keeps schedule arithmetic in range.
const count = z.number().int().min(1).max(1000);

const priceAdjustmentAmount = z
  .number()
  .min(0)
  .max(PRICE_ADJUSTMENT_MAX)
  // A negative amount already failed min(0): its decimals are not the problem to report.
  .refine((value) => value < 0 || isValidDecimalString(String(value), PRICE_ADJUSTMENT_DECIMALS), `must have at most ${PRICE_ADJUSTMENT_DECIMALS} decimal places`)
  .describe(
    "A percent (0..100, up to 4 decimals) for percentage; for fixed_amount an amount (up to 3 decimals) in the currency of the cart or order it prices, rounded half-even to that currency's decimals",
  );

const optionalFields = {
  trial_period: count.nullable().optional().describe("Required when trial_period_unit is set"),
  trial_period_unit: intervalUnit.nullable().optional().describe("Required when trial_period is set"),
  split_volume: z.boolean().optional().describe("Default false"),
  allow_skipping: z.boolean().optional().describe("Default true"),
  max_skips: count.nullable().optional(),
  allow_max_billing_cycles: z.boolean().optional().describe("Default false"),
  max_billing_cycles: count.nullable().optional().describe("Required when allow_max_billing_cycles is true"),
  price_adjustment_type: z.enum(["percentage", "fixed_amount"]).nullable().optional(),
  price_adjustment_amount: priceAdjustmentAmount.nullable().optional(),
  active: z.boolean().optional().describe("Default true"),
  company_default: z.boolean().optional().describe("At most one plan of a company is its default: setting it clears the other"),
};

const scheduleFields = {
  name: visibleName(255),
  billing_interval: interval,
  billing_interval_unit: intervalUnit,
  shipping_interval: interval,
  shipping_interval_unit: intervalUnit,
  volume_interval: interval,
  volume_interval_unit: intervalUnit,
};

const linkDefault = z.boolean().optional().describe("The product's default plan: setting it clears the product's other default");

const linkCreate = z.object({ product_id: int32Id, default: linkDefault });

const linkUpdate = z.object({
  id: optionalOrNull(int32Id).describe("A link of this plan: changes it; without id a link is added"),
  product_id: optionalOrNull(int32Id).describe("Required for a new link"),
  default: linkDefault,
  _destroy: z.boolean().optional().describe("With id: removes that link"),
  company_default: z.boolean().optional().describe("The seed lists it among a link's members; it sets the plan's company_default"),
});

/** The seed shows the links as one object; clients that link several products send an array. */
function linkList<Link extends z.ZodType<object>>(link: Link) {
  return z.union([z.array(link).max(500), link], { error: "must be a product link object or a list of them" });
}

// The seed's wording allows the links inside `subscription_plan` or beside it: both are read,
// and sending both is a 422 rather than a guess.
const OUTSIDE_LINKS = "Product links may also be sent here, beside subscription_plan (not in both places)";

export const planCreateBody = z.object({
  subscription_plan: z.object({
    ...scheduleFields,
    ...optionalFields,
    product_subscription_plans: linkList(linkCreate).optional().describe("Products this plan is offered for: one link, or a list of them"),
  }),
  product_subscription_plans: linkList(linkCreate).optional().describe(OUTSIDE_LINKS),
});

export const planUpdateBody = z.object({
  id: int32Id.optional().describe("When sent, must equal the id in the path"),
  subscription_plan: z.object({
    ...z.object(scheduleFields).partial().shape,
    ...optionalFields,
    product_subscription_plans: linkList(linkUpdate).optional().describe("One link, or a list of them"),
  }),
  product_subscription_plans: linkList(linkUpdate).optional().describe(OUTSIDE_LINKS),
});

const pageNumber = wireInteger(pageNumberBounds);
const perPage = wireInteger(perPageBounds);

const PLAN_SORT_ATTRIBUTES = ["id", "name", "created_at", "updated_at", "active", "company_default", "billing_interval"] as const;

export const planListQuery = z.object({
  page: pageNumber.optional().describe("Default 1"),
  per_page: perPage.optional().describe("Default 25"),
  "pagination[page]": pageNumber.optional().describe("The same as page; both may be sent only with the same value"),
  "pagination[per_page]": perPage.optional().describe("The same as per_page; both may be sent only with the same value"),
  active: blankFilter(booleanQuery).describe("Blank filters nothing"),
  product: blankFilter(idParam).describe("Only plans offered for this product; blank filters nothing"),
  search_query: searchQuery.describe("Case-insensitive match on the name"),
  sorted_by: z.enum(PLAN_SORT_ATTRIBUTES).default("created_at"),
  sort_direction: z.enum(["asc", "desc"]).default("desc"),
});

export const planSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    billing_interval: z.number().int(),
    billing_interval_unit: intervalUnit,
    billing_frequency_in_words: z.string().describe('"Every month", "Every 2 weeks"'),
    shipping_interval: z.number().int(),
    shipping_interval_unit: intervalUnit,
    volume_interval: z.number().int(),
    volume_interval_unit: intervalUnit,
    trial_period: z.number().int().nullable(),
    trial_period_unit: intervalUnit.nullable(),
    split_volume: z.boolean(),
    allow_skipping: z.boolean().nullable(),
    max_skips: z.number().int().nullable(),
    allow_max_billing_cycles: z.boolean(),
    max_billing_cycles: z.number().int().nullable(),
    price_adjustment_type: z.enum(["percentage", "fixed_amount"]).nullable(),
    price_adjustment_amount: z.number().nullable(),
    display_price_adjustment_amount: z
      .string()
      .nullable()
      .describe('The adjustment as text: "12.5%" for a percentage, "5.00" for a fixed amount (no currency symbol: the cart or order it prices gives the currency)'),
    active: z.boolean().nullable(),
    company_default: z.boolean().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    products_count: z.number().int().nullable(),
    subscribers_count: z.number().int().nullable().describe("Subscriptions of this plan that are not cancelled"),
    company: z.object({ id: z.number().int(), name: z.string() }),
    subscriptions: z.array(z.object({ id: z.number().int() })).describe("The subscriptions that are not cancelled"),
    products: z.array(z.object({ id: z.number().int() })),
    product_subscription_plans: z.array(z.object({ id: z.number().int(), product_id: z.number().int(), default: z.boolean() })),
  })
  .meta({ id: "SubscriptionPlan" });

export type PlanCreateBody = z.infer<typeof planCreateBody>;
export type PlanUpdateBody = z.infer<typeof planUpdateBody>;
export type PlanCreateInput = PlanCreateBody["subscription_plan"];
export type PlanUpdateInput = PlanUpdateBody["subscription_plan"];
export type PlanListQuery = z.infer<typeof planListQuery>;
export type PlanView = z.infer<typeof planSchema>;
export type LinkUpdateInput = z.infer<typeof linkUpdate>;
