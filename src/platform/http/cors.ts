import type { IncomingHttpHeaders } from "node:http";
import fastifyCors from "@fastify/cors";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { BadRequestError } from "../errors.js";
import { REQUEST_ID_HEADER } from "./request-id.js";

/**
 * Which of the allowed origins may call with the browser's credentials (cookies, Authorization):
 * every one, none, or those a check accepts. The check runs for every request that carries an
 * allowed Origin, so it caches its answers.
 */
type CredentialedOrigins = boolean | ((origin: string) => Promise<boolean>);

/**
 * Who may call a storefront surface (cart, public SDK) from a browser. `origins` is CORS_ORIGINS:
 * `*` allows every origin, which is echoed rather than sent as `*` (a browser refuses `*` on a
 * credentialed request); only origins that `credentials` accepts also get
 * Access-Control-Allow-Credentials, which is what lets a page read an answer to a request that
 * carried the shopper's cookie.
 */
export interface CorsPolicy {
  origins: readonly string[];
  credentials: CredentialedOrigins;
  methods: readonly string[];
  /** Response headers a script may read besides the CORS-safelisted ones. */
  exposedHeaders: readonly string[];
}

/** What every storefront script may read: the request id to quote, and when to retry a 429 or 503. */
export const STOREFRONT_EXPOSED_HEADERS = [REQUEST_ID_HEADER, "retry-after"] as const;

/**
 * How long a browser may reuse a preflight's answer (Access-Control-Max-Age), so that a
 * storefront's JSON POSTs are not each preceded by an OPTIONS round trip. 7200 s is the most
 * Chromium honours (Firefox caps at 86400). It cannot outlive a policy change that matters: a
 * cached preflight only skips the OPTIONS, and every response is still checked against its own
 * Access-Control-Allow-Origin, which a removed origin no longer gets.
 */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

function allows(policy: CorsPolicy, origin: string): boolean {
  return policy.origins.includes("*") || policy.origins.includes(origin);
}

function isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
  return method === "OPTIONS" && headers.origin !== undefined && headers["access-control-request-method"] !== undefined;
}

/**
 * Whether an allowed origin gets Access-Control-Allow-Credentials. When the check fails (the
 * database is down), none: a storefront whose calls carry no credentials still reads the error
 * its call meets, and a credentialed one is refused rather than trusted.
 */
async function allowsCredentials(policy: CorsPolicy, origin: string, request: FastifyRequest): Promise<boolean> {
  if (typeof policy.credentials === "boolean") return policy.credentials;
  try {
    return await policy.credentials(origin);
  } catch (error) {
    request.log.warn({ err: error }, "Could not check whether the origin may send credentials: answered without them");
    return false;
  }
}

/** Answers preflights and adds the CORS headers to every reply of the surface that calls it. */
export async function useCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  // The plugin answers an OPTIONS request that is no preflight with a plain-text 400; this one
  // runs first and answers in the surface's error body.
  app.addHook("onRequest", async (request) => {
    if (request.method === "OPTIONS" && !isPreflight(request.method, request.headers)) {
      throw new BadRequestError("An OPTIONS request here is a CORS preflight: it needs the Origin and Access-Control-Request-Method headers", {
        code: "invalid_preflight",
        headers: await corsHeadersFor(policy, request),
      });
    }
  });
  const origin = policy.origins.includes("*") ? true : [...policy.origins];
  const methods = [...policy.methods];
  const exposedHeaders = [...policy.exposedHeaders];
  await app.register(fastifyCors, {
    delegator: async (request: FastifyRequest) => {
      const requestOrigin = request.headers.origin;
      const credentials = requestOrigin !== undefined && allows(policy, requestOrigin) && (await allowsCredentials(policy, requestOrigin, request));
      return { origin, credentials, methods, exposedHeaders, maxAge: PREFLIGHT_MAX_AGE_SECONDS };
    },
  });
}

/**
 * The headers useCors gives a reply, for the replies no surface hook sees: the errors the app
 * answers while routing, before it knows the surface, and the preflights of their requests.
 * Without them a browser reports a CORS failure instead of letting the storefront read the error.
 */
export async function corsHeadersFor(policy: CorsPolicy, request: FastifyRequest): Promise<Record<string, string>> {
  const { method, headers: requestHeaders } = request;
  const origin = requestHeaders.origin;
  const preflight = isPreflight(method, requestHeaders);
  const headers: Record<string, string> = { vary: preflight ? "Origin, Access-Control-Request-Headers" : "Origin" };
  if (origin === undefined || !allows(policy, origin)) return headers;
  headers["access-control-allow-origin"] = origin;
  if (await allowsCredentials(policy, origin, request)) headers["access-control-allow-credentials"] = "true";
  if (!preflight) {
    headers["access-control-expose-headers"] = policy.exposedHeaders.join(", ");
    return headers;
  }
  headers["access-control-allow-methods"] = policy.methods.join(", ");
  headers["access-control-max-age"] = String(PREFLIGHT_MAX_AGE_SECONDS);
  const requested = requestHeaders["access-control-request-headers"];
  if (requested !== undefined) headers["access-control-allow-headers"] = requested;
  return headers;
}

/** Whether the app should answer this request as a preflight itself (see corsHeadersFor). */
export function isAllowedPreflight(policy: CorsPolicy, request: FastifyRequest): boolean {
  return isPreflight(request.method, request.headers) && allows(policy, request.headers.origin as string);
}
