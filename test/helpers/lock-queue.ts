import { expect, vi } from "vitest";
import type { Database } from "../../src/platform/db/database.js";
import type { RowQueue } from "../../src/platform/db/row-queue.js";
import type { SqlConnection } from "../../src/platform/db/sql.js";
import { TEST_POOL_SIZE } from "./test-database.js";

/** Longer than Prisma's default `maxWait` (2 s) for a transaction's connection. */
const HELD_MS = 2_500;

/** A lock a slow write holds in its transaction: `SELECT pg_advisory_xact_lock(...)`, `SELECT ... FOR SHARE`. */
export interface HeldLock {
  sql: string;
  params: unknown[];
}

/** The company advisory lock `(hashtext(key), companyId)` services take with pg_advisory_xact_lock. */
export const advisoryLock = (key: string, companyId: number): HeldLock => ({ sql: "SELECT pg_advisory_xact_lock(hashtext($1), $2)", params: [key, companyId] });

/** How many sessions of the database `observer` (a connection or a pool) is connected to wait for a lock. */
export async function lockWaiters(observer: Pick<SqlConnection, "query">): Promise<number | undefined> {
  const [row] = await observer.query<{ waiting: number }>("SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  return row?.waiting;
}

/** A slow write's transaction, holding `lock` until `work` lets it commit; `lockWaiters` counts the database's sessions waiting for a lock. */
async function whileHeld<T>(db: Database, lock: HeldLock, work: (lockWaiters: () => Promise<number | undefined>, commit: () => Promise<void>) => Promise<T>): Promise<T> {
  // Both are taken from the app's pool before the requests start.
  const [slowWrite, observer] = [await db.sql.connect(), await db.sql.connect()];
  try {
    await slowWrite.query("BEGIN");
    await slowWrite.query(lock.sql, lock.params);
    return await work(() => lockWaiters(observer), async () => {
      await slowWrite.query("COMMIT");
    });
  } finally {
    await slowWrite.query("ROLLBACK");
    await slowWrite.release();
    await observer.release();
  }
}

/**
 * Runs `burst` while a slow write's transaction holds `lock`, which the burst's transactions wait
 * for: the slow write commits only once every connection left in the app's pool waits for a lock
 * and HELD_MS have passed, so the rest of the burst waits that long for a pooled connection.
 * Needs a PostgreSQL server (the embedded database has one connection).
 */
export async function burstBehindHeldLock<T>(db: Database, lock: HeldLock, burst: () => Promise<T>): Promise<T> {
  return whileHeld(db, lock, async (lockWaiters, commit) => {
    const outcome = burst();
    await expect.poll(lockWaiters, { timeout: 10_000 }).toBe(TEST_POOL_SIZE - 2);
    await new Promise((resolve) => setTimeout(resolve, HELD_MS));
    await commit();
    return await outcome;
  });
}

/**
 * Sends `requests` one at a time into the queue behind a slow write holding `lock`: each starts
 * once every one before it waits for a lock, and the slow write commits once they all wait.
 * PostgreSQL hands a row's lock to its waiters in the order they came, so two requests that wait
 * for the same row take it in the order given; answers their responses in that order. A race
 * of two concurrent requests played in a chosen order, every time. From the third on the order
 * holds only while none before it writes the row: the lock queue is kept per version of the
 * row, so waiters behind a request that updates it race for the new version (a test saw a third
 * and fourth update overtake a delete). Needs a PostgreSQL server.
 */
export async function inTurnBehindHeldLock<T>(db: Database, lock: HeldLock, requests: Array<() => Promise<T>>): Promise<T[]> {
  return whileHeld(db, lock, async (lockWaiters, commit) => {
    const outcomes: Promise<T>[] = [];
    for (const request of requests) {
      outcomes.push(request());
      await expect.poll(lockWaiters, { timeout: 10_000 }).toBe(outcomes.length);
    }
    await commit();
    return await Promise.all(outcomes);
  });
}

/**
 * Sends every request of `burst` at once while a slow write holds `lock`, which they all wait
 * for, and checks that they wait in the app's RowQueue rather than on pooled connections: once
 * all of them have entered the queue, `meanwhile` (a request of another company or shop) must
 * still be answered and none of the burst yet. Then the slow write commits; answers the burst's
 * responses in the order given. Needs a PostgreSQL server.
 */
export async function queuedBehindHeldLock<T>(db: Database, rowQueue: RowQueue, lock: HeldLock, burst: Array<() => Promise<T>>, meanwhile: () => Promise<void>): Promise<T[]> {
  const queued = vi.spyOn(rowQueue, "run");
  try {
    return await whileHeld(db, lock, async (_lockWaiters, commit) => {
      let answered = 0;
      const outcomes = burst.map((request) => request().finally(() => (answered += 1)));
      await expect.poll(() => queued.mock.calls.length, { timeout: 10_000 }).toBe(burst.length);
      await meanwhile();
      expect(answered).toBe(0);
      await commit();
      return await Promise.all(outcomes);
    });
  } finally {
    queued.mockRestore();
  }
}

/**
 * Runs `requests` while a write outside the app's RowQueue (another instance, an operator's
 * session) holds `lock`, which it keeps until they have answered and then commits; answers their
 * responses. Requests that wait for the lock must give up on their own: with no bound they never
 * answer. Needs a PostgreSQL server.
 */
export async function answeredWhileHeld<T>(db: Database, lock: HeldLock, requests: () => Promise<T>): Promise<T> {
  return whileHeld(db, lock, async (_lockWaiters, commit) => {
    const outcome = await requests();
    await commit();
    return outcome;
  });
}
