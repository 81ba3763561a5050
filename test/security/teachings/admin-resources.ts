import { randomBytes } from "node:crypto";
import { enableCompanyCountry } from "../../helpers/fixtures.js";
import type { HttpResponse } from "../../helpers/http.js";
import type { TeachingContext } from "./types.js";

/**
 * The owner's admin resources, made through the admin API as a company would, for the
 * teachings of the catalog, agreements, plans, media and playlists. Each carries a unique
 * name: a marker that another company's answer must not contain.
 */
export const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString("hex")}`;

async function created(ctx: TeachingContext, path: string, body: unknown): Promise<HttpResponse> {
  const response = await ctx.call("POST", path, { token: ctx.owner.token, body });
  if (response.status !== 201) throw new Error(`could not create through POST ${path}: ${response.status} ${response.text}`);
  return response;
}

export async function ownerProduct(ctx: TeachingContext): Promise<{ id: number; variantId: number; title: string; sku: string }> {
  const title = unique("Product");
  const sku = unique("SKU");
  const product = (await created(ctx, "/api/products", { product: { title, variants: [{ sku, prices: [{ country_code: "US", price: "19.99" }] }] } })).body.product;
  return { id: product.id, variantId: product.variants[0].id, title, sku };
}

export async function ownerEnrollmentPack(ctx: TeachingContext): Promise<{ id: number; title: string }> {
  const title = unique("Pack");
  const pack = (await created(ctx, "/api/enrollment_packs", { enrollment_pack: { title, price: "49.00" } })).body.enrollment_pack;
  return { id: pack.id, title };
}

export async function ownerMedia(ctx: TeachingContext): Promise<{ id: number; title: string; slug: string }> {
  const title = unique("Media");
  const media = (await created(ctx, "/api/media", { media: { title, media_type: "share" } })).body.media;
  return { id: media.id, title, slug: media.slug };
}

/** The owner's company country (a reference country it sells in), made once per country. */
export async function ownerCompanyCountry(ctx: TeachingContext, iso: string): Promise<number> {
  return (await enableCompanyCountry(ctx.db, ctx.owner.id, iso)).id;
}
