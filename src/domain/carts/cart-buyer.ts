import { ForbiddenError, ValidationError } from "../../platform/errors.js";
import { isCardExpired } from "../payment-methods/expiry.js";
import { recordAttribution } from "./attribution.js";
import type { CartContext } from "./context.js";
import { type CartOutcome, mutateCart, mutateCartWithPrisma } from "./mutate.js";
import type { AttributionInput } from "./schemas.js";

// Who buys: the buyer rep, the customer, the referring rep, and the customer's saved payment
// method.

/**
 * Removes the buyer rep and the customer (and so their payment method): retail pricing again.
 * The customer's email, which their token filled in, leaves with them: on a shared device the
 * next shopper must not see it. An email typed in as another address stays.
 */
export function logout(ctx: CartContext, cartToken: string): Promise<CartOutcome> {
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const customer = cart.customerId === null ? null : await tx.user.findUnique({ where: { id: cart.customerId }, select: { email: true } });
    if (customer !== null) await tx.cart.updateMany({ where: { id: cart.id, email: customer.email }, data: { email: null } });
    await tx.cart.update({
      where: { id: cart.id },
      data: { buyer_rep_id: null, customer_id: null, payment_method_id: null, ...(cart.state === "payment_method" ? { state: "start" } : {}) },
    });
  });
}

export function setAttribution(ctx: CartContext, cartToken: string, input: AttributionInput): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    await recordAttribution(sql, cart, input);
  });
}

/** A company token of the cart's company, or a customer token of the cart's customer. */
export type PaymentMethodCredential = { companyId: number } | { customerId: number; companyId: number };

/**
 * Rule 5: selects one of the cart customer's saved payment methods; the cart moves to state
 * payment_method. Another company's token finds no cart (404); a customer token of someone
 * else is a 403; a method outside the customer's account is a 422, as every unknown reference.
 */
export function setSavedPaymentMethod(ctx: CartContext, cartToken: string, credential: PaymentMethodCredential, paymentMethodId: number): Promise<CartOutcome> {
  return mutateCartWithPrisma(
    ctx,
    cartToken,
    async (tx, cart) => {
      if ("customerId" in credential && credential.customerId !== cart.customerId) {
        throw new ForbiddenError("Only the cart's customer may choose its payment method");
      }
      if (cart.customerId === null) throw ValidationError.field("payment_method_id", "the cart has no customer whose saved payment method it could use");
      const method = await tx.paymentMethod.findFirst({
        where: { id: paymentMethodId, user_id: cart.customerId, company_id: cart.companyId },
        select: { id: true, exp_month: true, exp_year: true },
      });
      if (method === null) throw ValidationError.field("payment_method_id", "is not one of the customer's saved payment methods");
      if (isCardExpired(method, ctx.clock.now())) throw ValidationError.field("payment_method_id", "is expired");
      await tx.cart.update({ where: { id: cart.id }, data: { payment_method_id: method.id, state: "payment_method" } });
    },
    { companyId: credential.companyId },
  );
}
