// The rules of a subscription plan that involve more than one member, as pure functions over
// the plan as it would be stored (an update's members merged over the current plan).
import { FieldErrorCollector, type FieldErrors } from "../../platform/errors.js";
import { parseDecimalToMinor } from "../../platform/money.js";
import { isUnboundAmount, MAX_UNBOUND_DECIMAL_PLACES } from "../catalog/amounts.js";

/** Stored as numeric(14,4): ten digits before the point, four after (a percentage uses all four). */
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

interface PlanSettingOptions {
  /**
   * An update that sends neither adjustment member keeps the stored adjustment as it is: a plan
   * stored before fixed amounts were limited to 3 decimals stays editable.
   */
  keepsStoredAdjustment?: boolean;
}

/** Field errors (paths under `subscription_plan`) for a plan whose members contradict each other. */
export function planSettingErrors(plan: PlanSettings, { keepsStoredAdjustment = false }: PlanSettingOptions = {}): FieldErrors {
  const errors = new FieldErrorCollector();
  const add = (member: string, message: string) => errors.add(`subscription_plan.${member}`, message);
  if (plan.trial_period !== null && plan.trial_period_unit === null) add("trial_period_unit", "is required when trial_period is set");
  if (plan.trial_period === null && plan.trial_period_unit !== null) add("trial_period", "is required when trial_period_unit is set");
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
  if (
    !keepsStoredAdjustment &&
    plan.price_adjustment_type === "fixed_amount" &&
    plan.price_adjustment_amount !== null &&
    !isUnboundAmount(plan.price_adjustment_amount)
  ) {
    add("price_adjustment_amount", `must have at most ${MAX_UNBOUND_DECIMAL_PLACES} decimal places for a fixed_amount`);
  }
  return errors.fieldErrors;
}
