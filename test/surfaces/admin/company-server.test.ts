import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompany } from "../../../src/domain/companies/service.js";
import { generateOpenApi } from "../../../src/openapi-document.js";
import { issueCompanyToken } from "../../../src/platform/auth/company-tokens.js";
import { subdomainLabel } from "../../../src/surfaces/admin/company-server.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { type CompanyFixture, createCompanyWithToken } from "../../helpers/fixtures.js";
import { type Call, httpClient } from "../../helpers/http.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";

describe("subdomainLabel", () => {
  const neutral = new Set(["api.platform.test"]);

  it("names the first label of a company host, with or without port, in any case", () => {
    expect(subdomainLabel("acme.example.com", neutral)).toBe("acme");
    expect(subdomainLabel("ACME.Example.com:8443", neutral)).toBe("acme");
    expect(subdomainLabel("acme.example.com.", neutral)).toBe("acme");
    expect(subdomainLabel("acme.example.com.:8443", neutral)).toBe("acme");
  });

  it("reads a fully qualified host (a trailing dot) as the same host, with or without a port", () => {
    for (const host of ["localhost.", "localhost.:4112", "LOCALHOST.:4112", "localhost:", "api.platform.test.", "api.platform.test.:443"]) {
      expect(subdomainLabel(host, neutral), host).toBeNull();
    }
  });

  it("treats missing hosts, IP addresses, single labels and the API's own host as neutral", () => {
    for (const host of [undefined, "", "localhost", "localhost:3000", "127.0.0.1", "127.0.0.1:3000", "[::1]:3000", "api.platform.test", "api.platform.test:443"]) {
      expect(subdomainLabel(host, neutral)).toBeNull();
    }
  });
});

describe("the company server's host check", () => {
  let t: TestApp;
  let call: Call;
  let acme: CompanyFixture;
  let globex: CompanyFixture;
  const slug = (company: CompanyFixture) => company.shop.split(".")[0] as string;

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: "https://api.platform.test" } });
    call = httpClient(t.url);
    acme = await createCompanyWithToken(t.db.prisma, "Acme");
    globex = await createCompanyWithToken(t.db.prisma, "Globex");
  });

  afterAll(async () => {
    await t.close();
  });

  const paths = ["/api/company/labels", "/api/company/custom_pages", "/api/company/messaging/conversations"];

  it("serves the token's company on its own subdomain and on neutral hosts", async () => {
    for (const host of [`${slug(acme)}.example.com`, `${slug(acme)}.example.com:443`, "localhost:3000", "127.0.0.1", "api.platform.test"]) {
      for (const path of paths) {
        const response = await call("GET", path, { token: acme.token, headers: { host } });
        expect(response.status, `${host} ${path}`).toBe(200);
      }
    }
  });

  it("answers 404 when the host names another company's subdomain, on every company-server route", async () => {
    const host = `${slug(globex)}.example.com`;
    for (const [method, path, body] of [
      ["GET", "/api/company/labels", undefined],
      ["POST", "/api/company/labels", { label: { name: "Nope" } }],
      ["GET", "/api/company/custom_pages", undefined],
      ["GET", "/api/company/messaging/conversations", undefined],
      ["POST", "/api/company/messaging/conversations.json", {}],
    ] as const) {
      const response = await call(method, path, { token: acme.token, headers: { host: host.toUpperCase() }, body });
      expect(response.status, path).toBe(404);
      expect(response.body).toMatchObject({ error_code: "not_found", errors: null });
    }
    expect(await t.db.prisma.label.count()).toBe(0);
  });

  it("answers a subdomain no company has exactly as another company's: 404, so the answer does not tell which shops exist", async () => {
    const answers = [];
    for (const host of [`${slug(globex)}.example.com`, "zzz-no-such-shop.example.com"]) {
      const response = await call("GET", "/api/company/labels", { token: acme.token, headers: { host } });
      const { meta: _meta, ...body } = response.body;
      answers.push({ status: response.status, body });
    }
    expect(answers[0]).toEqual({ status: 404, body: { error_message: "Not found", error_code: "not_found", errors: null } });
    expect(answers[1]).toEqual(answers[0]);
  });

  it("serves a company without a first label of its own (another company had it first) on neutral hosts only", async () => {
    const company = await createCompany(t.db.prisma, { name: "Acme Europe", shop: `${slug(acme)}.example.eu` });
    expect(company.shop_slug).toBeNull();
    const token = await issueCompanyToken(t.db.prisma, company.id);
    expect((await call("GET", "/api/company/labels", { token, headers: { host: "api.platform.test" } })).status).toBe(200);
    expect((await call("GET", "/api/company/labels", { token, headers: { host: `${slug(acme)}.example.eu` } })).status).toBe(404);
    expect((await call("GET", "/api/company/labels", { token: acme.token, headers: { host: `${slug(acme)}.example.eu` } })).status).toBe(200);
  });

  it("asks for a token first: 401 without one, whatever the host", async () => {
    const response = await call("GET", "/api/company/labels", { headers: { host: `${slug(globex)}.example.com` } });
    expect(response.status).toBe(401);
  });

  it("serves neutral hosts written fully qualified, with a trailing dot before the port", async () => {
    for (const host of ["localhost.:4112", "localhost.", "api.platform.test.:443", `${slug(acme)}.example.com.:443`]) {
      expect((await call("GET", "/api/company/labels", { token: acme.token, headers: { host } })).status, host).toBe(200);
    }
    expect((await call("GET", "/api/company/labels", { token: acme.token, headers: { host: `${slug(globex)}.example.com.:443` } })).status).toBe(404);
  });

  it("leaves routes outside the company server alone", async () => {
    const response = await call("GET", "/api/droplet_installations", { token: acme.token, headers: { host: `${slug(globex)}.example.com` } });
    expect(response.status).toBe(200);
  });
});

// Found by a review: the check read the company of the Host's label from the database on every
// request, beside ShopDirectory, the app's cached lookup of the same shop names.
describe("the company server's host check, reading shops through the app's ShopDirectory", () => {
  let t: TestApp;
  let call: Call;
  let acme: CompanyFixture;
  const clock = fixedClock(new Date("2026-01-01T00:00:00Z"));

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: "https://api.platform.test" }, clock });
    call = httpClient(t.url);
    acme = await createCompanyWithToken(t.db.prisma, "Acme");
  });

  afterAll(async () => {
    await t.close();
  });

  it("knows a shop created after its label was asked for once the directory's 5 s for an unknown shop have passed, as the public SDK does", async () => {
    const host = "newco.example.com";
    expect((await call("GET", "/api/company/labels", { token: acme.token, headers: { host } })).status).toBe(404);
    const company = await createCompany(t.db.prisma, { name: "Newco", shop: host });
    const token = await issueCompanyToken(t.db.prisma, company.id);
    expect((await call("GET", "/api/company/labels", { token, headers: { host } })).status).toBe(404);
    clock.advance(5_000);
    expect((await call("GET", "/api/company/labels", { token, headers: { host: "NEWCO.example.com.:443" } })).status).toBe(200);
    expect((await call("GET", "/api/company/labels", { token: acme.token, headers: { host } })).status).toBe(404);
  });
});

describe("the OpenAPI document", () => {
  it("lists the company server entry on every company-server operation, and only there", async () => {
    const document = JSON.parse(await generateOpenApi());
    const operations = Object.entries(document.paths as Record<string, Record<string, { servers?: Array<{ url: string }> }>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, servers: operation.servers })),
    );
    const companyOperations = operations.filter((operation) => operation.path.startsWith("/api/company/"));
    expect(companyOperations.map((operation) => operation.name).sort()).toEqual(
      [
        "GET /api/company/labels",
        "POST /api/company/labels",
        "GET /api/company/custom_pages",
        "POST /api/company/custom_pages",
        "GET /api/company/custom_pages/{pageId}",
        "PUT /api/company/custom_pages/{pageId}",
        "DELETE /api/company/custom_pages/{pageId}",
        "GET /api/company/custom_pages/{page_id}/send_to_top",
        "GET /api/company/custom_pages/{pageId}/duplicate",
        "GET /api/company/messaging/conversations",
        "POST /api/company/messaging/conversations.json",
        "GET /api/company/messaging/conversations/{id}.json",
        "POST /api/company/leads",
      ].sort(),
    );
    for (const operation of companyOperations) {
      expect(operation.servers, operation.name).toEqual([
        { url: "https://{company}.example.com", description: expect.any(String), variables: { company: { default: "acme" } } },
      ]);
    }
    expect(operations.find((operation) => operation.path === "/api/droplet_installations")?.servers).toBeUndefined();
  });
});

describe("the company server's host check with PUBLIC_BASE_URL written fully qualified and with a port", () => {
  let t: TestApp;
  let call: Call;
  let acme: CompanyFixture;

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: "https://api.platform.test.:8443" } });
    call = httpClient(t.url);
    acme = await createCompanyWithToken(t.db.prisma, "Acme");
  });

  afterAll(async () => {
    await t.close();
  });

  it("takes the API's own host as neutral however the Host writes it", async () => {
    for (const host of ["api.platform.test.:8443", "api.platform.test:8443", "api.platform.test", "API.platform.test."]) {
      expect((await call("GET", "/api/company/labels", { token: acme.token, headers: { host } })).status, host).toBe(200);
    }
  });
});
