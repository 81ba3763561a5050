import { describe, expect, inject, it } from "vitest";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import { statementsSentDuring } from "../../helpers/database-reads.js";
import { type CompanyFixture, createEnrollmentPack, createPlan, createProduct, createUserWithToken } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { addSubscriptionOrder } from "../../helpers/subscription-orders.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

const lines = (cartToken: string) => t.db.prisma.cartItem.findMany({ where: { cart: { cart_token: cartToken } }, orderBy: { id: "asc" } });

describe("POST /api/carts/{cart_token}/items", () => {
  it("adds lines, adds to the variant's existing line, sets a line's quantity by item_id and removes with quantity 0", async () => {
    const { variant: a } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
    const { variant: b } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 250 } }] });
    const { cart } = await createCartOverHttp(call, acme);
    const path = `/api/carts/${cart.cart_token}/items`;

    const added = parseCart(await call("POST", path, { body: { items: [{ variant_id: a.id, quantity: 2 }, { variant_id: b.id, quantity: 1 }] } }));
    expect(added.cart.items.map((item) => [item.variant_id, item.quantity])).toEqual([[a.id, 2], [b.id, 1]]);
    expect(added.cart.sub_total).toBe("22.50");

    const merged = parseCart(await call("POST", path, { body: { items: [{ variant_id: a.id, quantity: 3 }] } }));
    expect(merged.cart.items.map((item) => [item.variant_id, item.quantity])).toEqual([[a.id, 5], [b.id, 1]]);

    const lineA = merged.cart.items[0]?.id as number;
    const set = parseCart(await call("POST", path, { body: { items: [{ variant_id: a.id, quantity: 1, item_id: lineA }] } }));
    expect(set.cart.items[0]).toMatchObject({ id: lineA, quantity: 1 });

    const removed = parseCart(await call("POST", path, { body: { items: [{ variant_id: b.id, quantity: 0 }, { variant_id: a.id, quantity: 0, item_id: lineA }] } }));
    expect(removed.cart.items).toEqual([]);
    expect(removed.cart).toMatchObject({ sub_total: "0.00", amount_total: "0.00", valid_for_checkout: false });
  });

  it("answers, after applying entries in memory, the cart a recomputation from its stored rows gives", async () => {
    const { variant: bundle } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 5000 } }] });
    const { variant: child } = await createProduct(t.db.prisma, acme.id);
    const { variant: plain } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1250 } }] });
    const { product: subscribed, variant: subscribedVariant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 3000 } }] });
    await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10", productIds: [subscribed.id], defaultFor: [subscribed.id] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: bundle.id, quantity: 1 }] });
    const bundleLine = cart.items[0]?.id as number;
    await call("PATCH", `/api/carts/${cart.cart_token}/items/${bundleLine}/bundled_items`, { body: { bundled_items: [{ variant_id: child.id, quantity: 2, display_to_customer: true }] } });
    // What PATCH /api/carts/{token} renders after reading every row back.
    const recomputed = async () => parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { email: null } })).cart;
    const path = `/api/carts/${cart.cart_token}/items`;

    // A new line, a subscribed new line (its plan is not in the cart yet), and a removed line with its bundled item.
    const added = parseCart(
      await call("POST", path, { body: { items: [{ variant_id: plain.id, quantity: 2 }, { variant_id: subscribedVariant.id, quantity: 1, subscription: true }, { variant_id: bundle.id, quantity: 0 }] } }),
    ).cart;
    expect(added.items.map((item) => [item.variant_id, item.quantity, item.subscription])).toEqual([
      [plain.id, 2, false],
      [subscribedVariant.id, 1, true],
    ]);
    expect(added.recurring).toHaveLength(1);
    const { skipped_items: _skipped, ...addedCart } = added;
    const { skipped_items: _none, ...again } = await recomputed();
    expect(addedCart).toEqual(again);

    // A line's quantity set by item_id, and an existing line grown.
    const set = parseCart(
      await call("POST", path, { body: { items: [{ variant_id: plain.id, quantity: 5, item_id: added.items[0]?.id }, { variant_id: subscribedVariant.id, quantity: 2 }] } }),
    ).cart;
    expect(set.items.map((item) => [item.variant_id, item.quantity])).toEqual([
      [plain.id, 5],
      [subscribedVariant.id, 3],
    ]);
    const { skipped_items: _setSkipped, ...setCart } = set;
    const { skipped_items: _none2, ...setAgain } = await recomputed();
    expect(setCart).toEqual(setAgain);
  });

  it("skips unavailable variants; all skipped is a 422 that changes nothing", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { variant: foreign } = await createProduct(t.db.prisma, globex.id);
    const { variant: inactive } = await createProduct(t.db.prisma, acme.id, { variants: [{ active: false }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items`;
    const partly = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 1 }, { variant_id: foreign.id, quantity: 1 }] } }));
    expect(partly.cart.items[0]?.quantity).toBe(2);
    expect(partly.cart.skipped_items).toEqual([{ variant_id: foreign.id, reason: "variant_unavailable", message: `Variant ${foreign.id} is not available` }]);

    const refused = await call("POST", path, { body: { items: [{ variant_id: inactive.id, quantity: 1 }] } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ "items.0.variant_id": [`Variant ${inactive.id} is not available`] });
    expect((await lines(cart.cart_token)).map((line) => line.quantity)).toEqual([2]);

    // A variant named by several entries is reported once; the 422 still names each entry.
    const twice = [{ variant_id: foreign.id, quantity: 1 }, { variant_id: variant.id, quantity: 1 }, { variant_id: foreign.id, quantity: 2, subscription: true }];
    expect(parseCart(await call("POST", path, { body: { items: twice } })).cart.skipped_items).toEqual(partly.cart.skipped_items);
    const created = await createCartOverHttp(call, acme, { items: twice });
    expect(created.cart.skipped_items).toEqual(partly.cart.skipped_items);
    const allTwice = await call("POST", path, { body: { items: [{ variant_id: inactive.id, quantity: 1 }, { variant_id: inactive.id, quantity: 1 }] } });
    expect(allTwice.status).toBe(422);
    expect(allTwice.body.errors).toEqual({ "items.0.variant_id": [`Variant ${inactive.id} is not available`], "items.1.variant_id": [`Variant ${inactive.id} is not available`] });
  });

  it("names a variant of the company without a price in the cart's country as update_country does; an unknown or another company's only by its id", async () => {
    const { variant: usOnly } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 500 } }] });
    const { variant: everywhere } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000, CA: 1300 } }] });
    const { variant: foreign } = await createProduct(t.db.prisma, globex.id, { variants: [{ prices: { US: 500 } }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: usOnly.id, quantity: 1 }, { variant_id: everywhere.id, quantity: 1 }] });
    const notInCanada = { variant_id: usOnly.id, reason: "variant_unavailable", message: `${usOnly.sku} is not available in Canada` };
    const moved = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/update_country`, { body: { country_code: "CA" } })).cart;
    expect(moved.skipped_items).toEqual([notInCanada]);
    const path = `/api/carts/${cart.cart_token}/items`;

    const partly = parseCart(await call("POST", path, { body: { items: [{ variant_id: usOnly.id, quantity: 1 }, { variant_id: everywhere.id, quantity: 1 }, { variant_id: foreign.id, quantity: 1 }] } })).cart;
    expect(partly.skipped_items).toEqual([notInCanada, { variant_id: foreign.id, reason: "variant_unavailable", message: `Variant ${foreign.id} is not available` }]);
    expect(partly.items.map((item) => [item.variant_id, item.quantity])).toEqual([[everywhere.id, 2]]);
    const refused = await call("POST", path, { body: { items: [{ variant_id: usOnly.id, quantity: 1 }] } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ "items.0.variant_id": [notInCanada.message] });

    const created = await createCartOverHttp(call, acme, { country_code: "CA", items: [{ variant_id: usOnly.id, quantity: 1 }, { variant_id: everywhere.id, quantity: 1 }] });
    expect(created.cart.skipped_items).toEqual([notInCanada]);
    const changed = await call("PATCH", `${path}/${partly.items[0]?.id}/variant`, { body: { variant_id: usOnly.id } });
    expect(changed.status).toBe(422);
    expect(changed.body.errors).toEqual({ variant_id: [notInCanada.message] });
  });

  it("answers 422 for malformed entries, and changes nothing", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items`;
    for (const body of [{ items: [] }, { items: [{ variant_id: variant.id, quantity: -1 }] }, { items: [{ variant_id: variant.id }] }, {}]) {
      expect((await call("POST", path, { body })).status).toBe(422);
    }
    expect((await lines(cart.cart_token)).map((line) => line.quantity)).toEqual([1]);
  });

  it("answers 422 on items.N.item_id for a line the cart does not have (unknown, removed meanwhile, another cart's), applying no entry; 404 stays for a missing cart", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { variant: other } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }, { variant_id: other.id, quantity: 1 }] });
    const otherCart = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items`;
    const removedLine = cart.items[1]?.id as number;
    parseCart(await call("DELETE", `${path}/${removedLine}`));

    for (const [variantId, itemId] of [[variant.id, 999_999], [other.id, removedLine], [variant.id, otherCart.cart.items[0]?.id]]) {
      const refused = await call("POST", path, { body: { items: [{ variant_id: other.id, quantity: 1 }, { variant_id: variantId, quantity: 1, item_id: itemId }] } });
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body).toMatchObject({ error_code: "validation_failed", errors: { "items.1.item_id": ["is not an item of the cart"] } });
      expect((await lines(cart.cart_token)).map((line) => [line.variant_id, line.quantity])).toEqual([[variant.id, 1]]);
    }
    const goneCart = await call("POST", "/api/carts/ct_0000000000000000000000/items", { body: { items: [{ variant_id: variant.id, quantity: 1, item_id: cart.items[0]?.id }] } });
    expect(goneCart.status).toBe(404);
    expect(goneCart.body.error_code).toBe("not_found");
    expect((await call("DELETE", `${path}/${removedLine}`)).status).toBe(404);
  });

  it("sets display_to_customer through an item_id entry when sent, and keeps the line's value when not", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items`;
    const lineId = cart.items[0]?.id as number;
    expect(cart.items[0]?.display_to_customer).toBe(true);

    const hidden = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, item_id: lineId, quantity: 3, display_to_customer: false }] } })).cart;
    expect(hidden.items[0]).toMatchObject({ id: lineId, quantity: 3, display_to_customer: false });
    const kept = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, item_id: lineId, quantity: 2 }] } })).cart;
    expect(kept.items[0]).toMatchObject({ id: lineId, quantity: 2, display_to_customer: false });
    expect((await lines(cart.cart_token))[0]).toMatchObject({ quantity: 2, display_to_customer: false });
    const shown = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, item_id: lineId, quantity: 2, display_to_customer: true }] } })).cart;
    expect(shown.items[0]).toMatchObject({ id: lineId, display_to_customer: true });
  });

  it("refuses a change that would take the cart's totals past the largest exact amount (2^53 - 1 minor units): 422, changing nothing", async () => {
    // 42 lines at the largest price and quantity pass 2^53 - 1 yen; the lines are written
    // directly, as adding them 10,000 at a time would take a thousand requests.
    const { variants } = await createProduct(t.db.prisma, acme.id, { variants: Array.from({ length: 42 }, () => ({ prices: { JP: 2_147_483_647 } })) });
    const { cart } = await createCartOverHttp(call, acme, { country_code: "JP" });
    const last = variants.at(-1) as (typeof variants)[number];
    await t.db.prisma.cartItem.createMany({
      data: variants.map((variant) => ({ company_id: acme.id, cart_id: cart.id, variant_id: variant.id, quantity: variant === last ? 90_000 : 100_000 })),
    });
    const full = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "1" } })).cart;
    expect(full.sub_total).toBe(String(2_147_483_647 * 4_190_000));

    const refused = await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: last.id, quantity: 10_000 }] } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toMatchObject({ error_code: "cart_total_out_of_range", errors: null });
    expect(refused.body.error_message).toMatch(/largest amount a cart can hold/);
    expect((await lines(cart.cart_token)).find((line) => line.variant_id === last.id)?.quantity).toBe(90_000);
    expect(parseCart(await call("GET", `/api/carts/${cart.cart_token}`)).cart).toEqual(full);
  });

  it("keeps a line whose variant lost its price in the cart's country, with no volume; its quantity may fall but not grow (422 naming it)", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 }, cv: 5, qv: 3 }] });
    const { variant: priced } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 500 }, cv: 2, qv: 1 }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 2 }, { variant_id: priced.id, quantity: 1 }] });
    expect(cart).toMatchObject({ cv_total: 12, qv_total: 7 });
    const lineId = cart.items[0]?.id as number;
    await t.db.prisma.variantPrice.deleteMany({ where: { variant_id: variant.id } });
    const path = `/api/carts/${cart.cart_token}/items`;

    const next = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "1" } })).cart;
    expect(next.items[0]).toMatchObject({ id: lineId, quantity: 2, price: "0.00", cv: 0, qv: 0 });
    expect(next).toMatchObject({ sub_total: "5.00", cv_total: 2, qv_total: 1, valid_for_checkout: false });
    expect(next.messages.errors).toEqual([`${variant.sku} is not available in United States`]);

    const grown = await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 3, item_id: lineId }] } });
    expect(grown.status).toBe(422);
    expect(grown.body.errors).toEqual({ "items.0.quantity": [`cannot grow item ${lineId}: ${variant.sku} is not available in United States`] });
    expect((await lines(cart.cart_token)).map((line) => line.quantity)).toEqual([2, 1]);

    const fallen = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 1, item_id: lineId }] } })).cart;
    expect(fallen.items[0]).toMatchObject({ id: lineId, quantity: 1 });
    const removed = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 0, item_id: lineId }] } })).cart;
    expect(removed).toMatchObject({ cv_total: 2, valid_for_checkout: true });
  });

  // Growing a line through item_id is refused for every reason adding its variant is refused.
  const withdrawals: Array<{ reason: string; withdraw: (product: { id: number }, variant: { id: number }) => Promise<unknown>; message: (variant: { id: number; sku: string }) => string }> = [
    { reason: "out of stock", withdraw: (_, variant) => t.db.prisma.variant.update({ where: { id: variant.id }, data: { inventory_quantity: 0 } }), message: (variant) => `${variant.sku} is out of stock` },
    { reason: "switched off", withdraw: (_, variant) => t.db.prisma.variant.update({ where: { id: variant.id }, data: { active: false } }), message: (variant) => `Variant ${variant.id} is not available` },
    { reason: "of a switched-off product", withdraw: (product) => t.db.prisma.product.update({ where: { id: product.id }, data: { active: false } }), message: (variant) => `Variant ${variant.id} is not available` },
    { reason: "deleted", withdraw: (product) => call("DELETE", `/api/products/${product.id}`, { token: acme.token }), message: (variant) => `Variant ${variant.id} is not available` },
    { reason: "not priced in the cart's country", withdraw: (_, variant) => t.db.prisma.variantPrice.deleteMany({ where: { variant_id: variant.id } }), message: (variant) => `${variant.sku} is not available in United States` },
  ];

  it.each(withdrawals)("refuses to grow through item_id a line whose variant is $reason, as adding it is refused (422 naming the line, nothing changed); it may still fall or go", async ({ withdraw, message }) => {
    const { product, variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 }, inventory: 10 }] });
    const { variant: other } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 100 } }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 2 }, { variant_id: other.id, quantity: 1 }] });
    const lineId = cart.items[0]?.id as number;
    await withdraw(product, variant);
    const path = `/api/carts/${cart.cart_token}/items`;
    const before = parseCart(await call("GET", `/api/carts/${cart.cart_token}`)).cart;

    const added = await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 1 }] } });
    expect(added.status, added.text).toBe(422);
    expect(added.body.errors).toEqual({ "items.0.variant_id": [message(variant)] });
    const grown = await call("POST", path, { body: { items: [{ variant_id: other.id, quantity: 4 }, { variant_id: variant.id, quantity: 3, item_id: lineId }] } });
    expect(grown.status, grown.text).toBe(422);
    expect(grown.body).toMatchObject({ error_code: "validation_failed", errors: { "items.1.quantity": [`cannot grow item ${lineId}: ${message(variant)}`] } });
    expect((await lines(cart.cart_token)).map((line) => [line.id, line.quantity])).toEqual([[lineId, 2], [cart.items[1]?.id, 1]]);
    expect(parseCart(await call("GET", `/api/carts/${cart.cart_token}`)).cart).toEqual(before);

    const kept = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 2, item_id: lineId }] } })).cart;
    expect(kept.items[0]).toMatchObject({ id: lineId, quantity: 2 });
    const fallen = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 1, item_id: lineId }] } })).cart;
    expect(fallen.items[0]).toMatchObject({ id: lineId, quantity: 1 });
    const removed = parseCart(await call("POST", path, { body: { items: [{ variant_id: variant.id, quantity: 0, item_id: lineId }] } })).cart;
    expect(removed.items.map((item) => item.variant_id)).toEqual([other.id]);
  });

  it("answers 409 on a cart created with immutable_items", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { immutable_items: true, items: [{ variant_id: variant.id, quantity: 1 }] });
    const response = await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: variant.id, quantity: 1 }] } });
    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe("immutable_items");
    expect((await call("DELETE", `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}`)).status).toBe(409);
  });
});

describe("DELETE items", () => {
  it("removes the lines of the given variants; 422 for a variant not in the cart", async () => {
    const { variant: a } = await createProduct(t.db.prisma, acme.id);
    const { variant: b } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: a.id, quantity: 1 }, { variant_id: b.id, quantity: 1 }] });
    const removed = parseCart(await call("DELETE", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: a.id }] } }));
    expect(removed.cart.items.map((item) => item.variant_id)).toEqual([b.id]);
    const missing = await call("DELETE", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: b.id }, { variant_id: a.id }] } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ "items.1.variant_id": ["is not in the cart"] });
    expect((await lines(cart.cart_token)).map((line) => line.variant_id)).toEqual([b.id]);
    const twice = await call("DELETE", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: b.id }, { variant_id: b.id }] } });
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toEqual({ "items.1.variant_id": ["is not in the cart"] });
    expect((await lines(cart.cart_token)).map((line) => line.variant_id)).toEqual([b.id]);
  });

  it("removes one line by id with its bundled items; 404 for an unknown id or another cart's line", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { variant: child } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const other = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const itemId = cart.items[0]?.id as number;
    parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/items/${itemId}/bundled_items`, { body: { bundled_items: [{ variant_id: child.id, quantity: 1, display_to_customer: true }] } }));
    expect((await call("DELETE", `/api/carts/${cart.cart_token}/items/${other.cart.items[0]?.id}`)).status).toBe(404);
    expect((await call("DELETE", `/api/carts/${cart.cart_token}/items/abc`)).status).toBe(404);
    const removed = parseCart(await call("DELETE", `/api/carts/${cart.cart_token}/items/${itemId}`));
    expect(removed.cart.items).toEqual([]);
    expect(await lines(cart.cart_token)).toEqual([]);
  });
});

describe("subscribe / unsubscribe", () => {
  it("subscribes with the product's default plan, applying its price adjustment and a recurring entry", async () => {
    const { product, variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 2000 } }] });
    const plan = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10", productIds: [product.id], defaultFor: [product.id] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 2 }] });
    const itemId = cart.items[0]?.id as number;
    // An empty subscription_plan_id (`?subscription_plan_id=${planId ?? ""}`) names no plan: the default one.
    const subscribed = parseCart(await call("POST", `/api/carts/${cart.cart_token}/items/${itemId}/subscribe?subscription_plan_id=`));
    expect(subscribed.cart.items[0]).toMatchObject({ subscription: true, subscription_plan_id: plan.id, price: "18.00" });
    expect(subscribed.cart).toMatchObject({ sub_total: "36.00", discount_total: "0.00" });
    expect(subscribed.cart.recurring).toEqual([
      expect.objectContaining({ subtotal: "36.00", subtotal_in_currency: "$36.00", interval: 1, interval_unit: "month", subtotal_for_display: "$36.00 every month" }),
    ]);
    const unsubscribed = parseCart(await call("DELETE", `/api/carts/${cart.cart_token}/items/${itemId}/subscribe`));
    expect(unsubscribed.cart.items[0]).toMatchObject({ subscription: false, subscription_plan_id: null, price: "20.00" });
    expect(unsubscribed.cart.recurring).toEqual([]);
  });

  /** The unit price of one 10.00 variant under a plan with `adjustment` (as stored), in a cart and in a subscription order. */
  async function unitPricesWith(adjustment: { type: string; amount: string }) {
    const { product, variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
    const plan = await createPlan(t.db.prisma, acme.id, { productIds: [product.id], defaultFor: [product.id] });
    await t.db.prisma.subscriptionPlan.update({ where: { id: plan.id }, data: { price_adjustment_type: adjustment.type, price_adjustment_amount: adjustment.amount } });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1, subscription: true }] });
    const orderId = await addSubscriptionOrder(t.db.prisma, acme.id, plan.id, "active");
    const order = (await call("GET", `/api/v2/subscription_orders/${orderId}`, { token: acme.token })).body.subscription_order;
    return { cart: cart.items[0]?.price, order: order.items[0].price };
  }

  it("prices a plan's adjustment in a cart as a subscription order of the plan does", async () => {
    // 1.005 rounded half-even to cents is 1.00, where half-up would take 1.01.
    expect(await unitPricesWith({ type: "fixed_amount", amount: "1.005" })).toEqual({ cart: "9.00", order: 9 });
    expect(await unitPricesWith({ type: "fixed_amount", amount: "1.0150" })).toEqual({ cart: "8.98", order: 8.98 });
    // A type the API never writes (a hand-edited row) adjusts nothing in either.
    expect(await unitPricesWith({ type: "bogus", amount: "1" })).toEqual({ cart: "10.00", order: 10 });
  });

  it("takes a named plan linked to the product; 422 for an unlinked plan or no default, changing nothing", async () => {
    const { product, variant } = await createProduct(t.db.prisma, acme.id);
    const linked = await createPlan(t.db.prisma, acme.id, { name: "Every 2 weeks", interval: 2, unit: "week", productIds: [product.id] });
    const unlinked = await createPlan(t.db.prisma, acme.id, { name: "Other" });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/subscribe`;
    const noDefault = await call("POST", path);
    expect(noDefault.status).toBe(422);
    expect(noDefault.body.errors).toEqual({ subscription: ["the product has no default subscription plan"] });
    const wrongPlan = await call("POST", `${path}?subscription_plan_id=${unlinked.id}`);
    expect(wrongPlan.status).toBe(422);
    expect(wrongPlan.body.errors).toEqual({ subscription_plan_id: ["is not an active subscription plan of this product"] });
    expect((await lines(cart.cart_token))[0]?.subscription).toBe(false);
    const ok = parseCart(await call("POST", `${path}?subscription_plan_id=${linked.id}`));
    expect(ok.cart.items[0]?.subscription_plan_id).toBe(linked.id);
    expect(ok.cart.recurring?.[0]).toMatchObject({ interval: 2, interval_unit: "week", subtotal_for_display: "$19.99 every 2 weeks" });
    expect((await call("POST", `/api/carts/${cart.cart_token}/items/999999/subscribe`)).status).toBe(404);
  });

  it("subscribes on add with subscription: true, one recurring entry per distinct interval", async () => {
    const { product: p1, variant: v1 } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
    const { product: p2, variant: v2 } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 500 } }] });
    await createPlan(t.db.prisma, acme.id, { productIds: [p1.id, p2.id], defaultFor: [p1.id, p2.id] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: v1.id, quantity: 1, subscription: true }, { variant_id: v2.id, quantity: 2, subscription: true }] });
    expect(cart.recurring).toHaveLength(1);
    expect(cart.recurring?.[0]?.subtotal).toBe("20.00");
  });

  describe("a plan that stops being one the line may use is removed at the next change, with a warning", () => {
    const subscribedCart = async () => {
      const { product, variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ sku: `SUB-${Date.now()}`, prices: { US: 2000 } }] });
      const { variant: other } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 500 } }] });
      const plan = await createPlan(t.db.prisma, acme.id, { name: "Monthly 20", adjustmentType: "percentage", adjustmentAmount: "20", productIds: [product.id], defaultFor: [product.id] });
      const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1, subscription: true }] });
      const line = cart.items[0] as (typeof cart.items)[number];
      expect(line).toMatchObject({ subscription: true, subscription_plan_id: plan.id, price: "16.00" });
      return { cart, line, plan, variant, other };
    };
    const unsubscribedAt = (response: Awaited<ReturnType<Call>>, lineId: number) => {
      const { cart } = parseCart(response);
      expect(cart.items.find((item) => item.id === lineId)).toMatchObject({ subscription: false, subscription_plan_id: null, price: "20.00" });
      expect(cart.recurring).toEqual([]);
      return cart;
    };

    it("switched off: adding another item prices the line at list price and says why; subscribing to it again is a 422", async () => {
      const { cart, line, plan, variant, other } = await subscribedCart();
      expect((await call("PUT", `/api/subscription_plans/${plan.id}`, { token: acme.token, body: { subscription_plan: { active: false } } })).status).toBe(200);
      const next = unsubscribedAt(await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: other.id, quantity: 1 }] } }), line.id);
      expect(next.messages.warnings).toEqual([`Item ${line.id} (${variant.sku}) is no longer a subscription: its plan Monthly 20 is not active`]);
      expect(next.sub_total).toBe("25.00");
      expect((await lines(cart.cart_token)).find((row) => row.id === line.id)).toMatchObject({ subscription: false, subscription_plan_id: null });
      const again = await call("POST", `/api/carts/${cart.cart_token}/items/${line.id}/subscribe?subscription_plan_id=${plan.id}`);
      expect(again.status).toBe(422);
      expect(again.body.errors).toEqual({ subscription_plan_id: ["is not an active subscription plan of this product"] });
    });

    it("switched off: setting the line's quantity through item_id does not keep the plan price", async () => {
      const { cart, line, plan, variant } = await subscribedCart();
      await call("PUT", `/api/subscription_plans/${plan.id}`, { token: acme.token, body: { subscription_plan: { active: false } } });
      const next = unsubscribedAt(await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: variant.id, quantity: 2, item_id: line.id }] } }), line.id);
      expect(next.sub_total).toBe("40.00");
      expect(next.messages.warnings).toEqual([`Item ${line.id} (${variant.sku}) is no longer a subscription: its plan Monthly 20 is not active`]);
    });

    it("no longer offered for the line's product", async () => {
      const { cart, line, plan, variant } = await subscribedCart();
      const [link] = await t.db.prisma.productSubscriptionPlan.findMany({ where: { subscription_plan_id: plan.id } });
      const unlinked = await call("PUT", `/api/subscription_plans/${plan.id}`, { token: acme.token, body: { subscription_plan: { product_subscription_plans: [{ id: link?.id, _destroy: true }] } } });
      expect(unlinked.status).toBe(200);
      const next = unsubscribedAt(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "1" } }), line.id);
      expect(next.messages.warnings).toEqual([`Item ${line.id} (${variant.sku}) is no longer a subscription: its plan Monthly 20 is no longer offered for this product`]);
    });

    it("deleted", async () => {
      const { cart, line, plan, variant } = await subscribedCart();
      expect((await call("DELETE", `/api/subscription_plans/${plan.id}`, { token: acme.token })).status).toBe(200);
      const next = unsubscribedAt(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "1" } }), line.id);
      expect(next.messages.warnings).toEqual([`Item ${line.id} (${variant.sku}) is no longer a subscription: its plan was deleted`]);
      // Said once: the line is a one-time purchase from then on.
      expect(parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "2" } })).cart.messages.warnings).toEqual([]);
    });
  });
});

describe("PATCH bundled_items", () => {
  it("sets bundled items, priced as any line, removes with quantity 0, reports invalid variants while applying the valid ones", async () => {
    const { variant: bundle } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 5000 } }] });
    const { variant: c1 } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 }, cv: 3 }] });
    const { variant: c2 } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 250 }, cv: 1 }] });
    const { variant: canadaOnly } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { CA: 900 } }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: bundle.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/bundled_items`;
    const set = parseCart(
      await call("PATCH", path, {
        body: {
          bundled_items: [
            { variant_id: c1.id, quantity: 2, display_to_customer: true },
            { variant_id: c2.id, quantity: 1, display_to_customer: false },
            { variant_id: 999_999, quantity: 1, display_to_customer: true },
            { variant_id: canadaOnly.id, quantity: 1, display_to_customer: true },
          ],
        },
      }),
    );
    const top = set.cart.items[0];
    expect(top?.bundled_items.map((child) => [child.variant_id, child.quantity, child.display_to_customer, child.parent_id])).toEqual([
      [c1.id, 2, true, top?.id],
      [c2.id, 1, false, top?.id],
    ]);
    expect(set.cart.messages.errors).toEqual(["Variant 999999 is not available", `${canadaOnly.sku} is not available in United States`]);
    expect(set.cart.items).toHaveLength(1);
    expect(top?.bundled_items.map((child) => child.price)).toEqual(["10.00", "2.50"]);
    // 50.00 + 2 x 10.00 + 2.50; volumes 2 x 3 + 1 (the bundle's own variant has none).
    expect(set.cart).toMatchObject({ sub_total: "72.50", cv_total: 7 });

    const removed = parseCart(await call("PATCH", path, { body: { bundled_items: [{ variant_id: c1.id, quantity: 0, display_to_customer: true }] } }));
    expect(removed.cart.items[0]?.bundled_items.map((child) => child.variant_id)).toEqual([c2.id]);
    expect(removed.cart.messages.errors).toEqual([]);
  });

  it("answers 422 for entries missing a required member and 404 for an unknown item", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const response = await call("PATCH", `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/bundled_items`, { body: { bundled_items: [{ variant_id: variant.id, quantity: 1 }] } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "bundled_items.0.display_to_customer": ["is required"] });
    expect((await call("PATCH", `/api/carts/${cart.cart_token}/items/999999/bundled_items`, { body: { bundled_items: [] } })).status).toBe(404);
  });
});

describe("PATCH update_volumes", () => {
  it("needs the cart company's token: 401 without or with a bad one, 403 with a user's, 404 with another company's", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ cv: 10, qv: 4 }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 2 }] });
    const path = `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/update_volumes`;
    expect((await call("PATCH", path, { body: { cv: 1 } })).status).toBe(401);
    expect((await call("PATCH", path, { token: "sct_wrong", body: { cv: 1 } })).status).toBe(401);
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    const asRep = await call("PATCH", path, { token: rep.token, body: { cv: 1 } });
    expect(asRep.status).toBe(403);
    expect(asRep.body.error_code).toBe("forbidden");
    const [header, payload] = rep.token.split(".");
    expect((await call("PATCH", path, { token: `${header}.${payload}.forged`, body: { cv: 1 } })).status).toBe(401);
    expect((await call("PATCH", path, { token: globex.token, body: { cv: 1 } })).status).toBe(404);
    expect((await lines(cart.cart_token))[0]?.cv).toBeNull();
  });

  it("checks the credential before the body: 401, not 422, for a bad body without a token", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const response = await call("PATCH", `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/update_volumes`, { body: { cv: "x" } });
    expect(response.status).toBe(401);
    expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("replays an Idempotency-Key only to the same credential", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ cv: 10, qv: 4 }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/update_volumes`;
    const headers = { "idempotency-key": `volumes-${cart.cart_token}` };
    const first = await call("PATCH", path, { token: acme.token, headers, body: { cv: 7 } });
    expect(first.status).toBe(200);
    const retry = await call("PATCH", path, { token: acme.token, headers, body: { cv: 7 } });
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect((await call("PATCH", path, { headers, body: { cv: 7 } })).status).toBe(401);
    const otherCompany = await call("PATCH", path, { token: globex.token, headers, body: { cv: 7 } });
    expect(otherCompany.status).toBe(404);
    expect(otherCompany.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("changes only the sent volumes and recalculates the totals", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ cv: 10, qv: 4 }] });
    const { variant: other } = await createProduct(t.db.prisma, acme.id, { variants: [{ cv: 1, qv: 1 }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 2 }, { variant_id: other.id, quantity: 1 }] });
    expect(cart).toMatchObject({ cv_total: 21, qv_total: 9 });
    const path = `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/update_volumes`;
    const cvOnly = parseCart(await call("PATCH", path, { token: acme.token, body: { cv: 25 } }));
    expect(cvOnly.cart.items[0]).toMatchObject({ cv: 25, qv: 4 });
    expect(cvOnly.cart).toMatchObject({ cv_total: 51, qv_total: 9 });
    const qvOnly = parseCart(await call("PATCH", path, { token: acme.token, body: { qv: 0 } }));
    expect(qvOnly.cart).toMatchObject({ cv_total: 51, qv_total: 1 });
    const invalid = await call("PATCH", path, { token: acme.token, body: { cv: -1 } });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors)).toEqual(["cv"]);
  });
});

describe("PATCH variant", () => {
  it("changes the line's variant directly when no line has the target variant, with the sent quantity", async () => {
    const { variant: small, product } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }, { prices: { US: 1800 } }] });
    const large = (await t.db.prisma.variant.findMany({ where: { product_id: product.id }, orderBy: { id: "asc" } }))[1];
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: small.id, quantity: 1 }] });
    const changed = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/variant`, { body: { variant_id: large?.id, quantity: 3 } }));
    expect(changed.cart.items.map((item) => [item.id, item.variant_id, item.quantity])).toEqual([[cart.items[0]?.id, large?.id, 3]]);
    expect(changed.cart.sub_total).toBe("54.00");
  });

  it("merges into an existing line of the target variant, the sent quantity replacing the source's", async () => {
    const { variant: a } = await createProduct(t.db.prisma, acme.id);
    const { variant: b } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: a.id, quantity: 5 }, { variant_id: b.id, quantity: 2 }] });
    const [lineA, lineB] = cart.items;
    const merged = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/items/${lineA?.id}/variant`, { body: { variant_id: b.id, quantity: 1 } }));
    expect(merged.cart.items.map((item) => [item.id, item.variant_id, item.quantity])).toEqual([[lineB?.id, b.id, 3]]);

    const again = await createCartOverHttp(call, acme, { items: [{ variant_id: a.id, quantity: 5 }, { variant_id: b.id, quantity: 2 }] });
    const withoutQuantity = parseCart(await call("PATCH", `/api/carts/${again.cart.cart_token}/items/${again.cart.items[0]?.id}/variant`, { body: { variant_id: b.id } }));
    expect(withoutQuantity.cart.items.map((item) => item.quantity)).toEqual([7]);
  });

  it("moves the merged line's bundled items to the target line, adding to a bundled variant it has already", async () => {
    const { variant: a } = await createProduct(t.db.prisma, acme.id);
    const { variant: b } = await createProduct(t.db.prisma, acme.id);
    const { variant: wrap } = await createProduct(t.db.prisma, acme.id);
    const { variant: card } = await createProduct(t.db.prisma, acme.id);
    const { variant: c } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: a.id, quantity: 1 }, { variant_id: b.id, quantity: 1 }, { variant_id: c.id, quantity: 1 }] });
    const [lineA, lineB, lineC] = cart.items.map((item) => item.id);
    const bundle = (line: number | undefined, bundled_items: object[]) => call("PATCH", `/api/carts/${cart.cart_token}/items/${line}/bundled_items`, { body: { bundled_items } });
    parseCart(await bundle(lineA, [{ variant_id: wrap.id, quantity: 2, display_to_customer: true }, { variant_id: card.id, quantity: 1, display_to_customer: false }]));
    parseCart(await bundle(lineB, [{ variant_id: card.id, quantity: 3, display_to_customer: true }]));
    const before = parseCart(await bundle(lineC, [{ variant_id: wrap.id, quantity: 1, display_to_customer: true }])).cart;
    const wrapOfA = before.items[0]?.bundled_items[0]?.id;
    const cardOfB = before.items[1]?.bundled_items[0]?.id;

    // B has a card of its own: A's card adds to it, A's wrap moves over as it is.
    const merged = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/items/${lineA}/variant`, { body: { variant_id: b.id } })).cart;
    expect(merged.items.map((item) => [item.id, item.variant_id, item.quantity])).toEqual([
      [lineB, b.id, 2],
      [lineC, c.id, 1],
    ]);
    const bundledOfB = (items: typeof merged.items) => items[0]?.bundled_items.map((child) => [child.id, child.variant_id, child.quantity, child.display_to_customer, child.parent_id]);
    expect(bundledOfB(merged.items)).toEqual([
      [wrapOfA, wrap.id, 2, true, lineB],
      [cardOfB, card.id, 4, true, lineB],
    ]);
    expect(merged.sub_total).toBe(before.sub_total);
    expect((await lines(cart.cart_token)).map((line) => [line.variant_id, line.quantity, line.parent_id])).toEqual([
      [b.id, 2, null],
      [c.id, 1, null],
      [wrap.id, 2, lineB],
      [card.id, 4, lineB],
      [wrap.id, 1, lineC],
    ]);
    // What the stored rows render is what the merge answered.
    expect(bundledOfB(parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { email: null } })).cart.items)).toEqual(bundledOfB(merged.items));
  });

  it("answers 422 for quantity below 1 or an unavailable variant, 404 for an unknown item, changing nothing", async () => {
    const { variant: a } = await createProduct(t.db.prisma, acme.id);
    const { variant: foreign } = await createProduct(t.db.prisma, globex.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: a.id, quantity: 2 }] });
    const path = `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/variant`;
    const zero = await call("PATCH", path, { body: { variant_id: a.id, quantity: 0 } });
    expect(zero.status).toBe(422);
    expect(Object.keys(zero.body.errors)).toEqual(["quantity"]);
    const unavailable = await call("PATCH", path, { body: { variant_id: foreign.id } });
    expect(unavailable.status).toBe(422);
    expect(unavailable.body.errors).toEqual({ variant_id: [`Variant ${foreign.id} is not available`] });
    expect((await call("PATCH", `/api/carts/${cart.cart_token}/items/999999/variant`, { body: { variant_id: a.id } })).status).toBe(404);
    expect((await lines(cart.cart_token)).map((line) => [line.variant_id, line.quantity])).toEqual([[a.id, 2]]);
  });
});

describe("rep pricing after logout", () => {
  it("reprices to retail when the rep logs out", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 2000 }, repPrices: { US: 1500 } }] });
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] }, `/api/carts?jwt=${rep.token}`);
    expect(cart.sub_total).toBe("15.00");
    const loggedOut = parseCart(await call("DELETE", `/api/carts/${cart.cart_token}/logout`));
    expect(loggedOut.cart).toMatchObject({ buyer_rep_id: null, buyer_rep: null, sub_total: "20.00" });
  });
});

describe("enrollment pack lines", () => {
  it("change only with the pack: setting, removing, re-varianting, subscribing or bundling them is refused and changes nothing", async () => {
    const { variant: packed, product } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 3333 } }] });
    const { variant: other } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 5000 } }] });
    const plan = await createPlan(t.db.prisma, acme.id, { productIds: [product.id], defaultFor: [product.id] });
    const pack = await createEnrollmentPack(t.db.prisma, acme.id, { variants: [{ id: packed.id }] });
    const { cart } = await createCartOverHttp(call, acme, { enrollment_pack_id: pack.id });
    const packLine = cart.items.find((item) => item.enrollment);
    expect(packLine).toMatchObject({ variant_id: packed.id, quantity: 1, price: "0.00" });
    const itemPath = `/api/carts/${cart.cart_token}/items/${packLine?.id}`;
    const before = await lines(cart.cart_token);

    const set = await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: packed.id, quantity: 50, item_id: packLine?.id }] } });
    expect(set.status).toBe(422);
    expect(Object.keys(set.body.errors)).toEqual(["items.0.item_id"]);
    const refusals = [
      await call("DELETE", itemPath),
      await call("PATCH", `${itemPath}/variant`, { body: { variant_id: other.id, quantity: 100 } }),
      await call("POST", `${itemPath}/subscribe?subscription_plan_id=${plan.id}`),
      await call("DELETE", `${itemPath}/subscribe`),
      await call("PATCH", `${itemPath}/bundled_items`, { body: { bundled_items: [{ variant_id: other.id, quantity: 10, display_to_customer: true }] } }),
    ];
    for (const refused of refusals) {
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.error_code).toBe("enrollment_pack_line");
    }
    const byVariant = await call("DELETE", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: packed.id }] } });
    expect(byVariant.status).toBe(422);
    expect(byVariant.body.errors).toEqual({ "items.0.variant_id": ["is not in the cart"] });
    expect(await lines(cart.cart_token)).toEqual(before);

    // The same variant bought on its own is a line of its own, priced and changeable as any other.
    const bought = parseCart(await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: packed.id, quantity: 2 }] } }));
    expect(bought.cart.items.map((item) => [item.variant_id, item.quantity, item.enrollment, item.price])).toEqual([
      [packed.id, 1, true, "0.00"],
      [packed.id, 2, false, "33.33"],
    ]);
  });
});

describe("bundled items", () => {
  it("are billed with their line: subscribing one is refused", async () => {
    const { variant: parent } = await createProduct(t.db.prisma, acme.id);
    const { variant: child, product: childProduct } = await createProduct(t.db.prisma, acme.id);
    const plan = await createPlan(t.db.prisma, acme.id, { productIds: [childProduct.id], defaultFor: [childProduct.id] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: parent.id, quantity: 1 }] });
    const parentId = cart.items[0]?.id as number;
    const bundled = parseCart(
      await call("PATCH", `/api/carts/${cart.cart_token}/items/${parentId}/bundled_items`, { body: { bundled_items: [{ variant_id: child.id, quantity: 1, display_to_customer: true }] } }),
    );
    const childId = bundled.cart.items[0]?.bundled_items[0]?.id as number;
    const before = await lines(cart.cart_token);

    const subscribe = await call("POST", `/api/carts/${cart.cart_token}/items/${childId}/subscribe?subscription_plan_id=${plan.id}`);
    expect(subscribe.status).toBe(409);
    expect(subscribe.body.error_code).toBe("bundled_item");
    const byEntry = await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: child.id, quantity: 1, item_id: childId, subscription: true }] } });
    expect(byEntry.status).toBe(422);
    expect(Object.keys(byEntry.body.errors)).toEqual(["items.0.subscription"]);
    expect(await lines(cart.cart_token)).toEqual(before);
  });
});

describe("ids in paths and queries", () => {
  it("are decimal digits: 0x4a, 7.4e1, +74 or 074 name no line (404) and no plan (422)", async () => {
    const { variant, product } = await createProduct(t.db.prisma, acme.id);
    const { variant: target } = await createProduct(t.db.prisma, acme.id);
    const plan = await createPlan(t.db.prisma, acme.id, { productIds: [product.id] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const itemId = cart.items[0]?.id as number;
    for (const spelling of [`0x${itemId.toString(16)}`, `${itemId}.0`, `${itemId / 10}e1`, `+${itemId}`, `0${itemId}`, `%20${itemId}`]) {
      const response = await call("PATCH", `/api/carts/${cart.cart_token}/items/${spelling}/variant`, { body: { variant_id: target.id } });
      expect(response.status, spelling).toBe(404);
    }
    const hexPlan = await call("POST", `/api/carts/${cart.cart_token}/items/${itemId}/subscribe?subscription_plan_id=0x${plan.id.toString(16)}`);
    expect(hexPlan.status).toBe(422);
    expect(hexPlan.body.errors).toEqual({ subscription_plan_id: ["must be a whole number in decimal digits"] });
    expect((await lines(cart.cart_token)).map((line) => [line.variant_id, line.subscription])).toEqual([[variant.id, false]]);
    expect((await call("POST", `/api/carts/${cart.cart_token}/items/${itemId}/subscribe?subscription_plan_id=${plan.id}`)).status).toBe(200);
  });
});

// Found by an audit: nothing but the company's catalog bounded an anonymous cart's lines; with
// 2,000 of them the stored view was 1.45 MB and each mutation took 0.2-0.4 s.
describe("a cart's lines", () => {
  /** `count` variants priced in the US, copied with SQL from one made by the fixtures. */
  async function variantIds(count: number): Promise<number[]> {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 100 } }] });
    const columns = async (table: string) =>
      (await t.db.sql.query<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 AND column_name <> 'id' ORDER BY ordinal_position", [table])).map(
        ({ name }) => name,
      );
    const variantColumns = await columns("variants");
    const priceColumns = await columns("variant_prices");
    const copied = await t.db.sql.query<{ id: number }>(
      `INSERT INTO variants (${variantColumns.join(", ")})
       SELECT ${variantColumns.map((name) => (name === "sku" ? "v.sku || '-' || g" : `v.${name}`)).join(", ")} FROM variants v, generate_series(1, $2) g WHERE v.id = $1
       RETURNING id`,
      [variant.id, count - 1],
    );
    await t.db.sql.query(
      `INSERT INTO variant_prices (${priceColumns.join(", ")})
       SELECT ${priceColumns.map((name) => (name === "variant_id" ? "c.id" : `p.${name}`)).join(", ")} FROM variant_prices p, unnest($2::int[]) AS c(id) WHERE p.variant_id = $1`,
      [variant.id, copied.map(({ id }) => id)],
    );
    return [variant.id, ...copied.map(({ id }) => id)];
  }

  it("are at most 500: a request that would pass them is a 422 on items or bundled_items and changes nothing; a full cart may still swap a line", async () => {
    const ids = await variantIds(502);
    const entries = (slice: number[]) => slice.map((id) => ({ variant_id: id, quantity: 1 }));
    const { cart } = await createCartOverHttp(call, acme, { items: entries(ids.slice(0, 100)) });
    const add = (slice: number[]) => call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: entries(slice) } });
    for (let start = 100; start < 500; start += 100) expect((await add(ids.slice(start, start + 100))).status).toBe(200);
    const full = await call("GET", `/api/carts/${cart.cart_token}`);
    expect(full.body.cart.items).toHaveLength(500);

    const past = await add(ids.slice(500, 501));
    expect(past.status).toBe(422);
    expect(past.body.errors).toEqual({ items: ["a cart holds at most 500 lines: it has 500 and this request would make it 501"] });
    const firstLine = full.body.cart.items[0];
    const bundled = await call("PATCH", `/api/carts/${cart.cart_token}/items/${firstLine.id}/bundled_items`, {
      body: { bundled_items: [{ variant_id: ids[501], quantity: 1, display_to_customer: true }] },
    });
    expect(bundled.status).toBe(422);
    expect(bundled.body.errors).toEqual({ bundled_items: ["a cart holds at most 500 lines: it has 500 and this request would make it 501"] });
    expect((await call("GET", `/api/carts/${cart.cart_token}`)).body.cart).toEqual(full.body.cart);
    expect(await lines(cart.cart_token)).toHaveLength(500);

    const swap = await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: firstLine.variant_id, item_id: firstLine.id, quantity: 0 }, { variant_id: ids[500], quantity: 1 }] } });
    expect(swap.status).toBe(200);
    expect(swap.body.cart.items).toHaveLength(500);
  });

  it("count a removed line's bundled items as freed: removing a line with 5 and adding 2 goes through at the cap", async () => {
    const ids = await variantIds(503);
    const entries = (slice: number[]) => slice.map((id) => ({ variant_id: id, quantity: 1 }));
    const { cart } = await createCartOverHttp(call, acme, { items: entries(ids.slice(0, 95)) });
    const bundle = cart.items[0]!;
    const bundled = await call("PATCH", `/api/carts/${cart.cart_token}/items/${bundle.id}/bundled_items`, {
      body: { bundled_items: ids.slice(95, 100).map((id) => ({ variant_id: id, quantity: 1, display_to_customer: true })) },
    });
    expect(bundled.status).toBe(200);
    for (let start = 100; start < 500; start += 100) {
      expect((await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: entries(ids.slice(start, start + 100)) } })).status).toBe(200);
    }
    expect(await lines(cart.cart_token)).toHaveLength(500);

    const removeBundleAddTwo = await call("POST", `/api/carts/${cart.cart_token}/items`, {
      body: { items: [{ variant_id: bundle.variant_id, item_id: bundle.id, quantity: 0 }, ...entries(ids.slice(500, 502))] },
    });
    expect(removeBundleAddTwo.status, JSON.stringify(removeBundleAddTwo.body.errors)).toBe(200);
    expect(await lines(cart.cart_token)).toHaveLength(496);
  });
});

describe("statements of a line change", () => {
  // The country a refusal names comes with the lock, which joins the cart's country.
  const ownCountryReads = (statements: string[]) => statements.filter((text) => /FROM countries WHERE/i.test(text));

  it.skipIf(!inject("databaseServer"))("a variant change and a bundled-items change read the cart's country with the lock, not by a statement of their own", async () => {
    const { variant: a } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
    const { variant: b } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1200 } }] });
    const { variant: caOnly } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { CA: 700 } }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: a.id, quantity: 1 }] });
    const line = cart.items[0]?.id as number;
    const path = `/api/carts/${cart.cart_token}/items/${line}`;

    const bundling = await statementsSentDuring(async () => {
      const bundled = parseCart(
        await call("PATCH", `${path}/bundled_items`, {
          body: { bundled_items: [{ variant_id: b.id, quantity: 1, display_to_customer: true }, { variant_id: caOnly.id, quantity: 1, display_to_customer: true }] },
        }),
      ).cart;
      expect(bundled.messages.errors).toEqual([`${caOnly.sku} is not available in United States`]);
    });
    const changing = await statementsSentDuring(async () => {
      expect(parseCart(await call("PATCH", `${path}/variant`, { body: { variant_id: b.id } })).cart.items.map((item) => item.variant_id)).toEqual([b.id]);
    });
    const refusing = await statementsSentDuring(async () => {
      const refused = await call("PATCH", `${path}/variant`, { body: { variant_id: caOnly.id } });
      expect(refused.body.errors).toEqual({ variant_id: [`${caOnly.sku} is not available in United States`] });
    });
    expect([bundling, changing, refusing].map(ownCountryReads)).toEqual([[], [], []]);
  });
});
