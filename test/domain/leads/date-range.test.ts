import { describe, expect, it } from "vitest";
import { createdRange } from "../../../src/domain/leads/date-range.js";

describe("createdRange", () => {
  it("reads a bare date as the start of that UTC day for from, and the whole day for to", () => {
    expect(createdRange("2025-06-01", "2025-06-30")).toEqual({ gte: new Date("2025-06-01T00:00:00Z"), lt: new Date("2025-07-01T00:00:00Z") });
  });

  it("uses date-times as given, and leaves out an open end", () => {
    expect(createdRange("2025-06-01T10:00:00+02:00", undefined)).toEqual({ gte: new Date("2025-06-01T08:00:00Z") });
    expect(createdRange(undefined, "2025-06-01T10:00:00Z")).toEqual({ lt: new Date("2025-06-01T10:00:00Z") });
  });
});
