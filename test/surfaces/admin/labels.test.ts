import { describe, expect, it } from "vitest";
import { type CompanyFixture, createCompanyWithToken } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

const createLabel = (body: unknown, token = acme.token) => call("POST", "/api/company/labels", { token, body });

describe("/api/company/labels", () => {
  it("creates a label: 201 {label: {id, name}, meta}, name trimmed", async () => {
    const response = await createLabel({ label: { name: "  Footer links " } });
    expect(response.status).toBe(201);
    expect(response.body.label).toEqual({ id: expect.any(Number), name: "Footer links" });
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
  });

  it("lists only the company's labels, by name, with pagination", async () => {
    await createLabel({ label: { name: "Blog" } });
    await createLabel({ label: { name: "Secret" } }, globex.token);
    const response = await call("GET", "/api/company/labels", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.labels.map((label: { name: string }) => label.name)).toEqual(["Blog", "Footer links"]);
    expect(response.body.meta.pagination).toMatchObject({ current_page: 1, total_count: 2 });
  });

  it("answers 422 on label.name for a name the company already uses, as every taken value is answered; another company may use it", async () => {
    const response = await createLabel({ label: { name: "Blog" } });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error_code: "validation_failed", errors: { "label.name": ["has already been taken"] } });
    expect((await createLabel({ label: { name: "Blog" } }, globex.token)).status).toBe(201);
  });

  it("answers 422 for a name that differs only in case, creating nothing", async () => {
    const company = await createCompanyWithToken(t.db.prisma, "Casing");
    expect((await createLabel({ label: { name: "Promo" } }, company.token)).status).toBe(201);
    for (const name of ["promo", "PROMO", "  pRoMo "]) {
      const response = await createLabel({ label: { name } }, company.token);
      expect(response.status, name).toBe(422);
      expect(response.body.errors, name).toEqual({ "label.name": ["has already been taken"] });
    }
    expect(await t.db.prisma.label.findMany({ where: { company_id: company.id }, select: { name: true } })).toEqual([{ name: "Promo" }]);
  });

  it("creates one label when names differing only in case race: one 201, the others 422", async () => {
    const company = await createCompanyWithToken(t.db.prisma, "Racing");
    const responses = await Promise.all(["Promo", "promo", "PROMO", "pRoMo"].map((name) => createLabel({ label: { name } }, company.token)));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 422, 422, 422]);
    expect(await t.db.prisma.label.count({ where: { company_id: company.id } })).toBe(1);
  });

  it("lists by name case-insensitively, in code point order of the lowercase name whatever the collation, then by id", async () => {
    const company = await createCompanyWithToken(t.db.prisma, "Sorting");
    for (const name of ["zeta", "Idem2", "Banana", "Épicerie", "apple", "Idem", "éclair"]) await createLabel({ label: { name } }, company.token);
    const names = async (query: string) =>
      (await call("GET", `/api/company/labels${query}`, { token: company.token })).body.labels.map((label: { name: string }) => label.name);
    const expected = ["apple", "Banana", "Idem", "Idem2", "zeta", "éclair", "Épicerie"];
    expect(await names("")).toEqual(expected);
    expect([...(await names("?per_page=3")), ...(await names("?per_page=3&page=2")), ...(await names("?per_page=3&page=3"))]).toEqual(expected);
  });

  it("stores a name in NFC: a precomposed accent and a combining one are the same name", async () => {
    const company = await createCompanyWithToken(t.db.prisma, "Unicode");
    const combining = await createLabel({ label: { name: "E\u0301picerie" } }, company.token);
    expect(combining.status).toBe(201);
    expect(combining.body.label.name).toBe("\u00c9picerie");
    for (const name of ["\u00c9picerie", "\u00e9picerie", "e\u0301picerie"]) {
      const response = await createLabel({ label: { name } }, company.token);
      expect(response.status, name).toBe(422);
      expect(response.body.errors, name).toEqual({ "label.name": ["has already been taken"] });
    }
    expect(await t.db.prisma.label.findMany({ where: { company_id: company.id }, select: { name: true } })).toEqual([{ name: "\u00c9picerie" }]);
  });

  it("trims invisible characters around a name as it trims spaces, keeping an emoji's presentation selector", async () => {
    const company = await createCompanyWithToken(t.db.prisma, "Invisible");
    expect((await createLabel({ label: { name: "Promo" } }, company.token)).status).toBe(201);
    for (const name of ["Promo\u200b", "\ufeff\u200dPromo\u2060", "\u3000Promo\u00ad "]) {
      const response = await createLabel({ label: { name } }, company.token);
      expect(response.status, JSON.stringify(name)).toBe(422);
    }
    const hearts = await createLabel({ label: { name: "\u200bLove \u2764\ufe0f\u200b" } }, company.token);
    expect(hearts.status).toBe(201);
    expect(hearts.body.label.name).toBe("Love \u2764\ufe0f");
    expect(await t.db.prisma.label.count({ where: { company_id: company.id } })).toBe(2);
  });

  it("answers 422 on label.name for a name with no visible character, creating nothing", async () => {
    const before = await t.db.prisma.label.count();
    for (const name of ["", "   ", "\u200b", "\u200b \u2060\ufeff", "\u3164", "\u00ad\u200d", "\ufe0f"]) {
      const response = await createLabel({ label: { name } });
      expect(response.status, JSON.stringify(name)).toBe(422);
      expect(response.body.errors, JSON.stringify(name)).toEqual({ "label.name": ["must not be blank"] });
    }
    expect(await t.db.prisma.label.count()).toBe(before);
  });

  it("answers 422 for a missing or blank name and 401 without a token, creating nothing", async () => {
    const before = await t.db.prisma.label.count();
    expect((await createLabel({})).body.errors).toEqual({ label: ["is required"] });
    expect((await createLabel({ label: {} })).body.errors).toEqual({ "label.name": ["is required"] });
    expect((await createLabel({ label: { name: "   " } })).status).toBe(422);
    expect((await call("POST", "/api/company/labels", { body: { label: { name: "X" } } })).status).toBe(401);
    expect((await call("GET", "/api/company/labels")).status).toBe(401);
    expect(await t.db.prisma.label.count()).toBe(before);
  });
});
