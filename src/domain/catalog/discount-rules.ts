import type { Prisma } from "../../generated/prisma/client.js";

/** Codes are case-insensitive: stored and compared upper-cased. */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

/** Why a code cannot be applied now, or null when it can. */
export function discountProblem(
  discount: Pick<Prisma.DiscountGetPayload<object>, "active" | "starts_at" | "ends_at" | "usage_limit" | "usage_count"> | undefined,
  now: Date,
): string | null {
  if (discount === undefined) return "is not a valid code";
  if (!discount.active) return "is not active";
  if (discount.starts_at !== null && discount.starts_at > now) return "is not valid yet";
  if (discount.ends_at !== null && discount.ends_at <= now) return "has expired";
  if (discount.usage_limit !== null && discount.usage_count >= discount.usage_limit) return "has reached its usage limit";
  return null;
}
