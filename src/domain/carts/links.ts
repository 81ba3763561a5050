import { createHmac } from "node:crypto";
import { CHECKOUT_AUDIENCE } from "../../platform/auth/user-tokens.js";
import type { Clock } from "../../platform/clock.js";
import { TtlCache } from "../../platform/ttl-cache.js";

// The addresses every cart response carries in meta: the shop, and the checkout page with a
// signed token naming the cart (the checkout itself is another service).

const CHECKOUT_TOKEN_TTL_SECONDS = 24 * 60 * 60;
const CHECKOUT_URL_REUSE_MS = 60 * 60 * 1000;
const CHECKOUT_URL_CACHE_SIZE = 10_000;
const HS256_HEADER = Buffer.from(JSON.stringify({ alg: "HS256" })).toString("base64url");

export function shopUrlOf(scheme: "https" | "http", shopDomain: string): string {
  return `${scheme}://${shopDomain}`;
}

/**
 * The checkout addresses of one app's carts: HS256 with its JWT_SECRET, audience "checkout" and
 * the cart token as subject (it cannot pass as a user token: verifyUserToken refuses that
 * audience), under its CHECKOUT_BASE_URL. The cart surface builds one per app.
 *
 * Every cart response carries this address, and signing was a tenth of a cart read's CPU. A
 * token lives a day, so one signed less than an hour ago is handed out again (it still has at
 * least 23 hours to live); the most recent carts' addresses are kept, the oldest dropped first.
 * The secret and base URL are the instance's, and a cart token names one cart of one company
 * for good, so the token is the whole key.
 */
export class CheckoutUrls {
  private readonly recent: TtlCache<{ url: string; issuedAtMs: number }>;

  constructor(
    private readonly baseUrl: string,
    private readonly secret: string,
    private readonly clock: Clock,
  ) {
    this.recent = new TtlCache(clock, CHECKOUT_URL_CACHE_SIZE);
  }

  of(cart: { cartToken: string; companyId: number }): string {
    const now = this.clock.now();
    const cached = this.recent.get(cart.cartToken);
    // A clock set back must not hand out a token issued in its future.
    if (cached !== undefined && cached.issuedAtMs <= now.getTime()) return cached.url;
    const url = signCheckoutUrl(this.baseUrl, cart, this.secret, now);
    this.recent.set(cart.cartToken, { url, issuedAtMs: now.getTime() }, CHECKOUT_URL_REUSE_MS);
    return url;
  }
}

/**
 * Signed here with node:crypto rather than jose: jose signs through WebCrypto, which hands every
 * HMAC to the thread pool and back, and that was 6% of a cart creation's CPU. The token is a
 * plain HS256 JWT all the same (the tests verify it with jose).
 */
function signCheckoutUrl(baseUrl: string, cart: { cartToken: string; companyId: number }, secret: string, now: Date): string {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const claims = { company_id: cart.companyId, sub: cart.cartToken, aud: CHECKOUT_AUDIENCE, iat: issuedAt, exp: issuedAt + CHECKOUT_TOKEN_TTL_SECONDS };
  const signingInput = `${HS256_HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  const token = `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`;
  return `${baseUrl.replace(/\/+$/, "")}/checkout?jwt=${token}`;
}
