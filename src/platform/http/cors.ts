import fastifyCors from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import { BadRequestError } from "../errors.js";

/**
 * Who may call a storefront surface (cart, public SDK) from a browser. `origins` is CORS_ORIGINS:
 * `*` allows every origin, which is echoed rather than sent as `*` so that credentialed requests
 * work too.
 */
export interface CorsPolicy {
  origins: readonly string[];
  /** Whether the browser may send cookies and Authorization (the cart's session cookie and bearer calls). */
  credentials: boolean;
  methods: readonly string[];
}

function allowsEveryOrigin(policy: CorsPolicy): boolean {
  return policy.origins.includes("*");
}

/** Answers preflights and adds the CORS headers to every reply of the surface that calls it. */
export async function useCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  // The plugin answers an OPTIONS request that is no preflight with a plain-text 400; this one
  // runs first and answers in the surface's error body.
  app.addHook("onRequest", async (request) => {
    if (request.method === "OPTIONS" && (request.headers.origin === undefined || request.headers["access-control-request-method"] === undefined)) {
      throw new BadRequestError("An OPTIONS request here is a CORS preflight: it needs the Origin and Access-Control-Request-Method headers", {
        code: "invalid_preflight",
      });
    }
  });
  await app.register(fastifyCors, {
    origin: allowsEveryOrigin(policy) ? true : [...policy.origins],
    credentials: policy.credentials,
    methods: [...policy.methods],
  });
}

/**
 * The headers useCors gives a reply, for the replies no surface hook sees: the errors the app
 * answers while routing, before it knows the surface. Without them a browser reports a CORS
 * failure instead of letting the storefront read the error.
 */
export function corsHeadersFor(policy: CorsPolicy, origin: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { vary: "Origin" };
  if (origin === undefined || !(allowsEveryOrigin(policy) || policy.origins.includes(origin))) return headers;
  headers["access-control-allow-origin"] = origin;
  if (policy.credentials) headers["access-control-allow-credentials"] = "true";
  return headers;
}
