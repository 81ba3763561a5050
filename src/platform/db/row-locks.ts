import { Prisma } from "../../generated/prisma/client.js";
import { NotFoundError } from "../errors.js";

/** Tables whose rows a company's writes lock by id. A fixed list: the name is written into the SQL. */
export type CompanyRowTable =
  | "agreements"
  | "discounts"
  | "enrollment_packs"
  | "media"
  | "playlists"
  | "shipping_methods"
  | "subscription_orders"
  | "subscription_plans";

/**
 * `NO KEY UPDATE` is the lock an UPDATE of the row's other columns takes: writers of the row take
 * turns, while rows that refer to it (carts, playlists) are written without waiting. `UPDATE` also
 * holds off those referring rows' key checks, for a delete or a change that counts them.
 */
export type RowLockStrength = "UPDATE" | "NO KEY UPDATE";

/**
 * Locks one of the company's rows for the rest of the transaction, or throws a 404 with
 * `notFoundMessage` when the company has no such row (another company's included). Concurrent
 * writers of the row take turns here, each reading what the one before it left.
 */
export async function lockCompanyRow(
  tx: Prisma.TransactionClient,
  row: { table: CompanyRowTable; companyId: number; id: number },
  strength: RowLockStrength,
  notFoundMessage: string,
): Promise<void> {
  const locked = await tx.$queryRaw<unknown[]>(
    Prisma.sql`SELECT id FROM ${Prisma.raw(row.table)} WHERE id = ${row.id} AND company_id = ${row.companyId} FOR ${Prisma.raw(strength)}`,
  );
  if (locked.length === 0) throw new NotFoundError(notFoundMessage);
}
