import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, isUniqueViolation } from "../../src/platform/db/errors.js";

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
