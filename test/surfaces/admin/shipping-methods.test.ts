import { beforeEach, describe, expect, inject, it } from "vitest";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import { type CompanyFixture, createPlan, createProduct } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { inTurnBehindHeldLock } from "../../helpers/lock-queue.js";
import { addSubscriptionOrder } from "../../helpers/subscription-orders.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

beforeEach(async () => {
  await t.db.prisma.cart.deleteMany();
  await t.db.prisma.subscriptionOrder.deleteMany();
  await t.db.prisma.shippingMethod.deleteMany();
});

const create = (shipping_method: unknown, token = acme.token) => call("POST", "/api/shipping_methods", { token, body: { shipping_method } });
const update = (id: number, shipping_method: unknown, token = acme.token) =>
  call("PUT", `/api/shipping_methods/${id}`, { token, body: { shipping_method } });

describe("POST /api/shipping_methods", () => {
  it("creates a method with amounts in the country's currency: 201", async () => {
    const response = await create({ name: "Standard", country_code: "US", price: "5", free_over: "100.00" });
    expect(response.status).toBe(201);
    expect(response.body.shipping_method).toEqual({
      id: expect.any(Number),
      name: "Standard",
      country_code: "US",
      currency_code: "USD",
      price: "5.00",
      free_over: "100.00",
      active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const row = await t.db.prisma.shippingMethod.findFirstOrThrow();
    expect([row.company_id, row.price, row.free_over]).toEqual([acme.id, 500, 10000]);

    const yen = await create({ name: "Japan Post", country_code: "jp", price: "800", active: false });
    expect(yen.body.shipping_method).toMatchObject({ country_code: "JP", currency_code: "JPY", price: "800", free_over: null, active: false });
  });

  it("answers 422 for amounts the currency cannot hold, unknown countries and bad members, writing nothing", async () => {
    const amounts = await create({ name: "Bad", country_code: "KW", price: "1.2345", free_over: "10.0001" });
    expect(amounts.status).toBe(422);
    expect(amounts.body.errors).toEqual({
      "shipping_method.price": ["must be an amount in KWD with at most 3 decimal place(s)"],
      "shipping_method.free_over": ["must be an amount in KWD with at most 3 decimal place(s)"],
    });
    expect((await create({ name: "Nowhere", country_code: "ZZ", price: "1.00" })).body.errors).toEqual({
      "shipping_method.country_code": ["does not name a country"],
    });
    const malformed = await create({ name: "", country_code: "USA", price: "-5.00" });
    expect(Object.keys(malformed.body.errors).sort()).toEqual(["shipping_method.country_code", "shipping_method.name", "shipping_method.price"]);
    expect(await t.db.prisma.shippingMethod.count()).toBe(0);
  });

  it("stores the name people read: NFC, trimmed of invisible characters; one with no visible character is blank", async () => {
    const created = await create({ name: "\u200bExpre\u0301s\u2060 ", country_code: "US", price: "5" });
    expect(created.body.shipping_method.name).toBe("Exprés");
    const blank = await create({ name: "\u200b\ufeff ", country_code: "US", price: "5" });
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toEqual({ "shipping_method.name": ["must not be blank"] });
    const renamed = await update(created.body.shipping_method.id, { name: "\u3000" });
    expect(renamed.body.errors).toEqual({ "shipping_method.name": ["must not be blank"] });
    expect((await t.db.prisma.shippingMethod.findMany()).map((method) => method.name)).toEqual(["Exprés"]);
  });

  it("answers 422, not a 500, for amounts beyond what is stored (2147483647 minor units), writing nothing", async () => {
    const response = await create({ name: "Huge", country_code: "US", price: "21474836.48", free_over: "1467383820" });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "shipping_method.price": ["must be at most 21474836.47 USD"],
      "shipping_method.free_over": ["must be at most 21474836.47 USD"],
    });
    expect(await t.db.prisma.shippingMethod.count()).toBe(0);
    const method = (await create({ name: "Largest", country_code: "US", price: "21474836.47" })).body.shipping_method;
    expect(method.price).toBe("21474836.47");
    expect((await update(method.id, { price: "1467383820" })).body.errors).toEqual({ "shipping_method.price": ["must be at most 21474836.47 USD"] });
  });

  it("answers 401 without a token", async () => {
    expect((await call("POST", "/api/shipping_methods", { body: { shipping_method: { name: "X", country_code: "US", price: "1.00" } } })).status).toBe(401);
  });
});

describe("GET /api/shipping_methods and /api/shipping_methods/:id", () => {
  it("lists the company's methods newest first, filtered by country", async () => {
    const us = (await create({ name: "US", country_code: "US", price: "5.00" })).body.shipping_method;
    const ca = (await create({ name: "CA", country_code: "CA", price: "7.00" })).body.shipping_method;
    await create({ name: "Foreign", country_code: "US", price: "1.00" }, globex.token);
    const all = await call("GET", "/api/shipping_methods", { token: acme.token });
    expect(all.status).toBe(200);
    expect(all.body.shipping_methods).toEqual([ca, us]);
    expect(all.body.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 2, per_page: 25 });
    const usOnly = await call("GET", "/api/shipping_methods?country_code=us", { token: acme.token });
    expect(usOnly.body.shipping_methods).toEqual([us]);
    expect((await call("GET", "/api/shipping_methods?country_code=USA", { token: acme.token })).status).toBe(422);
  });

  it("searches by name, case-insensitively, with % and _ matched literally, within the company and country", async () => {
    const ground = (await create({ name: "Ground 100%", country_code: "US", price: "5.00" })).body.shipping_method;
    const express = (await create({ name: "Express_Air", country_code: "CA", price: "9.00" })).body.shipping_method;
    await create({ name: "Ground", country_code: "US", price: "1.00" }, globex.token);
    const search = (query: string) => call("GET", `/api/shipping_methods?${query}`, { token: acme.token });
    expect((await search("search_query=gROUND")).body.shipping_methods).toEqual([ground]);
    expect((await search("search_query=gROUND")).body.meta.pagination.total_count).toBe(1);
    expect((await search("search_query=%25")).body.shipping_methods).toEqual([ground]);
    expect((await search("search_query=s_a")).body.shipping_methods).toEqual([express]);
    expect((await search("search_query=zzzqqq")).body.shipping_methods).toEqual([]);
    expect((await search("search_query=r&country_code=CA")).body.shipping_methods).toEqual([express]);
    expect((await search(`search_query=${"x".repeat(256)}`)).status).toBe(422);
  });

  it("shows a method; another company's is a 404", async () => {
    const method = (await create({ name: "US", country_code: "US", price: "5.00" })).body.shipping_method;
    expect((await call("GET", `/api/shipping_methods/${method.id}`, { token: acme.token })).body.shipping_method).toEqual(method);
    expect((await call("GET", `/api/shipping_methods/${method.id}`, { token: globex.token })).status).toBe(404);
  });
});

describe("PUT /api/shipping_methods/:id", () => {
  it("changes only the members sent; free_over null removes the threshold", async () => {
    const method = (await create({ name: "Standard", country_code: "US", price: "5.00", free_over: "100.00" })).body.shipping_method;
    const renamed = await update(method.id, { name: "Ground" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.shipping_method).toMatchObject({ name: "Ground", price: "5.00", free_over: "100.00" });
    const cleared = await update(method.id, { free_over: null, price: "6.5" });
    expect(cleared.body.shipping_method).toMatchObject({ price: "6.50", free_over: null });
    const sameCurrency = await update(method.id, { country_code: "US" });
    expect(sameCurrency.status).toBe(200);
  });

  it("needs the amounts restated when the country's currency changes", async () => {
    const method = (await create({ name: "Standard", country_code: "DE", price: "5.00", free_over: "50.00" })).body.shipping_method;
    expect((await update(method.id, { country_code: "FR" })).body.shipping_method).toMatchObject({ country_code: "FR", currency_code: "EUR", price: "5.00" });
    const missing = await update(method.id, { country_code: "JP" });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({
      "shipping_method.price": ["is required when the country's currency changes"],
      "shipping_method.free_over": ["is required when the country's currency changes"],
    });
    const wrongDecimals = await update(method.id, { country_code: "JP", price: "500.50", free_over: "5000" });
    expect(wrongDecimals.body.errors).toEqual({ "shipping_method.price": ["must be an amount in JPY with at most 0 decimal place(s)"] });
    expect((await call("GET", `/api/shipping_methods/${method.id}`, { token: acme.token })).body.shipping_method).toMatchObject({ country_code: "FR", price: "5.00" });
    const moved = await update(method.id, { country_code: "JP", price: "500", free_over: "5000" });
    expect(moved.body.shipping_method).toMatchObject({ country_code: "JP", currency_code: "JPY", price: "500", free_over: "5000" });
  });

  // Found by an audit: each update checked the currency rule against the method as it had read
  // it, without a lock, and wrote its country back, so a move to Japan racing a new threshold
  // left a $50.00 threshold read as 5000 yen, or lost the move.
  describe.skipIf(!inject("databaseServer"))("concurrent updates", () => {
    const move = { country_code: "JP", price: "500" };
    const threshold = { free_over: "50.00" };
    const raceInTurn = async (first: unknown, second: unknown) => {
      const method = (await create({ name: "Standard", country_code: "US", price: "5.00" })).body.shipping_method;
      const slowWrite = { sql: "SELECT id FROM shipping_methods WHERE id = $1 FOR UPDATE", params: [method.id] };
      const responses = await inTurnBehindHeldLock(t.db, slowWrite, [() => update(method.id, first), () => update(method.id, second)]);
      const stored = (await call("GET", `/api/shipping_methods/${method.id}`, { token: acme.token })).body.shipping_method;
      return { responses, stored };
    };

    it("judges a threshold sent just after a move to Japan in yen: 422, and the move stays", async () => {
      const { responses, stored } = await raceInTurn(move, threshold);
      expect(responses.map((response) => response.status)).toEqual([200, 422]);
      expect(responses[1]!.body.errors).toEqual({ "shipping_method.free_over": ["must be an amount in JPY with at most 0 decimal place(s)"] });
      expect(stored).toMatchObject({ country_code: "JP", currency_code: "JPY", price: "500", free_over: null });
    });

    it("refuses a move to Japan sent just after a threshold without restating it: 422, and the threshold stays in dollars", async () => {
      const { responses, stored } = await raceInTurn(threshold, move);
      expect(responses.map((response) => response.status)).toEqual([200, 422]);
      expect(responses[1]!.body.errors).toEqual({ "shipping_method.free_over": ["is required when the country's currency changes"] });
      expect(stored).toMatchObject({ country_code: "US", currency_code: "USD", price: "5.00", free_over: "50.00" });
    });
  });

  it("answers 404 for another company's method and changes nothing", async () => {
    const method = (await create({ name: "Mine", country_code: "US", price: "5.00" })).body.shipping_method;
    expect((await update(method.id, { name: "Theirs" }, globex.token)).status).toBe(404);
    expect((await t.db.prisma.shippingMethod.findUniqueOrThrow({ where: { id: method.id } })).name).toBe("Mine");
  });
});

describe("DELETE /api/shipping_methods/:id", () => {
  it("removes the method; another company's or a second delete is a 404", async () => {
    const method = (await create({ name: "Gone", country_code: "US", price: "5.00" })).body.shipping_method;
    expect((await call("DELETE", `/api/shipping_methods/${method.id}`, { token: globex.token })).status).toBe(404);
    const response = await call("DELETE", `/api/shipping_methods/${method.id}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.shipping_method).toEqual(method);
    expect(await t.db.prisma.shippingMethod.count()).toBe(0);
    expect((await call("DELETE", `/api/shipping_methods/${method.id}`, { token: acme.token })).status).toBe(404);
  });

  // Found checking the catalog's writes after an audit of concurrent updates: the delete read the
  // method, then deleted it, so an update committed in between was removed but not answered.
  it.skipIf(!inject("databaseServer"))("answers the method as it removed it, also as a concurrent update left it just before", async () => {
    const method = (await create({ name: "Last", country_code: "US", price: "5.00" })).body.shipping_method;
    const slowWrite = { sql: "SELECT id FROM shipping_methods WHERE id = $1 FOR UPDATE", params: [method.id] };
    const [updated, deleted] = await inTurnBehindHeldLock(t.db, slowWrite, [
      () => update(method.id, { price: "6.00" }),
      () => call("DELETE", `/api/shipping_methods/${method.id}`, { token: acme.token }),
    ]);
    expect([updated!.status, deleted!.status]).toEqual([200, 200]);
    expect(deleted!.body.shipping_method).toEqual(updated!.body.shipping_method);
  });

  it("answers 409 in_use while a cart chose the method, and changes neither", async () => {
    const method = (await create({ name: "Used", country_code: "US", price: "5.00" })).body.shipping_method;
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 3000 } }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const chosen = parseCart(await call("POST", `/api/carts/${cart.cart_token}`, { body: { shipping_method: { id: method.id } } })).cart;
    expect(chosen).toMatchObject({ shipping_total: "5.00", amount_total: "35.00" });

    const response = await call("DELETE", `/api/shipping_methods/${method.id}`, { token: acme.token });
    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe("in_use");
    expect(await t.db.prisma.shippingMethod.count()).toBe(1);
    expect((await t.db.prisma.cart.findUniqueOrThrow({ where: { id: chosen.id } })).shipping_method_id).toBe(method.id);
    const changed = parseCart(await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: variant.id, quantity: 1 }] } })).cart;
    expect(changed).toMatchObject({ shipping_total: "5.00", amount_total: "65.00" });
  });

  it("answers 409 in_use while a subscription order ships with the method, and keeps the order's method", async () => {
    const method = (await create({ name: "Used", country_code: "US", price: "5.00" })).body.shipping_method;
    const plan = await createPlan(t.db.prisma, acme.id);
    const orderId = await addSubscriptionOrder(t.db.prisma, acme.id, plan.id, "cancelled");
    expect((await t.db.prisma.subscriptionOrder.findUniqueOrThrow({ where: { id: orderId } })).shipping_method_id).toBe(method.id);

    const response = await call("DELETE", `/api/shipping_methods/${method.id}`, { token: acme.token });
    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe("in_use");
    expect((await t.db.prisma.subscriptionOrder.findUniqueOrThrow({ where: { id: orderId } })).shipping_method_id).toBe(method.id);
    expect((await update(method.id, { active: false })).body.shipping_method.active).toBe(false);
  });
});
