import { beforeEach, describe, expect, inject, it } from "vitest";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import { type CompanyFixture, createProduct } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { inTurnBehindHeldLock } from "../../helpers/lock-queue.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

beforeEach(async () => {
  await t.db.prisma.taxRate.deleteMany();
});

const put = (country: string, rate: unknown, token = acme.token) => call("PUT", `/api/tax_rates/${country}`, { token, body: { tax_rate: { rate } } });

describe("PUT /api/tax_rates/:country_code", () => {
  it("sets the company's rate for a country, then replaces it", async () => {
    const created = await put("US", "8.25");
    expect(created.status).toBe(200);
    expect(created.body.tax_rate).toEqual({ id: expect.any(Number), country_code: "US", country_name: "United States", rate: "8.25", updated_at: expect.any(String) });
    const replaced = await put("us", "7");
    expect(replaced.body.tax_rate).toMatchObject({ id: created.body.tax_rate.id, country_code: "US", rate: "7" });
    expect((await put("DE", "0")).body.tax_rate.rate).toBe("0");
    expect((await put("FR", "100")).body.tax_rate.rate).toBe("100");
    expect((await put("GB", "12.3456")).body.tax_rate.rate).toBe("12.3456");
    expect(await t.db.prisma.taxRate.count({ where: { company_id: acme.id } })).toBe(4);
  });

  it("keeps each company's rates apart", async () => {
    await put("US", "8.25");
    await put("US", "5", globex.token);
    const acmeRates = await call("GET", "/api/tax_rates", { token: acme.token });
    expect(acmeRates.body.tax_rates.map((r: { rate: string }) => r.rate)).toEqual(["8.25"]);
  });

  it("answers 422 for rates outside 0..100, over 4 decimals or not decimal strings, and changes nothing", async () => {
    await put("US", "8.25");
    for (const rate of ["100.0001", "-1", "8.12345", "abc", 8.25]) {
      const response = await put("US", rate);
      expect(response.status, String(rate)).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(["tax_rate.rate"]);
    }
    expect((await call("PUT", "/api/tax_rates/US", { token: acme.token, body: {} })).body.errors).toEqual({ tax_rate: ["is required"] });
    expect((await call("GET", "/api/tax_rates", { token: acme.token })).body.tax_rates.map((r: { rate: string }) => r.rate)).toEqual(["8.25"]);
  });

  // Found by an audit: the first rate of a country was read, then inserted, so concurrent first
  // PUTs all found none and all but one failed on the unique index (409).
  it("answers concurrent first PUTs of a country with 200 each, and keeps one rate: one of theirs", async () => {
    const rates = Array.from({ length: 20 }, (_, index) => String(index));
    const answers = await Promise.all(rates.map((rate) => put("FR", rate)));
    expect(answers.map((answer) => answer.status)).toEqual(rates.map(() => 200));
    const stored = await t.db.prisma.taxRate.findMany({ where: { company_id: acme.id } });
    expect(stored).toHaveLength(1);
    expect(rates).toContain(stored[0]?.rate.toFixed());
    expect(new Set(answers.map((answer) => answer.body.tax_rate.id))).toEqual(new Set([stored[0]?.id]));
  });

  it("answers 404 for an unknown or malformed country code, and 401 without a token", async () => {
    expect((await put("ZZ", "5")).status).toBe(404);
    expect((await put("USA", "5")).status).toBe(404);
    expect((await call("PUT", "/api/tax_rates/US", { body: { tax_rate: { rate: "5" } } })).status).toBe(401);
    expect(await t.db.prisma.taxRate.count()).toBe(0);
  });
});

describe("GET /api/tax_rates", () => {
  it("lists the company's rates by country code with pagination", async () => {
    await put("US", "8.25");
    await put("CA", "5");
    const response = await call("GET", "/api/tax_rates", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.tax_rates.map((r: { country_code: string }) => r.country_code)).toEqual(["CA", "US"]);
    expect(response.body.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 2, per_page: 100 });
    expect((await call("GET", "/api/tax_rates")).status).toBe(401);
  });
});

describe("GET /api/tax_rates/:country_code", () => {
  it("shows the company's rate for a country, as PUT answers it", async () => {
    const set = (await put("US", "8.25")).body.tax_rate;
    const response = await call("GET", "/api/tax_rates/us", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ tax_rate: set, meta: { request_id: expect.any(String), timestamp: expect.any(String) } });
  });

  it("answers 404 for a country without a rate of this company, an unknown or malformed country, and 401 without a token", async () => {
    await put("CA", "5", globex.token);
    for (const country of ["CA", "ZZ", "USA"]) {
      const response = await call("GET", `/api/tax_rates/${country}`, { token: acme.token });
      expect(response.status, country).toBe(404);
      expect(response.body.error_code).toBe("not_found");
    }
    expect((await call("GET", "/api/tax_rates/CA")).status).toBe(401);
  });
});

describe("DELETE /api/tax_rates/:country_code", () => {
  // Found by an audit: a rate once set could only be PUT to 0, which GET still showed as a rate
  // row, where a country never set is a 404.
  it("removes the company's rate and answers it; the country is then as if never set", async () => {
    const set = (await put("US", "10")).body.tax_rate;
    const response = await call("DELETE", "/api/tax_rates/us", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ tax_rate: set, meta: { request_id: expect.any(String), timestamp: expect.any(String) } });
    expect((await call("GET", "/api/tax_rates/US", { token: acme.token })).status).toBe(404);
    expect(await t.db.prisma.taxRate.count({ where: { company_id: acme.id } })).toBe(0);
  });

  it("answers one of several concurrent deletes of a rate 200 and the others 404", async () => {
    await put("US", "10");
    const responses = await Promise.all(Array.from({ length: 6 }, () => call("DELETE", "/api/tax_rates/US", { token: acme.token })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
    for (const response of responses.filter((each) => each.status === 404)) expect(response.body.error_code).toBe("not_found");
  });

  // Found checking the catalog's writes after an audit of concurrent updates: the delete read
  // the rate, then deleted it, so a PUT committed in between was removed but not answered.
  it.skipIf(!inject("databaseServer"))("answers the rate it removed, also one a concurrent PUT set just before", async () => {
    const rate = (await put("US", "10")).body.tax_rate;
    const slowWrite = { sql: "SELECT id FROM tax_rates WHERE id = $1 FOR UPDATE", params: [rate.id] };
    const [replaced, deleted] = await inTurnBehindHeldLock(t.db, slowWrite, [() => put("US", "7"), () => call("DELETE", "/api/tax_rates/US", { token: acme.token })]);
    expect(replaced!.status).toBe(200);
    expect(deleted!.status).toBe(200);
    expect(deleted!.body.tax_rate).toEqual(replaced!.body.tax_rate);
    expect(await t.db.prisma.taxRate.count({ where: { company_id: acme.id } })).toBe(0);
  });

  it("prices carts changed afterwards without tax for that country", async () => {
    await put("US", "10");
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 2000 } }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    expect(cart.tax_total).toBe("2.00");
    expect((await call("DELETE", "/api/tax_rates/US", { token: acme.token })).status).toBe(200);
    const repriced = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "1" } }));
    expect(repriced.cart).toMatchObject({ tax_total: "0.00", amount_total: "20.00" });
  });

  it("answers 404 when the company has no rate there, leaving another company's rate alone", async () => {
    await put("CA", "5", globex.token);
    const response = await call("DELETE", "/api/tax_rates/CA", { token: acme.token });
    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe("not_found");
    expect((await call("GET", "/api/tax_rates/CA", { token: globex.token })).body.tax_rate.rate).toBe("5");
  });

  it("answers 404 for an unknown or malformed country code and 401 without a token, removing nothing", async () => {
    await put("US", "8.25");
    for (const country of ["ZZ", "USA", "1"]) {
      const response = await call("DELETE", `/api/tax_rates/${country}`, { token: acme.token });
      expect(response.status, country).toBe(404);
      expect(response.body.error_code, country).toBe("not_found");
    }
    expect((await call("DELETE", "/api/tax_rates/US")).status).toBe(401);
    expect(await t.db.prisma.taxRate.count({ where: { company_id: acme.id } })).toBe(1);
  });
});
