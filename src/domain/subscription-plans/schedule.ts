// Billing-schedule arithmetic, all in UTC so that a schedule does not drift with the server's
// time zone or daylight-saving changes.

export type IntervalUnit = "day" | "week" | "month" | "year";

const MS_PER_DAY = 86_400_000;

// Day 0 of the following month is the last day of this one; Date applies the Gregorian leap
// rules (2000 leap, 2100 not).
function daysInMonth(year: number, monthIndex: number): number {
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, monthIndex + 1, 0);
  return lastDay.getUTCDate();
}

function assertValidDate(date: Date): void {
  if (Number.isNaN(date.getTime())) throw new RangeError("invalid date");
}

function addMonthsOnDay(date: Date, months: number, anchorDay: number): Date {
  const monthsSinceYearZero = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(monthsSinceYearZero / 12);
  const monthIndex = monthsSinceYearZero - year * 12;
  // A subscription billed on the 31st bills on the last day of shorter months rather than
  // spilling into the next month (which is what Date's own overflow would do).
  const day = Math.min(anchorDay, daysInMonth(year, monthIndex));
  const result = new Date(date.getTime());
  // setUTCFullYear, unlike Date.UTC, does not reinterpret years 0..99 as 1900..1999.
  result.setUTCFullYear(year, monthIndex, day);
  return result;
}

/**
 * date + count units, in UTC, time of day preserved. Days and weeks are exact 24-hour days;
 * months and years land on `anchorDay` (by default date's own day of month), or on the target
 * month's last day when it is shorter: Jan 31 + 1 month = Feb 28 (Feb 29 in a leap year), and
 * Feb 28 + 1 month anchored on the 31st = Mar 31, so a schedule that remembers its anchor day
 * (Stripe's billing_cycle_anchor) does not drift to the 28th after one February. Feb 29 + 1
 * year = Feb 28; anchored on the 29th, Feb 28 + 1 year is Feb 29 in a leap year.
 */
export function addInterval(date: Date, count: number, unit: IntervalUnit, anchorDay = date.getUTCDate()): Date {
  assertValidDate(date);
  if (!Number.isSafeInteger(count)) throw new RangeError(`interval count must be an integer, got ${count}`);
  if (!Number.isInteger(anchorDay) || anchorDay < 1 || anchorDay > 31) throw new RangeError(`anchor day must be a day of a month (1 to 31), got ${anchorDay}`);
  switch (unit) {
    case "day":
      return new Date(date.getTime() + count * MS_PER_DAY);
    case "week":
      return new Date(date.getTime() + count * 7 * MS_PER_DAY);
    case "month":
      return addMonthsOnDay(date, count, anchorDay);
    case "year":
      return addMonthsOnDay(date, count * 12, anchorDay);
  }
}

/** "Every month", "Every 2 weeks". */
export function billingFrequencyInWords(interval: number, unit: IntervalUnit): string {
  if (!Number.isSafeInteger(interval) || interval < 1) {
    throw new RangeError(`interval must be a positive integer, got ${interval}`);
  }
  return interval === 1 ? `Every ${unit}` : `Every ${interval} ${unit}s`;
}

/** Whole calendar days from now's UTC date to target's UTC date; negative when target is past. */
export function daysUntil(target: Date, now: Date): number {
  assertValidDate(target);
  assertValidDate(now);
  return Math.floor(target.getTime() / MS_PER_DAY) - Math.floor(now.getTime() / MS_PER_DAY);
}

// Intl's answer costs about 12 µs (formatToParts), paid by every read of a subscribed cart
// (cartReader), so each zone keeps its formatter and its last answer with the quarter hour of UTC
// that answer holds for: every offset a zone uses today is a whole number of quarter hours, so a
// zone's midnight, and its day's change, falls on a quarter hour of UTC. Keyed by the name in lower
// case, as Intl reads it: the valid names bound the map, whatever letter case they are sent in.
const QUARTER_HOUR_MS = 900_000;
const zoneDays = new Map<string, { formatter: Intl.DateTimeFormat; quarterHour: number; day: Date }>();

/**
 * The calendar day `instant` falls on in `timeZone` (an IANA name Intl knows), as midnight UTC of
 * that day: what the UTC arithmetic above counts from for someone living in that zone. At 23:30
 * UTC on March 10 it is March 11 in Auckland and March 10 in Los Angeles.
 */
export function calendarDayIn(timeZone: string, instant: Date): Date {
  assertValidDate(instant);
  const key = timeZone.toLowerCase();
  let zone = zoneDays.get(key);
  if (zone === undefined) {
    const formatter = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric", day: "numeric", calendar: "gregory", numberingSystem: "latn" });
    zone = { formatter, quarterHour: Number.NaN, day: new Date(Number.NaN) };
    zoneDays.set(key, zone);
  }
  const quarterHour = Math.floor(instant.getTime() / QUARTER_HOUR_MS);
  if (quarterHour !== zone.quarterHour) {
    const parts = zone.formatter.formatToParts(instant);
    const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((candidate) => candidate.type === type)?.value);
    const day = new Date(0);
    day.setUTCFullYear(part("year"), part("month") - 1, part("day"));
    Object.assign(zone, { quarterHour, day });
  }
  return new Date(zone.day.getTime());
}
