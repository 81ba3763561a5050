// update_payment's PayPal variant and authorize_paypal. PayPal is called outside any database
// transaction (no row lock is held while waiting on a third party), and the order changes only
// after PayPal has answered: a PayPal failure or timeout leaves everything as it was.

import { setTimeout as sleep } from "node:timers/promises";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { BadGatewayError, ConflictError, NotFoundError, ValidationError } from "../../platform/errors.js";
import type { PaypalClient } from "../payments/paypal-client.js";
import { refuseEdit, type SubscriptionStatus } from "./lifecycle.js";
import { changeOrder, type OrderChangeContext } from "./changes.js";
import { appendActivity, type OrderContext, raise, requireOrderRow, statusOf } from "./records.js";
import type { SubscriptionOrderView } from "./schemas.js";
import { attachPaymentMethod, supersedePendingApprovals, viewAfterChange } from "./service.js";

export async function startPaypalApproval(
  ctx: OrderChangeContext,
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
    await supersedePendingApprovals(tx, ctx, id);
    try {
      await tx.paypalApproval.create({
        data: { company_id: ctx.companyId, subscription_order_id: id, token: setup.id, status: "created", payer_action_url: setup.approveUrl, created_at: ctx.clock.now() },
      });
    } catch (error) {
      // PayPal's setup token ids are unique: one it gave before, for any order, is PayPal's fault.
      if (isUniqueViolation(error)) throw new BadGatewayError("PayPal answered with a setup token it had given before", { code: "paypal_error", cause: error });
      throw error;
    }
    await appendActivity(tx, ctx, id, "paypal_approval_started", null, { paypal_token: setup.id });
    return { payer_action_url: setup.approveUrl };
  });
}

// authorize_paypal claims the approval ("authorizing", until claimed_until) before it asks PayPal,
// so that calls with the same token (a reloaded or double-loaded return page) do not all ask
// PayPal, which accepts an approved setup token once and refuses it after. The holder stores
// PayPal's answer on the approval ("vaulted", one statement) before it takes the order's row lock
// to put the account on the order ("completed"). So a claim covers PayPal's call and that
// statement only, never a wait for the order's lock (another change, or a repricing batch, may hold it):
// it cannot lapse while its holder waits there, and a call that finds the approval vaulted
// completes it from what is stored without asking PayPal. The other calls poll the approval's
// status: vaulted or completed, they complete it or answer with the order; released (PayPal
// failed), one of them claims it and asks PayPal itself. A claim whose holder died lapses after
// the longest PayPal call plus this margin for storing the answer; only a holder stalled longer
// than that between PayPal's answer and storing it lets another call ask PayPal again.
// A later payment change supersedes an approval in any of those states but completed
// (supersedePendingApprovals, under the order's lock): from then on no call asks PayPal for it,
// and a holder's answer is not stored, nor its account put on the order.
const CLAIM_MARGIN_MS = 5_000;
const CLAIM_POLL_MS = 50;

const superseded = () =>
  new ConflictError("A later payment change on this subscription order superseded this PayPal approval: start a new one with update_payment", {
    code: "paypal_approval_superseded",
  });

/**
 * Completes an approval: PayPal turns the approved setup token into a saved PayPal account,
 * which becomes one of the customer's payment methods and the order's. Calling it again with
 * a completed token (the buyer reloading the return page) answers with the order as it is,
 * also while another call is completing it.
 */
export async function authorizePaypal(ctx: OrderChangeContext, paypal: PaypalClient, id: number, token: string): Promise<SubscriptionOrderView> {
  await orderStatus(ctx, id);
  const approval = await ctx.db.paypalApproval.findFirst({ where: { token, subscription_order_id: id, company_id: ctx.companyId }, select: { id: true } });
  if (!approval) throw ValidationError.field("token", "does not name a PayPal approval started for this subscription order");
  const claimMs = paypal.longestCallMs + CLAIM_MARGIN_MS;
  for (let waitedMs = 0; ; waitedMs += CLAIM_POLL_MS) {
    const { status, claimed_until } = await ctx.db.paypalApproval.findUniqueOrThrow({ where: { id: approval.id }, select: { status: true, claimed_until: true } });
    if (status === "superseded") throw superseded();
    if (status === "completed") return viewAfterChange(ctx.db, ctx, id);
    if (status === "vaulted") return completeApproval(ctx, id, approval.id);
    if (status === "created" || (claimed_until !== null && claimed_until < ctx.clock.now())) {
      // The order may have been cancelled while this call waited: PayPal is not asked for it.
      const refusal = refuseEdit(await orderStatus(ctx, id), "update_payment");
      if (refusal) raise(refusal);
      const claimedUntil = await claimApproval(ctx, approval.id, claimMs);
      if (claimedUntil) {
        await vaultApproval(ctx, paypal, { approvalId: approval.id, token, claimedUntil });
        return completeApproval(ctx, id, approval.id);
      }
    }
    if (waitedMs >= claimMs) throw new ConflictError("Another request is still completing this PayPal approval; try again", { code: "paypal_approval_in_progress" });
    await sleep(CLAIM_POLL_MS);
  }
}

/** The order's status alone (a waiting call reads the whole order once, at the end); 404 for an order that is not the company's. */
async function orderStatus(ctx: OrderContext, id: number): Promise<SubscriptionStatus> {
  const order = await ctx.db.subscriptionOrder.findFirst({ where: { id, company_id: ctx.companyId }, select: { status: true } });
  if (!order) throw new NotFoundError("Subscription order not found");
  return statusOf(order);
}

/** Claims an approval nobody holds (or whose claim lapsed); returns the claim's end, or null when another call holds it. */
async function claimApproval(ctx: OrderContext, approvalId: number, claimMs: number): Promise<Date | null> {
  const now = ctx.clock.now();
  const claimedUntil = new Date(now.getTime() + claimMs);
  // One statement: concurrent claims of the row take turns and the later one re-reads its status.
  const claimed = await ctx.db.$executeRaw`
    UPDATE paypal_approvals SET status = 'authorizing', claimed_until = ${claimedUntil}
    WHERE id = ${approvalId} AND (status = 'created' OR (status = 'authorizing' AND claimed_until < ${now}))`;
  return claimed === 1 ? claimedUntil : null;
}

/** Asks PayPal for the saved account and stores its answer on the approval; a PayPal failure releases the claim for a retry. */
async function vaultApproval(ctx: OrderContext, paypal: PaypalClient, claim: { approvalId: number; token: string; claimedUntil: Date }): Promise<void> {
  let saved;
  try {
    saved = await paypal.createPaymentToken(claim.token);
  } catch (error) {
    await ctx.db.paypalApproval.updateMany({
      where: { id: claim.approvalId, status: "authorizing", claimed_until: claim.claimedUntil },
      data: { status: "created", claimed_until: null },
    });
    throw error;
  }
  // Stored whoever holds the claim by now: PayPal vaults a setup token once, so this is the only
  // answer there will be, also when this call stalled past its claim and another one took it.
  const stored = await ctx.db.paypalApproval.updateMany({
    where: { id: claim.approvalId, status: { in: ["created", "authorizing"] } },
    data: { status: "vaulted", claimed_until: null, payment_token_id: saved.id, paypal_email: saved.email },
  });
  if (stored.count === 1) return;
  // Superseded while PayPal answered: completing it answers that, and the account PayPal saved
  // for it is deleted there by the vault cleanup, as one superseded after it was stored.
  await ctx.db.paypalApproval.updateMany({
    where: { id: claim.approvalId, status: "superseded", payment_token_id: null },
    data: { payment_token_id: saved.id, paypal_email: saved.email, vault_delete_at: ctx.clock.now() },
  });
}

/** Puts a vaulted approval's PayPal account on the order, under the order's lock, once; answers with the order. */
async function completeApproval(ctx: OrderChangeContext, orderId: number, approvalId: number): Promise<SubscriptionOrderView> {
  return changeOrder(ctx, orderId, async (tx, locked) => {
    const approval = await tx.paypalApproval.findUniqueOrThrow({ where: { id: approvalId }, select: { status: true, payment_token_id: true, paypal_email: true } });
    // Another call completed it while this one waited for the lock, or a later payment change superseded it.
    if (approval.status === "completed") return viewAfterChange(tx, ctx, orderId);
    if (approval.status === "superseded") throw superseded();
    const lateRefusal = refuseEdit(statusOf(locked), "update_payment");
    if (lateRefusal) raise(lateRefusal);
    const method = await tx.paymentMethod.create({
      data: { company_id: ctx.companyId, user_id: locked.customer_id, kind: "paypal", paypal_email: approval.paypal_email, external_id: approval.payment_token_id },
    });
    await tx.paypalApproval.update({
      where: { id: approvalId },
      data: { status: "completed", payment_method_id: method.id, completed_at: ctx.clock.now() },
    });
    return attachPaymentMethod(tx, ctx, locked, method.id);
  });
}
