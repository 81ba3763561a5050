import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it, vi } from "vitest";
import { generateOpenApi, OPENAPI_PATH } from "../src/openapi-document.js";
import { derivedOperationId } from "../src/platform/http/operation-ids.js";
import { parseRawResponses, rawExchange } from "./helpers/raw-http.js";
import { type TestDatabase, useTestDatabase } from "./helpers/test-database.js";
import { startTestApp } from "./helpers/test-app.js";

interface Operation {
  operationId?: string;
  security?: object[];
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, { headers?: Record<string, { $ref: string }> }>;
}

function operationsOf(document: { paths: Record<string, Record<string, Operation>> }) {
  return Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
}

/** What a validator of the OpenAPI 3.1 specification finds wrong with `document` (its schema objects checked as JSON Schema 2020-12, every $ref resolved). */
async function specificationViolations(document: object): Promise<unknown> {
  const { valid, errors } = await new Validator().validate(structuredClone(document) as Record<string, unknown>);
  return valid ? [] : errors;
}

describe("openapi/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document: SDK generators refuse or misread an invalid one", async () => {
    expect(await specificationViolations(JSON.parse(readFileSync(OPENAPI_PATH, "utf8")))).toEqual([]);
  });

  it("is the document the routes generate (run `npm run openapi` after changing a route or schema)", async () => {
    const generated = await generateOpenApi();
    const committed = readFileSync(OPENAPI_PATH, "utf8");
    expect(committed === generated, "openapi/openapi.json is stale: run `npm run openapi` and commit the result").toBe(true);
  });

  it("documents every operation with its surface's error body for 4XX and 5XX: PublicError on the public SDK, Error elsewhere", async () => {
    const document = JSON.parse(await generateOpenApi());
    const operations = Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, item]) =>
      Object.values(item).map((operation) => ({ path, operation })),
    );
    expect(operations.filter(({ path }) => path.startsWith("/api/public/")).length).toBeGreaterThan(0);
    expect(operations.filter(({ path }) => !path.startsWith("/api/public/")).length).toBeGreaterThan(0);
    for (const { path, operation } of operations) {
      const errorBody = { description: "Default Response", content: { "application/json": { schema: { $ref: `#/components/schemas/${path.startsWith("/api/public/") ? "PublicError" : "Error"}` } } } };
      for (const range of ["4XX", "5XX"]) {
        const { headers: _headers, ...response } = operation.responses[range] as Record<string, unknown>;
        expect(response, `${path} ${range}`).toEqual(errorBody);
      }
    }
  });

  it("declares X-Request-Id on every response of every operation, each documented header once in components.headers", async () => {
    const document = JSON.parse(await generateOpenApi());
    const referenced = new Set<string>();
    for (const { path, method, operation } of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.headers?.["X-Request-Id"], `${method} ${path} ${status}`).toEqual({ $ref: "#/components/headers/X-Request-Id" });
        for (const header of Object.values(response.headers ?? {})) referenced.add(header.$ref);
      }
    }
    expect([...referenced].sort()).toEqual(Object.keys(document.components.headers).map((name) => `#/components/headers/${name}`).sort());
    expect(document.components.headers["X-Request-Id"]).toMatchObject({ schema: { type: "string", format: "uuid" } });
  });

  it("declares WWW-Authenticate, Retry-After, Idempotent-Replayed, Location and the public SDK's X-RateLimit-* headers on the responses that carry them", async () => {
    const document = JSON.parse(await generateOpenApi());
    const rateLimit = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
    for (const { path, method, operation } of operationsOf(document)) {
      const what = `${method} ${path}`;
      const authenticated = (operation.security ?? []).length > 0;
      const idempotent = (operation.parameters ?? []).some((parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key");
      const isPublic = path.startsWith("/api/public/");
      for (const [status, response] of Object.entries(operation.responses)) {
        // Which operations answer 401 beyond those with a security requirement is proven over HTTP (test/security/credentials.test.ts).
        const names = Object.keys(response.headers ?? {}).filter((name) => !(status === "4XX" && name === "WWW-Authenticate"));
        const expected = ["X-Request-Id"];
        if (status === "4XX" || status === "5XX") expected.push("Retry-After");
        if ((status.startsWith("2") || status === "4XX") && idempotent) expected.push("Idempotent-Replayed");
        if (isPublic) expected.push(...rateLimit);
        // A create whose new resource a GET serves at {path}/{id} names it.
        const itemRead = Object.keys(document.paths).some((other) => /^\/\{[^/]+\}$/.test(other.slice(path.length)) && other.startsWith(path) && document.paths[other].get);
        if (method === "post" && status.startsWith("2") && "201" in operation.responses && itemRead) expected.push("Location");
        expect(names.sort(), `${what} ${status}`).toEqual(expected.sort());
        if (status === "4XX" && authenticated) expect(response.headers, what).toHaveProperty("WWW-Authenticate");
      }
    }
    const withCredential = document.paths["/api/droplet_installations"].post;
    expect(Object.keys(withCredential.responses["4XX"].headers)).toContain("WWW-Authenticate");
    expect(Object.keys(withCredential.responses["201"].headers)).toContain("Idempotent-Replayed");
    expect(Object.keys(withCredential.responses["201"].headers)).toContain("Location");
    expect(Object.keys(document.paths["/api/public/v2025-06/session"].post.responses["201"].headers)).toEqual(expect.arrayContaining(rateLimit));
  });

  it("declares Idempotent-Replayed on the 4XX of idempotent operations too: a 422 is stored and replayed like a 2xx", async () => {
    const document = JSON.parse(await generateOpenApi());
    const idempotent = operationsOf(document).filter(({ operation }) => (operation.parameters ?? []).some((parameter) => parameter.name === "Idempotency-Key"));
    expect(idempotent.map(({ method, path }) => `${method} ${path}`)).toEqual(expect.arrayContaining(["patch /api/carts/{cart_token}", "post /api/discounts"]));
    for (const { method, path, operation } of idempotent) {
      expect(operation.responses["4XX"]?.headers?.["Idempotent-Replayed"], `${method} ${path}`).toEqual({ $ref: "#/components/headers/Idempotent-Replayed" });
    }
    expect(document.components.headers["Idempotent-Replayed"].description).toContain("a 2xx or a 422");
  });

  it("describes the cart's optional user tokens: the jwt parameter, the _svc_session cookie and the address's jwt member, each a possible 401", async () => {
    const document = JSON.parse(await generateOpenApi());
    const create = document.paths["/api/carts"].post;
    expect(create.security).toEqual([{ sessionCookie: [] }, {}]);
    expect(document.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "_svc_session" });
    expect(create.parameters.map((parameter: { in: string; name: string }) => `${parameter.in} ${parameter.name}`)).toContain("query jwt");
    const address = document.paths["/api/carts/{cart_token}/address"].post;
    expect(address.requestBody.content["application/json"].schema.properties).toHaveProperty("jwt");
    for (const operation of [create, address]) {
      expect(operation.responses["4XX"].headers["WWW-Authenticate"]).toEqual({ $ref: "#/components/headers/WWW-Authenticate" });
      expect(operation.description).toContain("401");
    }
  });

  it("names every operation with an operationId, unique and camelCase", async () => {
    const document = JSON.parse(await generateOpenApi());
    const ids = operationsOf(document).map(({ method, path, operation }) => {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z]+(?:[A-Z][a-z]*)+$/);
      return operation.operationId;
    });
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const idOf = (method: string, path: string) => document.paths[path][method].operationId;
    expect(idOf("get", "/api/agreements")).toBe("listAgreements");
    expect(idOf("delete", "/api/agreements/bulk_delete")).toBe("bulkDeleteAgreements");
    expect(idOf("patch", "/api/v2/subscription_orders/{id}/skip_order")).toBe("skipSubscriptionOrder");
    expect(idOf("post", "/api/carts/{cart_token}/items")).toBe("addCartItems");
    // Declared by the route where the rule's name would read badly or be another route's.
    expect(idOf("post", "/api/public/v2025-06/events/pages/visit")).toBe("recordPageVisit");
    expect(idOf("delete", "/api/carts/{cart_token}/items/{item_id}/subscribe")).toBe("unsubscribeCartItem");
    expect(idOf("post", "/api/public/v2025-06/media")).toBe("readMedia");
  });

  it("derives an operation's name from its method and path, or asks the route for one", () => {
    expect(derivedOperationId("GET", "/api/droplet_installations")).toBe("listDropletInstallations");
    expect(derivedOperationId("POST", "/api/company_countries")).toBe("createCompanyCountry");
    expect(derivedOperationId("GET", "/api/agreements/:id")).toBe("getAgreement");
    expect(derivedOperationId("POST", "/api/agreements/:id/clone")).toBe("cloneAgreement");
    expect(derivedOperationId("POST", "/api/agreements/bulk_clone")).toBe("bulkCloneAgreements");
    expect(derivedOperationId("PATCH", "/api/v2/subscription_orders/:id/cancel_subscription")).toBe("cancelSubscriptionOrder");
    expect(derivedOperationId("GET", "/api/company/custom_pages/:page_id/send_to_top")).toBe("sendCustomPageToTop");
    expect(derivedOperationId("GET", "/api/company/messaging/conversations/:id.json")).toBe("getConversation");
    expect(derivedOperationId("POST", "/api/company/messaging/conversations.json")).toBe("createConversation");
    expect(derivedOperationId("DELETE", "/api/carts/:cart_token/items/:item_id")).toBe("removeCartItem");
    expect(derivedOperationId("PATCH", "/api/carts/:cart_token/items/:item_id/update_volumes")).toBe("updateCartItemVolumes");
    expect(derivedOperationId("POST", "/api/public/v2025-06/session")).toBe("createSession");
    expect(() => derivedOperationId("POST", "/api/carts/:cart_token")).toThrow(/give its schema an operationId/);
    expect(() => derivedOperationId("POST", "/api/public/v2025-06/affiliates/lookup")).toThrow(/give its schema an operationId/);
  });

  it("is the same whoever generates it: the deployment's address and port do not reach the committed document", async () => {
    vi.stubEnv("PUBLIC_BASE_URL", "https://commerce.example.net");
    vi.stubEnv("PORT", "4104");
    vi.stubEnv("HOST", "0.0.0.0");
    try {
      const generated = await generateOpenApi();
      expect(generated).toBe(readFileSync(OPENAPI_PATH, "utf8"));
      expect(JSON.parse(generated).servers[0]).toEqual({ url: "{base_url}", description: "base_url: the bundle API server", variables: { base_url: { default: "http://localhost:3000" } } });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("lists the error body with a required status and an optional ResponseMetadata in PublicError", async () => {
    const { Error: error, PublicError: publicError } = JSON.parse(await generateOpenApi()).components.schemas;
    expect(publicError.properties.status).toMatchObject({ type: "integer", minimum: 400, maximum: 599 });
    expect(publicError.properties.metadata).toMatchObject({ $ref: "#/components/schemas/ResponseMetadata" });
    expect(publicError.required.sort()).toEqual([...error.required, "status"].sort());
    expect(Object.keys(publicError.properties).sort()).toEqual([...Object.keys(error.properties), "metadata", "status"].sort());
    expect(error.properties).not.toHaveProperty("status");
  });

  it("shows the cart's attribution with the public SDK's signals (its email format included), and no member beside them", async () => {
    const document = JSON.parse(await generateOpenApi());
    const { attribution } = document.paths["/api/carts/{cart_token}/attribution"].patch.requestBody.content["application/json"].schema.properties;
    expect(attribution.properties).toEqual(document.components.schemas.AttributionInput.properties);
    expect(attribution.additionalProperties).toBe(false);
    expect(attribution.properties.email.anyOf.find((branch: { type: string }) => branch.type === "string").format).toBe("email");
  });
});

describe("the served documents (/openapi.json, the one /docs reads and the public SDK's)", () => {
  let testDb: TestDatabase;
  useTestDatabase((created) => {
    testDb = created;
  });
  const documentsOf = async (url: string) =>
    Promise.all(["/openapi.json", "/docs/json", "/api/public/v2025-06/openapi.json"].map(async (path) => (await fetch(`${url}${path}`)).json() as Promise<{ servers: Array<{ variables: { base_url: { default: string } } }> }>));

  it("offer the deployment's PUBLIC_BASE_URL as the first server's base_url, for /docs' Try it out and generated clients", async () => {
    const t = await startTestApp({ env: { PUBLIC_BASE_URL: "https://commerce.example.net" }, database: testDb.database });
    try {
      for (const document of await documentsOf(t.url)) {
        expect(await specificationViolations(document)).toEqual([]);
        expect(document.servers[0]?.variables.base_url.default).toBe("https://commerce.example.net");
        expect(document.servers.map((server) => Object.keys(server.variables))).toEqual([["base_url"], ["company"], ["port"]]);
      }
    } finally {
      await t.close();
    }
  });

  // Found by an audit: the default start's banner sends the developer to http://localhost:PORT/docs,
  // whose Try it out called http://127.0.0.1:PORT (the bound address), a call the page's
  // Content-Security-Policy (connect-src 'self') blocked.
  it("offer the origin the request was sent to when PUBLIC_BASE_URL is not set, so /docs' Try it out calls the page's own origin", async () => {
    const t = await startTestApp({ env: { PUBLIC_BASE_URL: "" }, database: testDb.database });
    try {
      expect(t.config.publicBaseUrl).toBe("http://localhost:3000"); // PORT's default, not where this one listens
      for (const document of await documentsOf(t.url)) expect(document.servers[0]?.variables.base_url.default).toBe(t.url);
      const port = new URL(t.url).port;
      const baseUrlsFor = async (host: string) =>
        Promise.all(
          ["/openapi.json", "/docs/json", "/api/public/v2025-06/openapi.json"].map(async (path) => {
            const [response] = parseRawResponses(await rawExchange(Number(port), `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
            return (JSON.parse(response?.body ?? "null") as { servers: Array<{ variables: { base_url: { default: string } } }> }).servers[0]?.variables.base_url.default;
          }),
        );
      expect(await baseUrlsFor(`localhost:${port}`)).toEqual(Array(3).fill(`http://localhost:${port}`));
      expect(await baseUrlsFor(`[::1]:${port}`)).toEqual(Array(3).fill(`http://[::1]:${port}`));
      expect(await baseUrlsFor("API.Example.test")).toEqual(Array(3).fill("http://api.example.test"));
      // A Host that is more than a host and port names no origin: PORT's default address.
      expect(await baseUrlsFor("evil.example/path")).toEqual(Array(3).fill("http://localhost:3000"));
      expect(await baseUrlsFor("user@evil.example")).toEqual(Array(3).fill("http://localhost:3000"));
    } finally {
      await t.close();
    }
  });

  it("offer the origin a trusted proxy forwarded when PUBLIC_BASE_URL is not set", async () => {
    const t = await startTestApp({ env: { PUBLIC_BASE_URL: "", TRUST_PROXY: "true" }, database: testDb.database });
    try {
      const forwarded = await fetch(`${t.url}/docs/json`, { headers: { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "docs.example.test" } });
      const document = (await forwarded.json()) as { servers: Array<{ variables: { base_url: { default: string } } }> };
      expect(document.servers[0]?.variables.base_url.default).toBe("https://docs.example.test");
    } finally {
      await t.close();
    }
  });
});
