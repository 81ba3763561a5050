import { randomBytes } from "node:crypto";
import { createCompany } from "../../src/domain/companies/service.js";
import { createSavedCard } from "../../src/domain/payment-methods/service.js";
import { createUser, type UserInput } from "../../src/domain/users/service.js";
import { issueCompanyToken } from "../../src/platform/auth/company-tokens.js";
import { signUserToken, type UserRole, userTokenKey } from "../../src/platform/auth/user-tokens.js";
import type { Db } from "../../src/platform/db/database.js";
import { TEST_JWT_SECRET } from "./secrets.js";

// The rows tests stand on. Catalog rows are written straight to the database, because the admin
// APIs that manage some of them are other areas' to test; companies, users and cards go through
// the services the CLI and the API use. Prices are minor units keyed by country ISO code.

const unique = () => randomBytes(4).toString("hex");

export interface CompanyFixture {
  id: number;
  name: string;
  shop: string;
  token: string;
}

/** A company with a live API token, made through the same services the CLI uses. */
export async function createCompanyWithToken(db: Db, name = "Acme"): Promise<CompanyFixture> {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${randomBytes(3).toString("hex")}`;
  const company = await createCompany(db, { name, shop: `${slug}.example.com` });
  return { id: company.id, name: company.name, shop: company.shop_domain, token: await issueCompanyToken(db, company.id) };
}

export async function countryId(db: Db, iso: string): Promise<number> {
  return (await db.country.findUniqueOrThrow({ where: { iso } })).id;
}

/** Enables a reference country (by ISO code) for the company; upserts, as teachings ask for the same country more than once. */
export async function enableCompanyCountry(db: Db, companyId: number, iso: string) {
  const country_id = await countryId(db, iso);
  return db.companyCountry.upsert({
    where: { company_id_country_id: { company_id: companyId, country_id } },
    create: { company_id: companyId, country_id },
    update: {},
  });
}

export async function setTaxRate(db: Db, companyId: number, iso: string, rate: string) {
  const country_id = await countryId(db, iso);
  return db.taxRate.upsert({
    where: { company_id_country_id: { company_id: companyId, country_id } },
    create: { company_id: companyId, country_id, rate },
    update: { rate },
  });
}

export interface VariantSpec {
  sku?: string;
  title?: string | null;
  prices?: Record<string, number>;
  repPrices?: Record<string, number>;
  cv?: number;
  qv?: number;
  inventory?: number | null;
  taxCategory?: "standard" | "exempt";
  imageUrl?: string | null;
  active?: boolean;
}

export async function createVariant(db: Db, companyId: number, productId: number, spec: VariantSpec = {}) {
  const prices = Object.entries(spec.prices ?? { US: 1999 }).map(([iso, price]) => ({ country: { connect: { iso } }, price, rep_price: spec.repPrices?.[iso] ?? null }));
  return db.variant.create({
    data: {
      company_id: companyId,
      product_id: productId,
      sku: spec.sku ?? `SKU-${unique()}`,
      title: spec.title === undefined ? "Default" : spec.title,
      image_url: spec.imageUrl ?? null,
      cv: spec.cv ?? 0,
      qv: spec.qv ?? 0,
      inventory_quantity: spec.inventory ?? null,
      tax_category: spec.taxCategory ?? "standard",
      active: spec.active ?? true,
      prices: { create: prices },
    },
  });
}

export interface ProductSpec {
  title?: string;
  imageUrl?: string | null;
  active?: boolean;
  variants?: VariantSpec[];
}

/** A product with its variants (one US-priced variant unless told); `variant` is the first. */
export async function createProduct(db: Db, companyId: number, spec: ProductSpec = {}) {
  const product = await db.product.create({
    data: { company_id: companyId, title: spec.title ?? "Vitamin C", image_url: spec.imageUrl ?? null, active: spec.active ?? true },
  });
  const variants = [];
  for (const variant of spec.variants ?? [{}]) variants.push(await createVariant(db, companyId, product.id, variant));
  return { product, variants, variant: variants[0] as (typeof variants)[number] };
}

export async function createEnrollmentPack(db: Db, companyId: number, spec: { title?: string; price?: string; variants?: Array<{ id: number; quantity?: number }> } = {}) {
  return db.enrollmentPack.create({
    data: {
      company_id: companyId,
      title: spec.title ?? "Starter pack",
      price: spec.price ?? "49.00",
      variants: { create: (spec.variants ?? []).map((variant) => ({ variant_id: variant.id, quantity: variant.quantity ?? 1 })) },
    },
  });
}

type IntervalUnit = "day" | "week" | "month" | "year";

export interface PlanSpec {
  name?: string;
  interval?: number;
  unit?: IntervalUnit;
  trialPeriod?: number | null;
  trialUnit?: IntervalUnit | null;
  allowSkipping?: boolean | null;
  maxSkips?: number | null;
  adjustmentType?: "percentage" | "fixed_amount" | null;
  adjustmentAmount?: string | null;
  active?: boolean;
  productIds?: number[];
  defaultFor?: number[];
}

export async function createPlan(db: Db, companyId: number, spec: PlanSpec = {}) {
  return db.subscriptionPlan.create({
    data: {
      company_id: companyId,
      name: spec.name ?? "Monthly",
      billing_interval: spec.interval ?? 1,
      billing_interval_unit: spec.unit ?? "month",
      trial_period: spec.trialPeriod ?? null,
      trial_period_unit: spec.trialUnit ?? null,
      allow_skipping: spec.allowSkipping === undefined ? true : spec.allowSkipping,
      max_skips: spec.maxSkips ?? null,
      price_adjustment_type: spec.adjustmentType ?? null,
      price_adjustment_amount: spec.adjustmentAmount ?? null,
      active: spec.active ?? true,
      products: { create: (spec.productIds ?? []).map((product_id) => ({ product_id, default: spec.defaultFor?.includes(product_id) ?? false })) },
    },
  });
}

export async function createShippingMethod(db: Db, companyId: number, spec: { name?: string; country?: string; price: number; freeOver?: number | null; active?: boolean }) {
  return db.shippingMethod.create({
    data: {
      company_id: companyId,
      country_id: await countryId(db, spec.country ?? "US"),
      name: spec.name ?? "Standard",
      price: spec.price,
      free_over: spec.freeOver ?? null,
      active: spec.active ?? true,
    },
  });
}

export async function createDiscount(
  db: Db,
  companyId: number,
  spec: { code: string; kind?: "percentage" | "fixed_amount"; amount: string; scope?: "order" | "product" | "shipping"; productIds?: number[]; usageLimit?: number | null; usageCount?: number; startsAt?: Date | null; endsAt?: Date | null; active?: boolean },
) {
  return db.discount.create({
    data: {
      company_id: companyId,
      code: spec.code.toUpperCase(),
      kind: spec.kind ?? "percentage",
      amount: spec.amount,
      scope: spec.scope ?? "order",
      product_ids: spec.productIds ?? [],
      usage_limit: spec.usageLimit ?? null,
      usage_count: spec.usageCount ?? 0,
      starts_at: spec.startsAt ?? null,
      ends_at: spec.endsAt ?? null,
      active: spec.active ?? true,
    },
  });
}

/** A rep or customer of the company, with the user token its storefront calls carry. */
export async function createUserWithToken(db: Db, companyId: number, role: UserRole, options: Partial<Omit<UserInput, "companyId" | "role">> = {}) {
  const user = await createUser(db, { email: `${role}-${unique()}@example.com`, firstName: role === "rep" ? "Rita" : "Carl", lastName: "Buyer", ...options, companyId, role });
  return { user, token: await signUserToken({ userId: user.id, companyId, role }, userTokenKey(TEST_JWT_SECRET)) };
}

export async function createCard(db: Db, customerId: number, options: { lastFour?: string; expMonth?: number; expYear?: number } = {}) {
  return createSavedCard(db, { customerId, cardType: "visa", lastFour: options.lastFour ?? "4242", expMonth: options.expMonth ?? 12, expYear: options.expYear ?? 2030 });
}
