import type { Clock } from "../../platform/clock.js";
import type { SqlServiceContext } from "../../platform/context.js";
import { TtlCache } from "../../platform/ttl-cache.js";
import { getPublishedMedia } from "./public-media.js";
import type { PublicMediaView } from "./schemas.js";

/**
 * Published media as storefronts read them, kept for a few seconds per (company, slug,
 * language): every storefront page asks for its media, and the read was the public SDK's
 * costliest (docs/performance.md). Only published media are kept, so an unpublished one appears
 * the moment its publish_at passes. Within this process a company's entries are dropped by
 * every admin write of that company (`forgetCompany`), so a deactivation or an edit shows on the
 * next request; other instances show it within the TTL (PUBLIC_MEDIA_CACHE_TTL_MS, 0 = off).
 * A read keeps its answer only if no such write came while it was in flight: its answer may
 * predate the write.
 */
export class PublishedMediaCache {
  private readonly entries: TtlCache<PublicMediaView>;
  /** How many times each company was forgotten (absent: never). */
  private readonly generations = new Map<number, number>();

  constructor(
    clock: Clock,
    private readonly ttlMs: number,
    maxEntries = 10_000,
  ) {
    this.entries = new TtlCache(clock, maxEntries);
  }

  /** `language` as publicLanguage resolved it, so one language is one entry however it was asked for. */
  async read(ctx: SqlServiceContext, slug: string, language: string | null): Promise<PublicMediaView> {
    if (this.ttlMs === 0) return getPublishedMedia(ctx, slug, language);
    const key = `${ctx.companyId}/${language}/${slug}`;
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const generation = this.generationOf(ctx.companyId);
    const media = await getPublishedMedia(ctx, slug, language);
    if (this.generationOf(ctx.companyId) === generation) this.entries.set(key, media, this.ttlMs);
    return media;
  }

  forgetCompany(companyId: number): void {
    this.generations.set(companyId, this.generationOf(companyId) + 1);
    this.entries.deleteByPrefix(`${companyId}/`);
  }

  private generationOf(companyId: number): number {
    return this.generations.get(companyId) ?? 0;
  }
}
