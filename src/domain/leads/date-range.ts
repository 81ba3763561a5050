const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const BELOW_A_MILLISECOND = /\.\d{3}(\d+)/;

/**
 * The instant of an ISO 8601 date-time, rounded up to the next whole millisecond when it has a
 * finer fraction. created_at holds milliseconds (timestamptz(3)) and Date drops the finer digits,
 * so 09.3315 read as 09.331 excluded a lead of 09.331 from `to` (exclusive), and 09.331999 as
 * 09.331 kept it in `from` (inclusive); rounded up, both bounds compare exactly.
 */
function millisecondCeiling(dateTime: string): Date {
  const instant = new Date(dateTime);
  const finer = BELOW_A_MILLISECOND.exec(dateTime)?.[1] ?? "";
  return /[1-9]/.test(finer) ? new Date(instant.getTime() + 1) : instant;
}

/**
 * `from` (inclusive) and `to` (exclusive) of a list filter. A bare date as `to` includes that
 * whole day, because "leads up to 2025-06-30" means the 30th too.
 */
export function createdRange(from: string | undefined, to: string | undefined): { gte?: Date; lt?: Date } {
  const range: { gte?: Date; lt?: Date } = {};
  if (from !== undefined) range.gte = DATE_ONLY.test(from) ? new Date(`${from}T00:00:00Z`) : millisecondCeiling(from);
  if (to !== undefined) range.lt = DATE_ONLY.test(to) ? new Date(new Date(`${to}T00:00:00Z`).getTime() + DAY_MS) : millisecondCeiling(to);
  return range;
}
