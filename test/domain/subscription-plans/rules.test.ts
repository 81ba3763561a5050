import { describe, expect, it } from "vitest";
import { resolvePage } from "../../../src/domain/subscription-plans/list-page.js";
import { type PlanSettings, planSettingErrors } from "../../../src/domain/subscription-plans/rules.js";
import { ValidationError } from "../../../src/platform/errors.js";

const plain: PlanSettings = {
  trial_period: null,
  trial_period_unit: null,
  allow_max_billing_cycles: false,
  max_billing_cycles: null,
  price_adjustment_type: null,
  price_adjustment_amount: null,
};

describe("planSettingErrors", () => {
  it("accepts a plan without optional settings, and complete ones", () => {
    expect(planSettingErrors(plain)).toEqual({});
    expect(
      planSettingErrors({ trial_period: 7, trial_period_unit: "day", allow_max_billing_cycles: true, max_billing_cycles: 3, price_adjustment_type: "percentage", price_adjustment_amount: "100" }),
    ).toEqual({});
  });

  it("needs a trial unit with a trial period and a period with a unit, and max_billing_cycles when allowed", () => {
    expect(planSettingErrors({ ...plain, trial_period: 7 })).toEqual({ "subscription_plan.trial_period_unit": ["is required when trial_period is set"] });
    expect(planSettingErrors({ ...plain, trial_period_unit: "day" })).toEqual({ "subscription_plan.trial_period": ["is required when trial_period_unit is set"] });
    expect(planSettingErrors({ ...plain, allow_max_billing_cycles: true })).toEqual({ "subscription_plan.max_billing_cycles": ["is required when allow_max_billing_cycles is true"] });
  });

  it("needs type and amount together, and a percentage of at most 100 exactly", () => {
    expect(Object.keys(planSettingErrors({ ...plain, price_adjustment_type: "fixed_amount" }))).toEqual(["subscription_plan.price_adjustment_amount"]);
    expect(Object.keys(planSettingErrors({ ...plain, price_adjustment_amount: "1" }))).toEqual(["subscription_plan.price_adjustment_type"]);
    expect(planSettingErrors({ ...plain, price_adjustment_type: "percentage", price_adjustment_amount: "100.0001" })).toEqual({
      "subscription_plan.price_adjustment_amount": ["must be at most 100 for a percentage"],
    });
    expect(planSettingErrors({ ...plain, price_adjustment_type: "fixed_amount", price_adjustment_amount: "250" })).toEqual({});
  });

  it("limits a fixed amount to 3 decimals unless the update keeps the stored adjustment", () => {
    const fourDecimals: PlanSettings = { ...plain, price_adjustment_type: "fixed_amount", price_adjustment_amount: "1.0005" };
    expect(planSettingErrors(fourDecimals)).toEqual({ "subscription_plan.price_adjustment_amount": ["must have at most 3 decimal places for a fixed_amount"] });
    expect(planSettingErrors(fourDecimals, { keepsStoredAdjustment: true })).toEqual({});
    expect(planSettingErrors({ ...fourDecimals, price_adjustment_amount: "1.005" })).toEqual({});
    expect(planSettingErrors({ ...fourDecimals, price_adjustment_type: "percentage" })).toEqual({});
  });
});

describe("resolvePage", () => {
  it("defaults to page 1 of 25 and reads either spelling", () => {
    expect(resolvePage({})).toEqual({ page: 1, per_page: 25 });
    expect(resolvePage({ page: 3, per_page: 10 })).toEqual({ page: 3, per_page: 10 });
    expect(resolvePage({ "pagination[page]": 2, "pagination[per_page]": 5 })).toEqual({ page: 2, per_page: 5 });
    expect(resolvePage({ page: 2, "pagination[page]": 2, per_page: 4 })).toEqual({ page: 2, per_page: 4 });
  });

  it("refuses both spellings with different values", () => {
    expect(() => resolvePage({ page: 1, "pagination[page]": 2 })).toThrow(ValidationError);
    const thrown = (() => {
      try {
        resolvePage({ per_page: 1, "pagination[per_page]": 2 });
        return null;
      } catch (error) {
        return error as ValidationError;
      }
    })();
    expect(thrown?.fieldErrors).toEqual({ "pagination[per_page]": ["conflicts with per_page"] });
  });
});
