import type { FastifyInstance } from "fastify";
import { type DocumentedHeader, servedDocument, surfaceDocument } from "../../platform/http/openapi.js";

/** The version the SDK's interface description carries (seed 03), apart from the API version in the path. */
export const PUBLIC_SDK_VERSION = "0.0.6";

/**
 * The public SDK's own interface description, cut from the app's document (`/openapi.json`):
 * what an SDK generator reads, with the SDK's version as `info.version`.
 */
export async function publicOpenApiRoutes(fastify: FastifyInstance): Promise<void> {
  let document: ReturnType<typeof surfaceDocument> | undefined;
  fastify.get("/openapi.json", { schema: { hide: true } }, async (request) => {
    document ??= surfaceDocument(fastify.swagger(), fastify.prefix, {
      title: "svc-commerce public SDK",
      version: PUBLIC_SDK_VERSION,
      description: "The public SDK (shop + session metadata in every body); the API version is the path's v2025-06.",
    });
    return servedDocument(document, request);
  });
}

// Written by the surface's limiters (rate-limits.ts) on every response once they have counted the request.
const ABSENT_WHEN = "Absent when the limiter's store could not be reached (the request is then not limited)";
const DOCUMENTED_RATE_LIMIT_HEADERS: Record<string, DocumentedHeader> = {
  "X-RateLimit-Limit": {
    description: `Requests per minute allowed by the nearer of the two limits (per client IP, per visitor session). ${ABSENT_WHEN}`,
    schema: { type: "integer", minimum: 0 },
    on: ["2XX", "4XX", "5XX"],
  },
  "X-RateLimit-Remaining": { description: `Requests left in that limit's current minute. ${ABSENT_WHEN}`, schema: { type: "integer", minimum: 0 }, on: ["2XX", "4XX", "5XX"] },
  "X-RateLimit-Reset": { description: `Seconds until that limit's minute starts over. ${ABSENT_WHEN}`, schema: { type: "integer", minimum: 0 }, on: ["2XX", "4XX", "5XX"] },
};

/** The OpenAPI document lists the rate limit headers on every public route registered after this call. */
export function documentRateLimitHeaders(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    route.config = { ...route.config, responseHeaders: { ...DOCUMENTED_RATE_LIMIT_HEADERS, ...route.config?.responseHeaders } };
  });
}
