import type { SqlTransaction } from "../../platform/db/sql.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { ConflictError } from "../../platform/errors.js";
import { type CartRecord, type LockedCart, lockCart, type StoredCart, storeCart, writeStoredView } from "./cart-repository.js";
import { type CartContext, type CartTx, prismaSql } from "./context.js";
import type { SkippedItem } from "./schemas.js";

/**
 * A mutation's result: the stored cart plus what this request alone reports (its `viewJson`
 * carries this request's errors in messages.errors).
 */
export interface CartOutcome extends CartRecord {
  skipped: SkippedItem[];
}

interface ChangeResult {
  skipped?: SkippedItem[];
  operationErrors?: string[];
}

/** Errors of this request that did not stop it are shown with the stored ones, not stored. */
export function outcomeOf({ view, ...stored }: StoredCart, result: ChangeResult | void): CartOutcome {
  const skipped = result?.skipped ?? [];
  const operationErrors = result?.operationErrors ?? [];
  if (operationErrors.length === 0) return { ...stored, skipped };
  const messages = { ...view.messages, errors: [...view.messages.errors, ...operationErrors] };
  return { ...stored, viewJson: writeStoredView({ ...view, messages }), skipped };
}

/**
 * How a cart changes on plain pg (mutateCartWithPrisma below takes the same steps for the
 * changes still written with Prisma; addItems takes them with the cart's state kept in memory):
 * in one transaction, lock the cart row, apply the change, recompute and store the cart.
 * Concurrent mutations of one cart serialize on the lock, so none is lost; anything thrown rolls
 * the whole change back. They take turns in this process's RowQueue first (cartTurn): a
 * shopper's burst on one cart holds one pooled connection, not one per waiting request.
 *
 * Plain pg, not Prisma: a mutation is a handful of statements, and Prisma's per-statement CPU
 * made add-item 50 times slower than a single INSERT (docs/performance.md).
 */
export async function mutateCart(
  ctx: CartContext,
  cartToken: string,
  change: (sql: SqlTransaction, cart: LockedCart) => Promise<ChangeResult | void>,
  options: { companyId?: number } = {},
): Promise<CartOutcome> {
  return cartTurn(ctx, cartToken, () =>
    ctx.sql.transaction(async (sql) => {
      const cart = await lockCart(sql, cartToken, ctx.shopUrlScheme, options.companyId);
      const result = await change(sql, cart);
      return outcomeOf(await storeCart(sql, cartToken, ctx.clock.now()), result);
    }),
  );
}

/**
 * mutateCart for the changes still written with Prisma (contact details, addresses, language,
 * country, buyer): the same lock and store, sent through the Prisma transaction.
 */
export async function mutateCartWithPrisma(
  ctx: CartContext,
  cartToken: string,
  change: (tx: CartTx, cart: LockedCart) => Promise<ChangeResult | void>,
  options: { companyId?: number } = {},
): Promise<CartOutcome> {
  return cartTurn(ctx, cartToken, () =>
    ctx.db.$transaction(async (tx) => {
      const { tx: sql, settled } = prismaSql(tx);
      const cart = await lockCart(sql, cartToken, ctx.shopUrlScheme, options.companyId);
      const result = await change(tx, cart);
      const outcome = outcomeOf(await storeCart(sql, cartToken, ctx.clock.now()), result);
      await settled();
      return outcome;
    }, LOCK_WAITING_TRANSACTION),
  );
}

/** Runs a transaction that locks the cart `cartToken` names once this process's earlier ones on it are done. */
export function cartTurn<Result>(ctx: CartContext, cartToken: string, transaction: () => Promise<Result>): Promise<Result> {
  return ctx.rowQueue.run(`cart:${cartToken}`, transaction);
}

/** Item changes are refused on a cart created with immutable_items. */
export function requireMutableItems(cart: LockedCart): void {
  if (cart.immutableItems) throw new ConflictError("This cart's items cannot be changed", { code: "immutable_items" });
}
