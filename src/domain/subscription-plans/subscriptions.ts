import type { Prisma } from "../../generated/prisma/client.js";
import type { Db } from "../../platform/db/database.js";

type Client = Db | Prisma.TransactionClient;

/** The ids of each plan's subscriptions that are not cancelled: a plan's subscribers, and what keeps it from being deleted. */
export async function openSubscriptionIds(db: Client, companyId: number, planIds: number[]): Promise<Map<number, number[]>> {
  const byPlan = new Map<number, number[]>(planIds.map((id) => [id, []]));
  if (planIds.length === 0) return byPlan;
  const rows = await db.subscriptionOrder.findMany({
    where: { company_id: companyId, subscription_plan_id: { in: planIds }, status: { not: "cancelled" } },
    select: { id: true, subscription_plan_id: true },
    orderBy: { id: "asc" },
  });
  for (const row of rows) if (row.subscription_plan_id !== null) byPlan.get(row.subscription_plan_id)?.push(row.id);
  return byPlan;
}
