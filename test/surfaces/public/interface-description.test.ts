import { describe, expect, it } from "vitest";
import type { Call } from "../../helpers/http.js";
import { PUBLIC_PREFIX } from "../../helpers/public-sdk.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let call: Call;

useTwoCompanyApp((app) => ({ call } = app));

describe("the public SDK's interface description", () => {
  it("is served under the SDK's prefix, labelled version 0.0.6, with the SDK's operations and the components they use", async () => {
    const origin = "https://shop.example.org";
    const response = await call("GET", `${PUBLIC_PREFIX}/openapi.json`, { headers: { origin } });
    expect(response.status).toBe(200);
    expect(response.headers["access-control-allow-origin"]).toBe(origin);
    const sdk = response.body;
    expect(sdk.openapi).toBe("3.1.0");
    expect(sdk.info.version).toBe("0.0.6");
    const combined = (await call("GET", "/openapi.json")).body;
    const publicPaths = Object.keys(combined.paths).filter((path) => path.startsWith(`${PUBLIC_PREFIX}/`));
    expect(publicPaths).toContain(`${PUBLIC_PREFIX}/events/leads/capture`);
    expect(Object.keys(sdk.paths)).toEqual(publicPaths);
    for (const path of publicPaths) expect(sdk.paths[path], path).toEqual(combined.paths[path]);
    // What an SDK generator names its methods after.
    const operationIds = Object.values(sdk.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(operationIds.sort()).toEqual(["captureLead", "createSession", "lookUpAffiliate", "readMedia", "readMediaBySlug", "readPlaylist", "readPlaylistBySlug", "recordPageVisit"]);
    const referenced = [...JSON.stringify(sdk).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1] as string);
    expect(referenced).toContain("PublicError");
    expect(Object.keys(sdk.components.schemas).sort()).toEqual([...new Set(referenced)].sort());
    expect(sdk.components.schemas).not.toHaveProperty("Error");
    // Only the headers its operations declare: the SDK takes no credential and no Idempotency-Key.
    const headers = [...JSON.stringify(sdk.paths).matchAll(/"#\/components\/headers\/([^"]+)"/g)].map((match) => match[1] as string);
    expect(Object.keys(sdk.components.headers).sort()).toEqual([...new Set(headers)].sort());
    expect(Object.keys(sdk.components.headers).sort()).toEqual(["Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Id"]);
  });

  it("gives the Affiliate's email and image_url seed 03's formats", async () => {
    const { email, image_url } = (await call("GET", `${PUBLIC_PREFIX}/openapi.json`)).body.components.schemas.Affiliate.properties;
    expect(email).toEqual({ anyOf: [{ type: "string", format: "email" }, { type: "null" }] });
    expect(image_url).toEqual({ anyOf: [{ type: "string", format: "uri" }, { type: "null" }] });
  });

  it("is named in the combined document, whose own version stays the whole API's", async () => {
    const combined = (await call("GET", "/openapi.json")).body;
    expect(combined.info.version).toBe("1.0");
    expect(combined.info["x-public-sdk-version"]).toBe("0.0.6");
    expect(combined.paths).not.toHaveProperty(`${PUBLIC_PREFIX}/openapi.json`);
  });
});
