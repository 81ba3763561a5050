import type { ServiceContext } from "../../platform/context.js";
import { NotFoundError } from "../../platform/errors.js";
import {
  enrollmentPacksJsonSql,
  PUBLIC_MEDIA_SUMMARY_COLUMNS,
  type PublicMediaSummaryRow,
  productsJsonSql,
  publishedSql,
  toPublicMediaSummary,
  translationJoin,
} from "../media/public-media.js";
import { metafieldsJsonSql } from "../metafields/public-json.js";
import type { LibraryView } from "./schemas.js";

interface PlaylistRow {
  id: number;
  slug: string;
  title: string;
  products: LibraryView["products"];
  enrollment_packs: LibraryView["enrollment_packs"];
  metafields: LibraryView["metafields"];
}

type ItemRow = PublicMediaSummaryRow & { item_id: number };

/**
 * A published playlist with its published media in order: two indexed statements (the
 * playlist by (company_id, slug), then its items with their media's summaries, translated). An
 * item's media is a summary of a few short columns, so a playlist's answer stays small at its
 * 500 media; with the full public media object (every language's subtitles, description,
 * metafields) it reached 495 MB and eight concurrent reads ran the server out of memory.
 */
export async function getPublishedLibrary(ctx: ServiceContext, slug: string, language: string | null): Promise<LibraryView> {
  const now = ctx.clock.now();
  const playlists = await ctx.db.$queryRaw<PlaylistRow[]>`
    SELECT pl.id, pl.slug, pl.title, ${productsJsonSql("pl")} AS products, ${enrollmentPacksJsonSql("pl")} AS enrollment_packs,
           ${metafieldsJsonSql("playlist", "pl")} AS metafields
      FROM playlists pl
     WHERE pl.company_id = ${ctx.companyId} AND pl.slug = ${slug} AND ${publishedSql("pl", now)}`;
  const playlist = playlists[0];
  if (!playlist) throw new NotFoundError("Playlist not found");
  const items = await ctx.db.$queryRaw<ItemRow[]>`
    SELECT i.id AS item_id, ${PUBLIC_MEDIA_SUMMARY_COLUMNS}
      FROM playlist_items i
      JOIN media m ON m.id = i.media_id ${translationJoin(language)}
     WHERE i.playlist_id = ${playlist.id} AND m.company_id = ${ctx.companyId} AND ${publishedSql("m", now)}
     ORDER BY i.position`;
  return {
    id: playlist.id,
    slug: playlist.slug,
    title: playlist.title,
    // The place among the items shown: unpublished media are left out, and a storefront may index by it.
    library_items: items.map((item, index) => ({
      id: item.item_id,
      position: index,
      media_id: item.id,
      media_slug: item.slug,
      media: toPublicMediaSummary(item),
    })),
    products: playlist.products,
    enrollment_packs: playlist.enrollment_packs,
    metafields: playlist.metafields,
  };
}
