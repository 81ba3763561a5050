import { describe, expect, inject, it } from "vitest";
import { isDatabaseUnavailable, isTransactionTimeout, isUniqueViolation, isWriteConflict } from "../../src/platform/db/errors.js";
import type { SqlConnection } from "../../src/platform/db/sql.js";
import { type TestDatabase, useTestDatabase } from "../helpers/test-database.js";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

/** The shapes the drivers really produce (seen in the database-outage fault script). */
describe("isDatabaseUnavailable", () => {
  it("recognises a session terminated by a server shutdown, as Prisma's driver adapter reports it", () => {
    const prismaError = Object.assign(new Error("Invalid `prisma.dropletInstallation.count()` invocation"), {
      code: "P2039",
      meta: { driverAdapterError: { name: "DriverAdapterError", cause: { originalCode: "57P01", kind: "postgres", code: "57P01" } } },
    });
    expect(isDatabaseUnavailable(prismaError)).toBe(true);
  });

  it("recognises refused connections through the cause chain, and not ordinary failures", () => {
    expect(isDatabaseUnavailable(new Error("wrapped", { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("syntax"), { code: "42601" }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error("x"), { code: "P2039", meta: { driverAdapterError: { cause: { code: "42P01" } } } }))).toBe(false);
  });

  it("survives a cause cycle", () => {
    const error = new Error("loop") as Error & { cause?: unknown };
    error.cause = error;
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(isUniqueViolation(Object.assign(new Error("dup"), { meta: { driverAdapterError: { cause: { code: "23505" } } } }))).toBe(true);
  });
});

describe("isWriteConflict", () => {
  it("recognises a deadlock or serialization failure from a Prisma model query, a raw query and plain pg", () => {
    const driverAdapterError = (originalCode: string) => ({ name: "DriverAdapterError", cause: { originalCode, originalMessage: "deadlock detected", kind: "TransactionWriteConflict" } });
    expect(isWriteConflict(Object.assign(new Error("Invalid `tx.company.update()` invocation"), { code: "P2034", meta: { driverAdapterError: driverAdapterError("40P01") } }))).toBe(true);
    expect(isWriteConflict(Object.assign(new Error("Raw query failed. Code: `40001`"), { code: "P2010", meta: { driverAdapterError: driverAdapterError("40001") } }))).toBe(true);
    expect(isWriteConflict(Object.assign(new Error("deadlock detected"), { code: "40P01" }))).toBe(true);
    expect(isWriteConflict(Object.assign(new Error("dup"), { code: "P2002" }))).toBe(false);
    expect(isWriteConflict(Object.assign(new Error("expired"), { code: "P2028" }))).toBe(false);
  });
});

describe("isTransactionTimeout", () => {
  it("recognises Prisma's transaction errors, and not a write conflict", () => {
    expect(isTransactionTimeout(Object.assign(new Error("Transaction API error: A query cannot be executed on an expired transaction."), { code: "P2028", meta: { timeout: 5000 } }))).toBe(true);
    expect(isTransactionTimeout(Object.assign(new Error("deadlock"), { code: "P2034" }))).toBe(false);
  });

  it("recognises a transaction still at work when its timeout ended", async () => {
    const error = await testDb.database.prisma
      .$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_sleep(0.2)`;
          await tx.company.findFirst();
        },
        { timeout: 50 },
      )
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "P2028" });
    expect(isTransactionTimeout(error)).toBe(true);
  });

  it.skipIf(!inject("databaseServer"))("recognises a transaction that found no connection within its maxWait", async () => {
    const held: SqlConnection[] = [];
    try {
      // The test database's pool holds 10.
      for (let index = 0; index < 10; index++) held.push(await testDb.database.sql.connect());
      const error = await testDb.database.prisma.$transaction(async (tx) => tx.company.findFirst(), { maxWait: 50 }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "P2028" });
      expect(isTransactionTimeout(error)).toBe(true);
    } finally {
      for (const connection of held) await connection.release();
    }
  });

  // Found by a review: a transaction client used after its transaction returned (an await
  // forgotten in the callback) is a P2028 too, and was answered 503 "retry shortly" for a bug.
  it("does not take Prisma's other transaction errors for one: a transaction used after it committed is a bug", async () => {
    let leaked: { company: { findFirst(): Promise<unknown> } } | undefined;
    await testDb.database.prisma.$transaction(async (tx) => {
      leaked = tx;
    });
    const error = await leaked?.company.findFirst().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "P2028", message: expect.stringContaining("Transaction already closed") });
    expect(isTransactionTimeout(error)).toBe(false);
  });
});
