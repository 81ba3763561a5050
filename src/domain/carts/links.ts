import { createHmac } from "node:crypto";

// The addresses every cart response carries in meta: the shop, and the checkout page with a
// signed token naming the cart (the checkout itself is another service).

const CHECKOUT_TOKEN_TTL_SECONDS = 24 * 60 * 60;
const HS256_HEADER = Buffer.from(JSON.stringify({ alg: "HS256" })).toString("base64url");

export function shopUrlOf(scheme: "https" | "http", shopDomain: string): string {
  return `${scheme}://${shopDomain}`;
}

/**
 * HS256 with JWT_SECRET, audience "checkout" and the cart token as subject: it cannot pass as a
 * user token (those need a numeric subject and a role).
 *
 * Every cart response carries this address, and signing was a tenth of a cart read's CPU. A
 * token lives a day, so one signed less than an hour ago is handed out again (it still has at
 * least 23 hours to live); the most recent carts' addresses are kept, the oldest dropped first.
 */
export async function checkoutUrlOf(baseUrl: string, cart: { cartToken: string; companyId: number }, secret: string, now: Date): Promise<string> {
  const cached = recentCheckoutUrls.get(cart.cartToken);
  const age = cached === undefined ? -1 : now.getTime() - cached.issuedAtMs;
  if (cached !== undefined && age >= 0 && age < CHECKOUT_URL_REUSE_MS && cached.baseUrl === baseUrl && cached.secret === secret && cached.companyId === cart.companyId) {
    return cached.url;
  }
  const url = await signCheckoutUrl(baseUrl, cart, secret, now);
  recentCheckoutUrls.delete(cart.cartToken);
  recentCheckoutUrls.set(cart.cartToken, { url, issuedAtMs: now.getTime(), baseUrl, secret, companyId: cart.companyId });
  if (recentCheckoutUrls.size > CHECKOUT_URL_CACHE_SIZE) recentCheckoutUrls.delete(recentCheckoutUrls.keys().next().value as string);
  return url;
}

const CHECKOUT_URL_REUSE_MS = 60 * 60 * 1000;
const CHECKOUT_URL_CACHE_SIZE = 10_000;
const recentCheckoutUrls = new Map<string, { url: string; issuedAtMs: number; baseUrl: string; secret: string; companyId: number }>();

/**
 * Signed here with node:crypto rather than jose: jose signs through WebCrypto, which hands every
 * HMAC to the thread pool and back, and that was 6% of a cart creation's CPU. The token is a
 * plain HS256 JWT all the same (the tests verify it with jose).
 */
async function signCheckoutUrl(baseUrl: string, cart: { cartToken: string; companyId: number }, secret: string, now: Date): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const claims = { company_id: cart.companyId, sub: cart.cartToken, aud: "checkout", iat: issuedAt, exp: issuedAt + CHECKOUT_TOKEN_TTL_SECONDS };
  const signingInput = `${HS256_HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  const token = `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`;
  return `${baseUrl.replace(/\/+$/, "")}/checkout?jwt=${token}`;
}
