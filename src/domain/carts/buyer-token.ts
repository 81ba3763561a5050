import { UnauthorizedError } from "../../platform/errors.js";
import { verifyUserToken } from "../../platform/auth/user-tokens.js";
import type { CartContext, CartTx } from "./context.js";

export interface Buyer {
  userId: number;
  role: "rep" | "customer";
  email: string;
}

/**
 * The rep or customer a user token (the `jwt` parameter or the `_svc_session` cookie) names.
 * A token that does not verify, belongs to another company or names no such user of that role
 * is a 401: a storefront must learn that its login is broken, not get an anonymous cart.
 */
export async function buyerFromToken(ctx: CartContext, db: CartTx | CartContext["db"], token: string, companyId: number): Promise<Buyer> {
  const claims = await verifyUserToken(token, ctx.userTokenKey, ctx.clock.now());
  if (claims.companyId !== companyId) throw new UnauthorizedError("The user token belongs to another shop", { code: "invalid_user_token" });
  const user = await db.user.findFirst({ where: { id: claims.userId, company_id: companyId, role: claims.role }, select: { id: true, email: true } });
  if (user === null) throw new UnauthorizedError("The user token names no user of this shop", { code: "invalid_user_token" });
  return { userId: user.id, role: claims.role, email: user.email };
}

/**
 * The cart's email once `buyer` buys with it. A customer's token fills in the customer's email,
 * unless the cart holds one the shopper typed in: an email other than the one the previous
 * customer's token filled in stays, as it does on logout.
 */
export function emailWithBuyer(buyer: Buyer | null, cart: { email: string | null; customerEmail: string | null }): string | null {
  if (buyer?.role !== "customer") return cart.email;
  return cart.email === null || cart.email === cart.customerEmail ? buyer.email : cart.email;
}
