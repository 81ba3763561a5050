import { SignJWT } from "jose";

// The addresses every cart response carries in meta: the shop, and the checkout page with a
// signed token naming the cart (the checkout itself is another service).

const CHECKOUT_TOKEN_TTL_SECONDS = 24 * 60 * 60;
const encoder = new TextEncoder();

export function shopUrlOf(scheme: "https" | "http", shopDomain: string): string {
  return `${scheme}://${shopDomain}`;
}

/**
 * HS256 with JWT_SECRET, audience "checkout" and the cart token as subject: it cannot pass as a
 * user token (those need a numeric subject and a role).
 */
export async function checkoutUrlOf(baseUrl: string, cart: { cartToken: string; companyId: number }, secret: string, now: Date): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT({ company_id: cart.companyId })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(cart.cartToken)
    .setAudience("checkout")
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + CHECKOUT_TOKEN_TTL_SECONDS)
    .sign(encoder.encode(secret));
  return `${baseUrl.replace(/\/+$/, "")}/checkout?jwt=${token}`;
}
