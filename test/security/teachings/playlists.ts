import { ownerEnrollmentPack, ownerMedia, ownerProduct, unique } from "./admin-resources.js";
import type { TeachingContext, Teachings } from "./types.js";

/** A playlist of the owner's with two of its media. */
async function ownerPlaylist(ctx: TeachingContext): Promise<{ id: number; title: string; slug: string; mediaTitle: string }> {
  const [first, second] = [await ownerMedia(ctx), await ownerMedia(ctx)];
  const title = unique("Playlist");
  const response = await ctx.call("POST", "/api/playlists", { token: ctx.owner.token, body: { playlist: { title, media_ids: [first.id, second.id] } } });
  if (response.status !== 201) throw new Error(`could not create a playlist: ${response.status} ${response.text}`);
  return { id: response.body.playlist.id, title, slug: response.body.playlist.slug, mediaTitle: first.title };
}

export const playlistTeachings: Teachings = {
  "GET /api/playlists": {
    async setup(ctx) {
      const playlist = await ownerPlaylist(ctx);
      return { query: { per_page: "100" }, markers: [playlist.title, playlist.slug, playlist.mediaTitle] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/playlists": {
    async setup(ctx) {
      return {
        body: {
          playlist: {
            title: unique("Onboarding"),
            media_ids: [(await ownerMedia(ctx)).id],
            product_ids: [(await ownerProduct(ctx)).id],
            enrollment_pack_ids: [(await ownerEnrollmentPack(ctx)).id],
          },
        },
      };
    },
    isolation: { expect: "foreign_reference", fields: ["playlist.media_ids", "playlist.product_ids", "playlist.enrollment_pack_ids"] },
  },
  "GET /api/playlists/{id}": {
    async setup(ctx) {
      const playlist = await ownerPlaylist(ctx);
      return { params: { id: String(playlist.id) }, markers: [playlist.title, playlist.slug, playlist.mediaTitle] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/playlists/{id}": {
    async setup(ctx) {
      const playlist = await ownerPlaylist(ctx);
      return {
        params: { id: String(playlist.id) },
        body: { playlist: { title: unique("Reordered"), slug: unique("reordered").toLowerCase(), media_ids: [(await ownerMedia(ctx)).id] } },
        markers: [playlist.title, playlist.slug, playlist.mediaTitle],
      };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/playlists/{id}": {
    async setup(ctx) {
      const playlist = await ownerPlaylist(ctx);
      return { params: { id: String(playlist.id) }, markers: [playlist.title, playlist.slug] };
    },
    isolation: { expect: "not_found" },
  },
};
