import { RateLimitedError } from "../../platform/errors.js";
import { queueMail } from "../mail/outbox.js";
import { refuseEdit } from "./lifecycle.js";
import { changeOrder, type OrderChangeContext } from "./changes.js";
import { appendActivity, isoDay, type OrderRow, raise, statusOf } from "./records.js";
import { repriceOrder } from "./repricing.js";
import { orderView } from "./views.js";

/** The reminder's text: what ships, when, and what it costs, from the stored order. */
function autoshipReminder(row: OrderRow, companyName: string, now: Date): { subject: string; body: string } {
  const view = orderView(row, now);
  const greeting = row.customer.first_name ? `Hello ${row.customer.first_name},` : "Hello,";
  const lines = view.items.map((item) => `- ${item.quantity} x ${item.product.title}${item.variant.title ? ` (${item.variant.title})` : ""}: ${item.display_subtotal}`);
  const body = [
    greeting,
    "",
    `Your ${companyName} autoship ${row.order_number} is scheduled for ${isoDay(row.next_bill_date)}.`,
    "",
    ...lines,
    "",
    `Subtotal: ${view.display_subtotal}`,
    `Tax: ${view.display_tax}`,
    `Shipping: ${view.display_shipping}`,
    `Total: ${view.display_total}`,
    "",
    "To change or skip this order, visit your account before that date.",
  ].join("\n");
  return { subject: `Your ${companyName} autoship ships on ${isoDay(row.next_bill_date)}`, body };
}

/**
 * The 429 for a reminder asked for within `minIntervalMs` of the order's last one, saying when the
 * next is accepted; null when one may be queued.
 */
function throttled(lastQueuedAt: Date | null, minIntervalMs: number, now: Date): RateLimitedError | null {
  if (lastQueuedAt === null) return null;
  const waitMs = lastQueuedAt.getTime() + minIntervalMs - now.getTime();
  if (waitMs <= 0) return null;
  const nextAt = new Date(lastQueuedAt.getTime() + minIntervalMs);
  return new RateLimitedError(
    Math.ceil(waitMs / 1000),
    `A reminder for this subscription order was queued at ${lastQueuedAt.toISOString()}: the next one can be sent from ${nextAt.toISOString()}`,
    { code: "reminder_throttled" },
  );
}

/**
 * Queues the reminder in the mail outbox; returns the mail's id once it is committed. The order is
 * repriced first, so that the mail quotes what the next bill charges after catalog, tax or
 * shipping changes. At most one reminder per order within `minIntervalMs` (an integration retrying
 * in a loop queued one mail per call): the time of the last one is read and written under the
 * order's row lock, so of concurrent calls one queues a mail and the others answer the 429.
 */
export async function sendAutoshipReminder(ctx: OrderChangeContext, id: number, limits: { minIntervalMs: number }): Promise<{ id: number }> {
  return changeOrder(ctx, id, async (tx, locked) => {
    const refusal = refuseEdit(statusOf(locked), "send_reminder");
    if (refusal) raise(refusal);
    const now = ctx.clock.now();
    const tooSoon = throttled(locked.reminder_queued_at, limits.minIntervalMs, now);
    if (tooSoon) throw tooSoon;
    const row = await repriceOrder(tx, ctx, locked);
    const company = await tx.company.findUniqueOrThrow({ where: { id: ctx.companyId }, select: { name: true } });
    const mail = await queueMail(tx, { companyId: ctx.companyId, to: row.customer.email, kind: "autoship_reminder", ...autoshipReminder(row, company.name, now) }, now);
    // Raw: a reminder is no change of the order, so its updated_at (Prisma's @updatedAt) stays.
    await tx.$executeRaw`UPDATE subscription_orders SET reminder_queued_at = ${now} WHERE id = ${row.id}`;
    await appendActivity(tx, ctx, row.id, "reminder_email_queued", null, { mail_id: mail.id, to: row.customer.email });
    return mail;
  });
}
