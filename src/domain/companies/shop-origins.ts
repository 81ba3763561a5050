import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import { TtlCache } from "../../platform/ttl-cache.js";
import { normalizeShop } from "./service.js";

/** How long an answer about a host is reused: a known shop's for a minute, an unknown host's briefly, so a new company's shop works soon. */
const SHOP_HOST_TTL_MS = 60_000;
const OTHER_HOST_TTL_MS = 5_000;
const MAX_HOSTS = 10_000;

export interface ShopOriginsOptions {
  /** Whether an http origin can be a shop's: outside production, where a storefront runs on http://demo.localhost:3000. */
  allowHttp: boolean;
}

/**
 * Which browser origins are a shop's own: their host is a company's shop domain or a subdomain
 * of one (`https://shop.acme.example.com` for `acme.example.com`, or its fully qualified
 * `https://shop.acme.example.com.`), over https (http too when allowed). Never `null`, the origin of sandboxed frames and data: URLs, which any page can
 * create. Answers are cached per host for a short while (bounded, oldest evicted first).
 */
export class ShopOrigins {
  private readonly hosts: TtlCache<boolean>;

  constructor(
    private readonly db: Db,
    clock: Clock,
    private readonly options: ShopOriginsOptions,
  ) {
    this.hosts = new TtlCache(clock, MAX_HOSTS);
  }

  async includes(origin: string): Promise<boolean> {
    const host = this.hostOf(origin);
    if (host === null) return false;
    const cached = this.hosts.get(host);
    if (cached !== undefined) return cached;
    const shop = await this.db.company.findFirst({ where: { shop_domain: { in: domainsAround(host) } }, select: { id: true } });
    this.hosts.set(host, shop !== null, shop === null ? OTHER_HOST_TTL_MS : SHOP_HOST_TTL_MS);
    return shop !== null;
  }

  /** The host of a serialized origin of an accepted scheme, as a shop is named (a final dot dropped); null for anything else (`null` included). */
  private hostOf(origin: string): string | null {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return null;
    }
    if (url.origin !== origin) return null;
    return url.protocol === "https:" || (url.protocol === "http:" && this.options.allowHttp) ? normalizeShop(url.hostname) : null;
  }
}

/** The host and every domain it is a subdomain of: shop.acme.example.com, acme.example.com, example.com, com. */
function domainsAround(host: string): string[] {
  const labels = host.split(".");
  return labels.map((_, index) => labels.slice(index).join("."));
}
