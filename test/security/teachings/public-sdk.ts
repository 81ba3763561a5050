import { randomBytes } from "node:crypto";
import { createMediaViaApi, createPlaylistViaApi } from "../../helpers/media.js";
import { createRep, metadataFor } from "../../helpers/public-sdk.js";
import type { TeachingContext, Teachings } from "./types.js";

const unique = () => randomBytes(4).toString("hex");

/** A published media of the owner's, made through the admin API. */
async function media(ctx: TeachingContext) {
  return createMediaViaApi(ctx.call, ctx.owner.token, { title: "Intro", slug: `intro-${unique()}`, kind: "video", video_url: "https://cdn.example.com/intro.mp4" });
}

async function playlist(ctx: TeachingContext) {
  return createPlaylistViaApi(ctx.call, ctx.owner.token, { title: "Onboarding", slug: `onboarding-${unique()}`, media_ids: [(await media(ctx)).id] });
}

export const publicSdkTeachings: Teachings = {
  "POST /api/public/v2025-06/session": {
    async setup(ctx) {
      return { body: { metadata: { svc_shop: ctx.owner.shop, svc_locale: "en_US" } } };
    },
  },
  "POST /api/public/v2025-06/events/leads/capture": {
    async setup(ctx) {
      const rep = await createRep(ctx.db, ctx.owner.id);
      return {
        body: {
          lead: { message: "Call me about the starter kit", contact: { name: "Ada", email: "ada@example.com", phone: "+1 555 010 2030" } },
          page: { url: "https://shop.example.com/kits", title: "Kits" },
          metadata: metadataFor(ctx.owner.shop, { svc_locale: "en_US", attribution: { username: rep.username } }),
        },
      };
    },
  },
  "POST /api/public/v2025-06/events/pages/visit": {
    async setup(ctx) {
      return { body: { page: { url: "https://shop.example.com/", title: "Home" }, metadata: metadataFor(ctx.owner.shop) } };
    },
  },
  "POST /api/public/v2025-06/affiliates/lookup": {
    async setup(ctx) {
      const rep = await createRep(ctx.db, ctx.owner.id);
      return { body: { metadata: metadataFor(ctx.owner.shop, { attribution: { share_guid: rep.share_guid } }) } };
    },
  },
  "POST /api/public/v2025-06/media/{slug}": {
    async setup(ctx) {
      return { params: { slug: (await media(ctx)).slug }, body: { metadata: metadataFor(ctx.owner.shop, { svc_locale: "en_US" }) } };
    },
  },
  "POST /api/public/v2025-06/media": {
    async setup(ctx) {
      return { body: { media: { id: (await media(ctx)).slug }, metadata: metadataFor(ctx.owner.shop) } };
    },
  },
  "POST /api/public/v2025-06/playlists/{slug}": {
    async setup(ctx) {
      return { params: { slug: (await playlist(ctx)).slug }, body: { metadata: metadataFor(ctx.owner.shop) } };
    },
  },
  "POST /api/public/v2025-06/playlists": {
    async setup(ctx) {
      return { body: { library: { id: (await playlist(ctx)).slug }, metadata: metadataFor(ctx.owner.shop) } };
    },
  },
};
