import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { cartResponse } from "../../src/domain/carts/schemas.js";
import { createSavedCard } from "../../src/domain/payment-methods/service.js";
import { createUser } from "../../src/domain/users/service.js";
import { signUserToken } from "../../src/platform/auth/user-tokens.js";
import type { Db } from "../../src/platform/db/database.js";
import { createCompanyWithToken, type CompanyFixture } from "./fixtures.js";
import type { Call, HttpResponse } from "./http.js";
import { TEST_JWT_SECRET } from "./test-app.js";

// Catalog rows for cart tests, written straight to the database (the catalog admin API is
// built elsewhere); prices are minor units keyed by country iso.

export type Shop = CompanyFixture;

export const createShop = (db: Db, name = "Acme"): Promise<Shop> => createCompanyWithToken(db, name);

const countryIds = new Map<string, number>();
export async function countryId(db: Db, iso: string): Promise<number> {
  let id = countryIds.get(iso);
  if (id === undefined) {
    id = (await db.country.findUniqueOrThrow({ where: { iso } })).id;
    countryIds.set(iso, id);
  }
  return id;
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

export async function createProduct(db: Db, companyId: number, spec: { title?: string; imageUrl?: string | null; active?: boolean; variants?: VariantSpec[] } = {}) {
  const product = await db.product.create({
    data: { company_id: companyId, title: spec.title ?? "Vitamin C", image_url: spec.imageUrl ?? null, active: spec.active ?? true },
  });
  const variants = [];
  for (const variant of spec.variants ?? [{}]) {
    const prices = variant.prices ?? { US: 1999 };
    const created = await db.variant.create({
      data: {
        company_id: companyId,
        product_id: product.id,
        sku: variant.sku ?? `SKU-${randomBytes(4).toString("hex")}`,
        title: variant.title === undefined ? "Default" : variant.title,
        image_url: variant.imageUrl ?? null,
        cv: variant.cv ?? 0,
        qv: variant.qv ?? 0,
        inventory_quantity: variant.inventory === undefined ? null : variant.inventory,
        tax_category: variant.taxCategory ?? "standard",
        active: variant.active ?? true,
      },
    });
    for (const [iso, price] of Object.entries(prices)) {
      await db.variantPrice.create({
        data: { variant_id: created.id, country_id: await countryId(db, iso), price, rep_price: variant.repPrices?.[iso] ?? null },
      });
    }
    variants.push(created);
  }
  return { product, variants, variant: variants[0] as (typeof variants)[number] };
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

export async function setTaxRate(db: Db, companyId: number, iso: string, rate: string) {
  const country_id = await countryId(db, iso);
  return db.taxRate.upsert({
    where: { company_id_country_id: { company_id: companyId, country_id } },
    create: { company_id: companyId, country_id, rate },
    update: { rate },
  });
}

export async function createPlan(
  db: Db,
  companyId: number,
  spec: { name?: string; interval?: number; unit?: string; adjustmentType?: "percentage" | "fixed_amount" | null; adjustmentAmount?: string | null; productIds?: number[]; defaultFor?: number[]; active?: boolean },
) {
  const plan = await db.subscriptionPlan.create({
    data: {
      company_id: companyId,
      name: spec.name ?? "Monthly",
      billing_interval: spec.interval ?? 1,
      billing_interval_unit: spec.unit ?? "month",
      price_adjustment_type: spec.adjustmentType ?? null,
      price_adjustment_amount: spec.adjustmentAmount ?? null,
      active: spec.active ?? true,
    },
  });
  for (const productId of spec.productIds ?? []) {
    await db.productSubscriptionPlan.create({ data: { subscription_plan_id: plan.id, product_id: productId, default: spec.defaultFor?.includes(productId) ?? false } });
  }
  return plan;
}

export async function createEnrollmentPack(db: Db, companyId: number, spec: { title?: string; price: string; variants?: Array<{ id: number; quantity?: number }> }) {
  return db.enrollmentPack.create({
    data: {
      company_id: companyId,
      title: spec.title ?? "Starter pack",
      price: spec.price,
      variants: { create: (spec.variants ?? []).map((variant) => ({ variant_id: variant.id, quantity: variant.quantity ?? 1 })) },
    },
  });
}

/** A rep or customer of the company with a signed user token. */
export async function createBuyer(db: Db, companyId: number, role: "rep" | "customer", extra: { username?: string; shareGuid?: string; externalId?: string } = {}) {
  const user = await createUser(db, {
    companyId,
    role,
    email: `${role}-${randomBytes(4).toString("hex")}@example.com`,
    firstName: role === "rep" ? "Rita" : "Carl",
    lastName: "Buyer",
    ...(extra.username ? { username: extra.username } : {}),
    ...(extra.shareGuid ? { shareGuid: extra.shareGuid } : {}),
    ...(extra.externalId ? { externalId: extra.externalId } : {}),
  });
  const token = await signUserToken({ userId: user.id, companyId, role }, TEST_JWT_SECRET);
  return { user, token };
}

export const savedCard = (db: Db, customerId: number) => createSavedCard(db, { customerId, cardType: "visa", lastFour: "4242", expMonth: 12, expYear: 2030 });

/** Parses a cart response with the schema the OpenAPI document is generated from; every Cart member must be present. */
export function parseCart(response: HttpResponse) {
  expect(response.status, response.text).toBe(200);
  const parsed = cartResponse.parse(response.body);
  expect(Object.keys(response.body.cart).sort()).toEqual(Object.keys(cartResponse.shape.cart.shape).sort());
  return parsed;
}

/** Creates a cart over HTTP and returns its parsed body. */
export async function createCartOverHttp(call: Call, shop: Shop, body: Record<string, unknown> = {}, path = "/api/carts") {
  return parseCart(await call("POST", path, { body: { country_code: "US", svc_shop: shop.shop, ...body } }));
}
