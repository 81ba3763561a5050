import { Prisma } from "../../generated/prisma/client.js";

/**
 * A timestamptz(3) column as ISO 8601 in UTC with milliseconds, as Date.toISOString() writes it,
 * for rows that PostgreSQL builds as JSON (which would otherwise carry the session's offset).
 */
export function isoTimestampSql(column: string): Prisma.Sql {
  return Prisma.sql`to_char(${Prisma.raw(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
