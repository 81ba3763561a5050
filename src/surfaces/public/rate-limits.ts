import type { FastifyInstance, FastifyRequest } from "fastify";
import { useRateLimiter } from "../../platform/http/rate-limit.js";
import { SESSION_ID_PATTERN } from "../../platform/ids.js";

const MINUTE_MS = 60_000;

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

/**
 * Two limits on every public route: per client IP (before the body is read) and per visitor
 * session (once the body is parsed, before validation), both per minute and configurable,
 * counted in the app's store (Redis with REDIS_URL, shared by every instance; a store that
 * cannot answer lets the request through: storefront tracking should not fail because the
 * limiter's store did). The x-ratelimit-* headers describe whichever limit is nearer to its end.
 */
export async function registerPublicRateLimits(app: FastifyInstance): Promise<void> {
  const { rateLimits } = app.config;
  const perMinute = { global: true, timeWindow: MINUTE_MS };
  showNearerLimit(app);
  await useRateLimiter(app, { ...perMinute, max: rateLimits.publicPerMinute, nameSpace: "svc-rl-ip-" });
  await useRateLimiter(app, {
    ...perMinute,
    max: rateLimits.sessionPerMinute,
    nameSpace: "svc-rl-session-",
    hook: "preValidation",
    keyGenerator: (request) => `session:${sessionOf(request)}`,
    allowList: (request) => sessionOf(request) === null,
  });
}
