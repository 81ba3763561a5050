// The rules of a subscription plan that involve more than one member, as pure functions over
// the plan as it would be stored (an update's members merged over the current plan).
import { FieldErrorCollector, type FieldErrors } from "../../platform/errors.js";
import { parseDecimalToMinor } from "../../platform/money.js";

/** Stored as numeric(14,4): ten digits before the point, four after. */
export const PRICE_ADJUSTMENT_DECIMALS = 4;
export const PRICE_ADJUSTMENT_MAX = 9_999_999_999;
const HUNDRED_PERCENT = parseDecimalToMinor("100", PRICE_ADJUSTMENT_DECIMALS);

export interface PlanSettings {
  trial_period: number | null;
  trial_period_unit: string | null;
  allow_max_billing_cycles: boolean;
  max_billing_cycles: number | null;
  price_adjustment_type: string | null;
  /** A decimal string such as "12.5". */
  price_adjustment_amount: string | null;
}

/** Field errors (paths under `subscription_plan`) for a plan whose members contradict each other. */
export function planSettingErrors(plan: PlanSettings): FieldErrors {
  const errors = new FieldErrorCollector();
  const add = (member: string, message: string) => errors.add(`subscription_plan.${member}`, message);
  if (plan.trial_period !== null && plan.trial_period_unit === null) add("trial_period_unit", "is required when trial_period is set");
  if (plan.allow_max_billing_cycles && plan.max_billing_cycles === null) add("max_billing_cycles", "is required when allow_max_billing_cycles is true");
  if (plan.price_adjustment_type !== null && plan.price_adjustment_amount === null) add("price_adjustment_amount", "is required when price_adjustment_type is set");
  if (plan.price_adjustment_type === null && plan.price_adjustment_amount !== null) add("price_adjustment_type", "is required when price_adjustment_amount is set");
  if (
    plan.price_adjustment_type === "percentage" &&
    plan.price_adjustment_amount !== null &&
    parseDecimalToMinor(plan.price_adjustment_amount, PRICE_ADJUSTMENT_DECIMALS) > HUNDRED_PERCENT
  ) {
    add("price_adjustment_amount", "must be at most 100 for a percentage");
  }
  return errors.fieldErrors;
}
