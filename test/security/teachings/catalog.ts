import { ownerCompanyCountry, ownerEnrollmentPack, ownerProduct, unique } from "./admin-resources.js";
import type { TeachingContext, Teachings } from "./types.js";

async function ownerDiscount(ctx: TeachingContext, productId: number): Promise<{ id: number; code: string }> {
  const code = unique("CODE").toUpperCase();
  const response = await ctx.call("POST", "/api/discounts", {
    token: ctx.owner.token,
    body: { discount: { code, kind: "percentage", amount: "10", scope: "product", product_ids: [productId] } },
  });
  if (response.status !== 201) throw new Error(`could not create a discount: ${response.status} ${response.text}`);
  return { id: response.body.discount.id, code };
}

async function ownerShippingMethod(ctx: TeachingContext): Promise<{ id: number; name: string }> {
  const name = unique("Ground");
  const response = await ctx.call("POST", "/api/shipping_methods", { token: ctx.owner.token, body: { shipping_method: { name, country_code: "US", price: "5.00" } } });
  if (response.status !== 201) throw new Error(`could not create a shipping method: ${response.status} ${response.text}`);
  return { id: response.body.shipping_method.id, name };
}

/** A rate no other teaching uses, so that it identifies the owner's row. */
async function ownerTaxRate(ctx: TeachingContext, countryCode: string, rate: string): Promise<void> {
  const response = await ctx.call("PUT", `/api/tax_rates/${countryCode}`, { token: ctx.owner.token, body: { tax_rate: { rate } } });
  if (response.status !== 200) throw new Error(`could not set a tax rate: ${response.status} ${response.text}`);
}

export const catalogTeachings: Teachings = {
  // Products: the request names nothing of the owner's but the path id; a create names nothing at all.
  "GET /api/products": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      return { query: { per_page: "100" }, markers: [product.title, product.sku] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/products": {
    // Run by both companies with the same SKU: a SKU is unique within a company, not across them.
    async setup() {
      return { body: { product: { title: unique("Product"), variants: [{ sku: unique("SKU"), prices: [{ country_code: "US", price: "9.50", rep_price: "8.00" }] }] } } };
    },
    isolation: { expect: "own_rows_written" },
  },
  "GET /api/products/{id}": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      return { params: { id: String(product.id) }, markers: [product.title, product.sku] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/products/{id}": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      return {
        params: { id: String(product.id) },
        body: { product: { title: unique("Renamed"), variants: [{ id: product.variantId, prices: [{ country_code: "US", price: "21.00" }] }] } },
        markers: [product.title, product.sku],
      };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/products/{id}": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      return { params: { id: String(product.id) }, markers: [product.title] };
    },
    isolation: { expect: "not_found" },
  },

  // Reference data: shared by every company, the same list for all; no tenant rows to leak.
  "GET /api/countries": { setup: async () => ({ query: { per_page: "100" } }), isolation: { expect: "own_rows_only" } },
  "GET /api/languages": { setup: async () => ({ query: { per_page: "100" } }), isolation: { expect: "own_rows_only" } },

  "GET /api/discounts": {
    async setup(ctx) {
      const discount = await ownerDiscount(ctx, (await ownerProduct(ctx)).id);
      return { query: { per_page: "100" }, markers: [discount.code] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/discounts": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      return { body: { discount: { code: unique("NEW"), kind: "fixed_amount", amount: "5.00", scope: "product", product_ids: [product.id] } } };
    },
    isolation: { expect: "foreign_reference", fields: ["discount.product_ids"] },
  },
  "GET /api/discounts/{id}": {
    async setup(ctx) {
      const discount = await ownerDiscount(ctx, (await ownerProduct(ctx)).id);
      return { params: { id: String(discount.id) }, markers: [discount.code] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/discounts/{id}": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      const discount = await ownerDiscount(ctx, product.id);
      return { params: { id: String(discount.id) }, body: { discount: { amount: "15", product_ids: [product.id], active: false } }, markers: [discount.code] };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/discounts/{id}": {
    async setup(ctx) {
      const discount = await ownerDiscount(ctx, (await ownerProduct(ctx)).id);
      return { params: { id: String(discount.id) }, markers: [discount.code] };
    },
    isolation: { expect: "not_found" },
  },

  "GET /api/shipping_methods": {
    async setup(ctx) {
      const method = await ownerShippingMethod(ctx);
      return { query: { per_page: "100", country_code: "us" }, markers: [method.name] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/shipping_methods": {
    async setup() {
      return { body: { shipping_method: { name: unique("Express"), country_code: "US", price: "12.00", free_over: "100.00" } } };
    },
    isolation: { expect: "own_rows_written" },
  },
  "GET /api/shipping_methods/{id}": {
    async setup(ctx) {
      const method = await ownerShippingMethod(ctx);
      return { params: { id: String(method.id) }, markers: [method.name] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/shipping_methods/{id}": {
    async setup(ctx) {
      const method = await ownerShippingMethod(ctx);
      return { params: { id: String(method.id) }, body: { shipping_method: { price: "6.00", active: false } }, markers: [method.name] };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/shipping_methods/{id}": {
    async setup(ctx) {
      const method = await ownerShippingMethod(ctx);
      return { params: { id: String(method.id) }, markers: [method.name] };
    },
    isolation: { expect: "not_found" },
  },

  // Tax rates are keyed by a shared country: a PUT sets the caller's own rate, never the owner's.
  "GET /api/tax_rates": {
    async setup(ctx) {
      await ownerTaxRate(ctx, "DE", "19.3571");
      return { markers: ["19.3571"] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "GET /api/tax_rates/{country_code}": {
    async setup(ctx) {
      await ownerTaxRate(ctx, "FR", "17.8642");
      return { params: { country_code: "FR" }, markers: ["17.8642"] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/tax_rates/{country_code}": {
    async setup(ctx) {
      await ownerTaxRate(ctx, "CA", "13.2468");
      return { params: { country_code: "ca" }, body: { tax_rate: { rate: "5" } }, markers: ["13.2468"] };
    },
    isolation: { expect: "own_rows_written" },
  },
  // The caller has no rate for the country: a 404, and the owner's rate stays.
  "DELETE /api/tax_rates/{country_code}": {
    async setup(ctx) {
      await ownerTaxRate(ctx, "IT", "21.4286");
      return { params: { country_code: "IT" }, markers: ["21.4286"] };
    },
    isolation: { expect: "not_found" },
  },

  // Company countries: each teaching its own country, so that they do not meet (and no agreement names the deleted one).
  "GET /api/company_countries": {
    async setup(ctx) {
      await ownerCompanyCountry(ctx, "AU");
      return { query: { per_page: "100" }, markers: ["Australia"] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/company_countries": {
    async setup() {
      return { body: { company_country: { country_code: "NZ" } } };
    },
    isolation: { expect: "own_rows_written" },
  },
  "GET /api/company_countries/{id}": {
    async setup(ctx) {
      return { params: { id: String(await ownerCompanyCountry(ctx, "MX")) }, markers: ["Mexico"] };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/company_countries/{id}": {
    async setup(ctx) {
      return { params: { id: String(await ownerCompanyCountry(ctx, "IE")) }, markers: ["Ireland"] };
    },
    isolation: { expect: "not_found" },
  },

  "GET /api/enrollment_packs": {
    async setup(ctx) {
      const pack = await ownerEnrollmentPack(ctx);
      return { query: { per_page: "100" }, markers: [pack.title] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/enrollment_packs": {
    async setup(ctx) {
      const product = await ownerProduct(ctx);
      return { body: { enrollment_pack: { title: unique("Pack"), price: "99.00", variant_ids: [product.variantId] } } };
    },
    isolation: { expect: "foreign_reference", fields: ["enrollment_pack.variant_ids"] },
  },
  "GET /api/enrollment_packs/{id}": {
    async setup(ctx) {
      const pack = await ownerEnrollmentPack(ctx);
      return { params: { id: String(pack.id) }, markers: [pack.title] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/enrollment_packs/{id}": {
    async setup(ctx) {
      const pack = await ownerEnrollmentPack(ctx);
      const product = await ownerProduct(ctx);
      return { params: { id: String(pack.id) }, body: { enrollment_pack: { price: "59.00", variant_ids: [product.variantId] } }, markers: [pack.title] };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/enrollment_packs/{id}": {
    async setup(ctx) {
      const pack = await ownerEnrollmentPack(ctx);
      return { params: { id: String(pack.id) }, markers: [pack.title] };
    },
    isolation: { expect: "not_found" },
  },
};
