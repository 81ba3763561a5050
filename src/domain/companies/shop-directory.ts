import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import { parseOrigin } from "../../platform/http/origin.js";
import { TtlCache } from "../../platform/ttl-cache.js";
import { findCompanyByShop, normalizeShop } from "./service.js";

interface ShopDirectoryOptions {
  /** Whether an http origin can be a shop's: outside production, where a storefront runs on http://demo.localhost:3000. */
  allowHttpOrigins?: boolean;
  /** How long a known shop stays cached (a shop's domain practically never changes). */
  hitTtlMs?: number;
  /** How long an unknown shop stays cached: short, so a new company is found quickly. */
  missTtlMs?: number;
  maxEntries?: number;
}

/**
 * Which company a storefront's `svc_shop` names, and which company's shop a browser origin is.
 * Every public SDK request and every cart request from a browser asks, so answers are cached in
 * process for a short while (bounded, oldest evicted first). Only the shop's identity is cached
 * here: playlists and reps are read fresh on every request, published media through their own
 * short cache (domain/media/published-media-cache.ts).
 */
export class ShopDirectory {
  // Keyed by normalized shop name, or by origin: an origin holds "://", which no shop name
  // keeps (normalizeShop drops everything from the first ":" or "/"), so the two never collide.
  private readonly entries: TtlCache<number | null>;
  private readonly allowHttpOrigins: boolean;
  private readonly hitTtlMs: number;
  private readonly missTtlMs: number;

  constructor(
    private readonly db: Db,
    clock: Clock,
    options: ShopDirectoryOptions = {},
  ) {
    this.allowHttpOrigins = options.allowHttpOrigins ?? false;
    this.hitTtlMs = options.hitTtlMs ?? 60_000;
    this.missTtlMs = options.missTtlMs ?? 5_000;
    this.entries = new TtlCache(clock, options.maxEntries ?? 10_000);
  }

  async companyIdFor(shop: string): Promise<number | null> {
    const key = normalizeShop(shop);
    return this.cached(key, async () => (await findCompanyByShop(this.db, key))?.id ?? null);
  }

  /**
   * The company whose shop a page of `origin` belongs to: its host is the shop's domain or a
   * subdomain of it (`https://shop.acme.example.com` for `acme.example.com`, or its fully
   * qualified `https://shop.acme.example.com.`), on any port, over https (http too when allowed).
   * When shop domains nest, the longest wins: `eu.acme.example.com` and its subdomains are that
   * company's pages, not `acme.example.com`'s. Null for an origin that is no shop's, one not
   * written as a browser serializes it, and `null`, the origin of sandboxed frames and data:
   * URLs, which any page can create.
   */
  async companyIdForOrigin(origin: string): Promise<number | null> {
    const parsed = parseOrigin(origin);
    if (parsed === null || parsed.serialized !== origin) return null;
    if (parsed.scheme === "http" && !this.allowHttpOrigins) return null;
    return this.cached(origin, async () => {
      const shops = await this.db.company.findMany({ where: { shop_domain: { in: domainsAround(normalizeShop(parsed.hostname)) } }, select: { id: true, shop_domain: true } });
      const [nearest] = shops.sort((a, b) => b.shop_domain.length - a.shop_domain.length);
      return nearest?.id ?? null;
    });
  }

  private async cached(key: string, look: () => Promise<number | null>): Promise<number | null> {
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const companyId = await look();
    this.entries.set(key, companyId, companyId === null ? this.missTtlMs : this.hitTtlMs);
    return companyId;
  }
}

/** The host and every domain it is a subdomain of: shop.acme.example.com, acme.example.com, example.com, com. */
function domainsAround(host: string): string[] {
  const labels = host.split(".");
  return labels.map((_, index) => labels.slice(index).join("."));
}
