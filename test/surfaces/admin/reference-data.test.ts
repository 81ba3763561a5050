import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CompanyFixture, createCompanyWithToken } from "../../helpers/fixtures.js";
import { type Call, httpClient } from "../../helpers/http.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;

beforeAll(async () => {
  t = await startTestApp();
  call = httpClient(t.url);
  acme = await createCompanyWithToken(t.db.prisma, "Acme");
});

afterAll(async () => {
  await t.close();
});

describe("GET /api/countries", () => {
  it("lists the reference countries with their currency, for any company", async () => {
    const response = await call("GET", "/api/countries", { token: acme.token });
    expect(response.status).toBe(200);
    const byIso = new Map(response.body.countries.map((c: { iso: string }) => [c.iso, c]));
    expect(byIso.get("US")).toEqual({ id: expect.any(Number), iso: "US", name: "United States", currency_code: "USD", currency_symbol: "$", decimal_places: 2 });
    expect(byIso.get("JP")).toMatchObject({ currency_code: "JPY", decimal_places: 0 });
    expect(byIso.get("KW")).toMatchObject({ currency_code: "KWD", decimal_places: 3 });
    for (const [iso, currency] of [["CA", "CAD"], ["GB", "GBP"], ["DE", "EUR"], ["FR", "EUR"]]) {
      expect(byIso.get(iso)).toMatchObject({ currency_code: currency });
    }
    expect(response.body.meta.pagination).toMatchObject({ current_page: 1, per_page: 100, total_count: response.body.countries.length });
  });

  it("pages, and answers 401 without a token", async () => {
    const page = await call("GET", "/api/countries?per_page=2&page=2", { token: acme.token });
    expect(page.body.countries).toHaveLength(2);
    expect((await call("GET", "/api/countries")).status).toBe(401);
  });
});

describe("GET /api/languages", () => {
  it("lists the reference languages", async () => {
    const response = await call("GET", "/api/languages", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.languages).toContainEqual({ iso: "en", name: "English" });
    expect(response.body.meta.pagination.total_count).toBe(response.body.languages.length);
    expect((await call("GET", "/api/languages")).status).toBe(401);
  });
});
