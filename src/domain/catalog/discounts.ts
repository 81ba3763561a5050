import type { ServiceContext } from "../../platform/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { escapeLike } from "../../platform/db/like.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { FieldErrorCollector, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, pageWindow, pagination } from "../../platform/http/pagination.js";
import { isValidDecimalString, parseDecimalToMinor } from "../../platform/money.js";
import { decimalText, isUnboundAmount, MAX_UNBOUND_AMOUNT, MAX_UNBOUND_DECIMAL_PLACES, tooPreciseFor } from "./amounts.js";
import { normalizeCode } from "./discount-rules.js";
import type { DiscountCreateInput, DiscountListQuery, DiscountUpdateInput, DiscountView } from "./discount-schemas.js";
import { findCurrency, UNKNOWN_CURRENCY } from "./reference-data.js";
import { missingIds } from "./references.js";

type DiscountRow = NonNullable<Awaited<ReturnType<typeof findRow>>>;
type Kind = DiscountView["kind"];
type Scope = DiscountView["scope"];

/** The percent column holds 4 fraction digits: "12.3456" is the finest rate. */
const PERCENT_DECIMAL_PLACES = 4;

/** A fixed amount bound to no currency is shown as money usually is, with 2 decimals. */
const UNBOUND_SHOWN_DECIMAL_PLACES = 2;

/** A bound code's amount is shown with its currency's decimals ("500" JPY, "3.255" KWD). */
const withCurrency = { currency: { select: { decimal_places: true } } } as const;

function findRow(db: Prisma.TransactionClient, companyId: number, id: number) {
  return db.discount.findFirst({ where: { id, company_id: companyId }, include: withCurrency });
}

/**
 * The company's live products among `ids`. A code keeps the ids of products deleted after it named
 * them: carts may hold lines of them, and an id that matches no live product is what keeps a code
 * whose products were all deleted from meaning every product.
 */
async function findLiveProducts(db: Prisma.TransactionClient, companyId: number, ids: number[]): Promise<{ id: number }[]> {
  if (ids.length === 0) return [];
  return db.product.findMany({ where: { company_id: companyId, deleted_at: null, id: { in: ids } }, select: { id: true } });
}

async function liveProductIds(db: Prisma.TransactionClient, companyId: number, ids: number[]): Promise<Set<number>> {
  return new Set((await findLiveProducts(db, companyId, ids)).map((product) => product.id));
}

async function toViews(db: Prisma.TransactionClient, companyId: number, rows: DiscountRow[]): Promise<DiscountView[]> {
  const live = await liveProductIds(db, companyId, [...new Set(rows.flatMap((row) => row.product_ids))]);
  return rows.map((row) => toView(row, live));
}

async function viewOf(db: Prisma.TransactionClient, companyId: number, row: DiscountRow): Promise<DiscountView> {
  return toView(row, await liveProductIds(db, companyId, row.product_ids));
}

function toView(row: DiscountRow, liveProducts: Set<number>): DiscountView {
  const kind = row.kind as Kind;
  return {
    id: row.id,
    code: row.code,
    kind,
    amount: decimalText(row.amount, kind === "percentage" ? 0 : (row.currency?.decimal_places ?? UNBOUND_SHOWN_DECIMAL_PLACES)),
    currency_code: row.currency_code,
    scope: row.scope as Scope,
    product_ids: row.product_ids.filter((id) => liveProducts.has(id)),
    deleted_product_ids: row.product_ids.filter((id) => !liveProducts.has(id)),
    usage_limit: row.usage_limit,
    usage_count: row.usage_count,
    starts_at: row.starts_at?.toISOString() ?? null,
    ends_at: row.ends_at?.toISOString() ?? null,
    active: row.active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function requireRow(db: Prisma.TransactionClient, companyId: number, id: number): Promise<DiscountRow> {
  const row = await findRow(db, companyId, id);
  if (!row) throw new NotFoundError("Discount not found");
  return row;
}

/**
 * Locks the company's discount for the rest of the transaction, or 404: concurrent updates take
 * turns, each checking its rules on, and writing back, what the one before it left. NO KEY
 * UPDATE is the lock the update's own UPDATE takes; it does not wait for carts applying the code.
 */
async function lockRow(tx: Prisma.TransactionClient, companyId: number, id: number): Promise<void> {
  await lockCompanyRow(tx, { table: "discounts", companyId, id }, "NO KEY UPDATE", "Discount not found");
}

/** The discount as it would be after the change: every rule is checked on the whole of it. */
interface DiscountState {
  code: string;
  kind: Kind;
  amount: string;
  currency_code: string | null;
  scope: Scope;
  product_ids: number[];
  starts_at: Date | null;
  ends_at: Date | null;
}

function checkAmount(kind: Kind, amount: string, errors: FieldErrorCollector): void {
  if (kind === "percentage") {
    const valid = isValidDecimalString(amount, PERCENT_DECIMAL_PLACES);
    const hundredths = valid ? parseDecimalToMinor(amount, PERCENT_DECIMAL_PLACES) : 0;
    if (!valid || hundredths <= 0 || hundredths > 100 * 10 ** PERCENT_DECIMAL_PLACES) {
      errors.add("discount.amount", `must be a percentage greater than 0 and at most 100, with at most ${PERCENT_DECIMAL_PLACES} decimal places`);
    }
    return;
  }
  if (!isUnboundAmount(amount) || parseDecimalToMinor(amount, MAX_UNBOUND_DECIMAL_PLACES) <= 0) {
    errors.add("discount.amount", `must be an amount greater than 0 and at most ${MAX_UNBOUND_AMOUNT}, with at most ${MAX_UNBOUND_DECIMAL_PLACES} decimal places`);
  }
}

/**
 * A currency binds only a fixed amount (a percentage is the same in every currency), must be a
 * reference currency, and the amount must then be exact in it: "10.5" yen is a 422, not rounded.
 */
function checkCurrency(state: DiscountState, currency: { code: string; decimal_places: number } | null, errors: FieldErrorCollector): void {
  if (state.currency_code === null) return;
  if (state.kind !== "fixed_amount") {
    errors.add("discount.currency_code", "only applies to fixed_amount codes");
    return;
  }
  if (currency === null) {
    errors.add("discount.currency_code", UNKNOWN_CURRENCY);
    return;
  }
  // An amount checkAmount refused already has its error.
  if (isUnboundAmount(state.amount) && !isValidDecimalString(state.amount, currency.decimal_places)) {
    errors.add("discount.amount", tooPreciseFor(currency.code, currency.decimal_places));
  }
}

const WIDENED_TO_EVERY_PRODUCT =
  "must name at least one product: an empty list would widen this product-scope code to every product (a code for every product is created without product_ids)";

/**
 * `current` is the code being updated (null on create). Only the product ids it does not name yet
 * must name live products of the company: a product deleted since it was named blocks no update,
 * the code sent back as read included. A product-scope code that names products (deleted ones
 * too) is never emptied, which would make it one for every product.
 */
async function checkState(db: Prisma.TransactionClient, companyId: number, state: DiscountState, current: DiscountRow | null): Promise<void> {
  const errors = new FieldErrorCollector();
  checkAmount(state.kind, state.amount, errors);
  if (state.scope !== "product" && state.product_ids.length > 0) {
    errors.add("discount.product_ids", "only applies to product-scope codes");
  }
  if (state.scope === "product" && state.product_ids.length === 0 && (current?.product_ids.length ?? 0) > 0) {
    errors.add("discount.product_ids", WIDENED_TO_EVERY_PRODUCT);
  }
  if (state.starts_at && state.ends_at && state.ends_at <= state.starts_at) {
    errors.add("discount.ends_at", "must be after starts_at");
  }
  // Sequential: inside an update's transaction there is one connection to run them on.
  const taken = await db.discount.findFirst({ where: { company_id: companyId, code: state.code, ...(current ? { NOT: { id: current.id } } : {}) }, select: { id: true } });
  const newProductIds = state.product_ids.filter((id) => !current?.product_ids.includes(id));
  const liveProducts = await findLiveProducts(db, companyId, newProductIds);
  const currency = state.currency_code === null || state.kind !== "fixed_amount" ? null : await findCurrency(db, state.currency_code);
  checkCurrency(state, currency, errors);
  if (taken) errors.add("discount.code", "has already been taken");
  const unknown = missingIds(newProductIds, liveProducts);
  if (unknown.length > 0) errors.add("discount.product_ids", `contains ids that are not products of this company: ${unknown.join(", ")}`);
  errors.throwIfAny();
}

// Two requests creating one code at once both pass checkState; the unique index decides.
function codeRace(error: unknown): never {
  if (isUniqueViolation(error)) throw ValidationError.field("discount.code", "has already been taken");
  throw error;
}

const toDate = (value: string | null | undefined): Date | null | undefined => (value == null ? value : new Date(value));

export async function listDiscounts(ctx: ServiceContext, query: DiscountListQuery): Promise<Page<DiscountView>> {
  const where = {
    company_id: ctx.companyId,
    ...(query.search_query ? { code: { contains: escapeLike(query.search_query), mode: "insensitive" as const } } : {}),
  };
  const [rows, total] = await Promise.all([
    ctx.db.discount.findMany({ where, include: withCurrency, orderBy: { id: "desc" }, ...pageWindow(query) }),
    ctx.db.discount.count({ where }),
  ]);
  return { rows: await toViews(ctx.db, ctx.companyId, rows), pagination: pagination(query, total) };
}

export async function getDiscount(ctx: ServiceContext, id: number): Promise<DiscountView> {
  return viewOf(ctx.db, ctx.companyId, await requireRow(ctx.db, ctx.companyId, id));
}

export async function createDiscount(ctx: ServiceContext, input: DiscountCreateInput): Promise<DiscountView> {
  const state: DiscountState = {
    code: normalizeCode(input.code),
    kind: input.kind,
    amount: input.amount,
    currency_code: input.currency_code ?? null,
    scope: input.scope,
    product_ids: [...new Set(input.product_ids ?? [])],
    starts_at: toDate(input.starts_at) ?? null,
    ends_at: toDate(input.ends_at) ?? null,
  };
  await checkState(ctx.db, ctx.companyId, state, null);
  const row = await ctx.db.discount
    .create({ data: { ...state, company_id: ctx.companyId, usage_limit: input.usage_limit ?? null, active: input.active ?? true }, include: withCurrency })
    .catch(codeRace);
  return viewOf(ctx.db, ctx.companyId, row);
}

/** Partial update; the rules hold for the discount as it is after the change. */
export async function updateDiscount(ctx: ServiceContext, id: number, input: DiscountUpdateInput): Promise<DiscountView> {
  const row = await ctx.db
    .$transaction(async (tx) => {
      await lockRow(tx, ctx.companyId, id);
      const current = await requireRow(tx, ctx.companyId, id);
      const state: DiscountState = {
        code: input.code === undefined ? current.code : normalizeCode(input.code),
        kind: input.kind ?? (current.kind as Kind),
        amount: input.amount ?? current.amount.toFixed(),
        currency_code: input.currency_code === undefined ? current.currency_code : input.currency_code,
        scope: input.scope ?? (current.scope as Scope),
        product_ids: input.product_ids ? [...new Set(input.product_ids)] : current.product_ids,
        starts_at: input.starts_at === undefined ? current.starts_at : toDate(input.starts_at) ?? null,
        ends_at: input.ends_at === undefined ? current.ends_at : toDate(input.ends_at) ?? null,
      };
      await checkState(tx, ctx.companyId, state, current);
      return tx.discount.update({ where: { id: current.id }, data: { ...state, usage_limit: input.usage_limit, active: input.active }, include: withCurrency });
    }, LOCK_WAITING_TRANSACTION)
    .catch(codeRace);
  return viewOf(ctx.db, ctx.companyId, row);
}

/**
 * Deleting removes the code: carts holding it stop applying it when their totals are next
 * computed. To retire a code while keeping its history, set `active` to false instead.
 */
export async function deleteDiscount(ctx: ServiceContext, id: number): Promise<DiscountView> {
  // Read under the lock, so the answer is the code as it was removed, not as before an update that committed meanwhile.
  const removed = await ctx.db.$transaction(async (tx) => {
    await lockRow(tx, ctx.companyId, id);
    const current = await requireRow(tx, ctx.companyId, id);
    await tx.discount.delete({ where: { id: current.id } });
    return current;
  }, LOCK_WAITING_TRANSACTION);
  return viewOf(ctx.db, ctx.companyId, removed);
}
