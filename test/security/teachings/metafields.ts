import { ownerMedia, unique } from "./admin-resources.js";
import type { TeachingContext, Teachings } from "./types.js";

/** A metafield on one of the owner's media, whose value is its marker. */
async function ownerMetafield(ctx: TeachingContext): Promise<{ id: number; value: string }> {
  const value = unique("Value");
  const metafield = { owner_type: "media", owner_id: (await ownerMedia(ctx)).id, namespace: "storefront", key: "badge", value };
  const response = await ctx.call("POST", "/api/metafields", { token: ctx.owner.token, body: { metafield } });
  if (response.status !== 201) throw new Error(`could not create a metafield: ${response.status} ${response.text}`);
  return { id: response.body.metafield.id, value };
}

export const metafieldTeachings: Teachings = {
  "GET /api/metafields": {
    async setup(ctx) {
      const metafield = await ownerMetafield(ctx);
      return { query: { per_page: "100" }, markers: [metafield.value] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/metafields": {
    async setup(ctx) {
      return { body: { metafield: { owner_type: "media", owner_id: (await ownerMedia(ctx)).id, namespace: "storefront", key: "badge", value: unique("Value") } } };
    },
    isolation: { expect: "foreign_reference", fields: ["metafield.owner_id"] },
  },
  "GET /api/metafields/{id}": {
    async setup(ctx) {
      const metafield = await ownerMetafield(ctx);
      return { params: { id: String(metafield.id) }, markers: [metafield.value] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/metafields/{id}": {
    async setup(ctx) {
      const metafield = await ownerMetafield(ctx);
      return { params: { id: String(metafield.id) }, body: { metafield: { value: unique("Changed") } }, markers: [metafield.value] };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/metafields/{id}": {
    async setup(ctx) {
      const metafield = await ownerMetafield(ctx);
      return { params: { id: String(metafield.id) }, markers: [metafield.value] };
    },
    isolation: { expect: "not_found" },
  },
};
