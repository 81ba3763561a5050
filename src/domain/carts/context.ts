import type { Prisma } from "../../generated/prisma/client.js";
import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import type { SqlPool } from "../../platform/db/sql.js";

/**
 * What cart services need. A cart is addressed by its token, so the company comes from the cart
 * (or, on create, from the shop), not from the request's credentials.
 */
export interface CartContext {
  db: Db;
  /** Plain SQL for the read path (see readCart). */
  sql: SqlPool;
  clock: Clock;
  /** Verifies rep and customer tokens (JWT_SECRET). */
  jwtSecret: string;
  shopUrlScheme: "https" | "http";
}

/** The interactive transaction every cart mutation runs in. */
export type CartTx = Prisma.TransactionClient;
