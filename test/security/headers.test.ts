import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompany } from "../../src/domain/companies/service.js";
import { DOCS_CONTENT_SECURITY_POLICY } from "../../src/platform/http/openapi.js";
import { type CompanyFixture, createCard, createCompanyWithToken, createUserWithToken } from "../helpers/fixtures.js";
import { type Call, type HttpResponse, httpClient } from "../helpers/http.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** Security headers on every kind of response, CORS as DESIGN.md says, nothing that names our stack. */
let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

beforeAll(async () => {
  t = await startTestApp({ env: { BODY_LIMIT: "2048" } });
  call = httpClient(t.url);
  acme = await createCompanyWithToken(t.db.prisma);
  globex = await createCompanyWithToken(t.db.prisma, "Globex");
});
afterAll(async () => {
  await t.close();
});

const preflight = (origin: string) => ({ origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" });

function expectHardened(response: HttpResponse, what: string) {
  expect(response.headers["x-content-type-options"], what).toBe("nosniff");
  expect(response.headers["x-frame-options"], what).toBe("DENY");
  expect(response.headers["referrer-policy"], what).toBe("no-referrer");
  expect(response.headers["content-security-policy"], what).toBeDefined();
  // No shared cache (a CDN, a proxy) keeps an answer: a cart's holds the shopper's details and goes stale at its next change.
  expect(response.headers["cache-control"], what).toBe("no-store");
  for (const leak of ["x-powered-by", "server", "x-aspnet-version", "x-runtime", "via"]) {
    expect(response.headers[leak], `${what}: ${leak}`).toBeUndefined();
  }
}

describe("security headers", () => {
  it("are on every response: success, each error, preflight, docs and the document", async () => {
    const installation = { droplet_uuid: "00000000-0000-4000-8000-000000000000" };
    const responses: [string, HttpResponse][] = [
      ["200 health", await call("GET", "/health")],
      ["200 admin list", await call("GET", "/api/droplet_installations", { token: acme.token })],
      ["401", await call("GET", "/api/droplet_installations")],
      ["404 route", await call("GET", "/nothing/here")],
      ["404 resource", await call("POST", "/api/droplet_installations", { token: acme.token, body: installation })],
      ["400", await call("POST", "/api/droplet_installations", { token: acme.token, rawBody: "{", headers: { "content-type": "application/json" } })],
      ["413", await call("POST", "/api/droplet_installations", { token: acme.token, body: { droplet_uuid: "x".repeat(4096) } })],
      ["415", await call("POST", "/api/droplet_installations", { token: acme.token, rawBody: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" } })],
      ["422", await call("POST", "/api/droplet_installations", { token: acme.token, body: {} })],
      ["cart preflight", await call("OPTIONS", "/api/carts/ct_x", { headers: preflight("https://shop.example") })],
      ["200 cart", await call("POST", "/api/carts", { body: { country_code: "US", svc_shop: acme.shop } })],
      ["404 cart", await call("GET", "/api/carts/ct_0000000000000000000000")],
      ["422 cart", await call("POST", "/api/carts", { body: { svc_shop: acme.shop } })],
      ["201 public", await call("POST", "/api/public/v2025-06/session", { body: { svc_shop: acme.shop } })],
      ["404 public", await call("POST", "/api/public/v2025-06/media/nothing", { body: { metadata: { svc_shop: acme.shop } } })],
      ["400 malformed URL", await call("GET", "/api/%zz")],
      ["404 overlong path parameter", await call("POST", `/api/public/v2025-06/media/${"a".repeat(250)}`)],
      ["docs", await call("GET", "/docs/")],
      ["document", await call("GET", "/openapi.json")],
    ];
    expect(responses.map(([what, response]) => `${what}: ${response.status}`)).toContain("200 cart: 200");
    for (const [what, response] of responses) expectHardened(response, what);
    for (const [what, response] of responses.filter(([, response]) => response.status >= 400)) {
      expect(response.headers["x-request-id"], what).toBe(response.body.meta.request_id);
    }
    // API answers are data: nothing in them may run or load anything.
    expect(responses[1]?.[1].headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it("give /docs its own policy: swagger-ui's files from this origin only, no inline script, no framing", async () => {
    let page = await call("GET", "/docs");
    for (let hops = 0; page.status >= 300 && page.status < 400 && hops < 3; hops++) {
      page = await call("GET", new URL(String(page.headers.location), `${t.url}/docs/`).pathname);
    }
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(csp).toContain("frame-ancestors 'none'");
    // Everything the page loads is allowed by that policy: same-origin files, no inline scripts.
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, inline] of scripts) {
      expect(inline?.trim(), "inline script").toBe("");
      expect(attributes).toMatch(/src="\.?\/?[\w./-]+"/);
    }
    for (const [, src] of page.text.matchAll(/(?:src|href)="([^"]+)"/g)) {
      expect(src, "loads only from this origin").not.toMatch(/^(https?:)?\/\//);
      const asset = await call("GET", new URL(src as string, `${t.url}/docs/`).pathname);
      expect(asset.status, src).toBe(200);
      expect(asset.headers["content-security-policy"]).toBe(DOCS_CONTENT_SECURITY_POLICY);
    }
  });
});

describe("CORS", () => {
  it("storefront surfaces answer a preflight from any origin by default; admin answers none", async () => {
    for (const path of ["/api/carts", "/api/carts/ct_x/items", "/api/public/v2025-06/session"]) {
      const response = await call("OPTIONS", path, { headers: preflight("https://any-shop.example") });
      expect(response.status, path).toBeLessThan(300);
      expect(response.headers["access-control-allow-origin"], path).toBe("https://any-shop.example");
      expect(String(response.headers.vary)).toMatch(/origin/i);
    }
    const cartAnswer = await call("GET", "/api/carts/ct_x", { headers: { origin: "https://any-shop.example" } });
    expect(cartAnswer.headers["access-control-expose-headers"], "scripts may read the request id, Retry-After, Idempotent-Replayed and WWW-Authenticate").toBe(
      "x-request-id, retry-after, idempotent-replayed, www-authenticate",
    );
    const admin = await call("OPTIONS", "/api/droplet_installations", { headers: preflight("https://any-shop.example") });
    expect(admin.headers["access-control-allow-origin"]).toBeUndefined();
    expect(admin.headers["access-control-allow-methods"]).toBeUndefined();
    const adminGet = await call("GET", "/api/droplet_installations", { token: acme.token, headers: { origin: "https://any-shop.example" } });
    expect(adminGet.status).toBe(200);
    expect(adminGet.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("storefront errors answered while routing carry the surface's CORS headers, so that a browser can read them", async () => {
    const origin = "https://any-shop.example";
    const cases: Array<[string, string, number, "cart" | "public"]> = [
      ["GET", "/api/carts/ct_x/no-such-operation", 404, "cart"],
      ["POST", "/api/carts/%zz", 400, "cart"],
      ["GET", "/api/carts/ct_%E0%A4%A", 400, "cart"],
      ["POST", "/api/public/v2025-06/media/%zz", 400, "public"],
      ["POST", "/api/public/v2025-06/no-such-operation", 404, "public"],
    ];
    for (const [method, path, status, surface] of cases) {
      const response = await call(method, path, { headers: { origin }, body: {} });
      expect(response.status, path).toBe(status);
      expect(response.body, path).toMatchObject({ error_code: status === 404 ? "route_not_found" : "bad_request" });
      expect(response.headers["access-control-allow-origin"], path).toBe(origin);
      expect(String(response.headers.vary), path).toMatch(/origin/i);
      // Not a shop's origin: no cookie on carts; the public SDK reads no credential.
      expect(response.headers["access-control-allow-credentials"], path).toBe(surface === "public" ? "true" : undefined);
      expect(response.headers["access-control-expose-headers"], path).toBe(
        surface === "cart" ? "x-request-id, retry-after, idempotent-replayed, www-authenticate" : "x-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset",
      );
      // The browser sends a JSON request only after its preflight, which must succeed for the error to be read.
      const preflighted = await call("OPTIONS", path, { headers: preflight(origin) });
      expect(preflighted.status, `preflight of ${path}`).toBe(204);
      expect(preflighted.headers["access-control-allow-origin"], `preflight of ${path}`).toBe(origin);
      expect(preflighted.headers["access-control-allow-methods"], `preflight of ${path}`).toContain("POST");
      expect(preflighted.headers["access-control-allow-headers"], `preflight of ${path}`).toBe("content-type");
    }
    const doubled = await call("POST", "//api/public/v2025-06/media/%zz", { headers: { origin } });
    expect(doubled.body).toMatchObject({ error_code: "bad_request", status: 400 });
    expect(doubled.headers["access-control-allow-origin"]).toBe(origin);
    for (const path of ["/api/no-such-resource", "/api/%zz", "/api/cartsX/%zz"]) {
      const admin = await call("GET", path, { headers: { origin } });
      expect(admin.status, path).toBeGreaterThanOrEqual(400);
      expect(admin.headers["access-control-allow-origin"], path).toBeUndefined();
    }
  });

  it("with CORS_ORIGINS *, only a shop's own origins may send the shopper's cookie to carts; any origin may call them without it", async () => {
    const shopOrigins = [`https://${acme.shop}`, `https://www.${acme.shop}`, `http://www.${acme.shop}:8080`];
    const otherOrigins = ["https://evil.example.net", `https://${acme.shop}.evil.example.net`, `https://not${acme.shop}`, "null"];
    const credentialsOf = (response: HttpResponse) => response.headers["access-control-allow-credentials"];
    for (const [origins, credentials] of [
      [shopOrigins, "true"],
      [otherOrigins, undefined],
    ] as const) {
      for (const origin of origins) {
        // Preflights, answered by the surface and by the app while routing.
        for (const path of ["/api/carts", "/api/carts/ct_x/items", "/api/carts/%zz"]) {
          const preflighted = await call("OPTIONS", path, { headers: preflight(origin) });
          expect(preflighted.status, `${origin} ${path}`).toBe(204);
          expect(preflighted.headers["access-control-allow-origin"], `${origin} ${path}`).toBe(origin);
          expect(credentialsOf(preflighted), `${origin} ${path}`).toBe(credentials);
          expect(String(preflighted.headers.vary), `${origin} ${path}`).toMatch(/origin/i);
        }
        // Answers: a cart create (the cookie's own operation), a routing error, an OPTIONS that is no preflight.
        const answers = [
          await call("POST", "/api/carts", { headers: { origin }, body: { country_code: "US", svc_shop: acme.shop } }),
          await call("POST", "/api/carts/%zz", { headers: { origin } }),
          await call("OPTIONS", "/api/carts/ct_x", { headers: { origin } }),
        ];
        for (const answer of answers) {
          expect(answer.headers["access-control-allow-origin"], `${origin} ${answer.status}`).toBe(origin);
          expect(credentialsOf(answer), `${origin} ${answer.status}`).toBe(credentials);
        }
      }
    }
    // The public SDK reads no credential: every origin may send one (beacons always do).
    for (const origin of otherOrigins) {
      const preflighted = await call("OPTIONS", "/api/public/v2025-06/events/pages/visit", { headers: preflight(origin) });
      expect(preflighted.headers["access-control-allow-origin"], origin).toBe(origin);
      expect(credentialsOf(preflighted), origin).toBe("true");
    }
  });

  it("with CORS_ORIGINS *, the shopper's cookie acts for a cart only from a page of the cart's company's shop", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    await createCard(t.db.prisma, customer.user.id);
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    const cookieOf = (user: { token: string }) => ({ cookie: `_svc_session=${user.token}` });
    const createAcmeCart = (headers: Record<string, string>) => call("POST", "/api/carts", { headers, body: { country_code: "US", svc_shop: acme.shop } });
    const cartCount = () => t.db.prisma.cart.count();

    // A page of Globex's shop: its preflight cannot name the company, so it may send cookies...
    const globexPage = `https://www.${globex.shop}`;
    const preflighted = await call("OPTIONS", "/api/carts", { headers: preflight(globexPage) });
    expect(preflighted.headers["access-control-allow-credentials"]).toBe("true");
    // ...but an Acme shopper's cookie does not act for an Acme cart there: a 401 the page reads, naming the cookie, and no cart.
    const before = await cartCount();
    for (const user of [customer, rep]) {
      const refused = await createAcmeCart({ origin: globexPage, ...cookieOf(user) });
      expect(refused.status).toBe(401);
      expect(refused.body.error_code).toBe("invalid_user_token");
      expect(Object.keys(refused.body.errors)).toEqual(["_svc_session"]);
      expect(JSON.stringify(refused.body)).not.toContain(user.user.email);
      expect(refused.headers["access-control-allow-origin"]).toBe(globexPage);
      expect(refused.headers["access-control-allow-credentials"]).toBe("true");
    }
    expect(await cartCount()).toBe(before);
    // Without the cookie, as the 401 invites, the page gets an anonymous cart: nothing of the shopper.
    const anonymous = await createAcmeCart({ origin: globexPage });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.cart).toMatchObject({ email: null, buyer_rep_id: null });

    // A page of Acme's own shop, or a call without Origin (a server, curl): the cookie acts.
    for (const headers of [{ origin: `https://www.${acme.shop}` }, { origin: `https://${acme.shop}` }, {}] as Record<string, string>[]) {
      const created = await createAcmeCart({ ...headers, ...cookieOf(customer) });
      expect(created.status, headers.origin).toBe(200);
      expect(created.body.cart.email, headers.origin).toBe(customer.user.email);
      if (headers.origin !== undefined) expect(created.headers["access-control-allow-credentials"]).toBe("true");
      const read = await call("GET", `/api/carts/${created.body.cart.cart_token}?payment_methods_includes=saved_payment_methods`, { headers });
      expect(JSON.stringify(read.body.cart), headers.origin).toContain("4242");
    }
    const asRep = await createAcmeCart({ origin: `https://www.${acme.shop}`, ...cookieOf(rep) });
    expect(asRep.body.cart.buyer_rep_id).toBe(rep.user.id);

    // A shop domain below another company's belongs to that company: Acme's shopper's cookie does not act from it.
    const euShop = `eu.${acme.shop}`;
    const eu = await createCompany(t.db.prisma, { name: "Acme EU", shop: euShop });
    const euCustomer = await createUserWithToken(t.db.prisma, eu.id, "customer");
    const fromEuPage = await createAcmeCart({ origin: `https://www.${euShop}`, ...cookieOf(customer) });
    expect(fromEuPage.status).toBe(401);
    const euCart = await call("POST", "/api/carts", { headers: { origin: `https://www.${euShop}`, ...cookieOf(euCustomer) }, body: { country_code: "US", svc_shop: euShop } });
    expect(euCart.body.cart.email).toBe(euCustomer.user.email);
  });

  it("storefront preflights may be cached by the browser for two hours, those the app answers while routing too", async () => {
    for (const path of ["/api/carts", "/api/carts/ct_x/items", "/api/public/v2025-06/events/leads/capture", "/api/public/v2025-06/media/%zz", "/api/carts/%zz", "/api/public/v2024-01/session"]) {
      const response = await call("OPTIONS", path, { headers: preflight("https://any-shop.example") });
      expect(response.status, path).toBe(204);
      expect(response.headers["access-control-max-age"], path).toBe("7200");
    }
    const notPreflight = await call("POST", "/api/public/v2025-06/session", { headers: { origin: "https://any-shop.example" }, body: {} });
    expect(notPreflight.headers["access-control-max-age"]).toBeUndefined();
    const admin = await call("OPTIONS", "/api/droplet_installations", { headers: preflight("https://any-shop.example") });
    expect(admin.headers["access-control-max-age"]).toBeUndefined();
  });

  it("a storefront OPTIONS request that is no preflight is a 400 in the surface's error body", async () => {
    const cases = [
      ["/api/carts/ct_x", { origin: "https://any-shop.example" }, {}],
      ["/api/public/v2025-06/session", { "access-control-request-method": "POST" }, { status: 400 }],
    ] as const;
    for (const [path, headers, extraBody] of cases) {
      const notPreflight = await call("OPTIONS", path, { headers });
      expect(notPreflight.status, path).toBe(400);
      expect(notPreflight.headers["content-type"], path).toMatch(/^application\/json/);
      expect(notPreflight.body, path).toMatchObject({ error_code: "invalid_preflight", errors: null, ...extraBody });
    }
    const withOrigin = await call("OPTIONS", "/api/public/v2025-06/session", { headers: { origin: "https://any-shop.example" } });
    expect(withOrigin.status).toBe(400);
    expect(withOrigin.headers["access-control-allow-origin"]).toBe("https://any-shop.example");
  });

  it("with CORS_ORIGINS set, allows exactly the listed origins", async () => {
    // Written as an operator pastes them: a capital letter, a trailing slash, the default port.
    const listed = await startTestApp({ env: { CORS_ORIGINS: "https://A.example/, https://b.example:443" } });
    try {
      const listedCall = httpClient(listed.url);
      for (const path of ["/api/carts/ct_x", "/api/public/v2025-06/session"]) {
        const allowed = await listedCall("OPTIONS", path, { headers: preflight("https://b.example") });
        expect(allowed.headers["access-control-allow-origin"], path).toBe("https://b.example");
        // The operator named them: they may send the shopper's cookie, shop domains or not.
        expect(allowed.headers["access-control-allow-credentials"], path).toBe("true");
        for (const origin of ["https://evil.example", "https://a.example.evil.example", "null"]) {
          const refused = await listedCall("OPTIONS", path, { headers: preflight(origin) });
          expect(refused.headers["access-control-allow-origin"], `${path} ${origin}`).toBeUndefined();
        }
      }
      // A listed origin's cookie acts for every company's carts, an unlisted one's for none (a browser would not even send it).
      const listedShop = await createCompanyWithToken(listed.db.prisma);
      const customer = await createUserWithToken(listed.db.prisma, listedShop.id, "customer");
      for (const [origin, status] of [["https://b.example", 200], ["https://evil.example", 401]] as const) {
        const created = await listedCall("POST", "/api/carts", { headers: { origin, cookie: `_svc_session=${customer.token}` }, body: { country_code: "US", svc_shop: listedShop.shop } });
        expect(created.status, origin).toBe(status);
        if (status === 200) expect(created.body.cart.email).toBe(customer.user.email);
      }
      for (const path of ["/api/carts/%zz", "/api/public/v2025-06/%zz"]) {
        const allowed = await listedCall("POST", path, { headers: { origin: "https://a.example" } });
        expect(allowed.status, path).toBe(400);
        expect(allowed.headers["access-control-allow-origin"], path).toBe("https://a.example");
        const refused = await listedCall("POST", path, { headers: { origin: "https://evil.example" } });
        expect(refused.status, path).toBe(400);
        expect(refused.headers["access-control-allow-origin"], path).toBeUndefined();
      }
    } finally {
      await listed.close();
    }
  });
});
