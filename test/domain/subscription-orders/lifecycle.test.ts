import { describe, expect, it } from "vitest";
import {
  firstBilling,
  refuseCancel,
  refuseEdit,
  skip,
  type SkipPlan,
  type SubscriptionStatus,
  SUBSCRIPTION_STATUSES,
  statusAfterPayment,
  utcDay,
} from "../../../src/domain/subscription-orders/lifecycle.js";
import type { IntervalUnit } from "../../../src/domain/subscription-plans/schedule.js";

const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);
const monthly: SkipPlan = { billing_interval: 1, billing_interval_unit: "month", allow_skipping: true, max_skips: null };
const skipFrom = (iso: string, plan: Partial<SkipPlan> = {}, state: { status?: SubscriptionStatus; skips_count?: number; billing_anchor_day?: number } = {}) =>
  skip(
    { status: state.status ?? "active", next_bill_date: day(iso), billing_anchor_day: state.billing_anchor_day ?? day(iso).getUTCDate(), skips_count: state.skips_count ?? 0 },
    { ...monthly, ...plan },
  );
const skippedTo = (iso: string, interval: number, unit: IntervalUnit, anchorDay?: number) => {
  const outcome = skipFrom(iso, { billing_interval: interval, billing_interval_unit: unit }, { billing_anchor_day: anchorDay });
  if (!outcome.ok) throw new Error("expected the skip to be allowed");
  return outcome.next_bill_date.toISOString().slice(0, 10);
};

describe("skip: the next bill moves one billing interval", () => {
  it.each<[string, number, IntervalUnit, string]>([
    ["2026-02-27", 1, "day", "2026-02-28"],
    ["2028-02-28", 1, "day", "2028-02-29"], // leap year
    ["2026-12-31", 3, "day", "2027-01-03"],
    ["2026-02-26", 1, "week", "2026-03-05"],
    ["2026-12-28", 2, "week", "2027-01-11"],
    ["2026-01-15", 1, "month", "2026-02-15"],
    ["2026-01-31", 1, "month", "2026-02-28"], // month end clamps
    ["2028-01-31", 1, "month", "2028-02-29"], // to Feb 29 in a leap year
    ["2026-03-31", 1, "month", "2026-04-30"],
    ["2026-10-31", 3, "month", "2027-01-31"], // the clamp is per step, not carried
    ["2026-11-30", 3, "month", "2027-02-28"],
    ["2026-06-15", 1, "year", "2027-06-15"],
    ["2028-02-29", 1, "year", "2029-02-28"], // leap day to a common year
    ["2028-02-29", 4, "year", "2032-02-29"],
    ["2096-02-29", 4, "year", "2100-02-28"], // 2100 is not a leap year
  ])("%s + %i %s = %s", (from, interval, unit, expected) => {
    expect(skippedTo(from, interval, unit)).toBe(expected);
  });

  it.each<[string, number, IntervalUnit, number, string]>([
    ["2026-02-28", 1, "month", 31, "2026-03-31"], // back to the anchor day after February
    ["2026-04-30", 1, "month", 31, "2026-05-31"],
    ["2026-02-28", 1, "month", 30, "2026-03-30"],
    ["2028-02-29", 1, "month", 31, "2028-03-31"],
    ["2029-02-28", 1, "year", 29, "2030-02-28"],
    ["2031-02-28", 1, "year", 29, "2032-02-29"], // Feb 29 again in a leap year
    ["2026-02-28", 1, "week", 31, "2026-03-07"], // weeks and days have no anchor
    ["2026-02-28", 3, "day", 31, "2026-03-03"],
  ])("%s + %i %s, anchored on day %i = %s", (from, interval, unit, anchorDay, expected) => {
    expect(skippedTo(from, interval, unit, anchorDay)).toBe(expected);
  });

  it("counts the skip and keeps the bill on a calendar day", () => {
    const outcome = skipFrom("2026-01-15", {}, { skips_count: 2 });
    expect(outcome).toEqual({ ok: true, next_bill_date: day("2026-02-15"), skips_count: 3 });
  });
});

describe("skip: refusals", () => {
  it("is refused (invalid) when the plan does not allow skipping; null means the default, allowed", () => {
    expect(skipFrom("2026-01-15", { allow_skipping: false })).toMatchObject({ ok: false, refusal: { kind: "invalid", code: "skipping_not_allowed" } });
    expect(skipFrom("2026-01-15", { allow_skipping: null }).ok).toBe(true);
  });

  it("is refused (invalid) once max_skips are used, over the subscription's lifetime", () => {
    expect(skipFrom("2026-01-15", { max_skips: 2 }, { skips_count: 1 }).ok).toBe(true);
    expect(skipFrom("2026-01-15", { max_skips: 2 }, { skips_count: 2 })).toMatchObject({ ok: false, refusal: { kind: "invalid", code: "max_skips_reached" } });
  });

  it("is refused (invalid, on next_bill_date) when the next bill would fall after 9999-12-31", () => {
    expect(skipFrom("9999-11-30", { billing_interval: 1, billing_interval_unit: "month" }).ok).toBe(true);
    expect(skipFrom("9990-06-15", { billing_interval: 29, billing_interval_unit: "year" })).toEqual({
      ok: false,
      refusal: { kind: "invalid", code: "next_bill_date_out_of_range", message: "would be after 9999-12-31, the last day a bill can be scheduled", field: "next_bill_date" },
    });
    expect(skipFrom("9999-12-31", { billing_interval: 1, billing_interval_unit: "day" }).ok).toBe(false);
  });

  it("is refused (conflict) for cancelled, paused and past-due subscriptions, before any plan rule", () => {
    for (const status of ["cancelled", "paused", "past_due"] as const) {
      expect(skipFrom("2026-01-15", { allow_skipping: false }, { status })).toMatchObject({ ok: false, refusal: { kind: "conflict" } });
    }
    expect(skipFrom("2026-01-15", {}, { status: "pending" }).ok).toBe(true);
  });
});

describe("the status machine", () => {
  it("allows edits in every status but cancelled; a reminder not when paused", () => {
    for (const status of SUBSCRIPTION_STATUSES) {
      const cancelled = status === "cancelled";
      expect(refuseEdit(status, "update_items") === null).toBe(!cancelled);
      expect(refuseEdit(status, "update_shipping_address") === null).toBe(!cancelled);
      expect(refuseEdit(status, "update_payment") === null).toBe(!cancelled);
      expect(refuseEdit(status, "send_reminder") === null).toBe(!cancelled && status !== "paused");
    }
    expect(refuseEdit("cancelled", "update_items")).toMatchObject({ kind: "conflict", code: "subscription_cancelled" });
  });

  it("cancels anything not cancelled yet", () => {
    for (const status of SUBSCRIPTION_STATUSES) expect(refuseCancel(status) === null).toBe(status !== "cancelled");
    expect(refuseCancel("cancelled")).toMatchObject({ kind: "conflict", code: "already_cancelled" });
  });

  it("a payment method activates pending and past-due subscriptions and leaves the others", () => {
    expect(SUBSCRIPTION_STATUSES.map((status) => [status, statusAfterPayment(status)])).toEqual([
      ["pending", "active"],
      ["active", "active"],
      ["paused", "paused"],
      ["past_due", "active"],
      ["cancelled", "cancelled"],
    ]);
  });
});

describe("firstBilling", () => {
  const plan = { billing_interval: 1, billing_interval_unit: "month" as const, trial_period: null, trial_period_unit: null };
  const now = new Date("2026-01-31T23:30:00.000Z");

  it("is one billing interval after today's UTC day, anchored on today's day", () => {
    expect(firstBilling(now, plan, null)).toEqual({ next_bill_date: day("2026-02-28"), billing_anchor_day: 31 });
    expect(firstBilling(now, { ...plan, billing_interval: 2, billing_interval_unit: "week" }, null)).toEqual({ next_bill_date: day("2026-02-14"), billing_anchor_day: 31 });
  });

  it("is after the trial, anchored on the trial's last day", () => {
    expect(firstBilling(now, { ...plan, trial_period: 14, trial_period_unit: "day" }, null)).toEqual({ next_bill_date: day("2026-02-14"), billing_anchor_day: 14 });
    expect(firstBilling(now, { ...plan, trial_period: 1, trial_period_unit: "month" }, null)).toEqual({ next_bill_date: day("2026-02-28"), billing_anchor_day: 28 });
  });

  it("is the date sent, anchored on its day", () => {
    expect(firstBilling(now, { ...plan, trial_period: 14, trial_period_unit: "day" }, day("2026-04-30"))).toEqual({ next_bill_date: day("2026-04-30"), billing_anchor_day: 30 });
  });

  it("utcDay drops the time of day in UTC", () => {
    expect(utcDay(new Date("2026-03-01T00:30:00+02:00"))).toEqual(day("2026-02-28"));
  });
});
