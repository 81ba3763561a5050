import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { closeApp } from "../../src/platform/http/running-handlers.js";
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
});
