import fastifyCookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { PublishedMediaCache } from "./domain/media/published-media-cache.js";
import { type Clock, systemClock } from "./platform/clock.js";
import type { Database } from "./platform/db/database.js";
import "./platform/http/app-context.js";
import { benchRoutes } from "./platform/http/bench-routes.js";
import { corsHeadersFor } from "./platform/http/cors.js";
import { registerErrorHandlers, sendError, toErrorReply } from "./platform/http/error-handler.js";
import { registerJsonBodyParser } from "./platform/http/json-body.js";
import { registerNulGuard } from "./platform/http/nul-guard.js";
import { registerOpenApi } from "./platform/http/openapi.js";
import { operationsRoutes } from "./platform/http/operations.js";
import { rateLimiting } from "./platform/http/rate-limit.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./platform/http/request-id.js";
import { responseSerializerCompiler } from "./platform/http/response-serializer.js";
import { trackRunningHandlers } from "./platform/http/running-handlers.js";
import { adminSurface } from "./surfaces/admin/index.js";
import { CART_PREFIX, cartCorsPolicy, cartSurface } from "./surfaces/cart/index.js";
import { sendPublicError } from "./surfaces/public/errors.js";
import { PUBLIC_PREFIX, publicCorsPolicy, publicSurface } from "./surfaces/public/index.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Read by the public SDK, emptied per company by the admin surface's writes. */
    publishedMedia: PublishedMediaCache;
  }
}

export interface AppDependencies {
  config: Config;
  database: Database;
  logger: Logger;
  clock?: Clock;
}

// An API answers JSON: nothing in a response may run, load or be framed. /docs sets its own CSP.
const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
};

/** Whether `url` (path and query) addresses `prefix` or a path below it. */
function isUnder(url: string, prefix: string): boolean {
  return url.startsWith(prefix) && (url.length === prefix.length || "/?".includes(url.charAt(prefix.length)));
}

/** The whole HTTP API: platform plugins first, then the three surfaces. */
export async function buildApp({ config, database, logger, clock = systemClock }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
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
    },
    return503OnClosing: true,
    // Errors raised while routing (a URL that does not decode, an overlong path parameter) get the
    // documented body too, and under a storefront surface's prefix that surface's body and CORS
    // headers: no surface has seen the request yet.
    frameworkErrors: (error, request, reply) => {
      const errorReply = toErrorReply(error, request);
      const underPublic = isUnder(request.url, PUBLIC_PREFIX);
      const cors = underPublic ? publicCorsPolicy(config) : isUnder(request.url, CART_PREFIX) ? cartCorsPolicy(config) : null;
      if (cors) reply.headers(corsHeadersFor(cors, request.headers.origin));
      return underPublic ? sendPublicError(request, reply, errorReply) : sendError(reply, errorReply);
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  app.decorate("db", database);
  app.decorate("clock", clock);
  app.decorate("config", config);
  app.decorate("publishedMedia", new PublishedMediaCache(clock, config.publicMediaCacheTtlMs));
  app.decorateRequest("companyId", null);
  trackRunningHandlers(app);

  registerJsonBodyParser(app);
  registerNulGuard(app);
  await app.register(rateLimiting);
  // One budget per client for every unknown path, whichever surface's 404 answers it.
  const notFoundPreHandler = app.rateLimit({ max: config.rateLimits.notFoundPerMinute, timeWindow: 60_000 });
  registerErrorHandlers(app, { notFoundPreHandler });
  // While shutting down, each response closes its connection: a keep-alive connection left
  // idle after its last response would otherwise hold the exit back until keepAliveTimeout.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    reply.headers(SECURITY_HEADERS);
    if (closing) reply.header("connection", "close");
  });

  await registerOpenApi(app);
  await app.register(fastifyCookie, { secret: config.cookieSecret });
  await app.register(operationsRoutes);
  if (config.benchRoutes) await app.register(benchRoutes);
  await app.register(adminSurface);
  await app.register(cartSurface, { prefix: CART_PREFIX, notFoundPreHandler });
  await app.register(publicSurface, { prefix: PUBLIC_PREFIX, notFoundPreHandler });
  return app;
}
