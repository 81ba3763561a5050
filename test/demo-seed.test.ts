import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../src/demo-seed.js";
import { type Call, httpClient } from "./helpers/http.js";
import { startTestApp, type TestApp } from "./helpers/test-app.js";

let t: TestApp;
let call: Call;

beforeAll(async () => {
  t = await startTestApp();
  call = httpClient(t.url);
});

afterAll(async () => {
  await t.close();
});

describe("seedDemo", () => {
  it("gives a fresh database a shop a storefront can sell from, once", async () => {
    const seeded = await seedDemo(t.db.prisma);
    if (!seeded) throw new Error("expected the demo to be seeded on an empty database");
    const token = seeded.apiToken;
    const products = await call("GET", "/api/products", { token });
    expect(products.body.products.map((p: { title: string }) => p.title)).toEqual(["Starter Guide (e-book)", "Hydration Bottle", "Daily Greens"]);
    const greens = products.body.products[2].variants[0];
    expect(greens.prices).toEqual([
      { country_code: "US", currency_code: "USD", price: "49.99", rep_price: "39.99" },
      { country_code: "CA", currency_code: "CAD", price: "64.99", rep_price: "52.00" },
    ]);
    expect((await call("GET", "/api/discounts", { token })).body.discounts).toMatchObject([{ code: "WELCOME10", kind: "percentage", amount: "10", scope: "order" }]);
    expect((await call("GET", "/api/shipping_methods?country_code=US", { token })).body.shipping_methods).toMatchObject([{ price: "5.95", free_over: "75.00" }]);
    expect((await call("GET", "/api/tax_rates", { token })).body.tax_rates).toMatchObject([{ country_code: "CA", rate: "5" }, { country_code: "US", rate: "8.25" }]);
    expect((await call("GET", "/api/enrollment_packs", { token })).body.enrollment_packs).toMatchObject([{ title: "Starter Kit", variant_ids: [greens.id] }]);
    const countries = (await call("GET", "/api/company_countries", { token })).body.company_countries;
    expect(countries.map((country: { country_code: string }) => country.country_code)).toEqual(["CA", "US"]);
    expect(await seedDemo(t.db.prisma)).toBeNull();
  });
});
