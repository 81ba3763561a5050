import type { ServiceContext } from "../../platform/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { isForeignKeyViolation } from "../../platform/db/errors.js";
import { escapeLike } from "../../platform/db/like.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { ConflictError, FieldErrorCollector, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, pageWindow, pagination } from "../../platform/http/pagination.js";
import { formatMinor } from "../../platform/money.js";
import { minorInCurrency } from "./amounts.js";
import { type CountryView, findCountry, toCountryView, UNKNOWN_COUNTRY } from "./reference-data.js";
import type { ShippingMethodCreateInput, ShippingMethodListQuery, ShippingMethodUpdateInput, ShippingMethodView } from "./shipping-method-schemas.js";

const withCountry = { country: { include: { currency: true } } } as const;

type ShippingMethodRow = NonNullable<Awaited<ReturnType<typeof findRow>>>;

function findRow(db: Prisma.TransactionClient, companyId: number, id: number) {
  return db.shippingMethod.findFirst({ where: { id, company_id: companyId }, include: withCountry });
}

function toView(row: ShippingMethodRow): ShippingMethodView {
  const currency = row.country.currency;
  return {
    id: row.id,
    name: row.name,
    country_code: row.country.iso,
    currency_code: currency.code,
    price: formatMinor(row.price, currency.decimal_places),
    free_over: row.free_over === null ? null : formatMinor(row.free_over, currency.decimal_places),
    active: row.active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function requireRow(db: Prisma.TransactionClient, companyId: number, id: number): Promise<ShippingMethodRow> {
  const row = await findRow(db, companyId, id);
  if (!row) throw new NotFoundError("Shipping method not found");
  return row;
}

/**
 * Locks the company's method for the rest of the transaction and reads it, or 404: concurrent
 * updates take turns, each checking its amounts against the currency the one before it left.
 * NO KEY UPDATE is the lock the update's own UPDATE takes; carts choosing the method do not wait.
 */
async function lockRow(tx: Prisma.TransactionClient, companyId: number, id: number): Promise<ShippingMethodRow> {
  await lockCompanyRow(tx, { table: "shipping_methods", companyId, id }, "NO KEY UPDATE", "Shipping method not found");
  return requireRow(tx, companyId, id);
}

// Amounts are in the country's currency: nothing else can be checked without it.
async function requireCountry(ctx: ServiceContext, iso: string): Promise<CountryView> {
  const country = await findCountry(ctx.db, iso);
  if (!country) throw ValidationError.field("shipping_method.country_code", UNKNOWN_COUNTRY);
  return country;
}

export async function listShippingMethods(ctx: ServiceContext, query: ShippingMethodListQuery): Promise<Page<ShippingMethodView>> {
  const where = {
    company_id: ctx.companyId,
    ...(query.country_code ? { country: { iso: query.country_code } } : {}),
    ...(query.search_query ? { name: { contains: escapeLike(query.search_query), mode: "insensitive" as const } } : {}),
  };
  const [rows, total] = await Promise.all([
    ctx.db.shippingMethod.findMany({ where, include: withCountry, orderBy: { id: "desc" }, ...pageWindow(query) }),
    ctx.db.shippingMethod.count({ where }),
  ]);
  return { rows: rows.map(toView), pagination: pagination(query, total) };
}

export async function getShippingMethod(ctx: ServiceContext, id: number): Promise<ShippingMethodView> {
  return toView(await requireRow(ctx.db, ctx.companyId, id));
}

export async function createShippingMethod(ctx: ServiceContext, input: ShippingMethodCreateInput): Promise<ShippingMethodView> {
  const country = await requireCountry(ctx, input.country_code);
  const errors = new FieldErrorCollector();
  const price = minorInCurrency(input.price, country, "shipping_method.price", errors);
  const freeOver = input.free_over == null ? null : minorInCurrency(input.free_over, country, "shipping_method.free_over", errors);
  errors.throwIfAny();
  const row = await ctx.db.shippingMethod.create({
    data: { company_id: ctx.companyId, country_id: country.id, name: input.name, price, free_over: freeOver, active: input.active ?? true },
    include: withCountry,
  });
  return toView(row);
}

/**
 * Partial update. Amounts are stored in the currency's minor units, so moving a method to a
 * country with another currency needs its amounts restated: `price` (and `free_over`, when
 * the method has one) must then be sent too.
 */
export async function updateShippingMethod(ctx: ServiceContext, id: number, input: ShippingMethodUpdateInput): Promise<ShippingMethodView> {
  // Another company's method is a 404 before the body's country is looked up (an unknown one is a 422).
  await requireRow(ctx.db, ctx.companyId, id);
  const requested = input.country_code ? await requireCountry(ctx, input.country_code) : null;
  const row = await ctx.db.$transaction(async (tx) => {
    const current = await lockRow(tx, ctx.companyId, id);
    const country = requested ?? toCountryView(current.country);
    const errors = new FieldErrorCollector();
    if (country.currency_code !== current.country.currency_code) {
      const restate = "is required when the country's currency changes";
      if (input.price === undefined) errors.add("shipping_method.price", restate);
      if (input.free_over === undefined && current.free_over !== null) errors.add("shipping_method.free_over", restate);
    }
    const price = input.price === undefined ? undefined : minorInCurrency(input.price, country, "shipping_method.price", errors);
    const freeOver = input.free_over == null ? input.free_over : minorInCurrency(input.free_over, country, "shipping_method.free_over", errors);
    errors.throwIfAny();
    return tx.shippingMethod.update({
      where: { id: current.id },
      data: { name: input.name, country_id: requested?.id, price, free_over: freeOver, active: input.active },
      include: withCountry,
    });
  }, LOCK_WAITING_TRANSACTION);
  return toView(row);
}

/** Carts and subscription orders that chose the method refer to it: then it is retired with `active: false` instead. */
export async function deleteShippingMethod(ctx: ServiceContext, id: number): Promise<ShippingMethodView> {
  // Read under the lock, so the answer is the method as it was removed, not as before an update that committed meanwhile.
  const removed = await ctx.db
    .$transaction(async (tx) => {
      const current = await lockRow(tx, ctx.companyId, id);
      await tx.shippingMethod.delete({ where: { id: current.id } });
      return current;
    }, LOCK_WAITING_TRANSACTION)
    .catch((error: unknown) => {
      if (isForeignKeyViolation(error)) throw new ConflictError("Carts or subscription orders use this shipping method: set active to false instead", { code: "in_use" });
      throw error;
    });
  return toView(removed);
}
