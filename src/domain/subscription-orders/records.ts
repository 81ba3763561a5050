// How subscription orders are read and locked by the changes, shared by the lifecycle, payment
// and reminder services (the admin's show and list read through plain pg: sql-reads.ts). Every
// query is scoped by the company.

import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { ConflictError, NotFoundError, ValidationError } from "../../platform/errors.js";
import type { Refusal, SubscriptionStatus } from "./lifecycle.js";

/** Who performs a change, recorded in the activity: an API token by its display prefix. */
export interface Actor {
  type: string;
  id: string | null;
}

export interface OrderContext extends ServiceContext {
  actor: Actor;
}

const orderInclude = {
  customer: true,
  user: true,
  buyer: true,
  payment_method: true,
  subscription_plan: true,
  ship_to_country: true,
  bill_to_country: true,
  currency: true,
  items: { orderBy: { position: "asc" }, include: { variant: { include: { product: true } } } },
  activities: { orderBy: { id: "asc" } },
} as const satisfies Prisma.SubscriptionOrderInclude;

export type OrderRow = Prisma.SubscriptionOrderGetPayload<{ include: typeof orderInclude }>;

type Reader = Pick<Prisma.TransactionClient, "subscriptionOrder">;

export async function requireOrderRow(db: Reader, companyId: number, id: number): Promise<OrderRow> {
  const row = await db.subscriptionOrder.findFirst({ where: { id, company_id: companyId }, include: orderInclude });
  if (!row) throw new NotFoundError("Subscription order not found");
  return row;
}

/**
 * Runs a change on one order inside a transaction that holds the order's row lock, so that
 * concurrent changes (two skips racing past max_skips) take turns. Returns the order as left.
 */
export async function changeOrder<Result>(
  ctx: ServiceContext,
  id: number,
  change: (tx: Prisma.TransactionClient, row: OrderRow) => Promise<Result>,
): Promise<Result> {
  return ctx.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<Array<{ id: number }>>`
      SELECT id FROM subscription_orders WHERE id = ${id} AND company_id = ${ctx.companyId} FOR UPDATE`;
    if (locked.length === 0) throw new NotFoundError("Subscription order not found");
    return change(tx, await requireOrderRow(tx, ctx.companyId, id));
  });
}

export async function appendActivity(
  tx: Prisma.TransactionClient,
  ctx: OrderContext,
  orderId: number,
  action: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Promise<void> {
  await tx.subscriptionOrderActivity.create({
    data: {
      company_id: ctx.companyId,
      subscription_order_id: orderId,
      action,
      actor_type: ctx.actor.type,
      actor_id: ctx.actor.id,
      before: (before ?? undefined) as Prisma.InputJsonValue | undefined,
      after: (after ?? undefined) as Prisma.InputJsonValue | undefined,
      created_at: ctx.clock.now(),
    },
  });
}

export function statusOf(row: { status: string }): SubscriptionStatus {
  return row.status as SubscriptionStatus;
}

export function raise(refusal: Refusal): never {
  if (refusal.kind === "conflict") throw new ConflictError(refusal.message, { code: refusal.code });
  throw new ValidationError(refusal.field ? { [refusal.field]: [refusal.message] } : null, refusal.message, { code: refusal.code });
}

/** "2026-01-31" for a calendar-day column. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
