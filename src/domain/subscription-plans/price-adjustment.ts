import type { Prisma } from "../../generated/prisma/client.js";
import type { PriceAdjustment } from "../carts/totals.js";
import { decimalText, unboundAmountIn } from "../catalog/amounts.js";

// A plan's price adjustment as the totals engine takes it, for a cart line and a subscription
// order alike: one plan, one unit price, wherever it is priced.

export interface AdjustingPlan {
  price_adjustment_type: string | null;
  price_adjustment_amount: Prisma.Decimal | null;
}

/**
 * A fixed amount is bound to no currency: it is rounded half-even to the priced currency's
 * places. A type the API never writes (only a hand-edited row has one) adjusts nothing rather
 * than being read as either kind.
 */
export function priceAdjustmentOf(plan: AdjustingPlan, decimalPlaces: number): PriceAdjustment | null {
  const amount = plan.price_adjustment_amount;
  if (amount === null) return null;
  if (plan.price_adjustment_type === "percentage") return { type: "percentage", amount: amount.toFixed() };
  if (plan.price_adjustment_type === "fixed_amount") return { type: "fixed_amount", amount: unboundAmountIn(amount, decimalPlaces) };
  return null;
}

/**
 * The `display_*` twin of a plan's adjustment: "12.5%" for a percentage; for a fixed amount
 * plain decimal text with at least two fraction digits ("5.00", "1.005") and no currency
 * symbol, since a plan is bound to no currency (each cart or order it prices gives one). A type
 * the API never writes adjusts nothing, so it says nothing either.
 */
export function priceAdjustmentDisplay(plan: AdjustingPlan): string | null {
  const amount = plan.price_adjustment_amount;
  if (amount === null) return null;
  if (plan.price_adjustment_type === "percentage") return `${decimalText(amount, 0)}%`;
  if (plan.price_adjustment_type === "fixed_amount") return decimalText(amount, 2);
  return null;
}
