const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `from` (inclusive) and `to` (exclusive) of a list filter. A bare date as `to` includes that
 * whole day, because "leads up to 2025-06-30" means the 30th too.
 */
export function createdRange(from: string | undefined, to: string | undefined): { gte?: Date; lt?: Date } {
  const range: { gte?: Date; lt?: Date } = {};
  if (from !== undefined) range.gte = new Date(DATE_ONLY.test(from) ? `${from}T00:00:00Z` : from);
  if (to !== undefined) range.lt = DATE_ONLY.test(to) ? new Date(new Date(`${to}T00:00:00Z`).getTime() + DAY_MS) : new Date(to);
  return range;
}
