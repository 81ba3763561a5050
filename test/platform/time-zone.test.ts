import { describe, expect, it } from "vitest";
import { timeZone } from "../../src/platform/http/schemas.js";

describe("timeZone", () => {
  it("takes an IANA time zone name, the longest too, in any letter case, and keeps it as sent", () => {
    for (const name of ["UTC", "Europe/Berlin", "America/Argentina/ComodRivadavia", "Etc/GMT+10", "utc", "america/new_york", "Asia/Kolkata", "EST5EDT"]) {
      expect(timeZone.parse(name), name).toBe(name);
    }
  });

  it("refuses what names no time zone, and a name longer than any IANA one before asking Intl", () => {
    for (const value of ["Mars/Base", "", "Europe/", "UTC+25"]) {
      expect(timeZone.safeParse(value).error?.issues.map((issue) => issue.message), value).toEqual(["is not an IANA time zone"]);
    }
    const long = timeZone.safeParse(`Europe/${"x".repeat(58)}`).error?.issues;
    expect(long?.map((issue) => issue.code)).toEqual(["too_big"]);
  });
});
