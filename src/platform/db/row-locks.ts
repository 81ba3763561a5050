import { Prisma } from "../../generated/prisma/client.js";
import { type AppError, NotFoundError } from "../errors.js";

/** Tables whose rows a company's writes lock by id. A fixed list: the name is written into the SQL. */
type CompanyRowTable =
  | "agreements"
  | "company_countries"
  | "discounts"
  | "enrollment_packs"
  | "media"
  | "metafields"
  | "playlists"
  | "products"
  | "shipping_methods"
  | "subscription_orders"
  | "subscription_plans";

/**
 * One of a company's rows. `live` (a table with `deleted_at`): a soft-deleted row counts as gone,
 * so nothing is written to it.
 */
interface CompanyRow {
  table: CompanyRowTable;
  companyId: number;
  id: number;
  live?: boolean;
}

/**
 * `NO KEY UPDATE` is the lock an UPDATE of the row's other columns takes: writers of the row take
 * turns, while rows that refer to it (carts, playlists) are written without waiting. `UPDATE` also
 * holds off those referring rows' key checks, for a delete or a change that counts them. `SHARE`
 * is a reader's: the row's writers wait for it, other readers holding it do not (copies of one
 * row). `KEY SHARE` is the lock a referring row's key check takes: it holds off only `UPDATE` (a
 * delete, or a change that counts the referring rows), for a transaction that is about to refer
 * to the row.
 */
type RowLockStrength = "UPDATE" | "NO KEY UPDATE" | "SHARE" | "KEY SHARE";

/**
 * Locks one of the company's rows for the rest of the transaction, or throws when the company has
 * no such row (another company's included): a 404 with `notFound` as its message, or `notFound`
 * itself when it is an error (a row the request names as a reference is a 422 on its field).
 * Concurrent writers of the row take turns here, each reading what the one before it left:
 * `columns` are read in the same statement, under the lock, and answered (typed by the caller, as
 * `Read`).
 */
export async function lockCompanyRow<Read extends object = Record<never, never>>(
  tx: Prisma.TransactionClient,
  row: CompanyRow,
  strength: RowLockStrength,
  notFound: string | AppError,
  columns: ReadonlyArray<keyof Read & string> = [],
): Promise<Read> {
  const [locked] = await tx.$queryRaw<Read[]>(
    Prisma.sql`SELECT ${Prisma.raw(["id", ...columns].join(", "))} FROM ${Prisma.raw(row.table)}
      WHERE id = ${row.id} AND company_id = ${row.companyId}${row.live ? Prisma.sql` AND deleted_at IS NULL` : Prisma.empty}
      FOR ${Prisma.raw(strength)}`,
  );
  if (locked === undefined) throw typeof notFound === "string" ? new NotFoundError(notFound) : notFound;
  return locked;
}

/**
 * How long a write may wait in a company's queue (lockCompanyQueue) before it answers 503
 * `database_busy`: longer than the pool's lock_timeout, which bounds a wait for one row. A
 * queue's wait is the sum of every write ahead of it (a burst of 1,000,000-character page creates
 * took 135 ms each under the lock, so forty connections of several instances waited past 5 s),
 * and it still answers within the HTTP idle timeout after the pool's checkout wait.
 */
const COMPANY_QUEUE_LOCK_TIMEOUT = "15s";

/**
 * Takes turns with the company's other writes of `queue` until the transaction ends (a
 * transaction-level advisory lock on the queue's name and the company id). The transaction's
 * lock waits, this one and any after it, take COMPANY_QUEUE_LOCK_TIMEOUT.
 */
export async function lockCompanyQueue(tx: Prisma.TransactionClient, queue: string, companyId: number): Promise<void> {
  await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${COMPANY_QUEUE_LOCK_TIMEOUT}'`);
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${queue}), ${companyId}::int)`;
}
