import type { FastifyInstance } from "fastify";

/**
 * A surface's own body limit for every route it registers after this call (a route may still
 * set its own). Storefront surfaces take bodies from anyone on the internet, so they accept
 * less than the admin surface.
 */
export function useBodyLimit(app: FastifyInstance, bytes: number): void {
  app.addHook("onRoute", (route) => {
    route.bodyLimit ??= bytes;
  });
}
