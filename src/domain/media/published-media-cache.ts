import type { Clock } from "../../platform/clock.js";
import type { SqlServiceContext } from "../../platform/context.js";
import { TtlCache } from "../../platform/ttl-cache.js";
import { getPublishedMedia, type PublishedMediaRead } from "./public-media.js";
import type { PublicMediaView } from "./schemas.js";

const MAX_ENTRIES = 10_000;
/** An answer larger than this share of the byte budget is not kept, so that at least this many of the largest fit. */
const LARGEST_ANSWER_SHARE = 64;

/**
 * A kept answer. Only the English entry is asked which languages the media has, so only it keeps
 * them, as one string (" fr de ") counted in its bytes: as each entry's array of strings, a media
 * translated into many languages (the 631 codes translations accept) held about 25 KB per entry
 * that the byte budget did not count, and an audit saw a 1 MiB cache hold 90 MB.
 */
interface Kept {
  media: PublicMediaView;
  /** The English entry's translated languages, each with a space on either side; "" in a translated one. */
  translated: string;
}

/**
 * Published media as storefronts read them, kept for a few seconds per (company, slug,
 * language served): every storefront page asks for its media, and the read was the public SDK's
 * costliest (docs/performance.md). Only published media are kept, so an unpublished one appears
 * the moment its publish_at passes. Within this process a company's entries are dropped by
 * every admin write of that company (`forgetCompany`), so a deactivation or an edit shows on the
 * next request; other instances show it within the TTL (PUBLIC_MEDIA_CACHE_TTL_MS, 0 = off).
 * A read keeps its answer only if no such write came while it was in flight: its answer may
 * predate the write. The answers held are bounded by their size (PUBLIC_MEDIA_CACHE_MAX_BYTES,
 * each counted as its JSON's bytes) as well as by their number. Concurrent misses of one
 * (company, slug, language requested) share one read: at each expiry, and after each admin
 * write of the company, every storefront page then open asked PostgreSQL the same question.
 * A reader that comes after such a write does not join a read that began before it.
 */
export class PublishedMediaCache {
  private readonly entries: TtlCache<Kept>;
  private readonly maxAnswerBytes: number;
  /** How many times each company was forgotten (absent: never). */
  private readonly generations = new Map<number, number>();
  /** The reads under way, by entryKey of the language requested. */
  private readonly reading = new Map<string, Promise<PublishedMediaRead>>();

  constructor(
    clock: Clock,
    private readonly ttlMs: number,
    maxBytes: number,
  ) {
    this.entries = new TtlCache(clock, MAX_ENTRIES, maxBytes);
    this.maxAnswerBytes = maxBytes / LARGEST_ANSWER_SHARE;
  }

  /** `language` as publicLanguage resolved it. */
  async read(ctx: SqlServiceContext, slug: string, language: string | null): Promise<PublicMediaView> {
    if (this.ttlMs === 0) return (await getPublishedMedia(ctx, slug, language)).media;
    const cached = this.cached(ctx.companyId, slug, language);
    if (cached !== undefined) return cached;
    const key = entryKey(ctx.companyId, slug, language);
    let reading = this.reading.get(key);
    if (reading === undefined) {
      reading = this.readAndKeep(ctx, slug, language);
      this.reading.set(key, reading);
      const settled = () => {
        if (this.reading.get(key) === reading) this.reading.delete(key);
      };
      reading.then(settled, settled);
    }
    return (await reading).media;
  }

  forgetCompany(companyId: number): void {
    this.generations.set(companyId, this.generationOf(companyId) + 1);
    this.entries.deleteByPrefix(`${companyId}/`);
    for (const key of this.reading.keys()) if (key.startsWith(`${companyId}/`)) this.reading.delete(key);
  }

  private async readAndKeep(ctx: SqlServiceContext, slug: string, language: string | null): Promise<PublishedMediaRead> {
    const generation = this.generationOf(ctx.companyId);
    const read = await getPublishedMedia(ctx, slug, language);
    if (this.generationOf(ctx.companyId) === generation) this.keep(ctx.companyId, slug, language, read);
    return read;
  }

  /**
   * A language has an entry of its own only when the media has a translation into it; any other
   * (a made-up tag too) is answered from the English entry, whose read says which languages the
   * media has. Keyed by the language requested, each made-up tag kept another copy of the English
   * answer (an audit filled a gigabyte with one media).
   */
  private cached(companyId: number, slug: string, language: string | null): PublicMediaView | undefined {
    const translated = language === null ? undefined : this.entries.get(entryKey(companyId, slug, language));
    if (translated !== undefined) return translated.media;
    const english = this.entries.get(entryKey(companyId, slug, null));
    if (english === undefined || (language !== null && english.translated.includes(` ${language} `))) return undefined;
    return english.media;
  }

  private keep(companyId: number, slug: string, language: string | null, read: PublishedMediaRead): void {
    const served = language !== null && read.translatedLanguages.includes(language) ? language : null;
    const translated = served === null ? ` ${read.translatedLanguages.join(" ")} ` : "";
    const bytes = Buffer.byteLength(JSON.stringify(read.media)) + translated.length;
    if (bytes > this.maxAnswerBytes) return;
    this.entries.set(entryKey(companyId, slug, served), { media: read.media, translated }, this.ttlMs, bytes);
  }

  private generationOf(companyId: number): number {
    return this.generations.get(companyId) ?? 0;
  }
}

function entryKey(companyId: number, slug: string, language: string | null): string {
  return `${companyId}/${language ?? ""}/${slug}`;
}
