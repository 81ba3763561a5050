import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import fastifyRateLimit, { type RateLimitPluginOptions } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import { RateLimitedError } from "../../platform/errors.js";
import { SESSION_ID_PATTERN } from "../../platform/ids.js";

const MINUTE_MS = 60_000;
const REDIS_READY_TIMEOUT_MS = 2_000;

function sessionOf(request: FastifyRequest): string | null {
  const session = (request.body as { metadata?: { svc_session?: unknown } } | undefined)?.metadata?.svc_session;
  return typeof session === "string" && SESSION_ID_PATTERN.test(session) ? session : null;
}

/** What each limiter tells the client; a browser script may read them (the surface's CORS exposes them). */
export const RATE_LIMIT_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"] as const;

declare module "fastify" {
  interface FastifyRequest {
    /** The per-IP limiter's x-ratelimit-* values, before the per-session limiter writes its own. */
    perIpRateLimit: Array<ReturnType<FastifyReply["getHeader"]>> | null;
  }
}

/**
 * Both limiters write the same x-ratelimit-* headers, the session's last. A client that paces
 * itself by them should see the limit it will meet first: the one with fewer requests left.
 * Callback hooks and a request decorator: they run on every public request, the cached media
 * read included, so they allocate no promise or map entry.
 */
function showNearerLimit(app: FastifyInstance): void {
  app.decorateRequest("perIpRateLimit", null);
  // Instance hooks run before the route's own, where the session limiter sits.
  app.addHook("preValidation", (request, reply, done) => {
    request.perIpRateLimit = RATE_LIMIT_HEADERS.map((name) => reply.getHeader(name));
    done();
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    const perIp = request.perIpRateLimit;
    if (perIp?.[1] !== undefined && Number(perIp[1]) < Number(reply.getHeader("x-ratelimit-remaining"))) {
      RATE_LIMIT_HEADERS.forEach((name, index) => reply.header(name, perIp[index]));
    }
    done(null, payload);
  });
}

/** Count from the first request when Redis is reachable; start anyway (failing open) when not. */
async function waitUntilReady(redis: Redis): Promise<void> {
  const abort = new AbortController();
  const ready = once(redis, "ready", { signal: abort.signal }).catch(() => undefined);
  const timeout = delay(REDIS_READY_TIMEOUT_MS, undefined, { signal: abort.signal }).catch(() => undefined);
  await Promise.race([ready, timeout]);
  abort.abort();
}

/**
 * Two limits on every public route: per client IP (before the body is read) and per visitor
 * session (once the body is parsed, before validation), both per minute and configurable. With
 * REDIS_URL the counters live in Redis, shared by every instance; when Redis cannot answer the
 * request goes through (storefront tracking should not fail because the limiter's store did).
 * The x-ratelimit-* headers describe whichever limit is nearer to its end.
 */
export async function registerPublicRateLimits(app: FastifyInstance): Promise<void> {
  const { rateLimits, redisUrl } = app.config;
  const redis = redisUrl ? new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 }) : null;
  if (redis) {
    redis.on("error", (error) => app.log.warn({ err: error }, "rate limit store (Redis) unavailable"));
    app.addHook("onClose", async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
    await waitUntilReady(redis);
  }
  const shared: RateLimitPluginOptions = {
    global: true,
    timeWindow: MINUTE_MS,
    skipOnError: true,
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
    ...(redis ? { redis } : {}),
  };
  showNearerLimit(app);
  await app.register(fastifyRateLimit, { ...shared, max: rateLimits.publicPerMinute, nameSpace: "svc-rl-ip-" });
  await app.register(fastifyRateLimit, {
    ...shared,
    max: rateLimits.sessionPerMinute,
    nameSpace: "svc-rl-session-",
    hook: "preValidation",
    keyGenerator: (request) => `session:${sessionOf(request)}`,
    allowList: (request) => sessionOf(request) === null,
  });
}
