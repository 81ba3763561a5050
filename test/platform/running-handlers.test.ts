import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { closeApp } from "../../src/platform/http/running-handlers.js";
import { parseRawResponses, rawClient, sleep, waitUntil } from "../helpers/raw-http.js";
import { createTestDatabase } from "../helpers/test-database.js";
import { startTestApp } from "../helpers/test-app.js";

/** Sends a request and hangs up as soon as it is on the wire, without waiting for the answer. */
function hangUpAfterSending(url: string): Promise<void> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { method: "GET" });
    request.on("error", () => {});
    request.end(() => {
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 50);
    });
  });
}

describe("closing the app", () => {
  it("waits for handlers whose clients hung up, so the database is closed only after their queries", async () => {
    const testDb = await createTestDatabase();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const finished: Array<{ rows: number } | { error: string }> = [];
    const t = await startTestApp({
      database: testDb.database,
      configure: (app) => {
        app.get("/slow", async () => {
          started.push("slow");
          await gate;
          try {
            finished.push({ rows: (await app.db.sql.query("SELECT pg_sleep(0.05), 1 AS one")).length });
          } catch (error) {
            finished.push({ error: (error as Error).message });
          }
          return { done: true };
        });
      },
    });
    try {
      await hangUpAfterSending(`${t.url}/slow`);
      await expect.poll(() => started.length).toBe(1);
      expect(t.app.runningHandlers.count).toBe(1);

      let closed = false;
      const closing = closeApp(t.app).then(() => (closed = true));
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The connection is gone, so Fastify alone would have finished closing by now.
      expect(closed).toBe(false);
      release();
      await closing;
      expect(finished).toEqual([{ rows: 1 }]);
      expect(t.app.runningHandlers.count).toBe(0);
    } finally {
      release();
      await testDb.destroy();
    }
  });

  // A connection whose request was still arriving when the close began is not idle: Node keeps it
  // and Fastify answered the request with its own 503 body, no Retry-After, request id or headers.
  it("answers a request that finished arriving after the close began with the documented 503 and Retry-After", async () => {
    const t = await startTestApp();
    const client = await rawClient(Number(new URL(t.url).port));
    try {
      client.socket.write("GET /api/carts/ct_0123456789abcdefghijAB HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      await sleep(100);
      const closing = t.close();
      await sleep(100);
      client.socket.write("Origin: https://shop.example.com\r\n\r\n");
      await waitUntil(() => client.closedAt() !== null, 3_000);
      await closing;
      const [response] = parseRawResponses(client.received());
      expect(response?.status).toBe(503);
      expect(response?.headers["retry-after"]).toBeDefined();
      expect(response?.headers["x-request-id"]).toBeDefined();
      expect(response?.headers["x-content-type-options"]).toBe("nosniff");
      expect(response?.headers["access-control-allow-origin"]).toBe("https://shop.example.com");
      expect(JSON.parse(response?.body ?? "null")).toMatchObject({ error_code: "shutting_down", errors: null, meta: { request_id: response?.headers["x-request-id"] } });
    } finally {
      client.socket.destroy();
    }
  });
});
