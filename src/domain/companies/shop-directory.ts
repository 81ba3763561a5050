import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import { TtlCache } from "../../platform/ttl-cache.js";
import { findCompanyByShop, normalizeShop } from "./service.js";

export interface ShopDirectoryOptions {
  /** How long a known shop stays cached (a shop's domain practically never changes). */
  hitTtlMs?: number;
  /** How long an unknown shop stays cached: short, so a new company is found quickly. */
  missTtlMs?: number;
  maxEntries?: number;
}

/**
 * Which company a storefront's `svc_shop` names. Every public SDK request asks, so answers
 * are cached in process for a short while (bounded, oldest evicted first). Only the shop's
 * identity is cached: media, playlists and reps are read fresh on every request.
 */
export class ShopDirectory {
  private readonly entries: TtlCache<number | null>;
  private readonly hitTtlMs: number;
  private readonly missTtlMs: number;

  constructor(
    private readonly db: Db,
    clock: Clock,
    options: ShopDirectoryOptions = {},
  ) {
    this.hitTtlMs = options.hitTtlMs ?? 60_000;
    this.missTtlMs = options.missTtlMs ?? 5_000;
    this.entries = new TtlCache(clock, options.maxEntries ?? 10_000);
  }

  async companyIdFor(shop: string): Promise<number | null> {
    const key = normalizeShop(shop);
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const company = await findCompanyByShop(this.db, key);
    const companyId = company?.id ?? null;
    this.entries.set(key, companyId, companyId === null ? this.missTtlMs : this.hitTtlMs);
    return companyId;
  }
}
