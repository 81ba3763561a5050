import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Call, httpClient } from "../../helpers/http.js";
import { expectPublicError, metadataFor, PUBLIC_PREFIX } from "../../helpers/public-sdk.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";

let t: TestApp;
let call: Call;

beforeAll(async () => {
  t = await startTestApp({ env: { NOT_FOUND_RATE_LIMIT_PER_MINUTE: "1000" } });
  call = httpClient(t.url);
});
afterAll(async () => {
  await t.close();
});

const origin = "https://shop.acme.com";
const preflight = { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" };
const otherVersions = ["/api/public/v2024-01/affiliates/lookup", "/api/public/V2025-06/affiliates/lookup", "/api/public/affiliates/lookup", "/api/public", "/api/public/"];

describe("paths under /api/public/ outside the supported version", () => {
  it("answer 404 unsupported_api_version in the public error body, naming the supported version, readable by a storefront script", async () => {
    for (const path of otherVersions) {
      const metadata = metadataFor("acme.example.com");
      const response = await call("POST", path, { body: { metadata }, headers: { origin } });
      expectPublicError(response, 404);
      expect(response.body.error_code, path).toBe("unsupported_api_version");
      expect(response.body.error_message, path).toContain(PUBLIC_PREFIX);
      expect(response.body.metadata, path).toMatchObject({ svc_shop: "acme.example.com", svc_session: metadata.svc_session });
      expect(response.headers["access-control-allow-origin"], path).toBe(origin);
      expect(response.headers["access-control-expose-headers"], path).toContain("x-request-id");
      expect(response.headers["x-request-id"], path).toBe(response.body.meta.request_id);
    }
  });

  it("answer their preflights, so that the browser sends the request; an OPTIONS that is no preflight is a 400 in the public body", async () => {
    for (const path of otherVersions) {
      const answered = await call("OPTIONS", path, { headers: preflight });
      expect(answered.status, path).toBe(204);
      expect(answered.headers["access-control-allow-origin"], path).toBe(origin);
      expect(answered.headers["access-control-allow-methods"], path).toContain("POST");
      expect(answered.headers["access-control-allow-headers"], path).toBe("content-type");
      const notPreflight = await call("OPTIONS", path, { headers: { origin } });
      expectPublicError(notPreflight, 400);
      expect(notPreflight.body.error_code, path).toBe("invalid_preflight");
    }
  });

  it("answer routing errors in the public body with the surface's CORS headers", async () => {
    const undecodable = await call("POST", "/api/public/v2024-01/media/%zz", { headers: { origin } });
    expectPublicError(undecodable, 400);
    expect(undecodable.headers["access-control-allow-origin"]).toBe(origin);
  });

  it("leave the supported version's unknown paths and paths outside /api/public/ as they were", async () => {
    const unknown = await call("POST", `${PUBLIC_PREFIX}/affiliates/nothing`, { body: {}, headers: { origin } });
    expectPublicError(unknown, 404);
    expect(unknown.body.error_code).toBe("route_not_found");
    for (const path of ["/api/publicity", "/api/publics/v2025-06/session"]) {
      const admin = await call("POST", path, { body: {}, headers: { origin } });
      expect(admin.status, path).toBe(404);
      expect(admin.body, path).toMatchObject({ error_code: "route_not_found" });
      expect(admin.body, path).not.toHaveProperty("status");
      expect(admin.headers["access-control-allow-origin"], path).toBeUndefined();
    }
  });
});

describe("unsupported versions and the unknown-path rate limit", () => {
  it("share the one budget of unknown paths, answering its 429 in the public body", async () => {
    const limited = await startTestApp({ env: { NOT_FOUND_RATE_LIMIT_PER_MINUTE: "3" } });
    try {
      const limitedCall = httpClient(limited.url);
      const statuses: number[] = [];
      statuses.push((await limitedCall("GET", "/wp-admin/index.php")).status);
      statuses.push((await limitedCall("POST", `${PUBLIC_PREFIX}/probe`, { body: {} })).status);
      statuses.push((await limitedCall("POST", "/api/public/v2024-01/probe", { body: {} })).status);
      const refused = await limitedCall("POST", "/api/public/v2024-01/affiliates/lookup", { body: {}, headers: { origin } });
      expect(statuses).toEqual([404, 404, 404]);
      expectPublicError(refused, 429);
      expect(refused.body.error_code).toBe("rate_limited");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(refused.headers["access-control-allow-origin"]).toBe(origin);
    } finally {
      await limited.close();
    }
  });
});
