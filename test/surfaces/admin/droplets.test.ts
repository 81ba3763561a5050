import { describe, expect, it } from "vitest";
import { createDroplet } from "../../../src/domain/droplets/service.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let analytics: { uuid: string };
let mailer: { uuid: string };
let patterned: { uuid: string };

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  analytics = await createDroplet(t.db.prisma, { name: "Analytics", category: "reporting", scopes: ["orders:read", "customers:read", "products:read"] });
  mailer = await createDroplet(t.db.prisma, { name: "Mailer", category: "marketing", scopes: ["customers:read", "customers:write"] });
  patterned = await createDroplet(t.db.prisma, { name: "Patterned", category: "a_b%", scopes: ["orders:read"] });
});

const uuidsOf = (body: { droplets: Array<{ uuid: string }> }) => body.droplets.map((droplet) => droplet.uuid);

describe("GET /api/droplets", () => {
  it("lists the platform catalog in the order droplets were added: uuid, name, category and scopes, with list meta", async () => {
    const response = await call("GET", "/api/droplets", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.droplets).toEqual([
      { uuid: analytics.uuid, name: "Analytics", category: "reporting", scopes: ["orders:read", "customers:read", "products:read"] },
      { uuid: mailer.uuid, name: "Mailer", category: "marketing", scopes: ["customers:read", "customers:write"] },
      { uuid: patterned.uuid, name: "Patterned", category: "a_b%", scopes: ["orders:read"] },
    ]);
    expect(response.body.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 3, per_page: 25 });
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
  });

  it("lists the same catalog for every company, and a uuid it lists installs", async () => {
    const theirs = await call("GET", "/api/droplets", { token: globex.token });
    expect(uuidsOf(theirs.body)).toEqual([analytics.uuid, mailer.uuid, patterned.uuid]);
    const installed = await call("POST", "/api/droplet_installations", { token: globex.token, body: { droplet_uuid: theirs.body.droplets[1].uuid } });
    expect(installed.status).toBe(201);
    expect(installed.body.droplet_installation.droplet_name).toBe("Mailer");
  });

  it("pages with page and per_page", async () => {
    const second = await call("GET", "/api/droplets?page=2&per_page=2", { token: acme.token });
    expect(second.status).toBe(200);
    expect(uuidsOf(second.body)).toEqual([patterned.uuid]);
    expect(second.body.meta.pagination).toEqual({ current_page: 2, total_pages: 2, total_count: 3, per_page: 2 });
    const past = await call("GET", "/api/droplets?page=3&per_page=2", { token: acme.token });
    expect(past.body.droplets).toEqual([]);
  });

  it("filters by category as the installations list does: case-insensitively, trimmed, literally; blank filters nothing", async () => {
    const uuids = async (query: string) => {
      const response = await call("GET", `/api/droplets?${query}`, { token: acme.token });
      expect(response.status, query).toBe(200);
      return uuidsOf(response.body);
    };
    expect(await uuids("category=MARKETING")).toEqual([mailer.uuid]);
    expect(await uuids("category=%20Reporting%20")).toEqual([analytics.uuid]);
    expect(await uuids("category=A_B%25")).toEqual([patterned.uuid]);
    expect(await uuids("category=a%25")).toEqual([]);
    const filtered = await call("GET", "/api/droplets?category=marketing", { token: acme.token });
    expect(filtered.body.meta.pagination.total_count).toBe(1);
    for (const blank of ["category=", "category=%20%20"]) expect(await uuids(blank)).toEqual([analytics.uuid, mailer.uuid, patterned.uuid]);
  });

  it("answers 422 by field for a bad query", async () => {
    for (const [query, field] of [
      ["per_page=101", "per_page"],
      ["page=0", "page"],
      ["per_page=x", "per_page"],
      [`category=${"c".repeat(101)}`, "category"],
    ] as const) {
      const response = await call("GET", `/api/droplets?${query}`, { token: acme.token });
      expect(response.status, query).toBe(422);
      expect(response.body.error_code, query).toBe("validation_failed");
      expect(Object.keys(response.body.errors), query).toEqual([field]);
    }
  });

  it("answers 401 without a token or with an unknown one", async () => {
    for (const headers of [{}, { authorization: "Bearer sct_unknown" }] as Record<string, string>[]) {
      const response = await call("GET", "/api/droplets", { headers });
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(response.body.droplets).toBeUndefined();
    }
  });
});
