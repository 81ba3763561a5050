import { beforeEach, describe, expect, it } from "vitest";
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
let analytics: { uuid: string };
let mailer: { uuid: string };

const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000";

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  analytics = await createDroplet(t.db.prisma, { name: "Analytics", category: "reporting", scopes: ["orders:read", "customers:read", "products:read"] });
  mailer = await createDroplet(t.db.prisma, { name: "Mailer", category: "marketing", scopes: ["customers:read", "customers:write"] });
});

beforeEach(async () => {
  await t.db.prisma.dropletInstallation.deleteMany();
});

const install = (body: unknown, token = acme.token) => call("POST", "/api/droplet_installations", { token, body });

describe("POST /api/droplet_installations", () => {
  it("installs a droplet: 201 with the create fields and meta", async () => {
    const response = await install({ droplet_uuid: analytics.uuid, scopes: ["orders:read"] });
    expect(response.status).toBe(201);
    const installation = response.body.droplet_installation;
    expect(Object.keys(installation).sort()).toEqual(
      ["active", "created_at", "droplet_name", "droplet_uuid", "effective_scopes", "id", "scopes", "uuid"].sort(),
    );
    expect(installation).toMatchObject({ droplet_uuid: analytics.uuid, droplet_name: "Analytics", active: true, scopes: ["orders:read"], effective_scopes: ["orders:read"] });
    expect(installation.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
    expect(new Date(response.body.meta.timestamp).toISOString()).toBe(response.body.meta.timestamp);
    expect(await t.db.prisma.dropletInstallation.count({ where: { company_id: acme.id } })).toBe(1);
  });

  it("defaults scopes to every scope the droplet declares", async () => {
    const response = await install({ droplet_uuid: mailer.uuid });
    expect(response.status).toBe(201);
    expect(response.body.droplet_installation.scopes).toEqual(["customers:read", "customers:write"]);
  });

  it("narrows effective_scopes by the role's permissions", async () => {
    const role = await createRole(t.db.prisma, { companyId: acme.id, name: `Readers ${Date.now()}`, permissions: ["orders:read", "products:read"] });
    const response = await install({ droplet_uuid: analytics.uuid, role_id: role.id, scopes: ["orders:read", "customers:read"] });
    expect(response.status).toBe(201);
    expect(response.body.droplet_installation.scopes).toEqual(["orders:read", "customers:read"]);
    expect(response.body.droplet_installation.effective_scopes).toEqual(["orders:read"]);
  });

  it("answers 404 for an unknown droplet uuid, including one that is not a uuid", async () => {
    for (const droplet_uuid of [UNKNOWN_UUID, "not-a-uuid"]) {
      const response = await install({ droplet_uuid });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ error_code: "not_found", errors: null });
    }
    expect(await t.db.prisma.dropletInstallation.count()).toBe(0);
  });

  it("answers 422 for an unknown role, or another company's role", async () => {
    const foreignRole = await createRole(t.db.prisma, { companyId: globex.id, name: `Foreign ${Date.now()}`, permissions: ["orders:read"] });
    for (const role_id of [999_999, foreignRole.id]) {
      const response = await install({ droplet_uuid: analytics.uuid, role_id });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ role_id: ["does not name a role of this company"] });
    }
    expect(await t.db.prisma.dropletInstallation.count()).toBe(0);
  });

  it("answers 422 for scopes the droplet does not declare", async () => {
    const response = await install({ droplet_uuid: analytics.uuid, scopes: ["orders:read", "admin:everything"] });
    expect(response.status).toBe(422);
    expect(response.body.errors.scopes[0]).toContain("admin:everything");
    expect(await t.db.prisma.dropletInstallation.count()).toBe(0);
  });

  it("holds requested scopes to the rules droplets declare them by: 1-100 characters without whitespace", async () => {
    const response = await install({ droplet_uuid: analytics.uuid, scopes: ["orders read", "", "s".repeat(101)] });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "scopes.0": ["must not contain whitespace"],
      "scopes.1": ["Too small: expected string to have >=1 characters"],
      "scopes.2": ["Too big: expected string to have <=100 characters"],
    });
  });

  it("answers 409 for a second installation of the same droplet, also when requests race", async () => {
    expect((await install({ droplet_uuid: analytics.uuid })).status).toBe(201);
    const second = await install({ droplet_uuid: analytics.uuid });
    expect(second.status).toBe(409);
    expect(second.body.error_code).toBe("already_installed");

    const racing = await Promise.all(Array.from({ length: 5 }, () => install({ droplet_uuid: mailer.uuid })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await t.db.prisma.dropletInstallation.count({ where: { company_id: acme.id } })).toBe(2);
  });

  it("lets another company install the same droplet", async () => {
    expect((await install({ droplet_uuid: analytics.uuid })).status).toBe(201);
    expect((await install({ droplet_uuid: analytics.uuid }, globex.token)).status).toBe(201);
  });

  it("answers 422 with field paths for an invalid body", async () => {
    const response = await install({ scopes: "orders:read", role_id: "x" });
    expect(response.status).toBe(422);
    expect(response.body.error_code).toBe("validation_failed");
    expect(response.body.errors.droplet_uuid).toEqual(["is required"]);
    expect(Object.keys(response.body.errors)).toEqual(expect.arrayContaining(["droplet_uuid", "role_id", "scopes"]));
  });

  it("answers 401 without a token, with a malformed header, and with an unknown token", async () => {
    for (const headers of [{}, { authorization: "Token abc" }, { authorization: "Bearer sct_unknown" }] as Record<string, string>[]) {
      const response = await call("POST", "/api/droplet_installations", { headers, body: { droplet_uuid: analytics.uuid } });
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(response.body.error_code).toMatch(/unauthorized|invalid_token/);
    }
    expect(await t.db.prisma.dropletInstallation.count()).toBe(0);
  });
});

describe("GET /api/droplet_installations", () => {
  it("lists the company's installations newest first with list fields and pagination", async () => {
    await install({ droplet_uuid: analytics.uuid });
    await install({ droplet_uuid: mailer.uuid });
    await install({ droplet_uuid: mailer.uuid }, globex.token);
    const response = await call("GET", "/api/droplet_installations", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.droplet_installations.map((i: { droplet_name: string }) => i.droplet_name)).toEqual(["Mailer", "Analytics"]);
    expect(Object.keys(response.body.droplet_installations[0]).sort()).toEqual(["active", "droplet_name", "droplet_uuid", "id", "scopes", "uuid"]);
    expect(response.body.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 2, per_page: 10 });
  });

  it("filters by category and pages with page/per_page", async () => {
    await install({ droplet_uuid: analytics.uuid });
    await install({ droplet_uuid: mailer.uuid });
    const filtered = await call("GET", "/api/droplet_installations?category=marketing", { token: acme.token });
    expect(filtered.body.droplet_installations.map((i: { droplet_name: string }) => i.droplet_name)).toEqual(["Mailer"]);
    const second = await call("GET", "/api/droplet_installations?page=2&per_page=1", { token: acme.token });
    expect(second.body.droplet_installations.map((i: { droplet_name: string }) => i.droplet_name)).toEqual(["Analytics"]);
    expect(second.body.meta.pagination).toEqual({ current_page: 2, total_pages: 2, total_count: 2, per_page: 1 });
  });

  it("matches the category case-insensitively and trimmed, literally; a blank category filters nothing", async () => {
    const pattern = await createDroplet(t.db.prisma, { name: "Patterned", category: "a_b%", scopes: ["orders:read"] });
    await install({ droplet_uuid: analytics.uuid });
    await install({ droplet_uuid: mailer.uuid });
    await install({ droplet_uuid: pattern.uuid });
    const names = async (query: string) => {
      const response = await call("GET", `/api/droplet_installations?${query}`, { token: acme.token });
      expect(response.status, query).toBe(200);
      return response.body.droplet_installations.map((i: { droplet_name: string }) => i.droplet_name);
    };
    expect(await names("category=MARKETING")).toEqual(["Mailer"]);
    expect(await names("category=%20Reporting%20")).toEqual(["Analytics"]);
    expect(await names("category=A_B%25")).toEqual(["Patterned"]);
    expect(await names("category=a%25")).toEqual([]);
    expect(await names("category=%25")).toEqual([]);
    for (const blank of ["category=", "category=%20%20"]) expect(await names(blank)).toEqual(["Patterned", "Mailer", "Analytics"]);
  });

  it("answers 422 for per_page over 100, page 0 and non-numbers", async () => {
    for (const query of ["per_page=101", "per_page=0", "page=0", "page=abc", "page=1&page=2"]) {
      const response = await call("GET", `/api/droplet_installations?${query}`, { token: acme.token });
      expect(response.status, query).toBe(422);
      expect(response.body.error_code).toBe("validation_failed");
    }
  });
});

describe("GET, PUT, DELETE /api/droplet_installations/{uuid}", () => {
  it("shows with created_at and updated_at", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const response = await call("GET", `/api/droplet_installations/${created.uuid}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.droplet_installation).sort()).toEqual(
      ["active", "created_at", "droplet_name", "droplet_uuid", "effective_scopes", "id", "scopes", "updated_at", "uuid"].sort(),
    );
  });

  it("updates active to the sent value, and role and scopes, returning updated_at but not created_at", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const role = await createRole(t.db.prisma, { companyId: acme.id, name: `Orders ${Date.now()}`, permissions: ["orders:read"] });
    const off = await call("PUT", `/api/droplet_installations/${created.uuid}`, {
      token: acme.token,
      body: { uuid: created.uuid, droplet_installation: { active: false, role_id: role.id, scopes: ["orders:read", "products:read"] } },
    });
    expect(off.status).toBe(200);
    expect(Object.keys(off.body.droplet_installation)).not.toContain("created_at");
    expect(off.body.droplet_installation).toMatchObject({ active: false, scopes: ["orders:read", "products:read"], effective_scopes: ["orders:read"] });
    const on = await call("PUT", `/api/droplet_installations/${created.uuid}`, { token: acme.token, body: { uuid: created.uuid, droplet_installation: { active: true } } });
    expect(on.body.droplet_installation.active).toBe(true);
    expect(on.body.droplet_installation.scopes).toEqual(["orders:read", "products:read"]);
  });

  it("refuses an update without active, with a mismatched uuid, or with undeclared scopes, changing nothing", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const path = `/api/droplet_installations/${created.uuid}`;
    const missingActive = await call("PUT", path, { token: acme.token, body: { uuid: created.uuid, droplet_installation: {} } });
    expect(missingActive.status).toBe(422);
    expect(missingActive.body.errors).toEqual({ "droplet_installation.active": ["is required"] });
    const mismatch = await call("PUT", path, { token: acme.token, body: { uuid: UNKNOWN_UUID, droplet_installation: { active: false } } });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors).toEqual({ uuid: ["must equal the uuid in the path"] });
    const undeclared = await call("PUT", path, { token: acme.token, body: { uuid: created.uuid, droplet_installation: { active: false, scopes: ["root"] } } });
    expect(undeclared.status).toBe(422);
    const row = await t.db.prisma.dropletInstallation.findUniqueOrThrow({ where: { uuid: created.uuid } });
    expect(row.active).toBe(true);
  });

  it("takes the uuid in either letter case, in the path and in the body: both name one installation", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const upper = created.uuid.toUpperCase();
    for (const [pathUuid, bodyUuid] of [[created.uuid, upper], [upper, created.uuid], [upper, upper]]) {
      const response = await call("PUT", `/api/droplet_installations/${pathUuid}`, { token: acme.token, body: { uuid: bodyUuid, droplet_installation: { active: true } } });
      expect(response.status, `${pathUuid} / ${bodyUuid}`).toBe(200);
      expect(response.body.droplet_installation.uuid).toBe(created.uuid);
    }
  });

  it("deletes, returning only uuid and id; the installation is gone", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const response = await call("DELETE", `/api/droplet_installations/${created.uuid}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.droplet_installation).toEqual({ uuid: created.uuid, id: created.id });
    expect((await call("GET", `/api/droplet_installations/${created.uuid}`, { token: acme.token })).status).toBe(404);
  });

  it("names the update's role_id inside droplet_installation when the role is not the company's", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const foreignRole = await createRole(t.db.prisma, { companyId: globex.id, name: `Foreign ${Date.now()}`, permissions: ["orders:read"] });
    const response = await call("PUT", `/api/droplet_installations/${created.uuid}`, {
      token: acme.token,
      body: { uuid: created.uuid, droplet_installation: { active: false, role_id: foreignRole.id } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "droplet_installation.role_id": ["does not name a role of this company"] });
    expect((await t.db.prisma.dropletInstallation.findUniqueOrThrow({ where: { uuid: created.uuid } })).active).toBe(true);
  });

  it("answers concurrent deletes with one 200 and 404s, never a 500", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const statuses = await Promise.all(Array.from({ length: 8 }, () => call("DELETE", `/api/droplet_installations/${created.uuid}`, { token: acme.token })));
    expect(statuses.map((response) => response.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
    expect(statuses.find((response) => response.status === 404)?.body.error_code).toBe("not_found");
  });

  it("answers updates racing a delete with 200 or 404, and nothing is left", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const path = `/api/droplet_installations/${created.uuid}`;
    const update = () => call("PUT", path, { token: acme.token, body: { uuid: created.uuid, droplet_installation: { active: false } } });
    const responses = await Promise.all([update(), update(), call("DELETE", path, { token: acme.token }), update(), update(), update()]);
    for (const response of responses) expect([200, 404]).toContain(response.status);
    expect(await t.db.prisma.dropletInstallation.count({ where: { uuid: created.uuid } })).toBe(0);
  });

  it("answers 404 for another company's installation on show, update and delete, and changes nothing", async () => {
    const created = (await install({ droplet_uuid: analytics.uuid })).body.droplet_installation;
    const path = `/api/droplet_installations/${created.uuid}`;
    expect((await call("GET", path, { token: globex.token })).status).toBe(404);
    expect((await call("PUT", path, { token: globex.token, body: { uuid: created.uuid, droplet_installation: { active: false } } })).status).toBe(404);
    expect((await call("DELETE", path, { token: globex.token })).status).toBe(404);
    const row = await t.db.prisma.dropletInstallation.findUniqueOrThrow({ where: { uuid: created.uuid } });
    expect(row.active).toBe(true);
  });

  it("answers 404 for unknown and malformed uuids", async () => {
    for (const uuid of [UNKNOWN_UUID, "nope"]) {
      const response = await call("GET", `/api/droplet_installations/${uuid}`, { token: acme.token });
      expect(response.status).toBe(404);
      expect(response.body.error_code).toBe("not_found");
    }
  });
});
