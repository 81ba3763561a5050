import { createProduct } from "../../src/domain/catalog/products.js";
import type { ProductCreateInput } from "../../src/domain/catalog/product-schemas.js";
import type { ServiceContext } from "../../src/platform/context.js";
import { systemClock } from "../../src/platform/clock.js";
import type { Db } from "../../src/platform/db/database.js";

export function catalogContext(db: Db, companyId: number): ServiceContext {
  return { db, clock: systemClock, companyId };
}

let skuCounter = 0;

/** A product with one US-priced variant (19.99, rep 15.00), through the catalog service. */
export async function createTestProduct(db: Db, companyId: number, overrides: Partial<ProductCreateInput> = {}) {
  skuCounter += 1;
  return createProduct(catalogContext(db, companyId), {
    title: `Product ${skuCounter}`,
    variants: [{ sku: `SKU-${process.pid}-${skuCounter}`, prices: [{ country_code: "US", price: "19.99", rep_price: "15.00" }] }],
    ...overrides,
  });
}
