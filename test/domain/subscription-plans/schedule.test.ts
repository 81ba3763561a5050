import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addInterval,
  billingFrequencyInWords,
  calendarDayIn,
  daysUntil,
  type IntervalUnit,
} from "../../../src/domain/subscription-plans/schedule.js";

const utc = (iso: string) => new Date(iso);
const timeOfDay = (date: Date) => ((date.getTime() % 86_400_000) + 86_400_000) % 86_400_000;
const plus = (iso: string, count: number, unit: IntervalUnit) => addInterval(utc(iso), count, unit).toISOString();

describe("addInterval by days and weeks", () => {
  it.each<[string, number, IntervalUnit, string]>([
    ["2024-02-28T10:00:00.000Z", 1, "day", "2024-02-29T10:00:00.000Z"],
    ["2023-02-28T10:00:00.000Z", 1, "day", "2023-03-01T10:00:00.000Z"],
    ["2023-12-31T23:59:59.999Z", 1, "day", "2024-01-01T23:59:59.999Z"],
    ["2024-03-10T12:00:00.000Z", 30, "day", "2024-04-09T12:00:00.000Z"],
    ["2024-03-01T00:00:00.000Z", -1, "day", "2024-02-29T00:00:00.000Z"],
    ["2024-02-26T08:30:00.000Z", 1, "week", "2024-03-04T08:30:00.000Z"],
    ["2023-12-25T00:00:00.000Z", 2, "week", "2024-01-08T00:00:00.000Z"],
    ["2024-01-01T00:00:00.000Z", 0, "week", "2024-01-01T00:00:00.000Z"],
  ])("%s + %i %s = %s", (start, count, unit, expected) => {
    expect(plus(start, count, unit)).toBe(expected);
  });
});

describe("addInterval by months", () => {
  it.each<[string, number, string]>([
    ["2023-01-15T09:00:00.000Z", 1, "2023-02-15T09:00:00.000Z"],
    ["2023-01-31T09:00:00.000Z", 1, "2023-02-28T09:00:00.000Z"],
    ["2024-01-31T09:00:00.000Z", 1, "2024-02-29T09:00:00.000Z"],
    ["2100-01-31T00:00:00.000Z", 1, "2100-02-28T00:00:00.000Z"], // 2100 is not a leap year
    ["2000-01-31T00:00:00.000Z", 1, "2000-02-29T00:00:00.000Z"], // 2000 is
    ["2024-03-31T00:00:00.000Z", 1, "2024-04-30T00:00:00.000Z"],
    ["2024-08-31T00:00:00.000Z", 1, "2024-09-30T00:00:00.000Z"],
    ["2024-01-31T00:00:00.000Z", 2, "2024-03-31T00:00:00.000Z"], // clamping does not accumulate
    ["2023-11-30T00:00:00.000Z", 3, "2024-02-29T00:00:00.000Z"],
    ["2023-12-15T18:45:00.000Z", 1, "2024-01-15T18:45:00.000Z"], // across a year end
    ["2023-10-31T00:00:00.000Z", 13, "2024-11-30T00:00:00.000Z"],
    ["2024-03-31T00:00:00.000Z", -1, "2024-02-29T00:00:00.000Z"],
    ["2024-01-31T00:00:00.000Z", -2, "2023-11-30T00:00:00.000Z"],
    ["2024-05-31T00:00:00.000Z", 0, "2024-05-31T00:00:00.000Z"],
  ])("%s + %i months = %s", (start, count, expected) => {
    expect(plus(start, count, "month")).toBe(expected);
  });

  it("preserves the time of day to the millisecond", () => {
    expect(plus("2024-01-31T13:45:30.123Z", 1, "month")).toBe("2024-02-29T13:45:30.123Z");
  });

  it("always lands on the same day of month or the target month's last day", () => {
    const instants = fc.date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2400-01-01T00:00:00Z"), noInvalidDate: true });
    fc.assert(
      fc.property(instants, fc.integer({ min: -240, max: 240 }), (start, months) => {
        const result = addInterval(start, months, "month");
        const monthsMoved =
          (result.getUTCFullYear() - start.getUTCFullYear()) * 12 + result.getUTCMonth() - start.getUTCMonth();
        expect(monthsMoved).toBe(months);
        const lastDayOfTargetMonth = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
        expect(result.getUTCDate()).toBe(Math.min(start.getUTCDate(), lastDayOfTargetMonth));
        expect(timeOfDay(result)).toBe(timeOfDay(start));
      }),
      { numRuns: 500 },
    );
  });
});

describe("addInterval by years", () => {
  it.each<[string, number, string]>([
    ["2024-02-29T00:00:00.000Z", 1, "2025-02-28T00:00:00.000Z"],
    ["2024-02-29T00:00:00.000Z", 4, "2028-02-29T00:00:00.000Z"],
    ["2096-02-29T00:00:00.000Z", 4, "2100-02-28T00:00:00.000Z"], // 2100 is not a leap year
    ["1996-02-29T00:00:00.000Z", 4, "2000-02-29T00:00:00.000Z"], // 2000 is
    ["2023-06-15T07:00:00.000Z", 1, "2024-06-15T07:00:00.000Z"],
    ["2025-02-28T00:00:00.000Z", -1, "2024-02-28T00:00:00.000Z"],
  ])("%s + %i years = %s", (start, count, expected) => {
    expect(plus(start, count, "year")).toBe(expected);
  });
});

// A schedule keeps its anchor day (Stripe's billing_cycle_anchor): one short month does not move
// every later bill to its last day.
describe("addInterval with an anchor day", () => {
  const anchored = (iso: string, count: number, unit: IntervalUnit, anchorDay: number) => addInterval(utc(iso), count, unit, anchorDay).toISOString().slice(0, 10);

  it.each<[string, number, IntervalUnit, number, string]>([
    ["2026-01-31", 1, "month", 31, "2026-02-28"],
    ["2026-02-28", 1, "month", 31, "2026-03-31"], // back to the anchor after February
    ["2026-03-31", 1, "month", 31, "2026-04-30"],
    ["2026-04-30", 1, "month", 31, "2026-05-31"],
    ["2028-01-31", 1, "month", 31, "2028-02-29"], // a leap year's February
    ["2028-02-29", 1, "month", 31, "2028-03-31"],
    ["2026-02-28", 1, "month", 30, "2026-03-30"],
    ["2026-02-28", 1, "month", 28, "2026-03-28"],
    ["2026-02-28", 3, "month", 31, "2026-05-31"],
    ["2026-04-30", -2, "month", 31, "2026-02-28"],
    ["2026-01-15", 1, "month", 15, "2026-02-15"],
    ["2024-02-29", 1, "year", 29, "2025-02-28"],
    ["2025-02-28", 1, "year", 29, "2026-02-28"],
    ["2027-02-28", 1, "year", 29, "2028-02-29"], // Feb 29 again in the next leap year
    ["2096-02-29", 4, "year", 29, "2100-02-28"], // 2100 is not a leap year
    ["2099-02-28", 1, "year", 29, "2100-02-28"],
    ["2100-02-28", 4, "year", 29, "2104-02-29"],
  ])("%s + %i %s, anchored on day %i = %s", (start, count, unit, anchorDay, expected) => {
    expect(anchored(start, count, unit, anchorDay)).toBe(expected);
  });

  it("preserves the time of day", () => {
    expect(addInterval(utc("2026-02-28T13:45:30.123Z"), 1, "month", 31).toISOString()).toBe("2026-03-31T13:45:30.123Z");
  });

  it("has no say over days and weeks", () => {
    expect(anchored("2026-01-31", 28, "day", 31)).toBe("2026-02-28");
    expect(anchored("2026-02-28", 1, "week", 31)).toBe("2026-03-07");
    expect(anchored("2026-02-28", 2, "week", 1)).toBe("2026-03-14");
  });

  it("lands on the anchor day or the target month's last day, and steps one at a time land where one step of all of them does", () => {
    const daysIn = (year: number, monthIndex: number) => new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
    fc.assert(
      fc.property(
        fc.integer({ min: 1900, max: 2400 }),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom<IntervalUnit>("month", "year"),
        (year, monthIndex, anchorDay, steps, unit) => {
          // A date the schedule could hold: its anchor day, or its month's last day when shorter.
          const start = new Date(Date.UTC(year, monthIndex, Math.min(anchorDay, daysIn(year, monthIndex))));
          let stepped = start;
          for (let step = 0; step < steps; step += 1) stepped = addInterval(stepped, 1, unit, anchorDay);
          const direct = addInterval(start, steps, unit, anchorDay);
          expect(stepped.toISOString()).toBe(direct.toISOString());
          const monthsMoved = (direct.getUTCFullYear() - year) * 12 + direct.getUTCMonth() - monthIndex;
          expect(monthsMoved).toBe(unit === "month" ? steps : steps * 12);
          expect(direct.getUTCDate()).toBe(Math.min(anchorDay, daysIn(direct.getUTCFullYear(), direct.getUTCMonth())));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("rejects an anchor day that no month has", () => {
    for (const anchorDay of [0, 32, 1.5, Number.NaN]) {
      expect(() => addInterval(utc("2026-01-31T00:00:00Z"), 1, "month", anchorDay), String(anchorDay)).toThrow(RangeError);
    }
  });
});

describe("addInterval input handling", () => {
  it("does not change the date it is given", () => {
    const start = utc("2024-01-31T00:00:00.000Z");
    addInterval(start, 1, "month");
    addInterval(start, 1, "day");
    expect(start.toISOString()).toBe("2024-01-31T00:00:00.000Z");
  });

  it("rejects an invalid date or a fractional count", () => {
    expect(() => addInterval(new Date("not a date"), 1, "day")).toThrow(RangeError);
    expect(() => addInterval(utc("2024-01-01T00:00:00Z"), 1.5, "month")).toThrow(RangeError);
    expect(() => addInterval(utc("2024-01-01T00:00:00Z"), Number.NaN, "day")).toThrow(RangeError);
  });
});

describe("billingFrequencyInWords", () => {
  it.each<[number, IntervalUnit, string]>([
    [1, "day", "Every day"],
    [1, "week", "Every week"],
    [1, "month", "Every month"],
    [1, "year", "Every year"],
    [2, "week", "Every 2 weeks"],
    [3, "month", "Every 3 months"],
    [29, "day", "Every 29 days"],
    [2, "year", "Every 2 years"],
  ])("%i %s -> %j", (interval, unit, expected) => {
    expect(billingFrequencyInWords(interval, unit)).toBe(expected);
  });

  it("rejects an interval below 1 or with a fraction", () => {
    expect(() => billingFrequencyInWords(0, "month")).toThrow(RangeError);
    expect(() => billingFrequencyInWords(1.5, "month")).toThrow(RangeError);
  });
});

describe("daysUntil", () => {
  it.each<[string, string, number]>([
    ["2024-03-10T00:00:00Z", "2024-03-10T23:59:59Z", 0], // same calendar day, whatever the hours
    ["2024-03-11T00:01:00Z", "2024-03-10T23:59:00Z", 1], // two minutes apart, one day boundary
    ["2024-03-11T23:59:00Z", "2024-03-10T00:01:00Z", 1], // nearly two days apart, still one boundary
    ["2024-03-01T12:00:00Z", "2024-02-28T12:00:00Z", 2], // across a leap day
    ["2100-03-01T12:00:00Z", "2100-02-28T12:00:00Z", 1], // no leap day in 2100
    ["2025-01-01T00:00:00Z", "2024-01-01T00:00:00Z", 366],
    ["2024-03-05T00:00:00Z", "2024-03-10T18:00:00Z", -5],
    ["1969-12-31T23:00:00Z", "1970-01-01T01:00:00Z", -1], // before the epoch
  ])("target %s, now %s -> %i days", (target, now, expected) => {
    expect(daysUntil(utc(target), utc(now))).toBe(expected);
  });

  it("counts the days addInterval adds", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1950-01-01T00:00:00Z"), max: new Date("2150-01-01T00:00:00Z"), noInvalidDate: true }),
        fc.integer({ min: -1000, max: 1000 }),
        (now, days) => {
          expect(daysUntil(addInterval(now, days, "day"), now)).toBe(days);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("rejects invalid dates", () => {
    expect(() => daysUntil(new Date(Number.NaN), new Date())).toThrow(RangeError);
    expect(() => daysUntil(new Date(), new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe("calendarDayIn", () => {
  const day = (timeZone: string, instant: string) => calendarDayIn(timeZone, new Date(instant)).toISOString();

  it("is the day it is in the zone, as midnight UTC of that day", () => {
    expect(day("Pacific/Auckland", "2026-03-10T23:30:00Z")).toBe("2026-03-11T00:00:00.000Z");
    expect(day("America/Los_Angeles", "2026-03-11T03:00:00Z")).toBe("2026-03-10T00:00:00.000Z");
    expect(day("UTC", "2026-03-11T03:00:00Z")).toBe("2026-03-11T00:00:00.000Z");
    expect(day("utc", "2026-12-31T23:59:59.999Z")).toBe("2026-12-31T00:00:00.000Z");
  });

  it("changes day at the zone's midnight, quarter-hour offsets and daylight saving included, asked in any order", () => {
    // Nepal is UTC+5:45: its midnight is 18:15 UTC.
    expect(day("Asia/Kathmandu", "2026-03-10T18:14:59Z")).toBe("2026-03-10T00:00:00.000Z");
    expect(day("Asia/Kathmandu", "2026-03-10T18:15:00Z")).toBe("2026-03-11T00:00:00.000Z");
    expect(day("Asia/Kathmandu", "2026-03-10T18:14:00Z")).toBe("2026-03-10T00:00:00.000Z");
    // Los Angeles is UTC-8 before March 8, 2026 and UTC-7 after.
    expect(day("America/Los_Angeles", "2026-03-07T07:59:00Z")).toBe("2026-03-06T00:00:00.000Z");
    expect(day("America/Los_Angeles", "2026-03-07T08:00:00Z")).toBe("2026-03-07T00:00:00.000Z");
    expect(day("America/Los_Angeles", "2026-03-10T06:59:00Z")).toBe("2026-03-09T00:00:00.000Z");
    expect(day("America/Los_Angeles", "2026-03-10T07:00:00Z")).toBe("2026-03-10T00:00:00.000Z");
  });

  it("answers a day the caller may change without changing the next answer", () => {
    calendarDayIn("Europe/Berlin", new Date("2026-03-10T12:00:00Z")).setUTCFullYear(1999);
    expect(day("Europe/Berlin", "2026-03-10T12:00:00Z")).toBe("2026-03-10T00:00:00.000Z");
  });
});
