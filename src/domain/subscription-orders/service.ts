import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext, SqlServiceContext } from "../../platform/context.js";
import { FieldErrorCollector, ValidationError } from "../../platform/errors.js";
import { type Page, type PageRequest, type Pagination, pagination } from "../../platform/http/pagination.js";
import type { IntervalUnit } from "../subscription-plans/schedule.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { isStorableDate } from "../../platform/db/storable-instants.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { newUuid } from "../../platform/ids.js";
import { requireCountry, resolveCountry } from "../catalog/reference-data.js";
import { isCardExpired } from "../payment-methods/expiry.js";
import { firstBilling, refuseCancel, refuseEdit, skip, statusAfterPayment, UNSCHEDULABLE_BILL_DATE, utcDay } from "./lifecycle.js";
import { orderNumberFor } from "./order-numbers.js";
import { type ItemToPrice, priceItems, totalsColumns } from "./pricing.js";
import { changeOrder, type OrderChangeContext } from "./changes.js";
import { appendActivities, appendActivity, isoDay, type OrderContext, type OrderRow, raise, requireOrderRecord, requireOrderRow, statusOf } from "./records.js";
import type {
  ActivityView,
  AddressInput,
  ItemUpdateInput,
  SubscriptionOrderCreateInput,
  SubscriptionOrderFilters,
  SubscriptionOrderListQuery,
  SubscriptionOrderView,
} from "./schemas.js";
import { countByStatus, readActivityPage, readOrder, readOrderPage } from "./sql-reads.js";
import { pricingChanged } from "./repricing.js";
import { activityView, toView, totalSnapshot } from "./views.js";

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

function requireDateRange(filters: SubscriptionOrderFilters): void {
  const { next_bill_date_start_date: start, next_bill_date_end_date: end } = filters;
  if (start && end && start > end) throw ValidationError.field("next_bill_date_end_date", "must not be before next_bill_date_start_date");
}

export async function listSubscriptionOrders(ctx: SqlServiceContext, query: SubscriptionOrderListQuery): Promise<{ rows: SubscriptionOrderView[]; pagination: Pagination }> {
  requireDateRange(query);
  const { records, total } = await readOrderPage(ctx, query);
  const now = ctx.clock.now();
  return { rows: records.map((record) => toView(record, now)), pagination: pagination(query, total) };
}

interface SubscriptionStats {
  subscriptions_count: number;
  active_subscriptions_count: number;
  cancelled_subscriptions_count: number;
  pending_subscriptions_count: number;
  paused_subscriptions_count: number;
  past_due_subscriptions_count: number;
}

export async function subscriptionOrderStats(ctx: SqlServiceContext, filters: Omit<SubscriptionOrderFilters, "user_company_id">): Promise<SubscriptionStats> {
  requireDateRange(filters);
  const counts = await countByStatus(ctx, filters);
  const count = (status: string) => counts.get(status) ?? 0;
  return {
    subscriptions_count: [...counts.values()].reduce((sum, value) => sum + value, 0),
    active_subscriptions_count: count("active"),
    cancelled_subscriptions_count: count("cancelled"),
    pending_subscriptions_count: count("pending"),
    paused_subscriptions_count: count("paused"),
    past_due_subscriptions_count: count("past_due"),
  };
}

/** By id (a number) or by order number (a string: ORDER_NUMBER_PATTERN). */
export async function getSubscriptionOrder(ctx: SqlServiceContext, idOrNumber: number | string): Promise<SubscriptionOrderView> {
  return toView(await readOrder(ctx, idOrNumber), ctx.clock.now());
}

/** The whole history of an order, a page at a time, oldest first (an order shows its most recent activities only). */
export async function listOrderActivities(ctx: SqlServiceContext, id: number, page: PageRequest): Promise<Page<ActivityView>> {
  const { records, total } = await readActivityPage(ctx, id, page);
  return { rows: records.map(activityView), pagination: pagination(page, total) };
}

/** What a change answers: the order as it is now, read inside the change's transaction (or after it). */
export async function viewAfterChange(db: Prisma.TransactionClient | ServiceContext["db"], ctx: ServiceContext, id: number): Promise<SubscriptionOrderView> {
  return toView(await requireOrderRecord(db, ctx.companyId, id), ctx.clock.now());
}

// ---------------------------------------------------------------------------------------------
// References a request names
// ---------------------------------------------------------------------------------------------

type Db = ServiceContext["db"] | Prisma.TransactionClient;

function addressColumns<Prefix extends "ship_to" | "bill_to">(prefix: Prefix, address: AddressInput, countryId: number) {
  return {
    [`${prefix}_name`]: address.name,
    [`${prefix}_address1`]: address.address1,
    [`${prefix}_address2`]: address.address2 || null,
    [`${prefix}_city`]: address.city,
    [`${prefix}_state`]: address.state || null,
    [`${prefix}_postal_code`]: address.postal_code || null,
    [`${prefix}_country_id`]: countryId,
  } as Record<`${Prefix}_${"name" | "address1" | "city"}`, string> &
    Record<`${Prefix}_${"address2" | "state" | "postal_code"}`, string | null> &
    Record<`${Prefix}_country_id`, number>;
}

function intervalOf(row: OrderRow): { count: number; unit: IntervalUnit } {
  return { count: row.subscription_interval, unit: row.subscription_interval_unit as IntervalUnit };
}

function shipToSnapshot(row: OrderRow) {
  return {
    name: row.ship_to_name,
    address1: row.ship_to_address1,
    address2: row.ship_to_address2,
    city: row.ship_to_city,
    state: row.ship_to_state,
    postal_code: row.ship_to_postal_code,
    country_id: row.ship_to_country_id,
  };
}

function itemsSnapshot(row: Pick<OrderRow, "items" | "total" | "currency">) {
  return { items: row.items.map((item) => ({ id: item.id, variant_id: item.variant_id, quantity: item.quantity })), ...totalSnapshot(row) };
}

async function requireUser(db: Db, companyId: number, id: number, role: "customer" | "rep", path: string, errors: FieldErrorCollector): Promise<void> {
  const user = await db.user.findFirst({ where: { id, company_id: companyId, role }, select: { id: true } });
  if (!user) errors.add(path, `does not name a ${role} of this company`);
}

function checkNoDuplicateVariants(items: ItemToPrice[], path: (index: number) => string, errors: FieldErrorCollector): void {
  const seen = new Set<number>();
  items.forEach((item, index) => {
    if (seen.has(item.variant_id)) errors.add(path(index), "appears more than once: set one item's quantity instead");
    seen.add(item.variant_id);
  });
}

// ---------------------------------------------------------------------------------------------
// Create (the import path, and what checkout calls)
// ---------------------------------------------------------------------------------------------

// The insert needs a unique order number before the id that names it exists.
const provisionalOrderNumber = () => `pending-${newUuid()}`;

const UNKNOWN_PLAN = "does not name a subscription plan of this company";
const INACTIVE_PLAN = "names an inactive subscription plan";

export async function createSubscriptionOrder(ctx: OrderContext, input: SubscriptionOrderCreateInput): Promise<SubscriptionOrderView> {
  const errors = new FieldErrorCollector();
  const path = (member: string) => `subscription_order.${member}`;
  const [plan, paymentMethod, shipToCountry, billToCountry] = await Promise.all([
    ctx.db.subscriptionPlan.findFirst({ where: { id: input.subscription_plan_id, company_id: ctx.companyId } }),
    input.payment_method_id
      ? ctx.db.paymentMethod.findFirst({
          where: { id: input.payment_method_id, company_id: ctx.companyId, user_id: input.customer_id },
          select: { id: true, exp_month: true, exp_year: true },
        })
      : null,
    resolveCountry(ctx.db, input.ship_to, path("ship_to"), errors),
    input.bill_to ? resolveCountry(ctx.db, input.bill_to, path("bill_to"), errors) : null,
    requireUser(ctx.db, ctx.companyId, input.customer_id, "customer", path("customer_id"), errors),
    input.user_id ? requireUser(ctx.db, ctx.companyId, input.user_id, "rep", path("user_id"), errors) : null,
    input.buyer_id ? requireUser(ctx.db, ctx.companyId, input.buyer_id, "rep", path("buyer_id"), errors) : null,
  ]);
  if (!plan) errors.add(path("subscription_plan_id"), UNKNOWN_PLAN);
  else if (plan.active === false) errors.add(path("subscription_plan_id"), INACTIVE_PLAN);
  if (input.payment_method_id && !paymentMethod) errors.add(path("payment_method_id"), "is not one of the customer's saved payment methods");
  if (paymentMethod && isCardExpired(paymentMethod, ctx.clock.now())) errors.add(path("payment_method_id"), "is expired");
  const status = input.status ?? (paymentMethod ? "active" : "pending");
  if (status === "active" && !paymentMethod) errors.add(path("status"), "active needs a payment_method_id");
  const today = utcDay(ctx.clock.now());
  if (input.next_bill_date && new Date(input.next_bill_date) < today) errors.add(path("next_bill_date"), "must not be in the past");
  const itemPath = (index: number) => path(`items.${index}.variant_id`);
  checkNoDuplicateVariants(input.items, itemPath, errors);
  errors.throwIfAny();
  if (!plan || shipToCountry === null) throw new Error("unreachable: references were validated");

  return ctx.db.$transaction(async (tx) => {
    // Held until this order commits, so that a delete of the plan waits and then counts it; a
    // plan deleted since it was read above is an unknown plan, as it would have been then.
    await lockCompanyRow(
      tx,
      { table: "subscription_plans", companyId: ctx.companyId, id: plan.id },
      "KEY SHARE",
      ValidationError.field(path("subscription_plan_id"), UNKNOWN_PLAN),
    );
    // Read again under the lock: a plan update that committed while this waited for it may reprice
    // the plan's orders before this one exists, so this one prices with the plan as updated and
    // stores its revision.
    const heldPlan = await tx.subscriptionPlan.findUniqueOrThrow({ where: { id: plan.id, company_id: ctx.companyId } });
    // Switched off while this waited: refused, as it would have been a moment earlier.
    if (heldPlan.active === false) throw ValidationError.field(path("subscription_plan_id"), INACTIVE_PLAN);
    const interval = { count: heldPlan.billing_interval, unit: heldPlan.billing_interval_unit as IntervalUnit };
    const priced = await priceItems(tx, {
      companyId: ctx.companyId,
      countryId: shipToCountry.id,
      interval,
      plan: heldPlan,
      buyerId: input.buyer_id ?? null,
      items: input.items,
      itemsPath: path("items"),
    });
    const { next_bill_date: nextBillDate, billing_anchor_day } = firstBilling(
      today,
      {
        billing_interval: interval.count,
        billing_interval_unit: interval.unit,
        trial_period: heldPlan.trial_period,
        trial_period_unit: heldPlan.trial_period_unit as IntervalUnit | null,
      },
      input.next_bill_date ? new Date(input.next_bill_date) : null,
    );
    if (!isStorableDate(nextBillDate)) throw ValidationError.field(path("next_bill_date"), UNSCHEDULABLE_BILL_DATE);
    const created = await tx.subscriptionOrder.create({
      data: {
        company_id: ctx.companyId,
        order_number: provisionalOrderNumber(),
        customer_id: input.customer_id,
        user_id: input.user_id ?? null,
        buyer_id: input.buyer_id ?? null,
        subscription_plan_id: plan.id,
        subscription_interval: interval.count,
        subscription_interval_unit: interval.unit,
        status,
        next_bill_date: nextBillDate,
        billing_anchor_day,
        bill_date: today,
        payment_method_id: paymentMethod?.id ?? null,
        ...addressColumns("ship_to", input.ship_to, shipToCountry.id),
        ...addressColumns("bill_to", input.bill_to ?? input.ship_to, (billToCountry ?? shipToCountry).id),
        ...totalsColumns(priced),
        created_at: ctx.clock.now(),
        items: {
          create: input.items.map((item, index) => ({
            company_id: ctx.companyId,
            variant_id: item.variant_id,
            quantity: item.quantity,
            option_value_ids: item.option_value_ids ?? [],
            position: index,
            ...lineColumns(priced.lines[index]),
          })),
        },
      },
      select: { id: true },
    });
    await tx.subscriptionOrder.update({ where: { id: created.id }, data: { order_number: orderNumberFor(created.id) } });
    await appendActivity(tx, ctx, created.id, "created", null, { status, next_bill_date: isoDay(nextBillDate), ...totalSnapshot(priced) });
    return viewAfterChange(tx, ctx, created.id);
  }, LOCK_WAITING_TRANSACTION);
}

function lineColumns(line: { unit_price: number; subtotal: number; discount: number; tax: number } | undefined) {
  if (!line) throw new Error("the totals engine returned fewer lines than it was given");
  return { unit_price: line.unit_price, subtotal: line.subtotal, discount: line.discount, tax: line.tax };
}

// ---------------------------------------------------------------------------------------------
// Changes
// ---------------------------------------------------------------------------------------------

/** Thrown inside a transaction to roll back a preview after computing what it would show. */
class PreviewRollback extends Error {
  constructor(readonly view: SubscriptionOrderView) {
    super("preview");
  }
}

interface ItemPlan {
  id: number | null;
  variant_id: number;
  quantity: number;
  option_value_ids: number[];
}

/** The items an update asks for, checked against the order's current items. */
function planItems(row: OrderRow, items: ItemUpdateInput[]): ItemPlan[] {
  const errors = new FieldErrorCollector();
  const current = new Map(row.items.map((item) => [item.id, item]));
  const seenIds = new Set<number>();
  const planned: ItemPlan[] = [];
  if (items.length === 0) errors.add("items", "must keep at least one item: cancel the subscription to stop it");
  items.forEach((item, index) => {
    if (item.id === undefined) {
      if (item.variant_id === undefined) errors.add(`items.${index}`, "needs an id (an item of this order) or a variant_id (a new item)");
      else planned.push({ id: null, variant_id: item.variant_id, quantity: item.quantity, option_value_ids: item.option_value_ids ?? [] });
      return;
    }
    const existing = current.get(item.id);
    if (!existing) errors.add(`items.${index}.id`, "is not an item of this subscription order");
    else if (seenIds.has(item.id)) errors.add(`items.${index}.id`, "appears more than once");
    else
      planned.push({
        id: item.id,
        variant_id: item.variant_id ?? existing.variant_id,
        quantity: item.quantity,
        option_value_ids: item.option_value_ids ?? existing.option_value_ids,
      });
    seenIds.add(item.id);
  });
  errors.throwIfAny();
  // Indexes of planned and items agree once there are no errors: every entry was planned.
  checkNoDuplicateVariants(planned, (index) => `items.${index}.variant_id`, errors);
  errors.throwIfAny();
  return planned;
}

/** Whether the planned items are the order's items as they are, in their places. */
function keepsItemsAsTheyAre(row: OrderRow, planned: ItemPlan[]): boolean {
  return (
    planned.length === row.items.length &&
    planned.every((item, index) => {
      const current = row.items[index];
      return (
        current !== undefined &&
        item.id === current.id &&
        item.variant_id === current.variant_id &&
        item.quantity === current.quantity &&
        item.option_value_ids.length === current.option_value_ids.length &&
        item.option_value_ids.every((id, position) => id === current.option_value_ids[position])
      );
    })
  );
}

/**
 * PATCH items: the list is the order's new set of items (entries with id keep that item, with a
 * new quantity and optionally a new variant; entries with only variant_id add one; unlisted
 * items are removed). With update true it is saved; otherwise the answer previews it. The order's
 * own items at the amounts it stores change nothing: no write, no activity.
 */
export async function updateSubscriptionItems(ctx: OrderChangeContext, id: number, input: { update?: boolean | null; items: ItemUpdateInput[] }): Promise<SubscriptionOrderView> {
  try {
    return await changeOrder(ctx, id, async (tx, row) => {
      const refusal = refuseEdit(statusOf(row), "update_items");
      if (refusal) raise(refusal);
      const planned = planItems(row, input.items);
      const priced = await priceItems(tx, {
        companyId: ctx.companyId,
        countryId: row.ship_to_country_id,
        interval: intervalOf(row),
        plan: row.subscription_plan,
        buyerId: row.buyer_id,
        items: planned,
        itemsPath: "items",
      });
      if (keepsItemsAsTheyAre(row, planned) && !pricingChanged({ order: row, priced })) return viewAfterChange(tx, ctx, row.id);
      const keptIds = planned.flatMap((item) => (item.id === null ? [] : [item.id]));
      await tx.subscriptionOrderItem.deleteMany({ where: { subscription_order_id: row.id, id: { notIn: keptIds } } });
      for (const [index, item] of planned.entries()) {
        const columns = { variant_id: item.variant_id, quantity: item.quantity, option_value_ids: item.option_value_ids, position: index, ...lineColumns(priced.lines[index]) };
        if (item.id === null) await tx.subscriptionOrderItem.create({ data: { company_id: ctx.companyId, subscription_order_id: row.id, ...columns } });
        else await tx.subscriptionOrderItem.update({ where: { id: item.id }, data: columns });
      }
      await tx.subscriptionOrder.update({ where: { id: row.id }, data: totalsColumns(priced) });
      if (input.update !== true) throw new PreviewRollback(await viewAfterChange(tx, ctx, row.id));
      const after = await requireOrderRow(tx, ctx.companyId, row.id);
      await appendActivity(tx, ctx, row.id, "items_updated", itemsSnapshot(row), itemsSnapshot(after));
      return viewAfterChange(tx, ctx, row.id);
    });
  } catch (error) {
    if (error instanceof PreviewRollback) return error.view;
    throw error;
  }
}

/** A new ship-to address reprices the order: prices, currency, tax and shipping follow the country. */
export async function updateShippingAddress(ctx: OrderChangeContext, id: number, address: AddressInput): Promise<SubscriptionOrderView> {
  return changeOrder(ctx, id, async (tx, row) => {
    const refusal = refuseEdit(statusOf(row), "update_shipping_address");
    if (refusal) raise(refusal);
    const { id: countryId } = await requireCountry(tx, address, "address");
    const priced = await priceItems(tx, {
      companyId: ctx.companyId,
      countryId,
      interval: intervalOf(row),
      plan: row.subscription_plan,
      buyerId: row.buyer_id,
      items: row.items,
      // An item whose variant is gone, or that the plan no longer offers, is the item's problem
      // whatever the address; only a missing price is the new country's.
      itemsPath: "items",
      unpricedErrorPath: address.country_id !== undefined ? "address.country_id" : "address.country_code",
    });
    for (const [index, item] of row.items.entries()) {
      await tx.subscriptionOrderItem.update({ where: { id: item.id }, data: lineColumns(priced.lines[index]) });
    }
    await tx.subscriptionOrder.update({ where: { id: row.id }, data: { ...addressColumns("ship_to", address, countryId), ...totalsColumns(priced) } });
    const after = await requireOrderRow(tx, ctx.companyId, row.id);
    await appendActivity(
      tx,
      ctx,
      row.id,
      "shipping_address_updated",
      { ship_to: shipToSnapshot(row), ...totalSnapshot(row) },
      { ship_to: shipToSnapshot(after), ...totalSnapshot(after) },
    );
    return viewAfterChange(tx, ctx, row.id);
  });
}

export async function skipOrder(ctx: OrderChangeContext, id: number): Promise<SubscriptionOrderView> {
  return changeOrder(ctx, id, async (tx, row) => {
    const { count, unit } = intervalOf(row);
    const outcome = skip(
      { status: statusOf(row), next_bill_date: row.next_bill_date, billing_anchor_day: row.billing_anchor_day, skips_count: row.skips_count },
      {
        billing_interval: count,
        billing_interval_unit: unit,
        allow_skipping: row.subscription_plan?.allow_skipping ?? null,
        max_skips: row.subscription_plan?.max_skips ?? null,
      },
    );
    if (!outcome.ok) raise(outcome.refusal);
    await tx.subscriptionOrder.update({ where: { id: row.id }, data: { next_bill_date: outcome.next_bill_date, skips_count: outcome.skips_count } });
    await appendActivity(
      tx,
      ctx,
      row.id,
      "skipped",
      { next_bill_date: isoDay(row.next_bill_date), skips_count: row.skips_count },
      { next_bill_date: isoDay(outcome.next_bill_date), skips_count: outcome.skips_count },
    );
    return viewAfterChange(tx, ctx, row.id);
  });
}

export async function cancelSubscription(ctx: OrderChangeContext, id: number): Promise<SubscriptionOrderView> {
  return changeOrder(ctx, id, async (tx, row) => {
    const refusal = refuseCancel(statusOf(row));
    if (refusal) raise(refusal);
    await tx.subscriptionOrder.update({ where: { id: row.id }, data: { status: "cancelled", cancelled_at: ctx.clock.now() } });
    await appendActivity(tx, ctx, row.id, "cancelled", { status: row.status }, { status: "cancelled" });
    return viewAfterChange(tx, ctx, row.id);
  });
}

/** Feedback may come before or after the cancel call (storefront flows differ), so any status takes it. */
export async function recordCancellationFeedback(
  ctx: OrderChangeContext,
  id: number,
  input: { reason?: string | null; feedback?: string | null },
): Promise<SubscriptionOrderView> {
  const reason = input.reason || undefined;
  const feedback = input.feedback || undefined;
  if (reason === undefined && feedback === undefined) {
    throw new ValidationError({ reason: ["reason or feedback is required"], feedback: ["reason or feedback is required"] });
  }
  return changeOrder(ctx, id, async (tx, row) => {
    const data = { ...(reason !== undefined ? { cancellation_reason: reason } : {}), ...(feedback !== undefined ? { additional_feedback: feedback } : {}) };
    await tx.subscriptionOrder.update({ where: { id: row.id }, data });
    await appendActivity(
      tx,
      ctx,
      row.id,
      "cancellation_feedback",
      { cancellation_reason: row.cancellation_reason, additional_feedback: row.additional_feedback },
      { cancellation_reason: reason ?? row.cancellation_reason, additional_feedback: feedback ?? row.additional_feedback },
    );
    return viewAfterChange(tx, ctx, row.id);
  });
}

/**
 * The latest payment change wins: a saved method put on the order (a card, or an approval's PayPal
 * account) or a new approval started supersedes the order's approvals still pending (started,
 * being authorized, or vaulted by PayPal but not on the order yet), each with an activity, so that
 * completing one later cannot replace what was chosen since. Runs under the order's row lock
 * (inside changeOrder), as completing an approval does; an authorize's claim and PayPal's stored
 * answer change only pending approvals, so none of them brings a superseded one back. An
 * approval PayPal vaulted already leaves a saved account at PayPal that nothing will bill: it is
 * due for deletion there (vault_delete_at), by the vault cleanup, after this commits.
 */
export async function supersedePendingApprovals(tx: Prisma.TransactionClient, ctx: OrderContext, orderId: number): Promise<void> {
  const superseded = await tx.$queryRaw<Array<{ id: number; token: string }>>`
    UPDATE paypal_approvals SET status = 'superseded', claimed_until = NULL,
      vault_delete_at = CASE WHEN payment_token_id IS NULL THEN NULL ELSE ${ctx.clock.now()}::timestamptz END
    WHERE company_id = ${ctx.companyId} AND subscription_order_id = ${orderId} AND status IN ('created', 'authorizing', 'vaulted')
    RETURNING id, token`;
  superseded.sort((a, b) => a.id - b.id);
  await appendActivities(
    tx,
    ctx,
    superseded.map(({ token }) => ({ orderId, action: "paypal_approval_superseded", before: { paypal_token: token }, after: null })),
  );
}

/**
 * Puts one of the customer's saved payment methods on the order (inside changeOrder), superseding
 * the approvals still pending. The method it has already, with the status that leaves, changes
 * nothing else: no write, no activity of its own.
 */
export async function attachPaymentMethod(tx: Prisma.TransactionClient, ctx: OrderContext, row: OrderRow, paymentMethodId: number): Promise<SubscriptionOrderView> {
  await supersedePendingApprovals(tx, ctx, row.id);
  const status = statusAfterPayment(statusOf(row));
  if (row.payment_method_id === paymentMethodId && row.status === status) return viewAfterChange(tx, ctx, row.id);
  await tx.subscriptionOrder.update({ where: { id: row.id }, data: { payment_method_id: paymentMethodId, status } });
  await appendActivity(tx, ctx, row.id, "payment_updated", { payment_method_id: row.payment_method_id, status: row.status }, { payment_method_id: paymentMethodId, status });
  return viewAfterChange(tx, ctx, row.id);
}

export async function useSavedCard(ctx: OrderChangeContext, id: number, cardId: number): Promise<SubscriptionOrderView> {
  return changeOrder(ctx, id, async (tx, row) => {
    const refusal = refuseEdit(statusOf(row), "update_payment");
    if (refusal) raise(refusal);
    const card = await tx.paymentMethod.findFirst({
      where: { id: cardId, company_id: ctx.companyId, user_id: row.customer_id, kind: "credit_card" },
      select: { id: true, exp_month: true, exp_year: true },
    });
    if (!card) throw ValidationError.field("card_id", "is not one of the customer's saved cards");
    if (isCardExpired(card, ctx.clock.now())) throw ValidationError.field("card_id", "is expired");
    return attachPaymentMethod(tx, ctx, row, card.id);
  });
}
