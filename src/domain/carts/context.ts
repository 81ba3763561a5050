import type { Prisma } from "../../generated/prisma/client.js";
import type { UserTokenKey } from "../../platform/auth/user-tokens.js";
import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import type { RowQueue } from "../../platform/db/row-queue.js";
import { type SqlPool, type SqlTransaction, trackStatements } from "../../platform/db/sql.js";
import type { CartReader } from "./cart-repository.js";
import type { SessionCookieOrigins } from "./session-cookie.js";

/**
 * What cart services need. A cart is addressed by its token, so the company comes from the cart
 * (or, on create, from the shop), not from the request's credentials.
 */
export interface CartContext {
  db: Db;
  /** Plain pg: reads, and the mutations moved off Prisma (see mutateCart). */
  sql: SqlPool;
  /** One per app (cartReader): reads of carts that arrive together share one statement. */
  readCart: CartReader;
  /** The app's: this process's mutations of one cart take turns in it (see mutateCart). */
  rowQueue: RowQueue;
  clock: Clock;
  /** Verifies rep and customer tokens (JWT_SECRET's key). */
  userTokenKey: UserTokenKey;
  shopUrlScheme: "https" | "http";
  /** Whether the shopper's cookie acts for a shop from the page that sent it (cart create). */
  sessionCookieOrigins: SessionCookieOrigins;
}

/** The Prisma transaction the mutations not yet on plain SQL run in (see mutateCartWithPrisma). */
export type CartTx = Prisma.TransactionClient;

/**
 * The same SQL statements sent through a Prisma transaction, for code shared by both kinds;
 * `settled()` must be awaited before the transaction ends (statements may be left unawaited).
 */
export function prismaSql(tx: CartTx): { tx: SqlTransaction; settled(): Promise<void> } {
  return trackStatements(<Row>(text: string, params: unknown[] = []) => tx.$queryRawUnsafe<Row[]>(text, ...params));
}
