import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";
import { isValidDecimalString, parseDecimalToMinor } from "../../platform/money.js";
import { decimalText } from "./amounts.js";
import { findCountry } from "./reference-data.js";
import type { TaxRateView } from "./tax-rate-schemas.js";

/** The rate column holds 4 fraction digits of a percent. */
const RATE_DECIMAL_PLACES = 4;

const withCountry = { country: true } as const;

function toView(row: { id: number; rate: { toFixed(): string }; updated_at: Date; country: { iso: string; name: string } }): TaxRateView {
  return { id: row.id, country_code: row.country.iso, country_name: row.country.name, rate: decimalText(row.rate, 0), updated_at: row.updated_at.toISOString() };
}

export async function listTaxRates(ctx: ServiceContext, page: PageRequest): Promise<Page<TaxRateView>> {
  const where = { company_id: ctx.companyId };
  const [rows, total] = await Promise.all([
    ctx.db.taxRate.findMany({ where, include: withCountry, orderBy: { country: { iso: "asc" } }, ...pageWindow(page) }),
    ctx.db.taxRate.count({ where }),
  ]);
  return { rows: rows.map(toView), pagination: pagination(page, total) };
}

async function requireRow(ctx: ServiceContext, countryCode: string) {
  const row = await ctx.db.taxRate.findFirst({ where: { company_id: ctx.companyId, country: { iso: countryCode } }, include: withCountry });
  if (!row) throw new NotFoundError("Tax rate not found");
  return row;
}

/** The company's rate for a country: a 404 when it has none there, as for an unknown country. */
export async function getTaxRate(ctx: ServiceContext, countryCode: string): Promise<TaxRateView> {
  return toView(await requireRow(ctx, countryCode));
}

/** Sets the company's rate for a country (creating it the first time); a country without one taxes nothing. */
export async function setTaxRate(ctx: ServiceContext, countryCode: string, rate: string): Promise<TaxRateView> {
  const country = await findCountry(ctx.db, countryCode);
  if (!country) throw new NotFoundError("Country not found");
  const valid = isValidDecimalString(rate, RATE_DECIMAL_PLACES) && parseDecimalToMinor(rate, RATE_DECIMAL_PLACES) <= 100 * 10 ** RATE_DECIMAL_PLACES;
  if (!valid) throw ValidationError.field("tax_rate.rate", `must be a percentage from 0 to 100 with at most ${RATE_DECIMAL_PLACES} decimal places`);
  // One statement: concurrent first PUTs of a country take turns on the unique index, where a
  // read, then an insert, had all of them find no rate and all but one fail on it.
  const [row] = await ctx.db.$queryRaw<Array<{ id: number; rate: Prisma.Decimal; updated_at: Date }>>`
    INSERT INTO tax_rates (company_id, country_id, rate, updated_at) VALUES (${ctx.companyId}, ${country.id}, ${rate}::numeric, ${ctx.clock.now()})
    ON CONFLICT (company_id, country_id) DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at
    RETURNING id, rate, updated_at`;
  if (!row) throw new Error("unreachable: an upsert returns its row");
  return toView({ ...row, country });
}

/**
 * Removes the company's rate for a country, which is then as if never set: carts priced there
 * from their next change on are taxed at 0, and GET answers 404. A rate PUT to "0" is not that:
 * it stays a row the company chose.
 */
export async function deleteTaxRate(ctx: ServiceContext, countryCode: string): Promise<TaxRateView> {
  const country = await findCountry(ctx.db, countryCode);
  if (!country) throw new NotFoundError("Tax rate not found");
  // One statement answering the row it removed: a read, then a delete, answered the rate as it
  // was before a PUT that committed in between, and removed that PUT's rate.
  const [row] = await ctx.db.$queryRaw<Array<{ id: number; rate: Prisma.Decimal; updated_at: Date }>>`
    DELETE FROM tax_rates WHERE company_id = ${ctx.companyId} AND country_id = ${country.id} RETURNING id, rate, updated_at`;
  if (!row) throw new NotFoundError("Tax rate not found");
  return toView({ ...row, country });
}
