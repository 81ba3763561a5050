import { readFileSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/platform/paths.js";

/** Just enough of a schema.prisma reader for tests that compare the schema with the database. */
export interface SchemaColumn {
  field: string;
  column: string;
  type: string;
  nullable: boolean;
  list: boolean;
  nativeType: string | null;
}

export interface SchemaModel {
  name: string;
  table: string;
  columns: SchemaColumn[];
}

const SCALARS = new Set(["Int", "BigInt", "String", "Boolean", "DateTime", "Decimal", "Float", "Json", "Bytes"]);

export function readSchemaModels(path = join(projectRoot, "prisma", "schema.prisma")): SchemaModel[] {
  const text = readFileSync(path, "utf8");
  const models: SchemaModel[] = [];
  for (const match of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const [, name, body] = match as unknown as [string, string, string];
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? name;
    const columns: SchemaColumn[] = [];
    for (const rawLine of body.split("\n")) {
      const line = rawLine.replace(/\/\/.*$/, "").trim();
      const field = /^(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!field || line.startsWith("@@")) continue;
      const [, fieldName, type, list, optional, attributes] = field as unknown as [string, string, string, string | undefined, string | undefined, string];
      if (!SCALARS.has(type)) continue;
      columns.push({
        field: fieldName,
        column: /@map\("([^"]+)"\)/.exec(attributes)?.[1] ?? fieldName,
        type,
        nullable: optional === "?",
        list: list === "[]",
        nativeType: /@db\.(\w+)/.exec(attributes)?.[1] ?? null,
      });
    }
    models.push({ name, table, columns });
  }
  return models;
}

/** The PostgreSQL `udt_name` a Prisma scalar maps to (arrays are `_` + the element's). */
export function expectedUdt(column: SchemaColumn): string {
  const native: Record<string, string> = { Date: "date", Uuid: "uuid", Char: "bpchar", VarChar: "varchar", Timestamptz: "timestamptz", Decimal: "numeric", Text: "text", Json: "json", JsonB: "jsonb" };
  const base: Record<string, string> = {
    Int: "int4",
    BigInt: "int8",
    String: "text",
    Boolean: "bool",
    DateTime: "timestamp",
    Decimal: "numeric",
    Float: "float8",
    Json: "jsonb",
    Bytes: "bytea",
  };
  const element = (column.nativeType && native[column.nativeType]) ?? base[column.type] ?? column.type;
  return column.list ? `_${element}` : element;
}
