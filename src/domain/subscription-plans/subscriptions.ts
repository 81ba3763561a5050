import type { Prisma } from "../../generated/prisma/client.js";
import type { Db } from "../../platform/db/database.js";

type Client = Db | Prisma.TransactionClient;

/**
 * The ids of each plan's subscriptions that are not cancelled: a plan's subscribers, and what
 * keeps it from being deleted.
 *
 * Subscription orders are another area's table, built at the same time as plans. Until its
 * Prisma model is merged this one function reads `subscription_orders` by SQL, and a database
 * without that table has no subscriptions. Once the model exists it becomes a
 * `subscriptionOrder.findMany` with the same where clause.
 */
export async function openSubscriptionIds(db: Client, companyId: number, planIds: number[]): Promise<Map<number, number[]>> {
  const byPlan = new Map<number, number[]>(planIds.map((id) => [id, []]));
  if (planIds.length === 0) return byPlan;
  const [table] = await db.$queryRaw<{ present: boolean }[]>`SELECT to_regclass('subscription_orders') IS NOT NULL AS present`;
  if (!table?.present) return byPlan;
  const rows = await db.$queryRaw<{ id: number; subscription_plan_id: number }[]>`
    SELECT id, subscription_plan_id FROM subscription_orders
    WHERE company_id = ${companyId} AND subscription_plan_id = ANY(${planIds}) AND status <> 'cancelled'
    ORDER BY id`;
  for (const row of rows) byPlan.get(row.subscription_plan_id)?.push(row.id);
  return byPlan;
}
