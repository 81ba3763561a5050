import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { blankFilter, searchQuery, timestamp, visibleName } from "../../platform/http/schemas.js";
import { countryCode, decimalString } from "./fields.js";

const shippingMethodFields = {
  name: visibleName(255),
  country_code: countryCode.describe("The country it ships to; price and free_over are in its currency"),
  price: decimalString,
  free_over: decimalString.nullable().optional().describe("Shipping is free when the subtotal after discounts reaches this; null: never"),
  active: z.boolean().optional().describe("default true"),
};

export const shippingMethodCreateBody = z.object({ shipping_method: z.object(shippingMethodFields) });
export const shippingMethodUpdateBody = z.object({ shipping_method: z.object(shippingMethodFields).partial() });

export const shippingMethodListQuery = paginationQuery().extend({
  country_code: blankFilter(countryCode).describe("Only the methods of this country; blank filters nothing"),
  search_query: searchQuery.describe("Case-insensitive match on the name"),
});

export const shippingMethodSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    country_code: z.string(),
    currency_code: z.string(),
    price: z.string(),
    free_over: z.string().nullable(),
    active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "ShippingMethod" });

export type ShippingMethodListQuery = z.infer<typeof shippingMethodListQuery>;
export type ShippingMethodCreateInput = z.infer<typeof shippingMethodCreateBody>["shipping_method"];
export type ShippingMethodUpdateInput = z.infer<typeof shippingMethodUpdateBody>["shipping_method"];
export type ShippingMethodView = z.infer<typeof shippingMethodSchema>;
