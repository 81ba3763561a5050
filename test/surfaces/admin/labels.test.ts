import { describe, expect, it } from "vitest";
import type { CompanyFixture } from "../../helpers/fixtures.js";
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

  it("answers 409 for a name the company already uses; another company may use it", async () => {
    const response = await createLabel({ label: { name: "Blog" } });
    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe("label_taken");
    expect((await createLabel({ label: { name: "Blog" } }, globex.token)).status).toBe(201);
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
