import type { SqlPool } from "../../src/platform/db/sql.js";

/**
 * One hash per table over its whole content, in one query: equal fingerprints mean no row was
 * inserted, changed or deleted anywhere. Left out: bookkeeping that a request may touch without
 * being a write of its own (migrations, stored idempotent responses, a token's last_used_at).
 */
const IGNORED_TABLES = new Set(["_prisma_migrations", "idempotency_keys"]);
const IGNORED_COLUMNS = ["last_used_at"];

export type DatabaseFingerprint = Record<string, string>;

export async function fingerprintQuery(sql: SqlPool): Promise<() => Promise<DatabaseFingerprint>> {
  const tables = (
    await sql.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    )
  )
    .map((row) => row.table_name)
    .filter((name) => !IGNORED_TABLES.has(name));
  const drop = IGNORED_COLUMNS.map((column) => ` - '${column}'`).join("");
  const text = `SELECT ${tables
    .map((table) => `(SELECT md5(coalesce(string_agg(r, ',' ORDER BY r), '')) FROM (SELECT (to_jsonb(t)${drop})::text AS r FROM "${table}" t) rows) AS "${table}"`)
    .join(", ")}`;
  return async () => (await sql.query<DatabaseFingerprint>(text))[0] as DatabaseFingerprint;
}

/** The tables whose content differs between two fingerprints. */
export function changedTables(before: DatabaseFingerprint, after: DatabaseFingerprint): string[] {
  return Object.keys(after).filter((table) => before[table] !== after[table]);
}
