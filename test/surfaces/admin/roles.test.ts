import { describe, expect, it } from "vitest";
import { createDroplet } from "../../../src/domain/droplets/service.js";
import { createRole } from "../../../src/domain/roles/service.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let readers: { id: number };
let writers: { id: number };
let auditors: { id: number };
let foreign: { id: number };

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  readers = await createRole(t.db.prisma, { companyId: acme.id, name: "Readers", permissions: ["orders:read", "products:read"] });
  foreign = await createRole(t.db.prisma, { companyId: globex.id, name: "Globex secret", permissions: ["customers:write"] });
  writers = await createRole(t.db.prisma, { companyId: acme.id, name: "Writers", permissions: ["orders:write"] });
  auditors = await createRole(t.db.prisma, { companyId: acme.id, name: "Auditors", permissions: [] });
});

const idsOf = (body: { roles: Array<{ id: number }> }) => body.roles.map((role) => role.id);

describe("GET /api/roles", () => {
  it("lists the company's roles in the order they were added: id, name and permissions, with list meta", async () => {
    const response = await call("GET", "/api/roles", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.roles).toEqual([
      { id: readers.id, name: "Readers", permissions: ["orders:read", "products:read"] },
      { id: writers.id, name: "Writers", permissions: ["orders:write"] },
      { id: auditors.id, name: "Auditors", permissions: [] },
    ]);
    expect(response.body.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 3, per_page: 25 });
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
  });

  it("never lists another company's roles, on any page", async () => {
    const ours = await call("GET", "/api/roles?per_page=100", { token: acme.token });
    expect(idsOf(ours.body)).not.toContain(foreign.id);
    expect(ours.text).not.toContain("Globex secret");
    const theirs = await call("GET", "/api/roles", { token: globex.token });
    expect(theirs.body.roles).toEqual([{ id: foreign.id, name: "Globex secret", permissions: ["customers:write"] }]);
    expect(theirs.body.meta.pagination.total_count).toBe(1);
  });

  it("lists ids an installation's role_id takes", async () => {
    const droplet = await createDroplet(t.db.prisma, { name: "Reports", category: "reporting", scopes: ["orders:read", "customers:read"] });
    const role = (await call("GET", "/api/roles", { token: acme.token })).body.roles[0];
    const installed = await call("POST", "/api/droplet_installations", { token: acme.token, body: { droplet_uuid: droplet.uuid, role_id: role.id } });
    expect(installed.status).toBe(201);
    expect(installed.body.droplet_installation.effective_scopes).toEqual(["orders:read"]);
  });

  it("pages with page and per_page", async () => {
    const second = await call("GET", "/api/roles?page=2&per_page=2", { token: acme.token });
    expect(second.status).toBe(200);
    expect(idsOf(second.body)).toEqual([auditors.id]);
    expect(second.body.meta.pagination).toEqual({ current_page: 2, total_pages: 2, total_count: 3, per_page: 2 });
  });

  it("answers 422 by field for a bad query", async () => {
    for (const [query, field] of [
      ["per_page=101", "per_page"],
      ["page=0", "page"],
      ["page=1.5", "page"],
    ] as const) {
      const response = await call("GET", `/api/roles?${query}`, { token: acme.token });
      expect(response.status, query).toBe(422);
      expect(response.body.error_code, query).toBe("validation_failed");
      expect(Object.keys(response.body.errors), query).toEqual([field]);
    }
  });

  it("answers 401 without a token or with an unknown one", async () => {
    for (const headers of [{}, { authorization: "Bearer sct_unknown" }] as Record<string, string>[]) {
      const response = await call("GET", "/api/roles", { headers });
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(response.body.roles).toBeUndefined();
    }
  });
});
