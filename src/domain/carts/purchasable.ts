import type { Prisma } from "../../generated/prisma/client.js";
import type { SqlTransaction } from "../../platform/db/sql.js";
import { isInt32Id } from "../../platform/http/schemas.js";
import type { SkippedItem } from "./schemas.js";
import { parseRowJson } from "./sql-json.js";

// Which variants a cart may take: the company's own, active, not deleted, of an active product,
// priced in the cart's country and, when inventory is tracked, in stock.

const variantInclude = { product: { include: { subscription_plans: true } }, prices: true } satisfies Prisma.VariantInclude;
type CatalogVariant = Prisma.VariantGetPayload<{ include: typeof variantInclude }>;

/** What the variants statement returns per variant: rows, nested here (see cart-state.ts). */
interface VariantRows {
  variant: Prisma.VariantGetPayload<object>;
  product: Prisma.ProductGetPayload<object>;
  plans: Prisma.ProductSubscriptionPlanGetPayload<object>[] | null;
  prices: Prisma.VariantPriceGetPayload<object>[] | null;
}

/**
 * The variants among `variantIds` of the company, each with its product, plan links and prices:
 * one statement, built with json and nested in JavaScript (building jsonb took 0.44 ms of
 * PostgreSQL's time per call under the bench's load).
 */
export async function findVariants(sql: SqlTransaction, companyId: number, variantIds: readonly number[]): Promise<Map<number, CatalogVariant>> {
  const ids = [...new Set(variantIds)].filter(isInt32Id);
  if (ids.length === 0) return new Map();
  const rows = await sql.query<{ rows: string }>(
    `SELECT json_build_object('variant', row_to_json(v), 'product', row_to_json(p),
              'plans', (SELECT json_agg(psp) FROM product_subscription_plans psp WHERE psp.product_id = p.id),
              'prices', (SELECT json_agg(vp) FROM variant_prices vp WHERE vp.variant_id = v.id))::text AS rows
     FROM variants v JOIN products p ON p.id = v.product_id
     WHERE v.id = ANY ($1::int[]) AND v.company_id = $2`,
    [ids, companyId],
    "carts.variants",
  );
  const variants = rows.map((row) => {
    const { variant, product, plans, prices } = parseRowJson<VariantRows>(row.rows);
    return { ...variant, product: { ...product, subscription_plans: plans ?? [] }, prices: prices ?? [] };
  });
  return new Map(variants.map((variant) => [variant.id, variant]));
}

/** What deciding whether a variant can be bought reads (a catalog variant, or a cart state's). */
export type PurchasableVariant = Pick<CatalogVariant, "id" | "sku" | "product_id" | "active" | "deleted_at" | "inventory_quantity"> & {
  product: Pick<CatalogVariant["product"], "active" | "deleted_at">;
  prices: Pick<CatalogVariant["prices"][number], "country_id">[];
};

/** Whether the catalog prices the variant in the country: a cart there can buy it only then. */
export function isPricedIn(variant: Pick<PurchasableVariant, "prices">, countryId: number): boolean {
  return variant.prices.some((price) => price.country_id === countryId);
}

/** The country a cart buys in, as a refusal names it. */
export interface CartCountry {
  id: number;
  name: string;
}

/**
 * Why a variant cannot be added to a cart of the country, or null when it can. A variant the
 * company sells but not in the country is named by its sku, as update_country names it; an
 * unknown, switched-off or deleted one (another company's is unknown here) only by the id sent,
 * so that no other company's sku shows.
 */
export function unavailability(variant: PurchasableVariant | undefined, variantId: number, country: CartCountry): SkippedItem | null {
  const sold = variant !== undefined && variant.active && variant.deleted_at === null && variant.product.active && variant.product.deleted_at === null;
  if (!sold) return { variant_id: variantId, reason: "variant_unavailable", message: `Variant ${variantId} is not available` };
  if (!isPricedIn(variant, country.id)) return { variant_id: variantId, reason: "variant_unavailable", message: `${variant.sku} is not available in ${country.name}` };
  if (variant.inventory_quantity !== null && variant.inventory_quantity <= 0) {
    return { variant_id: variantId, reason: "out_of_stock", message: `${variant.sku} is out of stock` };
  }
  return null;
}
