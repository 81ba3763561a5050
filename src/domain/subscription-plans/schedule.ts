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

function addMonthsClamped(date: Date, months: number): Date {
  const monthsSinceYearZero = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(monthsSinceYearZero / 12);
  const monthIndex = monthsSinceYearZero - year * 12;
  // A subscription started on the 31st bills on the last day of shorter months rather than
  // spilling into the next month (which is what Date's own overflow would do).
  const day = Math.min(date.getUTCDate(), daysInMonth(year, monthIndex));
  const result = new Date(date.getTime());
  // setUTCFullYear, unlike Date.UTC, does not reinterpret years 0..99 as 1900..1999.
  result.setUTCFullYear(year, monthIndex, day);
  return result;
}

/**
 * date + count units, in UTC, time of day preserved. Days and weeks are exact 24-hour days;
 * months and years keep the day of month, clamped to the target month's last day
 * (Jan 31 + 1 month = Feb 28, or Feb 29 in a leap year; Feb 29 + 1 year = Feb 28).
 */
export function addInterval(date: Date, count: number, unit: IntervalUnit): Date {
  assertValidDate(date);
  if (!Number.isSafeInteger(count)) throw new RangeError(`interval count must be an integer, got ${count}`);
  switch (unit) {
    case "day":
      return new Date(date.getTime() + count * MS_PER_DAY);
    case "week":
      return new Date(date.getTime() + count * 7 * MS_PER_DAY);
    case "month":
      return addMonthsClamped(date, count);
    case "year":
      return addMonthsClamped(date, count * 12);
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
