import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { Config } from "../../config.js";
import { EventStore } from "../../domain/tracking/event-store.js";
import { NotFoundError } from "../../platform/errors.js";
import { useBodyLimit } from "../../platform/http/body-limit.js";
import { acceptPlainTextJson } from "../../platform/http/json-body.js";
import { type CorsPolicy, STOREFRONT_EXPOSED_HEADERS, useCors } from "../../platform/http/cors.js";
import { affiliateRoutes } from "./affiliates.js";
import { registerPublicErrorHandlers } from "./errors.js";
import { eventRoutes } from "./events.js";
import { publicMediaRoutes } from "./media.js";
import { documentRateLimitHeaders, publicOpenApiRoutes } from "./openapi.js";
import { publicPlaylistRoutes } from "./playlists.js";
import { RATE_LIMIT_HEADERS, registerPublicRateLimits } from "./rate-limits.js";
import { sessionRoutes } from "./session.js";

/** Where every version of the public SDK would live. */
export const PUBLIC_ROOT = "/api/public";
/** Where the surface is registered: its paths are versioned, and this is the one version served. */
export const PUBLIC_PREFIX = `${PUBLIC_ROOT}/v2025-06`;

/**
 * Storefront scripts may pace themselves by the SDK's rate limit. The SDK reads no credential, so
 * a call may carry the browser's (a beacon always does, and so does a storefront's one fetch
 * wrapper when it sends the cart's cookie): allowing them exposes nothing.
 */
export function publicCorsPolicy(config: Config): CorsPolicy {
  return { origins: config.corsOrigins, credentials: true, methods: ["GET", "HEAD", "POST"], exposedHeaders: [...STOREFRONT_EXPOSED_HEADERS, ...RATE_LIMIT_HEADERS] };
}

interface PublicSurfaceOptions {
  /** The app's rate limit of unknown paths, which this surface's own 404 answers share. */
  notFoundPreHandler: preHandlerAsyncHookHandler;
}

/** The public SDK: no credential; shop and visitor come from the request's metadata. */
export async function publicSurface(app: FastifyInstance, options: PublicSurfaceOptions): Promise<void> {
  // Anyone on the internet calls these: a small body limit on every route of the surface.
  useBodyLimit(app, app.config.publicBodyLimit);
  // Beacons and fetch calls without a Content-Type send their JSON as text/plain.
  acceptPlainTextJson(app);
  const events = new EventStore(app.db.sql);
  app.decorate("events", events);
  // Closing waits for running requests; this also covers events whose requests timed out.
  app.addHook("onClose", () => events.drained());
  // Before every route, the preflights' included: a route keeps the error handler it was registered under.
  registerPublicErrorHandlers(app, options.notFoundPreHandler);
  await useCors(app, publicCorsPolicy(app.config));
  await registerPublicRateLimits(app);
  documentRateLimitHeaders(app);
  await app.register(sessionRoutes);
  await app.register(eventRoutes);
  await app.register(affiliateRoutes);
  await app.register(publicMediaRoutes);
  await app.register(publicPlaylistRoutes);
  await app.register(publicOpenApiRoutes);
}

const unsupportedVersion = () =>
  new NotFoundError(`This API version is not supported: the public SDK is served under ${PUBLIC_PREFIX}`, { code: "unsupported_api_version" });

/**
 * Everything under PUBLIC_ROOT but the served version (an old, future or mistyped version, or
 * none): a 404 unsupported_api_version in the public error body, with the surface's CORS, so that
 * a storefront script reads why its call failed instead of a browser's CORS failure. These are
 * unknown paths: they share the app's rate limit of unknown paths.
 */
export async function unsupportedPublicVersions(app: FastifyInstance, options: PublicSurfaceOptions): Promise<void> {
  useBodyLimit(app, app.config.publicBodyLimit);
  registerPublicErrorHandlers(app, options.notFoundPreHandler, unsupportedVersion);
  await useCors(app, publicCorsPolicy(app.config));
}
