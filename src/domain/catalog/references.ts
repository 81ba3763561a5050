import type { ServiceContext } from "../../platform/context.js";
import { FieldErrorCollector, type FieldErrors } from "../../platform/errors.js";

/** Each id once, in the order first sent; a member that was not sent stays undefined. */
export const uniqueIds = (ids: number[] | undefined) => (ids === undefined ? undefined : [...new Set(ids)]);

/** The ids among `wanted` that `found` lacks. */
export function missingIds(wanted: number[], found: { id: number }[]): number[] {
  const known = new Set(found.map((row) => row.id));
  return wanted.filter((id) => !known.has(id));
}

/**
 * The products (live ones) and enrollment packs a body links by `product_ids` and
 * `enrollment_pack_ids` must be the company's own: the errors, under `<path>.product_ids` and
 * `<path>.enrollment_pack_ids`, name every id that is not.
 */
export async function productAndPackErrors(
  ctx: ServiceContext,
  input: { product_ids?: number[] | undefined; enrollment_pack_ids?: number[] | undefined },
  path: string,
): Promise<FieldErrors> {
  const company_id = ctx.companyId;
  const productIds = uniqueIds(input.product_ids) ?? [];
  const packIds = uniqueIds(input.enrollment_pack_ids) ?? [];
  const [products, packs] = await Promise.all([
    productIds.length > 0 ? ctx.db.product.findMany({ where: { id: { in: productIds }, company_id, deleted_at: null }, select: { id: true } }) : [],
    packIds.length > 0 ? ctx.db.enrollmentPack.findMany({ where: { id: { in: packIds }, company_id }, select: { id: true } }) : [],
  ]);
  const errors = new FieldErrorCollector();
  const foreignProducts = missingIds(productIds, products);
  if (foreignProducts.length > 0) errors.add(`${path}.product_ids`, `contains ids that are not products of this company: ${foreignProducts.join(", ")}`);
  const foreignPacks = missingIds(packIds, packs);
  if (foreignPacks.length > 0) errors.add(`${path}.enrollment_pack_ids`, `contains ids that are not enrollment packs of this company: ${foreignPacks.join(", ")}`);
  return errors.fieldErrors;
}
