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
 * Queues the reminder in the mail outbox; returns the mail's id once it is committed. The order is
 * repriced first, so that the mail quotes what the next bill charges after catalog, tax or
 * shipping changes.
 */
export async function sendAutoshipReminder(ctx: OrderChangeContext, id: number): Promise<{ id: number }> {
  return changeOrder(ctx, id, async (tx, locked) => {
    const refusal = refuseEdit(statusOf(locked), "send_reminder");
    if (refusal) raise(refusal);
    const row = await repriceOrder(tx, ctx, locked);
    const company = await tx.company.findUniqueOrThrow({ where: { id: ctx.companyId }, select: { name: true } });
    const now = ctx.clock.now();
    const mail = await queueMail(tx, { companyId: ctx.companyId, to: row.customer.email, kind: "autoship_reminder", ...autoshipReminder(row, company.name, now) }, now);
    await appendActivity(tx, ctx, row.id, "reminder_email_queued", null, { mail_id: mail.id, to: row.customer.email });
    return mail;
  });
}
