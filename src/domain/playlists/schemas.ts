import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { instantInput, int32Id, timestamp, visibleName } from "../../platform/http/schemas.js";
import { publicEnrollmentPackSchema, publicMediaSummary, publicProductSchema, slugSchema } from "../media/schemas.js";
import { metafieldSchema } from "../metafields/schemas.js";
import { requestMetadataSchema, responseMetadataSchema } from "../tracking/schemas.js";

const ids = z.array(int32Id);

const playlistFields = {
  title: visibleName(255),
  slug: slugSchema.nullable().optional().describe("Generated from the title when omitted or null on create; left as it is when omitted or null on update; custom_slug says which"),
  active: z.boolean().optional(),
  publish_at: instantInput.nullable().optional().describe("Not public before this instant"),
  media_ids: ids.max(500).describe("The playlist's media, in order; each at most once"),
  product_ids: ids.max(100).optional(),
  enrollment_pack_ids: ids.max(100).optional(),
};

export const playlistCreateBody = z.object({ playlist: z.object(playlistFields) });
export const playlistUpdateBody = z.object({ playlist: z.object(playlistFields).partial() });
export type PlaylistCreateInput = z.infer<typeof playlistCreateBody>["playlist"];
export type PlaylistUpdateInput = z.infer<typeof playlistUpdateBody>["playlist"];

export const playlistListQuery = paginationQuery();

export const playlistView = z
  .object({
    id: z.number().int(),
    title: z.string(),
    slug: z.string(),
    custom_slug: z.boolean(),
    active: z.boolean(),
    publish_at: timestamp.nullable(),
    media_ids: z.array(z.number().int()),
    items: z.array(
      z.object({
        id: z.number().int(),
        position: z.number().int(),
        media: z.object({ id: z.number().int(), slug: z.string(), title: z.string(), active: z.boolean(), publish_at: timestamp.nullable() }),
      }),
    ),
    product_ids: z.array(z.number().int()),
    enrollment_pack_ids: z.array(z.number().int()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Playlist" });

export type PlaylistView = z.infer<typeof playlistView>;

// Public SDK (`library`)

const libraryItemSchema = z
  .object({
    id: z.number().int(),
    position: z.number().int().describe("0-based place among the items shown (published media only)"),
    media_id: z.number().int(),
    media_slug: z.string(),
    media: publicMediaSummary,
  })
  .meta({ id: "LibraryItem" });

const libraryView = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    title: z.string(),
    library_items: z.array(libraryItemSchema).describe("Published media only, in playlist order"),
    products: z.array(publicProductSchema),
    enrollment_packs: z.array(publicEnrollmentPackSchema),
    metafields: z.array(metafieldSchema).describe("The company's metafields on this playlist, by namespace and key"),
  })
  .meta({ id: "Library" });

export type LibraryView = z.infer<typeof libraryView>;

export const publicPlaylistBySlugBody = z.object({ metadata: requestMetadataSchema });
export const publicPlaylistBody = z.object({ library: z.object({ id: z.string().min(1).max(100).describe("The playlist's slug") }), metadata: requestMetadataSchema });
export const publicLibraryResponse = z.object({ status: z.literal(200), library: libraryView, metadata: responseMetadataSchema });
