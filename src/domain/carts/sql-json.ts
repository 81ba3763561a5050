import { Prisma } from "../../generated/prisma/client.js";

// Cart state read with plain SQL comes back as JSON text (to_jsonb of whole rows, relations
// nested). Parsing it gives the shapes Prisma would return once timestamps and decimals are
// turned back into Date and Decimal.

/** Parses JSON text of rows; members named `*_at` (the timestamp columns) become Dates. */
export function parseRowJson<T>(text: string): T {
  return JSON.parse(text, (key, value) => (typeof value === "string" && key.endsWith("_at") ? new Date(value) : value)) as T;
}

/** A numeric column read through JSON: exact for the 14 significant digits of Decimal(14, 4). */
export function decimalOf(value: Prisma.Decimal | number | string): Prisma.Decimal {
  return new Prisma.Decimal(value);
}

/** A nullable numeric column read through JSON. */
export function nullableDecimalOf(value: Prisma.Decimal | number | string | null): Prisma.Decimal | null {
  return value === null ? null : new Prisma.Decimal(value);
}
