import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import { findCompanyByShop, normalizeShop } from "./service.js";

interface Entry {
  companyId: number | null;
  expiresAt: number;
}

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
  private readonly entries = new Map<string, Entry>();
  private readonly hitTtlMs: number;
  private readonly missTtlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    options: ShopDirectoryOptions = {},
  ) {
    this.hitTtlMs = options.hitTtlMs ?? 60_000;
    this.missTtlMs = options.missTtlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  async companyIdFor(shop: string): Promise<number | null> {
    const key = normalizeShop(shop);
    const now = this.clock.now().getTime();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.companyId;
    const company = await findCompanyByShop(this.db, key);
    const companyId = company?.id ?? null;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { companyId, expiresAt: now + (companyId === null ? this.missTtlMs : this.hitTtlMs) });
    return companyId;
  }
}
