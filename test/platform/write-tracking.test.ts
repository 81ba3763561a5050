import { describe, expect, inject, it } from "vitest";
import { CheckoutPool } from "../../src/platform/db/checkout-pool.js";
import { sqlPoolFor } from "../../src/platform/db/database.js";
import { recordingWrites, WriteRecord } from "../../src/platform/db/write-tracking.js";
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
    const releasing = new WriteRecord();
    const writing = new WriteRecord();
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

// Found by a review: a write PostgreSQL answered with an error (a statement_timeout's or a lock
// timeout's cancellation, a constraint violation) counted as one that may have committed, so a
// 503 database_busy kept its Idempotency-Key as 409 idempotency_key_answer_lost, and the retry
// the 503 asks for could never run, though nothing was saved.
describe.skipIf(!inject("databaseServer"))("recordingWrites and the server's answer", () => {
  /** Whether `send`, run on a connection of its own, was recorded as a write that may have committed. */
  const recorded = async (send: (client: { query(text: string): Promise<unknown> }, pool: CheckoutPool) => Promise<unknown>) => {
    const pool = new CheckoutPool({ connectionString: testDb.url as string, max: 2 });
    const record = new WriteRecord();
    try {
      const client = await pool.connect();
      await recordingWrites(record, async () => {
        await send(client, pool).catch(() => undefined);
      });
      client.release(true);
    } finally {
      await pool.end();
    }
    return record.mayHaveWritten;
  };

  it("does not count a statement outside a transaction that PostgreSQL refused, through pool.query and a checked-out client", async () => {
    expect(await recorded((_, pool) => pool.query("INSERT INTO companies (id) VALUES (NULL)"))).toBe(false);
    const cancelled = async (client: { query(text: string): Promise<unknown> }) => {
      await client.query("SET statement_timeout = 50");
      await client.query("INSERT INTO companies (name, shop_domain) SELECT 'Slow', 'slow.example.com' FROM pg_sleep(0.5)");
    };
    expect(await recorded(cancelled)).toBe(false);
    expect(await recorded((_, pool) => pool.query("UPDATE companies SET name = name WHERE false"))).toBe(true);
  });

  it("does not count a COMMIT that PostgreSQL refused, and counts one it accepted", async () => {
    const committing = (rows: string) => async (client: { query(text: string): Promise<unknown> }) => {
      await client.query("BEGIN");
      await client.query("CREATE TEMP TABLE deferred (id int UNIQUE DEFERRABLE INITIALLY DEFERRED)");
      await client.query(`INSERT INTO deferred VALUES ${rows}`);
      await client.query("COMMIT");
    };
    expect(await recorded(committing("(1), (1)"))).toBe(false);
    expect(await recorded(committing("(1)"))).toBe(true);
  });
});

describe.skipIf(!inject("databaseServer"))("recordingWrites and a transaction a failed statement aborted", () => {
  it("does not count the COMMIT PostgreSQL answered with ROLLBACK, in the app's pipelined transactions", async () => {
    const pool = new CheckoutPool({ connectionString: testDb.url as string, max: 1 });
    const record = new WriteRecord();
    try {
      await recordingWrites(record, async () => {
        await sqlPoolFor(pool)
          .transaction(async (tx) => {
            void tx.query("INSERT INTO companies (id) VALUES (NULL)");
          })
          .catch(() => undefined);
      });
      expect(record.mayHaveWritten).toBe(false);
    } finally {
      await pool.end();
    }
  });
});
