import type { SqlTransaction } from "../../platform/db/sql.js";
import { ValidationError } from "../../platform/errors.js";
import { codeRefusal, normalizeCode } from "../catalog/discount-rules.js";
import type { LoadedDiscount } from "./cart-state.js";
import type { CartContext } from "./context.js";
import { type CartOutcome, mutateCart } from "./mutate.js";
import { NO_DISCOUNT_CODE } from "./schemas.js";

/** More codes than this on one cart is a storefront bug, not a promotion. */
const MAX_CODES_PER_CART = 10;

/**
 * Adds codes to those already applied. All or nothing: any unknown, inactive, not yet valid,
 * expired or exhausted code, or one bound to another currency than the cart's, makes the request
 * a 422 under `discount_codes` and nothing changes. Its message does not tell an inactive or not
 * yet valid code from an unknown one (codeRefusal).
 */
export function applyDiscountCodes(ctx: CartContext, cartToken: string, codes: string[]): Promise<CartOutcome> {
  const requested = requestedCodes(codes);
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    const [{ codes: applied, currency_code: cartCurrency }, rows] = await Promise.all([
      codesOfCart(sql, cart.id),
      sql.query<Pick<LoadedDiscount, "code" | "active" | "starts_at" | "ends_at" | "usage_limit" | "usage_count" | "currency_code">>(
        "SELECT code, active, starts_at, ends_at, usage_limit, usage_count, currency_code FROM discounts WHERE company_id = $1 AND code = ANY ($2::text[])",
        [cart.companyId, requested],
      ),
    ]);
    const byCode = new Map(rows.map((row) => [row.code, row]));
    const now = ctx.clock.now();
    const problems = requested.flatMap((code) => {
      const problem = codeRefusal(byCode.get(code), now, cartCurrency);
      return problem === null ? [] : [`${code} ${problem}`];
    });
    if (problems.length > 0) throw new ValidationError({ discount_codes: problems });
    const codesAfter = [...applied, ...requested.filter((code) => !applied.includes(code))];
    if (codesAfter.length > MAX_CODES_PER_CART) throw ValidationError.field("discount_codes", `a cart takes at most ${MAX_CODES_PER_CART} codes`);
    await setCodes(sql, cart.id, codesAfter);
  });
}

/** Removes codes; a code that is not applied is already removed, so it is not an error. */
export function removeDiscountCodes(ctx: CartContext, cartToken: string, codes: string[]): Promise<CartOutcome> {
  const removed = new Set(requestedCodes(codes));
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    const { codes: applied } = await codesOfCart(sql, cart.id);
    await setCodes(sql, cart.id, applied.filter((code) => !removed.has(code)));
  });
}

/** The distinct codes a request names, normalized; a request that names none is a 422. */
function requestedCodes(codes: string[]): string[] {
  const requested = [...new Set(codes.map(normalizeCode))].filter((code) => code !== "");
  // No code sent at all is a missing member; codes that are all blank name none.
  if (requested.length === 0) throw ValidationError.field("discount_codes", codes.length === 0 ? "is required" : NO_DISCOUNT_CODE);
  return requested;
}

/** The codes applied to the (locked) cart, and its currency, which a code bound to one must match. */
async function codesOfCart(sql: SqlTransaction, cartId: number): Promise<{ codes: string[]; currency_code: string }> {
  const [row] = await sql.query<{ codes: string[]; currency_code: string }>(
    "SELECT COALESCE(c.discount_codes, '{}') AS codes, ct.currency_code FROM carts c JOIN countries ct ON ct.id = c.country_id WHERE c.id = $1",
    [cartId],
  );
  if (row === undefined) throw new Error("unreachable: the cart is locked by this transaction");
  return row;
}

async function setCodes(sql: SqlTransaction, cartId: number, codes: string[]): Promise<void> {
  await sql.query("UPDATE carts SET discount_codes = $2::text[] WHERE id = $1", [cartId, codes]);
}
