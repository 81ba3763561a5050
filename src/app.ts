import fastifyCookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from "fastify";
import { validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { SessionCookieOrigins } from "./domain/carts/session-cookie.js";
import { ShopDirectory } from "./domain/companies/shop-directory.js";
import { PublishedMediaCache } from "./domain/media/published-media-cache.js";
import { type Clock, systemClock } from "./platform/clock.js";
import type { Database } from "./platform/db/database.js";
import { RowQueue } from "./platform/db/row-queue.js";
import { ShuttingDownError } from "./platform/errors.js";
import "./platform/http/app-context.js";
import { benchRoutes } from "./platform/http/bench-routes.js";
import { answerClientErrors, requireHostHeader } from "./platform/http/client-errors.js";
import { registerCreatedLocation } from "./platform/http/created-location.js";
import { type CorsPolicy, corsHeadersFor, isAllowedPreflight } from "./platform/http/cors.js";
import { registerErrorHandlers, sendError, toErrorReply } from "./platform/http/error-handler.js";
import { registerJsonBodyParser } from "./platform/http/json-body.js";
import { registerOpenApi } from "./platform/http/openapi.js";
import { operationsRoutes } from "./platform/http/operations.js";
import { rateLimiting, WITHOUT_RATE_LIMIT_HEADERS } from "./platform/http/rate-limit.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./platform/http/request-id.js";
import { responseSerializerCompiler } from "./platform/http/response-serializer.js";
import { trackRunningHandlers } from "./platform/http/running-handlers.js";
import { registerStorableInputGuard } from "./platform/http/storable-input.js";
import { adminSurface } from "./surfaces/admin/index.js";
import { CART_PREFIX, cartCorsPolicy, cartSurface } from "./surfaces/cart/index.js";
import { sendPublicError } from "./surfaces/public/errors.js";
import { PUBLIC_PREFIX, PUBLIC_ROOT, publicCorsPolicy, publicSurface, unsupportedPublicVersions } from "./surfaces/public/index.js";
import { PUBLIC_SDK_VERSION } from "./surfaces/public/openapi.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Read by the public SDK, emptied per company by the admin surface's writes. */
    publishedMedia: PublishedMediaCache;
    /** The public SDK's shops (`svc_shop`) and the carts' shop origins, with one cache. */
    shops: ShopDirectory;
  }
}

interface AppDependencies {
  config: Config;
  database: Database;
  logger: Logger;
  clock?: Clock;
}

// An API answers JSON: nothing in a response may run, load or be framed, nor be kept by a cache
// (a cart answer holds the shopper's details and a checkout token, and a cached one goes stale at
// the next change). /docs sets its own CSP.
const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
};

/** The headers of every response: onSend sets them, and the routing errors, which no hook sees, set them too. */
function setCommonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, request.id);
  reply.headers(SECURITY_HEADERS);
}

/** A preflight's answer, as @fastify/cors gives it: its headers are set already. */
function answerPreflight(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/** Whether `url` (path and query) addresses `prefix` or a path below it. */
function isUnder(url: string, prefix: string): boolean {
  return url.startsWith(prefix) && (url.length === prefix.length || "/?".includes(url.charAt(prefix.length)));
}

/**
 * Errors raised while routing (a URL that does not decode, an overlong path parameter) get the
 * documented body and the common headers too, and under a storefront surface's prefix that
 * surface's body and CORS headers: no surface or hook has seen the request.
 */
function answerRoutingError(policies: { cart: CorsPolicy; public: CorsPolicy }): FastifyServerOptions["frameworkErrors"] {
  return async (error, request, reply) => {
    setCommonHeaders(request, reply);
    const path = request.url.replace(/\/{2,}/g, "/");
    const underPublic = isUnder(path, PUBLIC_ROOT);
    const cors = underPublic ? policies.public : isUnder(path, CART_PREFIX) ? policies.cart : null;
    if (cors) {
      reply.headers(await corsHeadersFor(cors, request));
      // A browser sends the request only after its preflight succeeds; then it can read the error.
      if (isAllowedPreflight(cors, request)) return answerPreflight(reply);
    }
    const errorReply = toErrorReply(error, request);
    return underPublic ? sendPublicError(request, reply, errorReply) : sendError(reply, errorReply);
  };
}

/** The whole HTTP API: platform plugins first, then the three surfaces. */
export async function buildApp({ config, database, logger, clock = systemClock }: AppDependencies): Promise<FastifyInstance> {
  const shops = new ShopDirectory(database.prisma, clock, { allowHttpOrigins: config.env !== "production" });
  const sessionCookieOrigins = new SessionCookieOrigins(shops, config.corsOrigins);
  const cors = { cart: cartCorsPolicy(config, sessionCookieOrigins), public: publicCorsPolicy(config) };
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    bodyLimit: config.bodyLimit,
    // A hop count, as a function: Fastify reads a number as trusting no one. The socket's peer
    // is hop 0, the last X-Forwarded-For entry hop 1, and so on.
    trustProxy: config.trustProxy > 0 && ((_address: string, hop: number) => hop < config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    // Slow and idle clients: a socket silent for idleTimeout is closed, headers must arrive
    // within headersTimeout and the whole request within requestTimeout, an idle keep-alive
    // connection is closed after keepAliveTimeout. Node checks the first two only every
    // connectionsCheckingInterval, so that follows the shortest timeout.
    connectionTimeout: config.http.idleTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(config.http.headersTimeoutMs / 4))),
      requireHostHeader: false,
    },
    // Fastify's own 503 while closing is a body of its own with no Retry-After, request id or
    // surface headers: the preParsing hook below answers those requests instead.
    return503OnClosing: false,
    frameworkErrors: answerRoutingError(cors),
    clientErrorHandler: answerClientErrors({ clock, logger, headers: SECURITY_HEADERS }),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  app.decorate("db", database);
  app.decorate("clock", clock);
  app.decorate("config", config);
  app.decorate("rowQueue", new RowQueue());
  app.decorate("publishedMedia", new PublishedMediaCache(clock, config.publicMediaCacheTtlMs, config.publicMediaCacheMaxBytes));
  app.decorate("shops", shops);
  app.decorateRequest("companyId", null);
  trackRunningHandlers(app);

  // While shutting down, each response closes its connection: a keep-alive connection left
  // idle after its last response would otherwise hold the exit back until keepAliveTimeout.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  // A request that arrived after the close began (on a connection that was not idle, so it was
  // kept) is not started; one that arrived before is served to its end, however long its
  // authentication or body take. It is marked here, before any hook that may wait, and answered
  // after every onRequest hook, so the 503 carries the CORS headers a storefront needs to read it.
  const arrivedWhileClosing = new WeakSet<FastifyRequest>();
  app.addHook("onRequest", (request, _reply, done) => {
    if (closing) arrivedWhileClosing.add(request);
    done();
  });
  app.addHook("preParsing", async (request) => {
    if (arrivedWhileClosing.has(request)) throw new ShuttingDownError();
  });

  requireHostHeader(app);
  registerJsonBodyParser(app);
  registerStorableInputGuard(app);
  await app.register(rateLimiting);
  // One budget per client for every unknown path, whichever surface's 404 answers it.
  const notFoundPreHandler = app.rateLimit({ max: config.rateLimits.notFoundPerMinute, timeWindow: 60_000, ...WITHOUT_RATE_LIMIT_HEADERS });
  registerErrorHandlers(app, { notFoundPreHandler });
  app.addHook("onSend", async (request, reply) => {
    setCommonHeaders(request, reply);
    if (closing) reply.header("connection", "close");
  });
  registerCreatedLocation(app);

  await registerOpenApi(app, { "x-public-sdk-version": PUBLIC_SDK_VERSION });
  await app.register(fastifyCookie);
  await app.register(operationsRoutes);
  if (config.benchRoutes) await app.register(benchRoutes);
  await app.register(adminSurface);
  await app.register(cartSurface, { prefix: CART_PREFIX, notFoundPreHandler, cors: cors.cart, sessionCookieOrigins });
  await app.register(publicSurface, { prefix: PUBLIC_PREFIX, notFoundPreHandler });
  await app.register(unsupportedPublicVersions, { prefix: PUBLIC_ROOT, notFoundPreHandler });
  return app;
}
