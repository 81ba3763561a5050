import type { FastifyInstance } from "fastify";
import { surfaceDocument } from "../../platform/http/openapi.js";

/** The version the SDK's interface description carries (seed 03), apart from the API version in the path. */
export const PUBLIC_SDK_VERSION = "0.0.6";

/**
 * The public SDK's own interface description, cut from the app's document (`/openapi.json`):
 * what an SDK generator reads, with the SDK's version as `info.version`.
 */
export async function publicOpenApiRoutes(fastify: FastifyInstance): Promise<void> {
  let document: ReturnType<typeof surfaceDocument> | undefined;
  fastify.get("/openapi.json", { schema: { hide: true } }, async () => {
    document ??= surfaceDocument(fastify.swagger(), fastify.prefix, {
      title: "svc-commerce public SDK",
      version: PUBLIC_SDK_VERSION,
      description: "The public SDK (shop + session metadata in every body); the API version is the path's v2025-06.",
    });
    return document;
  });
}
