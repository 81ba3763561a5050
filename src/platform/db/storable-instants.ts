// The instants PostgreSQL and its driver round-trip: ISO 8601 (and zod) allow year 0000, which
// PostgreSQL has not, and an instant in year 10000 or later is either refused by the driver or
// stored and then read back as an Invalid Date.
const FIRST_STORABLE_INSTANT = Date.parse("0001-01-01T00:00:00Z");
const FIRST_UNSTORABLE_INSTANT = Date.parse("+010000-01-01T00:00:00Z");

/** True when `instant` falls in the years 0001 to 9999 in UTC. */
export function isStorableDate(instant: Date): boolean {
  const time = instant.getTime();
  return time >= FIRST_STORABLE_INSTANT && time < FIRST_UNSTORABLE_INSTANT;
}
