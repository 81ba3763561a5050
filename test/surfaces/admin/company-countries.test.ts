import { beforeEach, describe, expect, inject, it } from "vitest";
import { createCartOverHttp } from "../../helpers/carts.js";
import { type CompanyFixture, enableCompanyCountry } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { burstBehindHeldLock, inTurnBehindHeldLock } from "../../helpers/lock-queue.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

beforeEach(async () => {
  await t.db.prisma.agreement.deleteMany();
  await t.db.prisma.companyCountry.deleteMany();
});

const create = (company_country: unknown, token = acme.token) => call("POST", "/api/company_countries", { token, body: { company_country } });
const countryId = async (iso: string) => (await t.db.prisma.country.findUniqueOrThrow({ where: { iso } })).id;

describe("POST /api/company_countries", () => {
  it("adds a country by code (any case) or by id: 201 {company_country, meta}", async () => {
    const germany = await create({ country_code: "de" });
    expect(germany.status).toBe(201);
    expect(germany.body.company_country).toEqual({
      id: expect.any(Number),
      country_id: await countryId("DE"),
      country_code: "DE",
      name: "Germany",
      currency_code: "EUR",
      created_at: expect.any(String),
    });
    expect(germany.body.meta.request_id).toBe(germany.headers["x-request-id"]);
    const japan = await create({ country_id: await countryId("JP"), country_code: "JP" });
    expect(japan.status).toBe(201);
    expect(japan.body.company_country.country_code).toBe("JP");
  });

  it("answers 409 for a country the company already has, also when requests race; another company may have it too", async () => {
    const racing = await Promise.all(Array.from({ length: 4 }, () => create({ country_code: "FR" })));
    expect(racing.map((response) => response.status).sort()).toEqual([201, 409, 409, 409]);
    const again = await create({ country_id: await countryId("FR") });
    expect(again.status).toBe(409);
    expect(again.body.error_code).toBe("company_country_taken");
    expect((await create({ country_code: "FR" }, globex.token)).status).toBe(201);
    expect(await t.db.prisma.companyCountry.count({ where: { company_id: acme.id } })).toBe(1);
  });

  it("answers 422 for no country, an unknown one, or a code and an id that disagree, creating nothing", async () => {
    const cases: [unknown, string][] = [
      [{}, "company_country.country_id"],
      [{ country_code: "ZZ" }, "company_country.country_code"],
      [{ country_id: 999_999 }, "company_country.country_id"],
      [{ country_id: await countryId("JP"), country_code: "US" }, "company_country.country_code"],
      [{ country_code: "USA" }, "company_country.country_code"],
    ];
    for (const [body, field] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(response.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    expect(await t.db.prisma.companyCountry.count()).toBe(0);
    expect((await call("POST", "/api/company_countries", { body: { company_country: { country_code: "US" } } })).status).toBe(401);
  });
});

describe("GET /api/company_countries", () => {
  it("lists the company's own countries by country code, paginated; shows one by id; another company's is a 404", async () => {
    for (const code of ["US", "CA", "DE"]) await create({ country_code: code });
    const foreign = (await create({ country_code: "GB" }, globex.token)).body.company_country;
    const page = await call("GET", "/api/company_countries?per_page=2", { token: acme.token });
    expect(page.status).toBe(200);
    expect(page.body.company_countries.map((country: { country_code: string }) => country.country_code)).toEqual(["CA", "DE"]);
    expect(page.body.meta.pagination).toEqual({ current_page: 1, total_pages: 2, total_count: 3, per_page: 2 });
    const first = page.body.company_countries[0];
    const shown = await call("GET", `/api/company_countries/${first.id}`, { token: acme.token });
    expect(shown.body.company_country).toEqual(first);
    expect((await call("GET", `/api/company_countries/${foreign.id}`, { token: acme.token })).status).toBe(404);
  });
});

describe("DELETE /api/company_countries/{id}", () => {
  it("deletes an unused one; one an agreement names is a 409 in_use that changes nothing; another company's is a 404", async () => {
    const germany = (await create({ country_code: "DE" })).body.company_country;
    const agreement = await call("POST", "/api/agreements", {
      token: acme.token,
      body: { agreement: { title: "German terms", description: "Nur hier.", company_country_ids: [germany.id] } },
    });
    expect(agreement.status).toBe(201);

    const foreign = await call("DELETE", `/api/company_countries/${germany.id}`, { token: globex.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error_message).toBe("Company country not found");
    expect(await t.db.prisma.companyCountry.count({ where: { id: germany.id } })).toBe(1);
    const refused = await call("DELETE", `/api/company_countries/${germany.id}`, { token: acme.token });
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe("in_use");
    expect((await call("GET", `/api/agreements/${agreement.body.agreement.id}`, { token: acme.token })).body.agreement.company_country_ids).toEqual([germany.id]);

    await call("PUT", `/api/agreements/${agreement.body.agreement.id}`, { token: acme.token, body: { agreement: { company_country_ids: [] } } });
    const deleted = await call("DELETE", `/api/company_countries/${germany.id}`, { token: acme.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.company_country).toEqual(germany);
    expect(await t.db.prisma.companyCountry.count()).toBe(0);
  });

  // Found checking audit Q's custom pages: the delete waited for an agreement write naming the
  // country (allowed 30 s) in Prisma's default transaction options, so deletes queued behind one
  // answered 503 database_busy once the waiters held every pooled connection.
  it.skipIf(!inject("databaseServer"))("waits for a slow agreement write naming the countries, also a burst of deletes: every one 200", async () => {
    const isos = ["US", "CA", "GB", "DE", "FR", "ES", "IT", "NL", "IE"];
    const ids = await Promise.all(isos.map(async (iso) => (await enableCompanyCountry(t.db.prisma, acme.id, iso)).id));
    const agreementWrite = { sql: "SELECT id FROM company_countries WHERE id = ANY($1::int[]) FOR KEY SHARE", params: [ids] };
    const burst = await burstBehindHeldLock(t.db, agreementWrite, () =>
      Promise.all(ids.map((id) => call("DELETE", `/api/company_countries/${id}`, { token: acme.token }))),
    );
    expect(burst.map((response) => response.status)).toEqual(Array(isos.length).fill(200));
    expect(await t.db.prisma.companyCountry.count()).toBe(0);
  });

  // Found by a review: the delete's lock ignored a row gone meanwhile, and the delete then
  // failed on it, a 404 that did not say what was not found.
  it.skipIf(!inject("databaseServer"))("takes racing deletes in turns: the first 200, the second a 404 Company country not found", async () => {
    const { id } = await enableCompanyCountry(t.db.prisma, acme.id, "DE");
    const agreementWrite = { sql: "SELECT id FROM company_countries WHERE id = $1 FOR KEY SHARE", params: [id] };
    const remove = () => call("DELETE", `/api/company_countries/${id}`, { token: acme.token });
    const [first, second] = await inTurnBehindHeldLock(t.db, agreementWrite, [remove, remove]);
    expect(first?.status).toBe(200);
    expect(second?.status).toBe(404);
    expect(second?.body).toMatchObject({ error_message: "Company country not found", error_code: "not_found" });
  });

  it("still lets a company be deleted with its countries and the agreements that name them", async () => {
    const other = await t.db.prisma.company.create({ data: { name: "Short-lived", shop_domain: "short.example.com", shop_slug: "short" } });
    const { id } = await t.db.prisma.companyCountry.create({ data: { company_id: other.id, country_id: await countryId("US") } });
    await t.db.prisma.agreement.create({ data: { company_id: other.id, title: "x", description: "x", countries: { create: { company_country_id: id } } } });
    await t.db.prisma.company.delete({ where: { id: other.id } });
    expect(await t.db.prisma.companyCountry.count({ where: { company_id: other.id } })).toBe(0);
  });
});

describe("agreements targeted to a company country", () => {
  it("are listed in a cart of that country and not in a cart of another", async () => {
    const germany = (await create({ country_code: "DE" })).body.company_country;
    const everywhere = await call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title: "Terms", description: "All.", show_at_checkout: true } } });
    const german = await call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title: "AGB", description: "Deutschland.", show_at_checkout: true } } });
    const targeted = await call("PUT", `/api/agreements/${german.body.agreement.id}`, { token: acme.token, body: { agreement: { company_country_ids: [germany.id] } } });
    expect(targeted.status).toBe(200);
    expect(targeted.body.agreement.company_country_ids).toEqual([germany.id]);

    const inGermany = (await createCartOverHttp(call, acme, { country_code: "DE" })).cart;
    expect(inGermany.agreements?.map((agreement) => agreement.id)).toEqual([everywhere.body.agreement.id, german.body.agreement.id]);
    const inTheUs = (await createCartOverHttp(call, acme, { country_code: "US" })).cart;
    expect(inTheUs.agreements?.map((agreement) => agreement.id)).toEqual([everywhere.body.agreement.id]);
  });
});
