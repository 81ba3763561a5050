import { describe, expect, it } from "vitest";
import { expectedUdt, readSchemaModels } from "../helpers/prisma-schema.js";
import { type TestDatabase, useTestDatabase } from "../helpers/test-database.js";

/**
 * Migrations are written by hand or diffed offline, never by `prisma migrate dev`, so this test
 * is what keeps them honest: the migrated database has exactly the tables and columns (types,
 * nullability) that schema.prisma describes, and Prisma can read every model.
 */
let testDb: TestDatabase;
const models = readSchemaModels();

interface ColumnRow {
  table_name: string;
  column_name: string;
  udt_name: string;
  is_nullable: "YES" | "NO";
}

useTestDatabase((created) => (testDb = created));

describe("migrations applied to an empty database", () => {
  it("create exactly the tables of schema.prisma", async () => {
    const rows = await testDb.database.sql.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'",
    );
    expect(rows.map((row) => row.table_name).sort()).toEqual(models.map((model) => model.table).sort());
  });

  it("create exactly the columns of every model, with their types and nullability", async () => {
    const rows = await testDb.database.sql.query<ColumnRow>(
      "SELECT table_name, column_name, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'",
    );
    for (const model of models) {
      const actual = rows
        .filter((row) => row.table_name === model.table)
        .map((row) => ({ column: row.column_name, udt: row.udt_name, nullable: row.is_nullable === "YES" }))
        .sort((a, b) => a.column.localeCompare(b.column));
      const expected = model.columns
        // PostgreSQL reports array columns as nullable: Prisma has no NOT NULL for lists.
        .map((column) => ({ column: column.column, udt: expectedUdt(column), nullable: column.nullable || column.list }))
        .sort((a, b) => a.column.localeCompare(b.column));
      expect(actual, `table ${model.table}`).toEqual(expected);
    }
  });

  it("let Prisma read every model with every column", async () => {
    const prisma = testDb.database.prisma as unknown as Record<string, { findMany(args: object): Promise<unknown[]> }>;
    for (const model of models) {
      const delegate = prisma[model.name.charAt(0).toLowerCase() + model.name.slice(1)];
      expect(delegate, `delegate for ${model.name}`).toBeDefined();
      await expect(delegate?.findMany({ take: 1 })).resolves.toBeInstanceOf(Array);
    }
  });
});
