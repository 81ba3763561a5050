import { ValidationError } from "../../platform/errors.js";
import type { CartContext } from "./context.js";
import { discountProblem, normalizeCode } from "./discount-rules.js";
import { type CartOutcome, mutateCartWithPrisma } from "./mutate.js";

/** More codes than this on one cart is a storefront bug, not a promotion. */
export const MAX_CODES_PER_CART = 10;

/**
 * Adds codes to those already applied. All or nothing: any unknown, inactive, not yet valid,
 * expired or exhausted code makes the request a 422 under `discount_codes` and nothing changes.
 */
export function applyDiscountCodes(ctx: CartContext, cartToken: string, codes: string[]): Promise<CartOutcome> {
  const requested = [...new Set(codes.map(normalizeCode))].filter((code) => code !== "");
  if (requested.length === 0) throw ValidationError.field("discount_codes", "is required");
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const { discount_codes: applied } = await tx.cart.findUniqueOrThrow({ where: { id: cart.id }, select: { discount_codes: true } });
    const rows = await tx.discount.findMany({ where: { company_id: cart.companyId, code: { in: requested } } });
    const byCode = new Map(rows.map((row) => [row.code, row]));
    const now = ctx.clock.now();
    const problems = requested.flatMap((code) => {
      const problem = discountProblem(byCode.get(code), now);
      return problem === null ? [] : [`${code} ${problem}`];
    });
    if (problems.length > 0) throw new ValidationError({ discount_codes: problems });
    const codesAfter = [...applied, ...requested.filter((code) => !applied.includes(code))];
    if (codesAfter.length > MAX_CODES_PER_CART) throw ValidationError.field("discount_codes", `a cart takes at most ${MAX_CODES_PER_CART} codes`);
    await tx.cart.update({ where: { id: cart.id }, data: { discount_codes: codesAfter } });
  });
}

/** Removes codes; a code that is not applied is already removed, so it is not an error. */
export function removeDiscountCodes(ctx: CartContext, cartToken: string, codes: string[]): Promise<CartOutcome> {
  const removed = new Set(codes.map(normalizeCode));
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const { discount_codes: applied } = await tx.cart.findUniqueOrThrow({ where: { id: cart.id }, select: { discount_codes: true } });
    await tx.cart.update({ where: { id: cart.id }, data: { discount_codes: applied.filter((code) => !removed.has(code)) } });
  });
}
