import { isCardExpired } from "../payment-methods/expiry.js";
import { type CartRecord, writeStoredView } from "./cart-repository.js";
import type { CartContext } from "./context.js";
import type { StoredCartView } from "./schemas.js";

/** Extras a storefront may ask available_payment_methods to include. Unknown names are ignored. */
const SAVED_PAYMENT_METHODS = "saved_payment_methods";

/**
 * The stored cart; with `saved_payment_methods` requested, the cart customer's saved payment
 * methods that can still pay (read now, not stored: they change outside the cart, and cards
 * expire) join available_payment_methods.
 */
export async function showCart(ctx: CartContext, cartToken: string, includes: readonly string[]): Promise<CartRecord> {
  const record = await ctx.readCart(cartToken);
  if (!includes.includes(SAVED_PAYMENT_METHODS) || record.customerId === null) return record;
  const saved = await ctx.db.paymentMethod.findMany({ where: { user_id: record.customerId, company_id: record.companyId }, orderBy: { id: "asc" } });
  const usable = saved.filter((method) => !isCardExpired(method, ctx.clock.now()));
  const stored = JSON.parse(record.viewJson) as StoredCartView;
  const view: StoredCartView = {
    ...stored,
    available_payment_methods: [
      ...stored.available_payment_methods,
      ...usable.map((method) => ({
        id: method.id,
        type: "saved_payment_method" as const,
        kind: method.kind,
        card_type: method.card_type,
        last_four: method.last_four,
        exp_month: method.exp_month,
        exp_year: method.exp_year,
        paypal_email: method.paypal_email,
      })),
    ],
  };
  return { ...record, viewJson: writeStoredView(view) };
}
