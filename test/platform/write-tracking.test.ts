import { describe, expect, inject, it } from "vitest";
import { CheckoutPool } from "../../src/platform/db/checkout-pool.js";
import { recordingWrites, type WriteRecord } from "../../src/platform/db/write-tracking.js";
import { type TestDatabase, useTestDatabase } from "../helpers/test-database.js";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

// Found by a review: pg-pool hands a queued checkout its connection from whatever released one,
// and pool.query (the path of every Prisma statement outside a transaction and of sql.query)
// sends its statement from that callback. So, every connection busy, one request's write was
// recorded as another's: the releasing request's key stayed taken (409 idempotency_key_answer_lost)
// though it changed nothing, and the writing request's key was released though it committed.
describe.skipIf(!inject("databaseServer"))("recordingWrites with every pooled connection busy", () => {
  it("records a queued statement for the work that sent it, not for the work that released the connection", async () => {
    const pool = new CheckoutPool({ connectionString: testDb.url as string, max: 1 });
    const releasing: WriteRecord = { mayHaveWritten: false };
    const writing: WriteRecord = { mayHaveWritten: false };
    try {
      const held = await pool.connect();
      let queued: Promise<unknown> = Promise.resolve();
      const sent = recordingWrites(writing, async () => {
        queued = pool.query("DELETE FROM companies WHERE id = -1");
        await queued;
      });
      await recordingWrites(releasing, async () => {
        await held.query("BEGIN");
        await held.query("SELECT 1");
        await held.query("ROLLBACK");
        held.release();
        await queued;
      });
      await sent;
      expect(releasing.mayHaveWritten).toBe(false);
      expect(writing.mayHaveWritten).toBe(true);
    } finally {
      await pool.end();
    }
  });
});
