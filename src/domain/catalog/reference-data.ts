import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import type { Db } from "../../platform/db/database.js";
import { FieldErrorCollector } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";

/** A reference country with what pricing in it needs: its currency. */
export interface CountryView {
  id: number;
  iso: string;
  name: string;
  currency_code: string;
  currency_symbol: string;
  decimal_places: number;
}

interface LanguageView {
  iso: string;
  name: string;
}

const withCurrency = { currency: true } as const;

export function toCountryView(row: { id: number; iso: string; name: string; currency: { code: string; symbol: string; decimal_places: number } }): CountryView {
  return {
    id: row.id,
    iso: row.iso,
    name: row.name,
    currency_code: row.currency.code,
    currency_symbol: row.currency.symbol,
    decimal_places: row.currency.decimal_places,
  };
}

export async function listCountries(ctx: ServiceContext, page: PageRequest): Promise<Page<CountryView>> {
  const [rows, total] = await Promise.all([
    ctx.db.country.findMany({ include: withCurrency, orderBy: { iso: "asc" }, ...pageWindow(page) }),
    ctx.db.country.count(),
  ]);
  return { rows: rows.map(toCountryView), pagination: pagination(page, total) };
}

export async function listLanguages(ctx: ServiceContext, page: PageRequest): Promise<Page<LanguageView>> {
  const [rows, total] = await Promise.all([
    ctx.db.language.findMany({ orderBy: { iso: "asc" }, ...pageWindow(page) }),
    ctx.db.language.count(),
  ]);
  return { rows, pagination: pagination(page, total) };
}

/** The reference countries among `isos` (upper-case), keyed by iso; unknown codes are absent. */
export async function countriesByIso(db: Db, isos: Iterable<string>): Promise<Map<string, CountryView>> {
  const wanted = [...new Set(isos)];
  if (wanted.length === 0) return new Map();
  const rows = await db.country.findMany({ where: { iso: { in: wanted } }, include: withCurrency });
  return new Map(rows.map((row) => [row.iso, toCountryView(row)]));
}

export async function findCountry(db: Db, iso: string): Promise<CountryView | null> {
  return (await countriesByIso(db, [iso])).get(iso) ?? null;
}

/** What a body naming no reference currency is told. */
export const UNKNOWN_CURRENCY = "does not name a currency";

/** A reference currency by its code (upper-case), or null when there is none. */
export function findCurrency(db: Db, code: string): Promise<{ code: string; decimal_places: number } | null> {
  return db.currency.findUnique({ where: { code }, select: { code: true, decimal_places: true } });
}

/** What a body naming no reference country is told, wherever it names one. */
export const UNKNOWN_COUNTRY = "does not name a country";

type CountryReference = { country_id?: number | undefined; country_code?: string | undefined };

/**
 * The reference country a body (an address, a company country) names by `country_id` or
 * `country_code` (any case); a missing, unknown or disagreeing one is recorded in `errors`
 * under `path` and read as null.
 */
export async function resolveCountry(
  db: Db | Prisma.TransactionClient,
  reference: CountryReference,
  path: string,
  errors: FieldErrorCollector,
): Promise<{ id: number; iso: string } | null> {
  if (reference.country_id === undefined && reference.country_code === undefined) {
    errors.add(`${path}.country_id`, "is required (or send country_code)");
    return null;
  }
  const country = await db.country.findFirst({
    where: reference.country_id !== undefined ? { id: reference.country_id } : { iso: reference.country_code?.toUpperCase() },
    select: { id: true, iso: true },
  });
  if (!country) {
    errors.add(`${path}.${reference.country_id !== undefined ? "country_id" : "country_code"}`, UNKNOWN_COUNTRY);
    return null;
  }
  // Both sent and naming two countries: storing one of them would ship or bill to a guess.
  if (reference.country_code !== undefined && reference.country_code.toUpperCase() !== country.iso) {
    errors.add(`${path}.country_code`, "does not match country_id");
    return null;
  }
  return country;
}

/** resolveCountry for a request with nothing else to check: the 422 is thrown at once. */
export async function requireCountry(db: Db | Prisma.TransactionClient, reference: CountryReference, path: string): Promise<{ id: number; iso: string }> {
  const errors = new FieldErrorCollector();
  const country = await resolveCountry(db, reference, path, errors);
  errors.throwIfAny();
  if (country === null) throw new Error("unreachable: a country resolveCountry cannot name is a field error");
  return country;
}
