import type { Prisma } from "../../generated/prisma/client.js";

/** Codes are case-insensitive: stored and compared upper-cased. */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

type DiscountValidity = Pick<Prisma.DiscountGetPayload<object>, "active" | "starts_at" | "ends_at" | "usage_limit" | "usage_count" | "currency_code">;

const UNKNOWN_CODE = "is not a valid code";

/** Why a code cannot be applied now to a cart in `cartCurrency`, or null when it can. */
export function discountProblem(discount: DiscountValidity | undefined, now: Date, cartCurrency: string): string | null {
  if (discount === undefined) return UNKNOWN_CODE;
  if (!discount.active) return "is not active";
  if (discount.starts_at !== null && discount.starts_at > now) return "is not valid yet";
  if (discount.ends_at !== null && discount.ends_at <= now) return "has expired";
  if (discount.usage_limit !== null && discount.usage_count >= discount.usage_limit) return "has reached its usage limit";
  // Said as it is, not as an unknown code: the shopper holds a real code for another market.
  if (discount.currency_code !== null && discount.currency_code !== cartCurrency) return `is only valid for carts in ${discount.currency_code}`;
  return null;
}

/**
 * What a shopper applying a code is told, or null when it applies. A switched-off code (staff,
 * internal) and one not released yet answer as an unknown one: saying so told anyone guessing
 * codes that they exist. An expired or exhausted code was public: it keeps its own message.
 */
export function codeRefusal(discount: DiscountValidity | undefined, now: Date, cartCurrency: string): string | null {
  const unreleased = discount !== undefined && (!discount.active || (discount.starts_at !== null && discount.starts_at > now));
  return unreleased ? UNKNOWN_CODE : discountProblem(discount, now, cartCurrency);
}
