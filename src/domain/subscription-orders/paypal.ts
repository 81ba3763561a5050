// update_payment's PayPal variant and authorize_paypal. PayPal is called outside any database
// transaction (no row lock is held while waiting on a third party), and our rows change only
// after PayPal has answered: a PayPal failure or timeout leaves everything as it was.

import { ConflictError, ValidationError } from "../../platform/errors.js";
import type { PaypalClient } from "../payments/paypal-client.js";
import { refuseEdit } from "./lifecycle.js";
import { appendActivity, changeOrder, type OrderContext, raise, requireOrderRow, statusOf } from "./records.js";
import type { SubscriptionOrderView } from "./schemas.js";
import { attachPaymentMethod } from "./service.js";
import { toView } from "./views.js";

export async function startPaypalApproval(
  ctx: OrderContext,
  paypal: PaypalClient,
  id: number,
  urls: { return_url: string; cancel_url: string },
): Promise<{ payer_action_url: string }> {
  const row = await requireOrderRow(ctx.db, ctx.companyId, id);
  const refusal = refuseEdit(statusOf(row), "update_payment");
  if (refusal) raise(refusal);
  const setup = await paypal.createSetupToken({ returnUrl: urls.return_url, cancelUrl: urls.cancel_url });
  return changeOrder(ctx, id, async (tx, locked) => {
    // The order may have been cancelled while PayPal answered.
    const lateRefusal = refuseEdit(statusOf(locked), "update_payment");
    if (lateRefusal) raise(lateRefusal);
    await tx.paypalApproval.create({
      data: { company_id: ctx.companyId, subscription_order_id: id, token: setup.id, status: "created", payer_action_url: setup.approveUrl, created_at: ctx.clock.now() },
    });
    await appendActivity(tx, ctx, id, "paypal_approval_started", null, { paypal_token: setup.id });
    return { payer_action_url: setup.approveUrl };
  });
}

/**
 * Completes an approval: PayPal turns the approved setup token into a saved PayPal account,
 * which becomes one of the customer's payment methods and the order's. Calling it again with
 * a completed token (the buyer reloading the return page) answers with the order as it is.
 */
export async function authorizePaypal(ctx: OrderContext, paypal: PaypalClient, id: number, token: string): Promise<SubscriptionOrderView> {
  const row = await requireOrderRow(ctx.db, ctx.companyId, id);
  const approval = await ctx.db.paypalApproval.findFirst({ where: { token, subscription_order_id: id, company_id: ctx.companyId } });
  if (!approval) throw ValidationError.field("token", "does not name a PayPal approval started for this subscription order");
  if (approval.status === "completed") return toView(row, ctx.clock.now());
  const refusal = refuseEdit(statusOf(row), "update_payment");
  if (refusal) raise(refusal);
  const saved = await paypal.createPaymentToken(token);
  return changeOrder(ctx, id, async (tx, locked) => {
    const lateRefusal = refuseEdit(statusOf(locked), "update_payment");
    if (lateRefusal) raise(lateRefusal);
    const method = await tx.paymentMethod.create({
      data: {
        company_id: ctx.companyId,
        user_id: locked.customer_id,
        kind: "paypal",
        paypal_email: saved.email,
        external_id: saved.id,
      },
    });
    const claimed = await tx.paypalApproval.updateMany({
      where: { id: approval.id, status: "created" },
      data: { status: "completed", payment_method_id: method.id, completed_at: ctx.clock.now() },
    });
    if (claimed.count === 0) throw new ConflictError("This PayPal approval was completed by another request", { code: "paypal_approval_completed" });
    return attachPaymentMethod(tx, ctx, locked, method.id);
  });
}
