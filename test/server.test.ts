import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { PRODUCTION_NODE_ARGS } from "../bench/server.js";
import type { SqlConnection } from "../src/platform/db/sql.js";
import { createCompanyWithToken, createPlan } from "./helpers/fixtures.js";
import { httpClient } from "./helpers/http.js";
import { rawClient, sleep } from "./helpers/raw-http.js";
import { startServerProcess } from "./helpers/process.js";
import { addSubscriptionOrder } from "./helpers/subscription-orders.js";
import { serverUrl } from "./helpers/database-server.js";
import { createDatabaseWithoutCreate, createTestDatabase } from "./helpers/test-database.js";

/** The process as `npm start` runs it: configuration, migrations, demo seed, listen, signals. */
const dataDir = mkdtempSync(join(tmpdir(), "svc-commerce-server-test-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Each test starts real server processes (a build of the sources, migrations, a seed): seconds each
// on a quiet machine, and three times that on a loaded one. The limit guards against a hang only.
describe("server process", { timeout: 60_000 }, () => {
  it("on an embedded database: migrates, seeds a demo company once, prints its token, serves, and stops cleanly", async () => {
    const env = { DATABASE_URL: "", DATA_DIR: dataDir, NODE_ENV: "development" };
    const first = await startServerProcess(env);
    const token = (await first.waitForOutput(/Its API token, shown only this once:\s+(sct_\w+)[\s\S]*API reference/))[1] as string;
    // PORT=0 took a port of its own: the banner names it (an audit found localhost:0 there).
    const port = new URL(first.url).port;
    expect(first.output()).toContain(`curl -H "Authorization: Bearer ${token}" http://localhost:${port}/api/products`);
    expect(first.output()).toContain(`API reference: http://localhost:${port}/docs`);
    const call = httpClient(first.url);
    expect((await call("GET", "/ready")).status).toBe(200);
    // The banner's second line lists the droplets a company can install, by the uuids an installation names.
    expect(first.output()).toContain(`curl -H "Authorization: Bearer ${token}" http://localhost:${port}/api/droplets`);
    const listed = await call("GET", "/api/droplets", { token });
    expect(listed.status).toBe(200);
    expect(listed.body.droplets.map((droplet: { name: string }) => droplet.name)).toEqual(expect.arrayContaining(["Analytics", "Mailer"]));
    expect(await first.stop("SIGTERM")).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    // The token went to the person at the terminal, never into a log line.
    const logLines = first.output().split("\n").filter((line) => line.startsWith("{"));
    expect(logLines.some((line) => line.includes(token))).toBe(false);

    const second = await startServerProcess(env);
    expect(second.output()).not.toContain("shown only this once");
    await second.waitForOutput(/Lost the demo company's API token\? Stop the server and run: npm run --silent cli -- tokens:create --company 1/);
    expect(second.output()).toContain(`API reference: http://localhost:${new URL(second.url).port}/docs`);
    expect((await httpClient(second.url)("GET", "/api/droplet_installations", { token })).status).toBe(200);
    expect(await second.stop("SIGINT")).toBe(0);
  }, 90_000);

  it.skipIf(!inject("databaseServer"))("on a PostgreSQL server from DATABASE_URL, without the demo seed in production", async () => {
    const testDb = await createTestDatabase({ migrated: false });
    try {
      const server = await startServerProcess({
        DATABASE_URL: testDb.url as string,
        NODE_ENV: "production",
        JWT_SECRET: "j".repeat(32),
        PUBLIC_BASE_URL: "http://127.0.0.1",
      });
      expect(server.output()).toContain("migrations applied");
      expect(server.output()).not.toContain("shown only this once");
      expect((await httpClient(server.url)("GET", "/ready")).body).toEqual({ status: "ready" });
      expect(await server.stop()).toBe(0);
      expect(await testDb.database.prisma.company.count()).toBe(0);
    } finally {
      await testDb.destroy();
    }
  });

  // Found by an audit: the banner said to stop the server, which only the embedded database needs.
  it.skipIf(!inject("databaseServer"))("on a PostgreSQL server with the demo seed: the next start's banner names the CLI to run beside the running server", async () => {
    const testDb = await createTestDatabase({ migrated: false });
    try {
      const env = { DATABASE_URL: testDb.url as string, NODE_ENV: "development" };
      const first = await startServerProcess(env);
      await first.waitForOutput(/Its API token, shown only this once/);
      expect(await first.stop()).toBe(0);
      const companyId = (await testDb.database.prisma.company.findFirstOrThrow()).id;
      const second = await startServerProcess(env);
      await second.waitForOutput(new RegExp(`Lost the demo company's API token\\? Run: npm run --silent cli -- tokens:create --company ${companyId}\n`));
      expect(second.output()).not.toContain("Stop the server");
      expect(await second.stop()).toBe(0);
    } finally {
      await testDb.destroy();
    }
  });

  it.skipIf(!inject("databaseServer"))("finishes the plan repricings a stopped process left unfinished", async () => {
    const testDb = await createTestDatabase();
    try {
      const db = testDb.database.prisma;
      const company = await createCompanyWithToken(db, "Acme");
      const plan = await createPlan(db, company.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
      const orderId = await addSubscriptionOrder(db, company.id, plan.id, "active");
      expect(await db.subscriptionOrder.findUniqueOrThrow({ where: { id: orderId } })).toMatchObject({ total: 900 });
      // What a plan update commits before its repricing's batches.
      await db.subscriptionPlan.update({ where: { id: plan.id }, data: { price_adjustment_amount: "50", pricing_revision: 1 } });
      const server = await startServerProcess({ DATABASE_URL: testDb.url as string, NODE_ENV: "production", JWT_SECRET: "j".repeat(32), PUBLIC_BASE_URL: "http://127.0.0.1" });
      await server.waitForOutput(new RegExp(`"plan_ids":\\[${plan.id}\\],"msg":"unfinished plan repricings finished"`), 15_000);
      expect(await server.stop()).toBe(0);
      expect(await db.subscriptionOrder.findUniqueOrThrow({ where: { id: orderId } })).toMatchObject({ total: 500, plan_pricing_revision: 1 });
      expect(await db.subscriptionPlan.findUniqueOrThrow({ where: { id: plan.id } })).toMatchObject({ orders_repriced_revision: 1 });
    } finally {
      await testDb.destroy();
    }
  });

  // Found by a review: the catch-up was stopped only once the requests had drained, so it started
  // batches (up to 500 order locks each) against them for as long as they took.
  it.skipIf(!inject("databaseServer"))("stops the repricing catch-up before it drains the requests in flight, and exits once both are done", async () => {
    const testDb = await createTestDatabase();
    const holders: SqlConnection[] = [];
    const holdRow = async (statement: string, id: number) => {
      const holder = await testDb.database.sql.connect();
      holders.push(holder);
      await holder.query("BEGIN");
      await holder.query(statement, [id]);
      return holder;
    };
    const lockWaiters = async () =>
      (await testDb.database.sql.query<{ waiting: number }>("SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0]?.waiting;
    try {
      const db = testDb.database.prisma;
      const company = await createCompanyWithToken(db, "Acme");
      // Two plans whose repricing a stopped process left unfinished, caught up in id order.
      const plans = [await createPlan(db, company.id, { adjustmentType: "percentage", adjustmentAmount: "10" }), await createPlan(db, company.id, { adjustmentType: "percentage", adjustmentAmount: "10" })];
      const [heldOrder, nextOrder] = [await addSubscriptionOrder(db, company.id, plans[0]!.id, "active"), await addSubscriptionOrder(db, company.id, plans[1]!.id, "active")];
      for (const plan of plans) await db.subscriptionPlan.update({ where: { id: plan.id }, data: { price_adjustment_amount: "50", pricing_revision: 1 } });
      const busyPlan = await createPlan(db, company.id);
      // Changes of other requests hold the first plan's order, where the catch-up waits, and a plan a request will update.
      const orderHolder = await holdRow("SELECT id FROM subscription_orders WHERE id = $1 FOR UPDATE", heldOrder);
      const planHolder = await holdRow("SELECT id FROM subscription_plans WHERE id = $1 FOR UPDATE", busyPlan.id);
      const server = await startServerProcess({ DATABASE_URL: testDb.url as string, NODE_ENV: "production", JWT_SECRET: "j".repeat(32), PUBLIC_BASE_URL: "http://127.0.0.1" });
      await expect.poll(lockWaiters, { timeout: 15_000 }).toBe(1);
      const inFlight = httpClient(server.url)("PUT", `/api/subscription_plans/${busyPlan.id}`, { token: company.token, body: { subscription_plan: { name: "Renamed" } } });
      await expect.poll(lockWaiters, { timeout: 15_000 }).toBe(2);

      const exited = server.stop("SIGTERM");
      await server.waitForOutput(/shutting down/);
      await orderHolder.query("COMMIT");
      // The batch it was in commits, and it starts no other while the request is still in flight.
      await server.waitForOutput(/"msg":"plan repricing catch-up stopped for the shutdown, the next start goes on"/, 15_000);
      await planHolder.query("COMMIT");
      expect((await inFlight).status).toBe(200);
      expect(await exited).toBe(0);
      expect(await db.subscriptionOrder.findUniqueOrThrow({ where: { id: heldOrder } })).toMatchObject({ total: 500, plan_pricing_revision: 1 });
      expect(await db.subscriptionOrder.findUniqueOrThrow({ where: { id: nextOrder } })).toMatchObject({ total: 900, plan_pricing_revision: 0 });
    } finally {
      for (const holder of holders) {
        await holder.query("ROLLBACK");
        await holder.release();
      }
      await testDb.destroy();
    }
  });

  // Found by an audit: a second Ctrl-C did nothing, and a stalled request held the shutdown for the whole grace period.
  it("exits at once with code 1 on a second signal while waiting for a stalled request", async () => {
    const server = await startServerProcess({ DATABASE_URL: "", DATA_DIR: mkdtempSync(join(dataDir, "second-signal-")), NODE_ENV: "development", SEED_DEMO: "false", SHUTDOWN_GRACE_MS: "60000" });
    const stalled = await rawClient(Number(new URL(server.url).port));
    try {
      // Headers sent, the body never: the request stays in flight until its 30 s request timeout.
      stalled.socket.write("POST /api/carts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
      await sleep(200);
      const exited = server.stop("SIGTERM");
      await server.waitForOutput(/shutting down/);
      await sleep(500);
      expect(server.child.exitCode).toBeNull();
      const secondAt = Date.now();
      server.child.kill("SIGINT");
      expect(await exited).toBe(1);
      expect(Date.now() - secondAt).toBeLessThan(5_000);
      expect(server.output()).toMatch(/"signal":"SIGINT","msg":"second signal while shutting down: exiting now, without waiting for requests still open"/);
      expect(server.output()).not.toContain('"msg":"stopped"');
    } finally {
      stalled.socket.destroy();
    }
  });

  it("on a port in use: says so in one line naming HOST and PORT, before seeding, and frees the embedded database; the next start shows the token", async () => {
    const ownDataDir = mkdtempSync(join(tmpdir(), "svc-commerce-server-test-"));
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    try {
      const env = { DATABASE_URL: "", DATA_DIR: ownDataDir, NODE_ENV: "development" };
      const port = (busy.address() as AddressInfo).port;
      const refused = await startServerProcess({ ...env, PORT: String(port) }).then(
        () => "listened",
        (error: Error) => error.message,
      );
      const stderrLines = refused.split("\n").filter((line) => line !== "" && !line.startsWith("{") && !line.startsWith("server exited"));
      expect(stderrLines).toEqual([`Cannot listen on HOST=127.0.0.1 PORT=${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`]);
      expect(refused).not.toContain("demo company seeded");
      expect(existsSync(join(ownDataDir, "pglite.pid"))).toBe(false);

      const next = await startServerProcess(env);
      await next.waitForOutput(/Its API token, shown only this once:\s+sct_\w+/);
      expect(await next.stop()).toBe(0);
    } finally {
      busy.close();
      rmSync(ownDataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it("names DATABASE_URL, without its password, in one line when the database cannot be used", async () => {
    const refused = await startServerProcess({ DATABASE_URL: "postgresql://svc:s3cret-pw@127.0.0.1:1/svc_commerce", NODE_ENV: "development" }).then(
      () => "listened",
      (error: Error) => error.message,
    );
    const output = refused.split("\n").filter((line) => line !== "" && !line.startsWith("server exited"));
    expect(output).toEqual(["Cannot use the database at DATABASE_URL (postgresql://127.0.0.1:1/svc_commerce): connect ECONNREFUSED 127.0.0.1:1"]);
  });

  it("names DATA_DIR in one line, without a stack, when the embedded database cannot be created there", async () => {
    const notADirectory = join(dataDir, "a-file");
    writeFileSync(notADirectory, "");
    const refused = await startServerProcess({ DATABASE_URL: "", DATA_DIR: notADirectory, NODE_ENV: "development" }).then(
      () => "listened",
      (error: Error) => error.message,
    );
    const output = refused.split("\n").filter((line) => line !== "" && !line.startsWith("server exited"));
    expect(output).toEqual([`Cannot open the embedded database in DATA_DIR (${notADirectory}): ENOTDIR: not a directory, mkdir '${join(notADirectory, "pglite")}'`]);
  });

  // Found by an audit: these failures stopped the start with "fatal:" and a stack.
  it.skipIf(!inject("databaseServer"))("says in one line, without a stack, when the database refuses TLS or the role may not create the migrations table", async () => {
    const refusedBy = async (databaseUrl: string) => {
      const refused = await startServerProcess({ DATABASE_URL: databaseUrl, NODE_ENV: "development" }).then(
        () => "listened",
        (error: Error) => error.message,
      );
      expect(refused).not.toMatch(/fatal:|^\s+at /m);
      expect(refused).not.toContain("s3cret-pw");
      return refused.split("\n").filter((line) => line !== "" && !line.startsWith("{") && !line.startsWith("server exited"));
    };
    const withoutSsl = new URL(serverUrl());
    withoutSsl.password = "s3cret-pw";
    withoutSsl.searchParams.set("sslmode", "require");
    // pg warns first, in several lines, that its "require" means "verify-full".
    expect((await refusedBy(withoutSsl.toString())).at(-1)).toBe(
      `Cannot use the database at DATABASE_URL (postgresql://${withoutSsl.host}${withoutSsl.pathname}): The server does not support SSL connections`,
    );
    const restricted = await createDatabaseWithoutCreate();
    try {
      expect(await refusedBy(restricted.url)).toEqual(["Cannot apply the migrations: permission denied for schema public (SQLSTATE 42501)"]);
    } finally {
      await restricted.destroy();
    }
  });

  it("refuses to start in production without DATABASE_URL, naming it", async () => {
    await expect(startServerProcess({ NODE_ENV: "production", DATABASE_URL: "" })).rejects.toThrow(/DATABASE_URL: is required in production/);
  });
});

describe("node arguments in production", () => {
  it("are the same for npm start, the container and the benchmark", () => {
    const root = join(import.meta.dirname, "..");
    const startScript = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, "Dockerfile"), "utf8"))?.[1];
    expect(startScript).toBe(["node", ...PRODUCTION_NODE_ARGS, "dist/src/server.js"].join(" "));
    expect(JSON.parse(cmd ?? "null")).toEqual(["node", ...PRODUCTION_NODE_ARGS, "dist/src/server.js"]);
  });
});

describe("docker-compose.yml", () => {
  // Its JWT_SECRET is in the repository: whoever reaches the app can sign any rep's or customer's
  // token. Docker publishes a bare "3000:3000" on every interface (past the host's firewall).
  it("publishes the app, which runs with secrets anyone can read, on the host's loopback only", () => {
    const compose = readFileSync(join(import.meta.dirname, "..", "docker-compose.yml"), "utf8");
    const published = [...compose.matchAll(/^\s+- "([^"]*:\d+)"$/gm)].map((match) => match[1]);
    expect(published).toEqual(["127.0.0.1:3000:3000"]);
  });
});
