/**
 * Database outage under load. Our own PostgreSQL, the production build on it, steady writes
 * (droplet installation creates, one droplet each, so every write is told apart) and reads;
 * PostgreSQL stops for 10 s, then starts again. Checked:
 * - during the outage every request is a 503 with Retry-After and the error body, /ready too;
 * - within 5 s after PostgreSQL is back every request succeeds, with the same server process;
 * - afterwards the database holds exactly the writes that got a 2xx, and none that got an error.
 */
import pg from "pg";
import { Agent, request } from "undici";
import { startOwnPostgres } from "./lib/postgres.js";
import { prepareLoadTarget } from "./lib/load-target.js";
import { productionEnv, startServer } from "./lib/server.js";
import { sleep, Verdict } from "./lib/verdict.js";

const WARM_UP_MS = 3_000;
const OUTAGE_MS = 10_000;
const AFTER_MS = 8_000;
const RECOVERY_BUDGET_MS = 5_000;
const WRITERS = 4;
const READERS = 2;
const PAUSE_MS = 25;
const DROPLETS = 6_000;

interface Outcome {
  kind: "write" | "read" | "ready";
  startedAt: number;
  endedAt: number;
  status: number | null;
  retryAfter: string | undefined;
  errorCode: string | undefined;
  dropletUuid?: string;
  transportError?: string;
}

const verdict = new Verdict("database outage");
const postgres = await startOwnPostgres();
let server: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  const env = productionEnv(postgres.url);
  const { token, droplets } = await prepareLoadTarget(env, postgres.url, { name: "Outage Co", shop: "outage.example.com" }, DROPLETS);

  server = await startServer(env);
  const baseUrl = server.url;
  const agent = new Agent({ connections: WRITERS + READERS + 2, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const outcomes: Outcome[] = [];

  async function send(kind: Outcome["kind"], method: "GET" | "POST", path: string, body?: unknown, dropletUuid?: string): Promise<void> {
    const startedAt = Date.now();
    try {
      const response = await request(`${baseUrl}${path}`, {
        dispatcher: agent,
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.body.text();
      let errorCode: string | undefined;
      if (response.statusCode >= 400) errorCode = (JSON.parse(text) as { error_code?: string }).error_code;
      const retryAfter = response.headers["retry-after"];
      outcomes.push({ kind, startedAt, endedAt: Date.now(), status: response.statusCode, retryAfter: typeof retryAfter === "string" ? retryAfter : undefined, errorCode, ...(dropletUuid ? { dropletUuid } : {}) });
    } catch (error) {
      outcomes.push({ kind, startedAt, endedAt: Date.now(), status: null, retryAfter: undefined, errorCode: undefined, transportError: (error as Error).message, ...(dropletUuid ? { dropletUuid } : {}) });
    }
  }

  let running = true;
  let nextDroplet = 0;
  const loops = [
    ...Array.from({ length: WRITERS }, async () => {
      while (running && nextDroplet < droplets.length) {
        const dropletUuid = droplets[nextDroplet++] as string;
        await send("write", "POST", "/api/droplet_installations", { droplet_uuid: dropletUuid }, dropletUuid);
        await sleep(PAUSE_MS);
      }
    }),
    ...Array.from({ length: READERS }, async () => {
      while (running) {
        await send("read", "GET", "/api/droplet_installations?per_page=5");
        await sleep(PAUSE_MS);
      }
    }),
    (async () => {
      while (running) {
        await send("ready", "GET", "/ready");
        await sleep(200);
      }
    })(),
  ];

  await sleep(WARM_UP_MS);
  const stopAskedAt = Date.now();
  await postgres.stop();
  const downAt = Date.now();
  verdict.note(`PostgreSQL stopped (${downAt - stopAskedAt} ms)`);
  await sleep(OUTAGE_MS);
  const startAskedAt = Date.now();
  await postgres.start();
  const upAt = Date.now();
  verdict.note(`PostgreSQL started again (${upAt - startAskedAt} ms)`);
  await sleep(AFTER_MS);
  running = false;
  await Promise.all(loops);
  await agent.close();

  const ok = (outcome: Outcome) => outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const before = outcomes.filter((o) => o.endedAt < stopAskedAt);
  const during = outcomes.filter((o) => o.startedAt > downAt && o.endedAt < startAskedAt);
  const recovered = outcomes.filter((o) => o.startedAt >= upAt + RECOVERY_BUDGET_MS);
  verdict.note(`${outcomes.length} requests: ${before.length} before, ${during.length} during, ${recovered.length} after the recovery budget`);

  verdict.check(outcomes.every((o) => o.status !== null), "no request failed at the transport level (the server stayed up)", outcomes.find((o) => o.status === null));
  verdict.check(before.length > 50 && before.every(ok), "before the outage every request succeeds", before.find((o) => !ok(o)));
  for (const kind of ["write", "read", "ready"] as const) {
    const ofKind = during.filter((o) => o.kind === kind);
    const bad = ofKind.find((o) => o.status !== 503 || !o.retryAfter || o.errorCode !== "database_unavailable");
    verdict.check(ofKind.length > 0 && bad === undefined, `during the outage every ${kind} is a 503 database_unavailable with Retry-After (${ofKind.length})`, bad);
  }
  const unexpected = outcomes.find((o) => !ok(o) && o.status !== 503);
  verdict.check(unexpected === undefined, "no answer other than success or 503 at any time", unexpected);
  if (unexpected) verdict.note(server.output().split("\n").filter((line) => line.includes('"level":50')).slice(0, 3).join("\n"));
  const firstSuccessAfterUp = outcomes.filter((o) => o.startedAt >= upAt && ok(o)).sort((a, b) => a.endedAt - b.endedAt)[0];
  if (firstSuccessAfterUp) verdict.note(`first success ${firstSuccessAfterUp.endedAt - upAt} ms after PostgreSQL was back`);
  for (const kind of ["write", "read", "ready"] as const) {
    const ofKind = recovered.filter((o) => o.kind === kind);
    verdict.check(ofKind.length > 0 && ofKind.every(ok), `within ${RECOVERY_BUDGET_MS / 1000} s of the database's return every ${kind} succeeds (${ofKind.length})`, ofKind.find((o) => !ok(o)));
  }
  verdict.check(server.child.exitCode === null && server.child.pid === server.pid, "the same server process served throughout (no restart)");

  const check = new pg.Client({ connectionString: postgres.url });
  await check.connect();
  const stored = new Set(
    (await check.query<{ uuid: string }>("SELECT d.uuid::text AS uuid FROM droplet_installations i JOIN droplets d ON d.id = i.droplet_id")).rows.map((row) => row.uuid),
  );
  await check.end();
  const writes = outcomes.filter((o) => o.kind === "write");
  const succeeded = writes.filter(ok).map((o) => o.dropletUuid as string);
  const failed = writes.filter((o) => !ok(o)).map((o) => o.dropletUuid as string);
  verdict.note(`${writes.length} writes: ${succeeded.length} succeeded, ${failed.length} refused; ${stored.size} installations stored`);
  const lost = succeeded.filter((uuid) => !stored.has(uuid));
  const phantom = failed.filter((uuid) => stored.has(uuid));
  verdict.check(lost.length === 0, "every write that got a 2xx is in the database", lost.slice(0, 5));
  verdict.check(phantom.length === 0, "no write that got an error is in the database", phantom.slice(0, 5));
  verdict.check(stored.size === succeeded.length, "nothing else was written");

  server.child.kill("SIGTERM");
  const exit = await server.exited;
  verdict.check(exit.code === 0, "the server still stops cleanly afterwards (exit 0)", exit);
} catch (error) {
  verdict.check(false, `the scenario ran to its end: ${(error as Error).stack ?? error}`);
} finally {
  if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
  await postgres.destroy();
}
verdict.finish();
