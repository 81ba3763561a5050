import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { instantInput, int32Id, searchQuery, timestamp } from "../../platform/http/schemas.js";
import { currencyCode, decimalString, int32 } from "./fields.js";

const DISCOUNT_KINDS = ["percentage", "fixed_amount"] as const;
const DISCOUNT_SCOPES = ["order", "product", "shipping"] as const;

const dateTime = instantInput.describe("ISO 8601 date-time");

// Said where the limit is set and where it is read: a company setting it must not take it for enforced by this API alone.
const USAGE_LIMIT =
  "How many orders may use the code; null: unlimited. Uses are counted in usage_count by checkout, which this service does not run: nothing in this API counts a use, so the limit takes effect only once checkout counts uses";

const discountFields = {
  code: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "may contain only letters, digits, '-' and '_'")
    .describe("Case-insensitive; stored and shown upper-case"),
  kind: z.enum(DISCOUNT_KINDS),
  amount: decimalString.describe(
    'percentage: a percent, 0 < amount <= 100, up to 4 decimals ("12.5"); fixed_amount: units of currency_code, up to its decimals ("5.00" USD, "500" JPY), or without currency_code units of the cart\'s currency, up to 3 decimals',
  ),
  currency_code: currencyCode
    .nullable()
    .optional()
    .describe(
      "fixed_amount only (a 422 on a percentage code): the currency the amount is in; the code then applies only in carts of that currency (applying it to another is a 422, and a cart moved to another currency loses it with a warning). Null or absent: the amount applies as units of any cart's currency",
    ),
  scope: z.enum(DISCOUNT_SCOPES).describe("What the code reduces: the items (order), some products (product), or shipping"),
  product_ids: z
    .array(int32Id)
    .max(1000)
    .optional()
    .describe(
      "Product scope only: the products it applies to; on create, empty or absent: every product. On update the list replaces the products the code names; only ids it does not name yet must be live products, and emptying it on a product-scope code that names products is a 422 (it would widen the code to every product)",
    ),
  usage_limit: int32.min(1).nullable().optional().describe(USAGE_LIMIT),
  starts_at: dateTime.nullable().optional(),
  ends_at: dateTime.nullable().optional().describe("Must be after starts_at"),
  active: z.boolean().optional().describe("default true"),
};

export const discountCreateBody = z.object({ discount: z.object(discountFields) });
export const discountUpdateBody = z.object({ discount: z.object(discountFields).partial() });

export const discountListQuery = paginationQuery().extend({
  search_query: searchQuery.describe("Case-insensitive match on the code"),
});

export const discountSchema = z
  .object({
    id: z.number().int(),
    code: z.string(),
    kind: z.enum(DISCOUNT_KINDS),
    amount: z.string().describe('A percent ("10"), an amount of currency_code ("500" JPY), or without one an amount in the cart\'s currency ("5.00")'),
    currency_code: z.string().nullable().describe("The only currency a fixed code applies in; null: any (always null for a percentage code)"),
    scope: z.enum(DISCOUNT_SCOPES),
    product_ids: z
      .array(z.number().int())
      .describe("The live products a product-scope code applies to; empty, with deleted_product_ids empty too: every product"),
    deleted_product_ids: z
      .array(z.number().int())
      .describe(
        "Products the code named that were deleted since; they match no live product, so a product-scope code whose products were all deleted (product_ids empty, this not) discounts nothing. An update of product_ids that leaves them out drops them",
      ),
    usage_limit: z.number().int().nullable().describe(USAGE_LIMIT),
    usage_count: z
      .number()
      .int()
      .describe("Orders that have used the code, as checkout counts them; read-only, and nothing in this API counts a use, so it stays as checkout left it (0 for a code no checkout used)"),
    starts_at: timestamp.nullable(),
    ends_at: timestamp.nullable(),
    active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Discount" });

export type DiscountListQuery = z.infer<typeof discountListQuery>;
export type DiscountCreateInput = z.infer<typeof discountCreateBody>["discount"];
export type DiscountUpdateInput = z.infer<typeof discountUpdateBody>["discount"];
export type DiscountView = z.infer<typeof discountSchema>;
