import { describe, expect, it } from "vitest";
import { type TestDatabase, useTestDatabase } from "../helpers/test-database.js";

/**
 * Deleting a row makes PostgreSQL check (or cascade to) every foreign key that references it.
 * Without an index led by the referencing column, that is a sequential scan of the referencing
 * table across all companies, once per deleted row. A foreign key to a table whose rows the
 * application deletes must therefore have such an index.
 *
 * The tables below are never deleted from: reference data, the platform's droplet catalog,
 * and records the application keeps for their history (companies, users and their saved
 * payment methods, roles, labels, contacts; variants and products are hidden, not deleted).
 * A new foreign key to any other table needs its index, or a reason to join this list.
 */
const NEVER_DELETED = new Set(["countries", "currencies", "languages", "droplets", "companies", "users", "payment_methods", "roles", "labels", "contacts", "variants", "products"]);

let testDb: TestDatabase;

useTestDatabase((created) => (testDb = created));

describe("foreign keys", () => {
  it("to tables the application deletes from are backed by an index led by the referencing column", async () => {
    const unindexed = await testDb.database.sql.query<{ referencing: string; column_name: string; referenced: string }>(
      `SELECT c.conrelid::regclass::text AS referencing, a.attname AS column_name, c.confrelid::regclass::text AS referenced
       FROM pg_constraint c
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])
       ORDER BY 1, 2`,
    );
    const needingIndex = unindexed.filter((row) => !NEVER_DELETED.has(row.referenced)).map((row) => `${row.referencing}.${row.column_name} -> ${row.referenced}`);
    expect(needingIndex).toEqual([]);
  });

  it("cover every table the list above names (a renamed table must not slip out of the check)", async () => {
    const tables = await testDb.database.sql.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
    const known = new Set(tables.map((row) => row.table_name));
    expect([...NEVER_DELETED].filter((table) => !known.has(table))).toEqual([]);
  });
});
