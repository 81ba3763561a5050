import fastifyCookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { type Clock, systemClock } from "./platform/clock.js";
import type { Database } from "./platform/db/database.js";
import "./platform/http/app-context.js";
import { benchRoutes } from "./platform/http/bench-routes.js";
import { registerErrorHandlers } from "./platform/http/error-handler.js";
import { registerJsonBodyParser } from "./platform/http/json-body.js";
import { registerOpenApi } from "./platform/http/openapi.js";
import { operationsRoutes } from "./platform/http/operations.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./platform/http/request-id.js";
import { adminSurface } from "./surfaces/admin/index.js";
import { cartSurface } from "./surfaces/cart/index.js";
import { publicSurface } from "./surfaces/public/index.js";

export interface AppDependencies {
  config: Config;
  database: Database;
  logger: Logger;
  clock?: Clock;
}

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

/** The whole HTTP API: platform plugins first, then the three surfaces. */
export async function buildApp({ config, database, logger, clock = systemClock }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate("db", database);
  app.decorate("clock", clock);
  app.decorate("config", config);
  app.decorateRequest("companyId", null);

  registerJsonBodyParser(app);
  registerErrorHandlers(app);
  app.addHook("onSend", async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    reply.headers(SECURITY_HEADERS);
  });

  await registerOpenApi(app);
  await app.register(fastifyCookie, { secret: config.cookieSecret });
  await app.register(operationsRoutes);
  if (config.benchRoutes) await app.register(benchRoutes);
  await app.register(adminSurface);
  await app.register(cartSurface, { prefix: "/api/carts" });
  await app.register(publicSurface, { prefix: "/api/public/v2025-06" });
  return app;
}
