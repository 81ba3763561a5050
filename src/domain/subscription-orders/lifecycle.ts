// The subscription order status machine, as pure functions: which operation each status
// allows, and where it leads. docs/decisions.md has the same rules as a table; the service
// calls these inside the transaction that holds the order's row lock.

import { isStorableDate } from "../../platform/db/storable-instants.js";
import { addInterval, type IntervalUnit } from "../subscription-plans/schedule.js";

export const SUBSCRIPTION_STATUSES = ["pending", "active", "paused", "past_due", "cancelled"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Statuses an order may be created (imported) in; a cancelled subscription is not imported. */
export const CREATABLE_STATUSES = ["pending", "active", "paused", "past_due"] as const;

/** Operations that change what a live subscription will ship or charge. */
type EditOperation = "update_items" | "update_shipping_address" | "update_payment" | "send_reminder";

/** Why a status refuses an operation: the service turns it into a 409 or a 422 (on `field` when it names one). */
export type Refusal =
  | { kind: "conflict"; code: string; message: string }
  | { kind: "invalid"; code: string; message: string; field?: string };

const cancelled: Refusal = { kind: "conflict", code: "subscription_cancelled", message: "The subscription is cancelled" };

export function refuseEdit(status: SubscriptionStatus, operation: EditOperation): Refusal | null {
  if (status === "cancelled") return cancelled;
  if (operation === "send_reminder" && status === "paused") {
    return { kind: "conflict", code: "subscription_paused", message: "A paused subscription has no upcoming autoship to remind of" };
  }
  return null;
}

/** Attaching a payment method settles what was waiting for one; a pause stays a pause. */
export function statusAfterPayment(status: SubscriptionStatus): SubscriptionStatus {
  return status === "pending" || status === "past_due" ? "active" : status;
}

export function refuseCancel(status: SubscriptionStatus): Refusal | null {
  return status === "cancelled" ? { ...cancelled, code: "already_cancelled", message: "The subscription is already cancelled" } : null;
}

export interface SkipPlan {
  billing_interval: number;
  billing_interval_unit: IntervalUnit;
  /** null means the plan's default, which allows skipping. */
  allow_skipping: boolean | null;
  /** null means no limit. */
  max_skips: number | null;
}

interface SkipState {
  status: SubscriptionStatus;
  next_bill_date: Date;
  /** The day of month monthly and yearly bills fall on (BillingStart). */
  billing_anchor_day: number;
  skips_count: number;
}

type SkipOutcome = { ok: true; next_bill_date: Date; skips_count: number } | { ok: false; refusal: Refusal };

/**
 * Skipping moves the next bill one billing interval later, to the order's anchor day by a month
 * or a year (Jan 31 -> Feb 28 -> Mar 31). Only a subscription that is going to
 * bill can skip: a paused one bills nothing, a past-due one must settle its bill first.
 * max_skips counts over the subscription's lifetime.
 */
export function skip(state: SkipState, plan: SkipPlan): SkipOutcome {
  if (state.status === "cancelled") return { ok: false, refusal: cancelled };
  if (state.status === "paused" || state.status === "past_due") {
    const message =
      state.status === "paused" ? "A paused subscription has no upcoming order to skip" : "A past-due subscription must settle its bill (update the payment) before skipping";
    return { ok: false, refusal: { kind: "conflict", code: `subscription_${state.status}`, message } };
  }
  if (plan.allow_skipping === false) {
    return { ok: false, refusal: { kind: "invalid", code: "skipping_not_allowed", message: "The subscription plan does not allow skipping" } };
  }
  if (plan.max_skips !== null && state.skips_count >= plan.max_skips) {
    return {
      ok: false,
      refusal: { kind: "invalid", code: "max_skips_reached", message: `The subscription plan allows at most ${plan.max_skips} skip(s), all used` },
    };
  }
  const nextBillDate = addInterval(state.next_bill_date, plan.billing_interval, plan.billing_interval_unit, state.billing_anchor_day);
  // Schedule arithmetic runs past year 9999; the database does not.
  if (!isStorableDate(nextBillDate)) {
    return { ok: false, refusal: { kind: "invalid", code: "next_bill_date_out_of_range", message: UNSCHEDULABLE_BILL_DATE, field: "next_bill_date" } };
  }
  return { ok: true, next_bill_date: nextBillDate, skips_count: state.skips_count + 1 };
}

export const UNSCHEDULABLE_BILL_DATE = "would be after 9999-12-31, the last day a bill can be scheduled";

/** Midnight UTC of a date's UTC day: bill dates are calendar days. */
export function utcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

interface FirstBillPlan {
  billing_interval: number;
  billing_interval_unit: IntervalUnit;
  trial_period: number | null;
  trial_period_unit: IntervalUnit | null;
}

/** When a new subscription bills first, and the day of month its monthly or yearly bills keep. */
interface BillingStart {
  next_bill_date: Date;
  billing_anchor_day: number;
}

/**
 * A new subscription bills first on the date sent, else after its trial, else one billing
 * interval after today. Its bills keep the day of month of the date its schedule counts from:
 * the first bill's, or today's when the first bill is counted from today, as a billing cycle
 * anchored on the day it starts (created on Jan 31, monthly: Feb 28, then Mar 31).
 */
export function firstBilling(today: Date, plan: FirstBillPlan, sent: Date | null): BillingStart {
  if (sent !== null) return { next_bill_date: sent, billing_anchor_day: sent.getUTCDate() };
  const day = utcDay(today);
  if (plan.trial_period !== null && plan.trial_period_unit !== null) {
    const trialEnd = addInterval(day, plan.trial_period, plan.trial_period_unit);
    return { next_bill_date: trialEnd, billing_anchor_day: trialEnd.getUTCDate() };
  }
  return { next_bill_date: addInterval(day, plan.billing_interval, plan.billing_interval_unit), billing_anchor_day: day.getUTCDate() };
}
