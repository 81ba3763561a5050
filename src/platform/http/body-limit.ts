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

/**
 * The most bytes a JSON string takes for `length` UTF-16 code units of any text: six each, as
 * `\uXXXX`, which an encoder that escapes everything but ASCII writes for every character (Python's
 * json.dumps does by default). UTF-8 takes at most three.
 */
export function jsonStringMaxBytes(length: number): number {
  return length * 6 + 2;
}
