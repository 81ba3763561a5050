import type { Clock } from "../../platform/clock.js";
import type { SqlServiceContext } from "../../platform/context.js";
import { TtlCache } from "../../platform/ttl-cache.js";
import { getPublishedMedia } from "./public-media.js";
import type { PublicMediaView } from "./schemas.js";
import { languageOf } from "./service.js";

/**
 * Published media as storefronts read them, kept for a few seconds per (company, slug,
 * language): every storefront page asks for its media, and the read was the public SDK's
 * costliest (docs/performance.md). Only published media are kept, so an unpublished one appears
 * the moment its publish_at passes. Within this process a company's entries are dropped by
 * every admin write of that company (`forgetCompany`), so a deactivation or an edit shows on the
 * next request; other instances show it within the TTL (PUBLIC_MEDIA_CACHE_TTL_MS, 0 = off).
 */
export class PublishedMediaCache {
  private readonly entries: TtlCache<PublicMediaView>;

  constructor(
    clock: Clock,
    private readonly ttlMs: number,
    maxEntries = 10_000,
  ) {
    this.entries = new TtlCache(clock, maxEntries);
  }

  async read(ctx: SqlServiceContext, slug: string, locale: string | null | undefined): Promise<PublicMediaView> {
    if (this.ttlMs === 0) return getPublishedMedia(ctx, slug, locale);
    const key = `${ctx.companyId}/${languageOf(locale)}/${slug}`;
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const media = await getPublishedMedia(ctx, slug, locale);
    this.entries.set(key, media, this.ttlMs);
    return media;
  }

  forgetCompany(companyId: number): void {
    this.entries.deleteByPrefix(`${companyId}/`);
  }
}
