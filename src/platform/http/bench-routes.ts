import { Session } from "node:inspector/promises";
import { performance } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import type { FastifyInstance } from "fastify";

/**
 * Reference routes for `npm run bench`, registered only when BENCH_ROUTES is true (refused in
 * production unless BENCH_ROUTES_IN_PRODUCTION, which only the bench's server sets): the framework's ceiling (a constant), the database round trip's ceiling (a
 * primary-key read with plain pg) and the write ceiling (a single-row INSERT with plain pg).
 * Every scenario is reported as a ratio to one of these, measured in the same run.
 */
export async function benchRoutes(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };
  const constant = { status: "ok", items: [1, 2, 3] };

  app.get("/__bench/constant", hide, async () => constant);

  app.get<{ Params: { id: string } }>("/__bench/pk-read/:id", hide, async (request) => {
    const rows = await app.db.sql.query("SELECT id, name, shop_domain FROM companies WHERE id = $1", [Number(request.params.id)]);
    return rows[0] ?? {};
  });

  // The bench runner creates bench_writes in its own database before starting the server.
  app.post("/__bench/insert", hide, async (request) => {
    const rows = await app.db.sql.query<{ id: string }>("INSERT INTO bench_writes (payload) VALUES ($1) RETURNING id", [JSON.stringify(request.body ?? {})]);
    return { id: Number(rows[0]?.id) };
  });

  app.get("/__bench/stats", hide, async () => ({ elu: performance.eventLoopUtilization(), memory: process.memoryUsage(), heapSpaces: getHeapSpaceStatistics() }));

  // A CPU profile of one scenario's measured round (BENCH_PROFILE_DIR), not of the whole run.
  const inspector = new Session();
  inspector.connect();
  app.addHook("onClose", async () => inspector.disconnect());
  app.post("/__bench/profile/start", hide, async () => {
    await inspector.post("Profiler.enable");
    await inspector.post("Profiler.start");
    return { profiling: true };
  });
  app.post("/__bench/profile/stop", hide, async () => {
    const { profile } = await inspector.post("Profiler.stop");
    await inspector.post("Profiler.disable");
    return profile;
  });
}
