import { InvalidCredentialError } from "../../platform/errors.js";
import { type UserClaims, type UserRole, verifyUserToken } from "../../platform/auth/user-tokens.js";
import type { CartContext, CartTx } from "./context.js";

interface Buyer {
  userId: number;
  role: UserRole;
  email: string;
}

/** A user token and the request member that carried it, which its refusal names. */
interface UserTokenSource {
  token: string;
  field: "jwt" | "_svc_session";
}

/** What a cart create may carry a user token in, the `jwt` query parameter and the `_svc_session` cookie, and the page that sent them. */
export interface CreateCartCredentials {
  jwt?: string | undefined;
  sessionCookie?: string | undefined;
  /** The call's `Origin` header, which decides whether the cookie acts (SessionCookieOrigins). */
  origin?: string | undefined;
}

/**
 * The user token of a cart create for `companyId`: `jwt` (an empty one is absent), else the
 * cookie; null for an anonymous cart. A cookie sent by a page that may not act for the company is
 * refused rather than ignored, before the token is read: a storefront on the wrong origin learns
 * why its shoppers are not logged in instead of getting silently anonymous carts, and retries
 * without credentials as for any refused cookie (docs/decisions.md, Carts).
 */
export async function createCartUserToken(ctx: CartContext, { jwt, sessionCookie, origin }: CreateCartCredentials, companyId: number): Promise<UserTokenSource | null> {
  if (jwt) return { token: jwt, field: "jwt" };
  if (!sessionCookie) return null;
  const cookieOrigins = ctx.sessionCookieOrigins;
  if (!(await cookieOrigins.actsFor(origin, companyId))) {
    throw userTokenRefused("_svc_session", `This page's origin may not use the session cookie for this shop: ${cookieOrigins.whoMay}`);
  }
  return { token: sessionCookie, field: "_svc_session" };
}

function userTokenRefused(field: UserTokenSource["field"], message: string): InvalidCredentialError {
  return new InvalidCredentialError(message, { code: "invalid_user_token", fieldErrors: { [field]: [message] } });
}

/**
 * The rep or customer a user token names. A token that does not verify, belongs to another
 * company or names no such user of that role is a 401: a storefront must learn that its login
 * is broken, not get an anonymous cart. `errors` names the member that carried it, so that a
 * script whose expired `_svc_session` cookie it cannot delete (HttpOnly, the API's host) knows
 * to retry without credentials.
 */
export async function buyerFromToken(ctx: CartContext, db: CartTx | CartContext["db"], { token, field }: UserTokenSource, companyId: number): Promise<Buyer> {
  const refused = (message: string) => userTokenRefused(field, message);
  let claims: UserClaims;
  try {
    claims = await verifyUserToken(token, ctx.userTokenKey, ctx.clock.now());
  } catch (error) {
    throw error instanceof InvalidCredentialError ? refused(error.message) : error;
  }
  if (claims.companyId !== companyId) throw refused("The user token belongs to another shop");
  const user = await db.user.findFirst({ where: { id: claims.userId, company_id: companyId, role: claims.role }, select: { id: true, email: true } });
  if (user === null) throw refused("The user token names no user of this shop");
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
