import { describe, expect, it } from "vitest";
import { instantInput, isStorableInstant } from "../../src/platform/http/schemas.js";

describe("isStorableInstant", () => {
  it("takes dates and date-times of the years 0001 to 9999 in UTC", () => {
    for (const value of ["0001-01-01", "0001-01-01T00:00:00Z", "9999-12-31", "9999-12-31T23:59:59.999Z", "2025-06-01T10:00:00+02:00"]) {
      expect(isStorableInstant(value), value).toBe(true);
    }
  });

  it("refuses year 0000 and what an offset pushes beyond either end", () => {
    for (const value of ["0000-02-29", "0000-12-31T23:59:59Z", "0001-01-01T00:30:00+01:00", "9999-12-31T23:00:00-01:00"]) {
      expect(isStorableInstant(value), value).toBe(false);
    }
  });
});

describe("instantInput", () => {
  it("is an ISO 8601 date-time with Z or an offset, within the storable years", () => {
    expect(instantInput.safeParse("2025-06-01T10:00:00+02:00").success).toBe(true);
    expect(instantInput.safeParse("2025-06-01").success).toBe(false);
    expect(instantInput.safeParse("0000-06-01T00:00:00Z").error?.issues[0]?.message).toBe("must be in the years 0001 to 9999 (UTC)");
  });

  // Found by audit T: a malformed value got the years' message after its format's.
  it("has one message for a value that is not a date-time, its format's", () => {
    for (const value of ["2026-13-01T00:00:00Z", "yesterday", "10000-01-01T00:00:00Z"]) {
      expect(instantInput.safeParse(value).error?.issues.map((issue) => issue.message), value).toEqual(["Invalid ISO datetime"]);
    }
  });
});
