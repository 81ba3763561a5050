import type { FastifyInstance } from "fastify";

/**
 * Which route handlers are still running. `app.close()` resolves once every connection has
 * closed, but a client that hangs up does not stop its handler: the handler goes on with its
 * queries. Shutting down must wait for those too before the database is closed under them.
 */
class RunningHandlers {
  private running = 0;
  private readonly waiting = new Set<() => void>();

  get count(): number {
    return this.running;
  }

  /** Resolves when no handler is running. */
  settled(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.add(resolve));
  }

  track<T>(work: Promise<T>): Promise<T> {
    this.running += 1;
    return work.finally(() => {
      this.running -= 1;
      if (this.running > 0) return;
      for (const resolve of this.waiting) resolve();
      this.waiting.clear();
    });
  }
}

declare module "fastify" {
  interface FastifyInstance {
    runningHandlers: RunningHandlers;
  }
}

/** Counts every asynchronous handler of the routes registered after this call. */
export function trackRunningHandlers(app: FastifyInstance): void {
  const handlers = new RunningHandlers();
  app.decorate("runningHandlers", handlers);
  app.addHook("onRoute", (route) => {
    const handler = route.handler;
    route.handler = function trackedHandler(this: FastifyInstance, request, reply) {
      const result = handler.call(this, request, reply);
      return result instanceof Promise ? handlers.track(result) : result;
    } as typeof handler;
  });
}

/** Stops serving: no new requests, open connections finished, and every running handler done. */
export async function closeApp(app: FastifyInstance): Promise<void> {
  await app.close();
  await app.runningHandlers.settled();
}
