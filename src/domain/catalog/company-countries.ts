import type { ServiceContext } from "../../platform/context.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { ConflictError, NotFoundError } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";
import type { CompanyCountryCreateInput, CompanyCountryView } from "./company-country-schemas.js";
import { requireCountry } from "./reference-data.js";

const withCountry = { country: { select: { iso: true, name: true, currency_code: true } } } as const;

function toView(row: { id: number; country_id: number; created_at: Date; country: { iso: string; name: string; currency_code: string } }): CompanyCountryView {
  return {
    id: row.id,
    country_id: row.country_id,
    country_code: row.country.iso,
    name: row.country.name,
    currency_code: row.country.currency_code,
    created_at: row.created_at.toISOString(),
  };
}

async function requireRow(ctx: ServiceContext, id: number) {
  const row = await ctx.db.companyCountry.findFirst({ where: { id, company_id: ctx.companyId }, include: withCountry });
  if (!row) throw new NotFoundError("Company country not found");
  return row;
}

/** By country code: a company's agreements apply to a handful of countries, and a storefront looks them up by code. */
export async function listCompanyCountries(ctx: ServiceContext, page: PageRequest): Promise<Page<CompanyCountryView>> {
  const where = { company_id: ctx.companyId };
  const [rows, total] = await Promise.all([
    ctx.db.companyCountry.findMany({ where, include: withCountry, orderBy: { country: { iso: "asc" } }, ...pageWindow(page) }),
    ctx.db.companyCountry.count({ where }),
  ]);
  return { rows: rows.map(toView), pagination: pagination(page, total) };
}

export async function getCompanyCountry(ctx: ServiceContext, id: number): Promise<CompanyCountryView> {
  return toView(await requireRow(ctx, id));
}

/** A country the company already has is a 409, also when two requests race for it. */
export async function createCompanyCountry(ctx: ServiceContext, input: CompanyCountryCreateInput): Promise<CompanyCountryView> {
  const country = await requireCountry(ctx.db, input, "company_country");
  try {
    return toView(await ctx.db.companyCountry.create({ data: { company_id: ctx.companyId, country_id: country.id }, include: withCountry }));
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError("The company already has this country", { code: "company_country_taken" });
    throw error;
  }
}

/**
 * Deleting a country an agreement names would silently widen that agreement to every country
 * (no countries means all): it is a 409 until the agreements let go of it.
 */
export async function deleteCompanyCountry(ctx: ServiceContext, id: number): Promise<CompanyCountryView> {
  const current = await requireRow(ctx, id);
  await ctx.db.$transaction(async (tx) => {
    // An agreement write naming the country holds a key-share lock on it until it commits: this waits for it, so the count sees its rows.
    await lockCompanyRow(tx, { table: "company_countries", companyId: ctx.companyId, id: current.id }, "UPDATE", "Company country not found");
    if ((await tx.agreementCountry.count({ where: { company_country_id: current.id } })) > 0) {
      throw new ConflictError("Agreements name this company country in company_country_ids: remove it from them first", { code: "in_use" });
    }
    await tx.companyCountry.delete({ where: { id: current.id } });
  }, LOCK_WAITING_TRANSACTION);
  return toView(current);
}
