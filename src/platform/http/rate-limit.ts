import fastifyRateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { Redis } from "ioredis";
import { RateLimitedError } from "../errors.js";

/**
 * @fastify/rate-limit for the whole app, off by default: a route opts in with
 * `config: { rateLimit: { max, timeWindow } }`, a handler with `app.rateLimit({...})`.
 * Counters live in Redis when REDIS_URL is set (shared by every instance), else in the
 * process. A Redis outage lets requests through (skipOnError): rate limiting protects the
 * service, it must not take it down.
 */
export const rateLimiting = fp(async (app: FastifyInstance) => {
  const redis = app.config.redisUrl
    ? new Redis(app.config.redisUrl, { connectTimeout: 1_000, maxRetriesPerRequest: 1, lazyConnect: false })
    : undefined;
  if (redis) {
    redis.on("error", (error: Error) => app.log.warn({ err: error }, "rate-limit store unreachable"));
    app.addHook("onClose", async () => {
      redis.disconnect();
    });
  }
  await app.register(fastifyRateLimit, {
    global: false,
    skipOnError: true,
    nameSpace: "svc-commerce-rl:",
    ...(redis ? { redis } : {}),
    // Thrown by the plugin, so the app's error handler writes the documented body and Retry-After.
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
});
