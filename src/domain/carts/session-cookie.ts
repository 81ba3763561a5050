import type { ShopDirectory } from "../companies/shop-directory.js";

/**
 * Which pages the shopper's `_svc_session` cookie acts from. It is the one credential a browser
 * adds by itself, on the API's host for every shop, to a call from any page that was allowed
 * to send it; a cart created with it answers with the customer's email (and, by the cart token,
 * their saved cards) or the rep's identity and prices. So it acts for a cart only when the page
 * may act for the cart's company: a call without `Origin` (a server, curl), an origin the
 * operator listed in CORS_ORIGINS, or with `*` a page of that company's own shop.
 */
export class SessionCookieOrigins {
  /** CORS_ORIGINS when it is a list; null for `*`. */
  private readonly listed: readonly string[] | null;
  /** The rule, as a refused storefront is told it. */
  readonly whoMay: string;

  constructor(
    private readonly shops: ShopDirectory,
    corsOrigins: readonly string[],
  ) {
    this.listed = corsOrigins.includes("*") ? null : corsOrigins;
    this.whoMay = this.listed === null ? "only pages of the shop's own domain and its subdomains may" : "only the origins listed in CORS_ORIGINS may";
  }

  /**
   * Whether a page of `origin` may send the cookie at all (Access-Control-Allow-Credentials).
   * A preflight does not carry the body that names the shop: with `*`, every shop's page may,
   * and actsFor then decides for the cart.
   */
  async mayCarry(origin: string): Promise<boolean> {
    if (this.listed !== null) return this.listed.includes(origin);
    return (await this.shops.companyIdForOrigin(origin)) !== null;
  }

  /** Whether the cookie of a call from `origin` (undefined: the call has no Origin) acts for a cart of `companyId`. */
  async actsFor(origin: string | undefined, companyId: number): Promise<boolean> {
    if (origin === undefined) return true;
    if (this.listed !== null) return this.listed.includes(origin);
    return (await this.shops.companyIdForOrigin(origin)) === companyId;
  }
}
