import { createUser } from "../../../src/domain/users/service.js";
import { ownerEnrollmentPack, ownerMedia, ownerProduct, unique } from "./admin-resources.js";
import type { TeachingContext, Teachings } from "./types.js";

/** A rep of the owner's, as the author a media may name. */
async function ownerUser(ctx: TeachingContext): Promise<number> {
  const user = await createUser(ctx.db, { companyId: ctx.owner.id, email: `${unique("rep")}@example.com`, role: "rep" });
  return user.id;
}

export const mediaTeachings: Teachings = {
  "GET /api/media": {
    async setup(ctx) {
      const media = await ownerMedia(ctx);
      return { query: { per_page: "100", media_type: "share" }, markers: [media.title, media.slug] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/media": {
    async setup(ctx) {
      return {
        body: {
          media: {
            title: unique("Launch video"),
            media_type: "training",
            user_id: await ownerUser(ctx),
            product_ids: [(await ownerProduct(ctx)).id],
            enrollment_pack_ids: [(await ownerEnrollmentPack(ctx)).id],
          },
        },
      };
    },
    isolation: { expect: "foreign_reference", fields: ["media.user_id", "media.product_ids", "media.enrollment_pack_ids"] },
  },
  "GET /api/media/{id}": {
    async setup(ctx) {
      const media = await ownerMedia(ctx);
      return { params: { id: String(media.id) }, query: { language_iso: "fr" }, markers: [media.title, media.slug] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/media/{id}": {
    async setup(ctx) {
      const media = await ownerMedia(ctx);
      return {
        params: { id: String(media.id) },
        body: { media: { title: unique("Renamed"), slug: unique("renamed").toLowerCase(), translations: { fr: { title: "Vidéo" } }, product_ids: [(await ownerProduct(ctx)).id] } },
        markers: [media.title, media.slug],
      };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/media/{id}": {
    async setup(ctx) {
      const media = await ownerMedia(ctx);
      return { params: { id: String(media.id) }, markers: [media.title, media.slug] };
    },
    isolation: { expect: "not_found" },
  },
};
