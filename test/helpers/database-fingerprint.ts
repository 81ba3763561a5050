import type { SqlPool } from "../../src/platform/db/sql.js";

/**
 * One value per table, in one query: equal fingerprints mean no row was inserted, changed or
 * deleted anywhere. A table's value is its row count and the newest row version's transaction
 * id (`xmin`): an insert or delete moves the count, an update writes a row version with a newer
 * xmin. That needs no scan of the rows' contents, which the bad-input suite takes after each of
 * its thousands of requests. Tables with columns a request may touch without a write of its own
 * (a token's last_used_at) hash their rows without those columns instead. Left out entirely:
 * bookkeeping tables (migrations, stored idempotent responses). The statement is prepared: planned
 * on every call, its one subquery per table cost the bad-input suite about 4 ms per request.
 */
const IGNORED_TABLES = new Set(["_prisma_migrations", "idempotency_keys"]);
const IGNORED_COLUMNS = ["last_used_at"];

export type DatabaseFingerprint = Record<string, string>;

async function tablesOf(sql: SqlPool): Promise<string[]> {
  return (
    await sql.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    )
  )
    .map((row) => row.table_name)
    .filter((name) => !IGNORED_TABLES.has(name));
}

const drop = IGNORED_COLUMNS.map((column) => ` - '${column}'`).join("");

export async function fingerprintQuery(sql: SqlPool): Promise<() => Promise<DatabaseFingerprint>> {
  const tables = await tablesOf(sql);
  const withIgnoredColumns = new Set(
    (await sql.query<{ table_name: string }>("SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = ANY($1)", [IGNORED_COLUMNS])).map(
      (row) => row.table_name,
    ),
  );
  const valueOf = (table: string) =>
    withIgnoredColumns.has(table)
      ? `(SELECT md5(coalesce(string_agg(r, ',' ORDER BY r), '')) FROM (SELECT (to_jsonb(t)${drop})::text AS r FROM "${table}" t) rows)`
      : `(SELECT count(*)::text || ':' || coalesce(max(xmin::text::bigint), 0)::text FROM "${table}")`;
  const text = `SELECT ${tables.map((table) => `${valueOf(table)} AS "${table}"`).join(", ")}`;
  return async () => (await sql.query<DatabaseFingerprint>(text, [], "test.fingerprint"))[0] as DatabaseFingerprint;
}

/** The tables whose content differs between two fingerprints. */
export function changedTables(before: DatabaseFingerprint, after: DatabaseFingerprint): string[] {
  return Object.keys(after).filter((table) => before[table] !== after[table]);
}

/** Every row of every table as a hash, with the company that owns it (null: no `company_id` column). */
export type RowSnapshot = { table: string; company_id: number | null; hash: string }[];

export async function rowSnapshotQuery(sql: SqlPool): Promise<() => Promise<RowSnapshot>> {
  const tables = await tablesOf(sql);
  const owned = new Set(
    (await sql.query<{ table_name: string }>("SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'company_id'")).map(
      (row) => row.table_name,
    ),
  );
  const text = tables
    .map((table) => `SELECT '${table}' AS "table", ${owned.has(table) ? "t.company_id" : "NULL::int"} AS company_id, md5((to_jsonb(t)${drop})::text) AS hash FROM "${table}" t`)
    .join(" UNION ALL ");
  return () => sql.query(text);
}

/**
 * The tables where a request acting for `companyId` touched what is not its own: a row of
 * another company, or a row without a company, changed or disappeared; or a row of another
 * company appeared. Rows it adds without a company (its own rows' children) are its own.
 */
export function rowsTouchedBeyond(companyId: number, before: RowSnapshot, after: RowSnapshot): string[] {
  const key = (row: RowSnapshot[number]) => `${row.table}\u0000${row.hash}`;
  const notOwn = (row: RowSnapshot[number]) => row.company_id !== companyId;
  const beforeKeys = new Set(before.map(key));
  const afterKeys = new Set(after.map(key));
  const touched = [
    ...before.filter((row) => notOwn(row) && !afterKeys.has(key(row))),
    ...after.filter((row) => row.company_id !== null && notOwn(row) && !beforeKeys.has(key(row))),
  ];
  return [...new Set(touched.map((row) => row.table))].sort();
}
