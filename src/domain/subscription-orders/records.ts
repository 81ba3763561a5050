// How the changes read subscription orders and record what they did, shared by the lifecycle,
// payment, reminder and repricing services (the admin's show and list read through plain pg:
// sql-reads.ts; changes.ts locks an order for a change). Every query is scoped by the company.

import type { Prisma } from "../../generated/prisma/client.js";
import type { Actor, ServiceContext } from "../../platform/context.js";
import { ConflictError, NotFoundError, ValidationError } from "../../platform/errors.js";
import type { Refusal, SubscriptionStatus } from "./lifecycle.js";
import { RECENT_ACTIVITIES } from "./schemas.js";
import type { OrderRecord } from "./views.js";

export interface OrderContext extends ServiceContext {
  actor: Actor;
}

/**
 * What a change reads of its order: never the activities, which grow with every change (an
 * order's history is not bounded), so that no change costs more as its order ages.
 */
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
} as const satisfies Prisma.SubscriptionOrderInclude;

export type OrderRow = Prisma.SubscriptionOrderGetPayload<{ include: typeof orderInclude }>;

type Reader = Pick<Prisma.TransactionClient, "subscriptionOrder">;

export async function requireOrderRow(db: Reader, companyId: number, id: number): Promise<OrderRow> {
  const row = await db.subscriptionOrder.findFirst({ where: { id, company_id: companyId }, include: orderInclude });
  if (!row) throw new NotFoundError("Subscription order not found");
  return row;
}

/** What an answer shows: the order's row, its most recent activities (newest first here) and how many it has. */
const shownInclude = {
  ...orderInclude,
  activities: { orderBy: { id: "desc" }, take: RECENT_ACTIVITIES },
  _count: { select: { activities: true } },
} as const satisfies Prisma.SubscriptionOrderInclude;

/** The order as an answer shows it (OrderRecord), read through Prisma: inside a change's transaction, it sees the change. */
export async function requireOrderRecord(db: Reader, companyId: number, id: number): Promise<OrderRecord> {
  const row = await db.subscriptionOrder.findFirst({ where: { id, company_id: companyId }, include: shownInclude });
  if (!row) throw new NotFoundError("Subscription order not found");
  const { _count, activities, ...order } = row;
  return { ...order, activities: activities.reverse(), activities_count: _count.activities };
}

export async function appendActivity(
  tx: Prisma.TransactionClient,
  ctx: OrderContext,
  orderId: number,
  action: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Promise<void> {
  await appendActivities(tx, ctx, [{ orderId, action, before, after }]);
}

/**
 * appendActivity for many orders at once, in one statement (a plan's repricing appends one per
 * order; Prisma's createMany took several times as long for a few hundred).
 */
export async function appendActivities(
  tx: Prisma.TransactionClient,
  ctx: OrderContext,
  activities: Array<{ orderId: number; action: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null }>,
): Promise<void> {
  if (activities.length === 0) return;
  const json = (snapshot: Record<string, unknown> | null) => (snapshot === null ? null : JSON.stringify(snapshot));
  await tx.$executeRaw`
    INSERT INTO subscription_order_activities (company_id, subscription_order_id, action, actor_type, actor_id, "before", "after", created_at)
    SELECT ${ctx.companyId}, u.order_id, u.action, ${ctx.actor.type}, ${ctx.actor.id}, u.before::jsonb, u.after::jsonb, ${ctx.clock.now()}
    FROM unnest(${activities.map((activity) => activity.orderId)}::int[], ${activities.map((activity) => activity.action)}::text[],
      ${activities.map((activity) => json(activity.before))}::text[], ${activities.map((activity) => json(activity.after))}::text[])
      WITH ORDINALITY AS u(order_id, action, before, after, n)
    ORDER BY u.n`;
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
