import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { blankableName, httpUrl, int32Id, searchQuery, timestamp, visibleName } from "../../platform/http/schemas.js";
import { countryCode, decimalString, int32 } from "./fields.js";

const priceInput = z.object({
  country_code: countryCode,
  price: decimalString.describe("Retail unit price in the country's currency"),
  rep_price: decimalString.nullable().optional().describe("Unit price when a rep buys; null or absent: the retail price"),
});

const variantFields = {
  sku: z.string().trim().min(1).max(100).describe("Unique within the company"),
  // A title of spaces or invisible characters only is none, as null is.
  title: blankableName(255)
    .transform((title) => title || null)
    .nullable()
    .optional(),
  prices: z
    .array(priceInput)
    .min(1)
    .max(100)
    .describe("One price per country the variant sells in; on update the list replaces the variant's prices"),
  cv: int32.min(0).optional().describe("Unit commission volume; default 0"),
  qv: int32.min(0).optional().describe("Unit qualifying volume; default 0"),
  inventory_quantity: int32.min(0).nullable().optional().describe("null (the default): inventory is not tracked"),
  image_url: httpUrl.nullable().optional(),
  tax_category: z.enum(["standard", "exempt"]).optional().describe("default standard"),
  active: z.boolean().optional().describe("default true"),
};

const variantCreateInput = z.object(variantFields);

const variantUpdateInput = z
  .object({
    id: int32Id.optional().describe("Updates that variant of the product; without it the entry adds a variant"),
    ...z.object(variantFields).partial().shape,
  })
  .superRefine((entry, ctx) => {
    if (entry.id !== undefined) return;
    if (entry.sku === undefined) ctx.addIssue({ code: "custom", path: ["sku"], message: "is required" });
    if (entry.prices === undefined) ctx.addIssue({ code: "custom", path: ["prices"], message: "is required" });
  });

/** A product's view is every variant with every price, so a product has at most this many variants. */
export const MAX_VARIANTS_PER_PRODUCT = 100;

const productFields = {
  title: visibleName(255),
  description: z.string().max(20_000).nullable().optional(),
  image_url: httpUrl.nullable().optional(),
  active: z.boolean().optional().describe("default true"),
};

export const productCreateBody = z.object({
  product: z.object({ ...productFields, variants: z.array(variantCreateInput).min(1).max(MAX_VARIANTS_PER_PRODUCT).describe(`At most ${MAX_VARIANTS_PER_PRODUCT}`) }),
});

export const productUpdateBody = z.object({
  product: z.object({
    ...z.object(productFields).partial().shape,
    variants: z
      .array(variantUpdateInput)
      .max(MAX_VARIANTS_PER_PRODUCT)
      .optional()
      .describe(`Variants not listed are left as they are; entries without an id that would take the product past ${MAX_VARIANTS_PER_PRODUCT} variants are a 422`),
  }),
});

export const productListQuery = paginationQuery().extend({
  search_query: searchQuery.describe("Case-insensitive match on the product title or a variant's sku"),
});

const variantPriceSchema = z
  .object({
    country_code: z.string(),
    currency_code: z.string(),
    price: z.string().describe("Decimal string with the currency's decimal places"),
    rep_price: z.string().nullable(),
  })
  .meta({ id: "VariantPrice" });

const variantSchema = z
  .object({
    id: z.number().int(),
    product_id: z.number().int(),
    sku: z.string(),
    title: z.string().nullable(),
    image_url: z.string().nullable(),
    cv: z.number().int(),
    qv: z.number().int(),
    inventory_quantity: z.number().int().nullable().describe("null: not tracked"),
    tax_category: z.enum(["standard", "exempt"]),
    active: z.boolean(),
    prices: z.array(variantPriceSchema),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Variant" });

export const productSchema = z
  .object({
    id: z.number().int(),
    title: z.string(),
    description: z.string().nullable(),
    image_url: z.string().nullable(),
    active: z.boolean(),
    variants: z.array(variantSchema),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Product" });

export const productDeletedSchema = z
  .object({ id: z.number().int(), deleted_at: timestamp })
  .meta({ id: "ProductDeleted" });

export type ProductListQuery = z.infer<typeof productListQuery>;
export type ProductCreateInput = z.infer<typeof productCreateBody>["product"];
export type ProductUpdateInput = z.infer<typeof productUpdateBody>["product"];
export type VariantCreateInput = z.infer<typeof variantCreateInput>;
export type VariantUpdateInput = z.infer<typeof variantUpdateInput>;
export type PriceInput = z.infer<typeof priceInput>;
export type ProductView = z.infer<typeof productSchema>;
export type VariantView = z.infer<typeof variantSchema>;
