// Catalog, people and plans for subscription order tests, made with Prisma and our domain
// services (the admin endpoints for them are built elsewhere).
import { randomBytes } from "node:crypto";
import { createSavedCard } from "../../src/domain/payment-methods/service.js";
import { createUser } from "../../src/domain/users/service.js";
import type { Db } from "../../src/platform/db/database.js";

const unique = () => randomBytes(4).toString("hex");

export async function countryId(db: Db, iso: string): Promise<number> {
  return (await db.country.findUniqueOrThrow({ where: { iso } })).id;
}

export interface VariantFixture {
  id: number;
  productId: number;
  sku: string;
}

/** A product with one variant priced per country: prices in minor units by ISO code. */
export async function createVariant(
  db: Db,
  companyId: number,
  prices: Record<string, { price: number; rep_price?: number }>,
  options: { title?: string; taxCategory?: "standard" | "exempt"; imageUrl?: string; active?: boolean } = {},
): Promise<VariantFixture> {
  const sku = `SKU-${unique()}`;
  const product = await db.product.create({ data: { company_id: companyId, title: options.title ?? `Product ${sku}`, image_url: options.imageUrl ?? null } });
  const variant = await db.variant.create({
    data: {
      company_id: companyId,
      product_id: product.id,
      sku,
      title: "Default",
      cv: 10,
      qv: 5,
      tax_category: options.taxCategory ?? "standard",
      active: options.active ?? true,
    },
  });
  for (const [iso, price] of Object.entries(prices)) {
    await db.variantPrice.create({ data: { variant_id: variant.id, country_id: await countryId(db, iso), price: price.price, rep_price: price.rep_price ?? null } });
  }
  return { id: variant.id, productId: product.id, sku };
}

export async function setTaxRate(db: Db, companyId: number, iso: string, rate: string): Promise<void> {
  const country_id = await countryId(db, iso);
  await db.taxRate.upsert({
    where: { company_id_country_id: { company_id: companyId, country_id } },
    create: { company_id: companyId, country_id, rate },
    update: { rate },
  });
}

export async function createShippingMethod(db: Db, companyId: number, iso: string, price: number, freeOver: number | null = null) {
  return db.shippingMethod.create({ data: { company_id: companyId, country_id: await countryId(db, iso), name: `Ground ${unique()}`, price, free_over: freeOver } });
}

export interface PlanOptions {
  billing_interval?: number;
  billing_interval_unit?: "day" | "week" | "month" | "year";
  allow_skipping?: boolean | null;
  max_skips?: number | null;
  price_adjustment_type?: "percentage" | "fixed_amount" | null;
  price_adjustment_amount?: string | null;
  trial_period?: number | null;
  trial_period_unit?: "day" | "week" | "month" | "year" | null;
  active?: boolean;
  productIds?: number[];
}

export async function createPlan(db: Db, companyId: number, options: PlanOptions = {}) {
  const { productIds = [], ...columns } = options;
  return db.subscriptionPlan.create({
    data: {
      company_id: companyId,
      name: `Plan ${unique()}`,
      ...columns,
      products: { create: productIds.map((product_id) => ({ product_id })) },
    },
  });
}

export async function createCustomer(db: Db, companyId: number, firstName = "Casey") {
  return createUser(db, { companyId, role: "customer", email: `customer-${unique()}@example.com`, firstName, lastName: "Customer" });
}

export async function createRep(db: Db, companyId: number) {
  return createUser(db, { companyId, role: "rep", email: `rep-${unique()}@example.com`, firstName: "Robin", lastName: "Rep" });
}

export async function createCard(db: Db, customerId: number, lastFour = "4242") {
  return createSavedCard(db, { customerId, cardType: "visa", lastFour, expMonth: 12, expYear: 2030 });
}

export function usAddress(countryIdValue: number, overrides: Record<string, unknown> = {}) {
  return { country_id: countryIdValue, name: "Casey Customer", address1: "1 Main St", address2: "Apt 2", city: "Springfield", state: "IL", postal_code: "62701", ...overrides };
}
