import { Prisma } from "../../generated/prisma/client.js";

// Cart state read with plain SQL comes back as JSON text (to_jsonb of whole rows, relations
// nested). Parsing it gives the shapes Prisma would return once timestamps and decimals are
// turned back into Date and Decimal.

/** Parses JSON text of rows; members named `*_at` (the timestamp columns) become Dates. */
export function parseRowJson<T>(text: string): T {
  // A walk after parsing: a JSON.parse reviver (called back for every value) cost 5% of a cart
  // mutation's CPU.
  return revivingTimestamps(JSON.parse(text)) as T;
}

function revivingTimestamps(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (const element of value) revivingTimestamps(element);
  } else if (value !== null && typeof value === "object") {
    const row = value as Record<string, unknown>;
    for (const key in row) {
      const member = row[key];
      if (typeof member === "string") {
        if (key.endsWith("_at")) row[key] = new Date(member);
      } else if (member !== null && typeof member === "object") {
        revivingTimestamps(member);
      }
    }
  }
  return value;
}

/** A numeric column read through JSON: exact for the 14 significant digits of Decimal(14, 4). */
export function decimalOf(value: Prisma.Decimal | number | string): Prisma.Decimal {
  return new Prisma.Decimal(value);
}

/** A nullable numeric column read through JSON. */
export function nullableDecimalOf(value: Prisma.Decimal | number | string | null): Prisma.Decimal | null {
  return value === null ? null : new Prisma.Decimal(value);
}
