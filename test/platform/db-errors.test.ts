import { createServer, type AddressInfo } from "node:net";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import pino from "pino";
import { PrismaClient } from "../../src/generated/prisma/client.js";
import { CheckoutPool } from "../../src/platform/db/checkout-pool.js";
import { openDatabase } from "../../src/platform/db/database.js";
import { isDatabaseBusy, isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation, isWriteConflict } from "../../src/platform/db/errors.js";
import { LOCK_WAITING_TRANSACTION } from "../../src/platform/db/transactions.js";
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

  // Found by an audit of races: PostgreSQL refusing a new connection past a connection limit
  // (53300) was a 503 through plain pg, but through Prisma (P2037 for a model query, P2010 for a
  // raw one, the SQLSTATE in the driver adapter's originalCode) a 500.
  it.skipIf(!inject("databaseServer"))("recognises a new connection refused at the role's connection limit, through plain pg and through Prisma", async () => {
    const role = `${new URL(testDb.url as string).pathname.slice(1)}_limited`;
    await testDb.database.sql.query(`CREATE ROLE "${role}" LOGIN CONNECTION LIMIT 1`);
    await testDb.database.sql.query(`GRANT SELECT ON companies TO "${role}"`);
    const url = new URL(testDb.url as string);
    url.username = role;
    const database = await openDatabase({ url: url.toString(), poolSize: 2, dataDir: ":memory:", logger: pino({ level: "silent" }) });
    const held = await database.sql.connect();
    try {
      const errors = [
        await database.sql.query("SELECT 1").catch((caught: unknown) => caught),
        await database.prisma.company.count().catch((caught: unknown) => caught),
        await database.prisma.$queryRaw`SELECT 1`.catch((caught: unknown) => caught),
      ];
      expect(errors.map((error) => (error as { code?: unknown }).code)).toEqual(["53300", "P2037", "P2010"]);
      for (const error of errors) expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await held.release();
      await database.close();
      await testDb.database.sql.query(`DROP OWNED BY "${role}"`);
      await testDb.database.sql.query(`DROP ROLE "${role}"`);
    }
  });

  // Found by an audit of the public SDK: a database closed to new connections (ALLOW_CONNECTIONS
  // false during maintenance) refuses each session with a FATAL 55000, which was a 500 on every route.
  it.skipIf(!inject("databaseServer"))("recognises a database that is not accepting connections, through plain pg and through Prisma", async () => {
    const closed = `${new URL(testDb.url as string).pathname.slice(1)}_closed`;
    await testDb.database.sql.query(`CREATE DATABASE "${closed}" ALLOW_CONNECTIONS false`);
    const url = new URL(testDb.url as string);
    url.pathname = `/${closed}`;
    const database = await openDatabase({ url: url.toString(), poolSize: 2, dataDir: ":memory:", logger: pino({ level: "silent" }) });
    try {
      const errors = [
        await database.sql.query("SELECT 1").catch((caught: unknown) => caught),
        await database.prisma.company.count().catch((caught: unknown) => caught),
        await database.prisma.$queryRaw`SELECT 1`.catch((caught: unknown) => caught),
      ];
      expect(errors.every((error) => error instanceof Error)).toBe(true);
      for (const error of errors) expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await database.close();
      await testDb.database.sql.query(`DROP DATABASE "${closed}"`);
    }
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

// Found by an audit of races: a raw statement's violation through Prisma (P2010, the SQLSTATE in
// the driver adapter's originalCode) was recognised as neither, and answered 500.
describe("isUniqueViolation and isForeignKeyViolation", () => {
  it("recognise the violations of a Prisma model query, a raw query through Prisma and plain pg, as the drivers report them", async () => {
    const db = testDb.database.prisma;
    const { id } = await db.company.create({ data: { name: "Raw", shop_domain: "raw-errors.example.com" } });
    const label = (companyId: number) => db.$executeRaw`INSERT INTO labels (company_id, name, updated_at) VALUES (${companyId}, 'Same', now())`;
    await label(id);
    const unique = [
      await db.label.create({ data: { company_id: id, name: "same" } }).catch((caught: unknown) => caught),
      await label(id).catch((caught: unknown) => caught),
      await db.$transaction(async (tx) => tx.$queryRawUnsafe("INSERT INTO labels (company_id, name, updated_at) VALUES ($1, 'SAME', now())", id)).catch((caught: unknown) => caught),
      await testDb.database.sql.query("INSERT INTO labels (company_id, name, updated_at) VALUES ($1, 'same', now())", [id]).catch((caught: unknown) => caught),
    ];
    expect(unique.map((error) => (error as { code?: unknown }).code)).toEqual(["P2002", "P2010", "P2010", "23505"]);
    const foreignKey = [
      await db.label.create({ data: { company_id: 2_000_000_000, name: "orphan" } }).catch((caught: unknown) => caught),
      await label(2_000_000_000).catch((caught: unknown) => caught),
      await testDb.database.sql.query("INSERT INTO labels (company_id, name, updated_at) VALUES (2000000000, 'orphan', now())").catch((caught: unknown) => caught),
    ];
    expect(foreignKey.map((error) => (error as { code?: unknown }).code)).toEqual(["P2003", "P2010", "23503"]);
    for (const error of unique) expect([isUniqueViolation(error), isForeignKeyViolation(error)]).toEqual([true, false]);
    for (const error of foreignKey) expect([isUniqueViolation(error), isForeignKeyViolation(error)]).toEqual([false, true]);
    await db.company.delete({ where: { id } });
  });
});

describe("isDatabaseBusy", () => {
  it("recognises Prisma's transaction errors, and not a write conflict", () => {
    expect(isDatabaseBusy(Object.assign(new Error("Transaction API error: A query cannot be executed on an expired transaction."), { code: "P2028", meta: { timeout: 5000 } }))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error("deadlock"), { code: "P2034" }))).toBe(false);
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
    expect(isDatabaseBusy(error)).toBe(true);
  });

  it.skipIf(!inject("databaseServer"))("recognises a transaction that found no connection within its maxWait", async () => {
    const held: SqlConnection[] = [];
    try {
      // The test database's pool holds 10.
      for (let index = 0; index < 10; index++) held.push(await testDb.database.sql.connect());
      const error = await testDb.database.prisma.$transaction(async (tx) => tx.company.findFirst(), { maxWait: 50 }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "P2028" });
      expect(isDatabaseBusy(error)).toBe(true);
    } finally {
      for (const connection of held) await connection.release();
    }
  });

  it("recognises a statement that waited its lock_timeout (SQLSTATE 55P03), from plain pg and as Prisma's driver adapter wraps it", () => {
    const driverAdapterError = { name: "DriverAdapterError", cause: { originalCode: "55P03", originalMessage: "canceling statement due to lock timeout", kind: "postgres", code: "55P03" } };
    expect(isDatabaseBusy(Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" }))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error("Raw query failed. Code: `55P03`"), { code: "P2010", meta: { driverAdapterError } }))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error("Invalid `tx.cart.update()` invocation"), { code: "P2039", meta: { modelName: "Cart", driverAdapterError } }))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error("Raw query failed. Code: `42601`"), { code: "P2010", meta: { driverAdapterError: { cause: { originalCode: "42601", code: "42601" } } } }))).toBe(false);
  });

  // Found by an audit: nothing bounded a wait for a lock held outside the app, and a request
  // waited until the HTTP idle timeout closed its socket.
  it.skipIf(!inject("databaseServer"))("recognises the errors of statements that waited for a lock held elsewhere past the pool's lock_timeout", async () => {
    const database = await openDatabase({ url: testDb.url as string, poolSize: 2, dataDir: ":memory:", logger: pino({ level: "silent" }), lockTimeoutMs: 100 });
    const holder = await testDb.database.sql.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE companies IN EXCLUSIVE MODE");
      const errors = [
        await database.sql.transaction((tx) => tx.query("UPDATE companies SET name = name")).catch((caught: unknown) => caught),
        await database.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT id FROM companies FOR UPDATE`).catch((caught: unknown) => caught),
        await database.prisma.$transaction(async (tx) => tx.company.updateMany({ data: { name: "x" } })).catch((caught: unknown) => caught),
      ];
      expect(errors.map((error) => (error as { code?: unknown }).code)).toEqual(["55P03", "P2010", "P2039"]);
      for (const error of errors) expect(isDatabaseBusy(error)).toBe(true);
    } finally {
      await holder.query("ROLLBACK");
      await holder.release();
      await database.close();
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
    expect(isDatabaseBusy(error)).toBe(false);
  });
});

// Found by audit T: pg-pool's error for a checkout that waited in its queue, every pooled
// connection busy, was taken for the database being down (503 database_unavailable, logged as an
// error), though the server was up and the wait was only longer than the pool allowed.
describe("pg-pool's two connection timeouts, in the app's CheckoutPool", () => {
  it.skipIf(!inject("databaseServer"))("the app's pool lets a checkout wait past 5 s, as long as a lock-waiting transaction's maxWait", async () => {
    const held: SqlConnection[] = [];
    try {
      // The test database's pool holds 10.
      for (let index = 0; index < 10; index++) held.push(await testDb.database.sql.connect());
      const transaction = testDb.database.prisma.$transaction(async (tx) => tx.company.count(), LOCK_WAITING_TRANSACTION);
      const query = testDb.database.sql.query<{ one: number }>("SELECT 1 AS one");
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      for (const connection of held.splice(0)) await connection.release();
      expect(await transaction).toBeTypeOf("number");
      expect(await query).toEqual([{ one: 1 }]);
    } finally {
      for (const connection of held) await connection.release();
    }
  });

  it.skipIf(!inject("databaseServer"))("a checkout that waited in the pool's queue past its time is the database busy, not unavailable, through plain pg and Prisma", async () => {
    const pool = new CheckoutPool({ connectionString: testDb.url as string, max: 1, connectionTimeoutMillis: 50 });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    const held = await pool.connect();
    try {
      const errors = [
        await pool.query("SELECT 1").catch((caught: unknown) => caught),
        await prisma.$queryRaw`SELECT 1`.catch((caught: unknown) => caught),
        await prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`, { maxWait: 5_000 }).catch((caught: unknown) => caught),
      ];
      for (const error of errors) {
        expect(error).toMatchObject({ message: "timeout exceeded when trying to connect" });
        expect(isDatabaseBusy(error)).toBe(true);
        expect(isDatabaseUnavailable(error)).toBe(false);
      }
    } finally {
      held.release();
      await prisma.$disconnect();
      await pool.end();
    }
  });

  it("a server that accepts no connection is the database unavailable, not busy, for the new connections and for the checkouts queued behind them", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `postgresql://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/none`;
    const pool = new CheckoutPool({ connectionString: url, max: 1, connectionTimeoutMillis: 50 });
    const bare = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 50 });
    try {
      const [connecting, queued] = await Promise.all([pool.query("SELECT 1"), pool.query("SELECT 1")].map((query) => query.catch((caught: unknown) => caught)));
      expect(connecting).toMatchObject({ message: "Connection terminated due to connection timeout" });
      expect(queued).toMatchObject({ message: expect.stringMatching(/^Connection terminated due to connection timeout: the server accepted no connection/) });
      for (const error of [connecting, queued]) {
        expect(isDatabaseUnavailable(error)).toBe(true);
        expect(isDatabaseBusy(error)).toBe(false);
      }
      // What a plain pg pool says for the queued checkout, which read as a busy database (a review).
      const [, bareQueued] = await Promise.all([bare.query("SELECT 1"), bare.query("SELECT 1")].map((query) => query.catch((caught: unknown) => caught)));
      expect(bareQueued).toMatchObject({ message: "timeout exceeded when trying to connect" });
    } finally {
      await pool.end();
      await bare.end();
      silent.close();
    }
  });
});
