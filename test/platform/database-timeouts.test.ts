import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Database, openDatabase } from "../../src/platform/db/database.js";
import { type CompanyFixture, createCompanyWithToken } from "../helpers/fixtures.js";
import { type Call, httpClient } from "../helpers/http.js";
import { sleep, waitUntil } from "../helpers/raw-http.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

// Short bounds, so that the test waits seconds where production waits 20 and 25.
const STATEMENT_TIMEOUT_MS = 1_000;
const QUERY_TIMEOUT_MS = 1_500;

// The app reaches its database through a TCP proxy the test can make go silent: packets dropped,
// no reset, as a pulled cable or a firewall does. An audit found such a request waiting for the
// operating system to give the socket up, many minutes, with no client-side bound at all.
describe.skipIf(!inject("databaseServer"))("statements the database does not answer in time", () => {
  let testDb: TestDatabase;
  let proxy: TcpProxy;
  let proxied: Database;
  let t: TestApp;
  let call: Call;
  let acme: CompanyFixture;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const direct = new URL(testDb.url as string);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    proxied = await openDatabase({
      url: viaProxy.toString(),
      poolSize: 2,
      dataDir: ":memory:",
      logger: pino({ level: "silent" }),
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
    });
    t = await startTestApp({ database: proxied });
    call = httpClient(t.url);
    acme = await createCompanyWithToken(proxied.prisma);
  });
  afterAll(async () => {
    await t?.close();
    await proxied?.close();
    await proxy?.close();
    await testDb?.destroy();
  });

  /** Holds the agreement's row lock in a session of the test's own, straight to the server. */
  async function holdAgreementLock(id: number): Promise<pg.Client> {
    const holder = new pg.Client({ connectionString: testDb.url as string });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM agreements WHERE id = $1 FOR UPDATE", [id]);
    return holder;
  }

  async function createAgreement(title: string): Promise<number> {
    const created = await call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title, description: "D" } } });
    expect(created.status).toBe(201);
    return created.body.agreement.id;
  }

  it("a statement that runs past the statement timeout is cancelled by the server: 503 database_busy, the connection kept", async () => {
    const id = await createAgreement("Busy");
    const holder = await holdAgreementLock(id);
    try {
      const openedBefore = proxy.opened();
      const started = Date.now();
      const update = await call("PUT", `/api/agreements/${id}`, { token: acme.token, body: { agreement: { title: "Changed" } } });
      expect(Date.now() - started).toBeLessThan(QUERY_TIMEOUT_MS + 1_000);
      expect(update.status).toBe(503);
      expect(update.headers["retry-after"]).toBe("5");
      expect(update.body.error_code).toBe("database_busy");
      expect(Object.keys(update.body).sort()).toEqual(["error_code", "error_message", "errors", "meta"]);
      expect(proxy.closedByClient()).toBe(0);
      // The next request reuses the pool's connections: none was given up.
      expect((await call("GET", `/api/agreements/${id}`, { token: acme.token })).status).toBe(200);
      expect(proxy.opened()).toBe(openedBefore);
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
  });

  it("a request whose database goes silent mid-statement answers 503 database_unavailable within the query timeout, and its connection is given up", async () => {
    const id = await createAgreement("Silent");
    const holder = await holdAgreementLock(id);
    try {
      const started = Date.now();
      // The update takes its pooled connection and waits on the server for the row lock ...
      const pending = call("PUT", `/api/agreements/${id}`, { token: acme.token, body: { agreement: { title: "Changed" } } });
      await sleep(300);
      // ... when the network goes silent: the statement timeout's cancellation never arrives.
      proxy.silence();
      const update = await pending;
      expect(Date.now() - started).toBeLessThan(QUERY_TIMEOUT_MS + 2_000);
      expect(update.status).toBe(503);
      expect(update.headers["retry-after"]).toBe("5");
      expect(update.body.error_code).toBe("database_unavailable");
      expect(update.body.error_message).toBe("Database unavailable, retry shortly");
      expect(Object.keys(update.body).sort()).toEqual(["error_code", "error_message", "errors", "meta"]);
      // The app closed the silent connection rather than keep it or give it back to the pool.
      expect(await waitUntil(() => proxy.closedByClient() >= 1, 2_000)).toBe(true);
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    // Once the network is back, the pool serves from fresh connections.
    proxy.resume();
    const read = await call("GET", `/api/agreements/${id}`, { token: acme.token });
    expect(read.status).toBe(200);
    expect(read.body.agreement.title).toBe("Silent");
  });

  it("a request on pooled connections whose network went silent while they were idle answers 503 database_unavailable, on the plain-pg path too", async () => {
    const id = await createAgreement("Idle");
    const closedBefore = proxy.closedByClient();
    // The pool keeps the connections this request used, idle, when the network goes silent.
    proxy.silence();
    const started = Date.now();
    // The company token's lookup is plain pg (one statement on the pool).
    const read = await call("GET", `/api/agreements/${id}`, { token: acme.token });
    expect(Date.now() - started).toBeLessThan(QUERY_TIMEOUT_MS + 2_000);
    expect(read.status).toBe(503);
    expect(read.headers["retry-after"]).toBe("5");
    expect(read.body.error_code).toBe("database_unavailable");
    expect(await waitUntil(() => proxy.closedByClient() > closedBefore, 2_000)).toBe(true);
    proxy.resume();
    expect((await call("GET", `/api/agreements/${id}`, { token: acme.token })).status).toBe(200);
  });
});
