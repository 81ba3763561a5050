import type { Prisma } from "../../generated/prisma/client.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import type { RowQueue } from "../../platform/db/row-queue.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { type OrderContext, type OrderRow, requireOrderRow } from "./records.js";
import { repriceIfBehindPlan } from "./repricing.js";

/** What changing an order needs: the app's RowQueue, where this process's changes of one order take turns. */
export interface OrderChangeContext extends OrderContext {
  rowQueue: RowQueue;
}

/**
 * Runs a change on one order inside a transaction that holds the order's row lock, so that
 * concurrent changes (two skips racing past max_skips) take turns: in this process's RowQueue
 * first, so that a queue of changes on one order holds one pooled connection, not one each; the
 * lock serializes them with other processes. The queue's key names the company as well: an id
 * is taken from the URL before it is checked, so another company's requests for the id must not
 * hold this order's turn (they answer 404 in a queue of their own). An order still priced with an older revision of its
 * plan (its plan's repricing was cut short) is brought up to the plan first. Returns what the
 * change returns.
 */
export async function changeOrder<Result>(
  ctx: OrderChangeContext,
  id: number,
  change: (tx: Prisma.TransactionClient, row: OrderRow) => Promise<Result>,
): Promise<Result> {
  return ctx.rowQueue.run(`subscription_order:${ctx.companyId}:${id}`, () =>
    ctx.db.$transaction(async (tx) => {
      await lockCompanyRow(tx, { table: "subscription_orders", companyId: ctx.companyId, id }, "UPDATE", "Subscription order not found");
      return change(tx, await repriceIfBehindPlan(tx, ctx, await requireOrderRow(tx, ctx.companyId, id)));
    }, LOCK_WAITING_TRANSACTION),
  );
}
