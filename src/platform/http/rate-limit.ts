import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import fastifyRateLimit, { type RateLimitPluginOptions } from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { Redis } from "ioredis";
import { RateLimitedError } from "../errors.js";

const REDIS_READY_TIMEOUT_MS = 2_000;

/** What every rate limiter of the app shares; the rest (limits, namespace, hook, key) is the limiter's. */
type SharedRateLimitOptions = Pick<RateLimitPluginOptions, "redis" | "skipOnError" | "errorResponseBuilder">;
type RateLimiterOptions = Omit<RateLimitPluginOptions, keyof SharedRateLimitOptions | "store">;

declare module "fastify" {
  interface FastifyInstance {
    /** Set by rateLimiting; read by useRateLimiter. */
    rateLimitShared: SharedRateLimitOptions;
  }
}

const NO_RATE_LIMIT_HEADERS = { "x-ratelimit-limit": false, "x-ratelimit-remaining": false, "x-ratelimit-reset": false } as const;

/**
 * A limit that answers its 429 (with Retry-After) but adds no X-RateLimit-* headers to any
 * answer: those are the public SDK's documented headers, and its limiters' alone.
 */
export const WITHOUT_RATE_LIMIT_HEADERS = { addHeadersOnExceeding: NO_RATE_LIMIT_HEADERS, addHeaders: NO_RATE_LIMIT_HEADERS };

/**
 * @fastify/rate-limit for the whole app, off by default: a route opts in with
 * `config: { rateLimit: { max, timeWindow } }`, a handler with `app.rateLimit({...})`; a
 * surface that limits all its routes adds its own limiter with useRateLimiter. Counters live in
 * Redis when REDIS_URL is set (shared by every instance), else in the process. Every limiter
 * counts in the app's one Redis connection, and a Redis that fails or does not answer lets
 * requests through at once (skipOnError, no offline queue): rate limiting protects the
 * service, it must not take it down or slow it.
 */
export const rateLimiting = fp(async (app: FastifyInstance) => {
  const redis = app.config.redisUrl ? await connectStore(app, app.config.redisUrl) : null;
  app.decorate("rateLimitShared", {
    skipOnError: true,
    // Thrown by the plugin, so the error handler writes the surface's documented body and Retry-After.
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
    ...(redis ? { redis } : {}),
  } satisfies SharedRateLimitOptions);
  await useRateLimiter(app, { global: false, nameSpace: "svc-commerce-rl:" });
});

/** Registers a limiter in `app`'s context that counts in the app's store and answers the documented 429. */
export async function useRateLimiter(app: FastifyInstance, options: RateLimiterOptions): Promise<void> {
  await app.register(fastifyRateLimit, { ...options, ...app.rateLimitShared });
}

/** The app's Redis client, closed with the app; the start waits briefly for it so that counting starts with the first request. */
async function connectStore(app: FastifyInstance, url: string): Promise<Redis> {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: REDIS_READY_TIMEOUT_MS });
  redis.on("error", (error: Error) => app.log.warn({ err: error }, "rate limit store (Redis) unavailable"));
  app.addHook("onClose", async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  await waitUntilReady(redis);
  return redis;
}

/** Resolves once Redis is ready or after REDIS_READY_TIMEOUT_MS, whichever is first: the app starts anyway, failing open. */
async function waitUntilReady(redis: Redis): Promise<void> {
  const abort = new AbortController();
  const ready = once(redis, "ready", { signal: abort.signal }).catch(() => undefined);
  const timeout = delay(REDIS_READY_TIMEOUT_MS, undefined, { signal: abort.signal }).catch(() => undefined);
  await Promise.race([ready, timeout]);
  abort.abort();
}
