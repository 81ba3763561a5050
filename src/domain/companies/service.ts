import type { Db } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { asciiDomain } from "../../platform/domain-names.js";
import { ConflictError, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";

interface CompanyInput {
  name: string;
  /** The shop's domain without scheme ("acme.example.com"). */
  shop: string;
  logoUrl?: string | null;
}

const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * "https://Acme.Example.com/", "acme.example.com." (fully qualified: a browser keeps the dot in
 * location.hostname) and "acme.example.com" name the same shop, and so do an internationalized
 * domain or label and its ASCII form ("bücher.example" and "xn--bcher-kva.example", which is what
 * is stored and what a browser's location.hostname gives); one with no ASCII form names none.
 */
export function normalizeShop(shop: string): string {
  const name = shop
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, "")
    .replace(/[/:].*$/, "")
    .replace(/\.$/, "");
  return asciiDomain(name);
}

/**
 * A storefront may name a shop by its domain's first label (its `shop_label`, stored as
 * `shop_slug`), so a label names one company: the first company with it keeps it for good (its
 * storefronts may send it), and a later company whose domain shares it is created without one
 * and named by its domain.
 */
export async function createCompany(db: Db, input: CompanyInput) {
  const shopDomain = normalizeShop(input.shop);
  if (!DOMAIN_PATTERN.test(shopDomain)) throw ValidationError.field("shop", "must be a domain name such as acme.example.com");
  if (input.name.trim() === "") throw ValidationError.field("name", "is required");
  const company = { name: input.name.trim(), shop_domain: shopDomain, logo_url: input.logoUrl ?? null };
  // ON CONFLICT DO NOTHING (skipDuplicates) rather than catching the violation: a caller's
  // transaction (the demo seed's) survives a taken label, and a concurrent create taking the
  // label between a look and the insert needs no retry.
  const [labelled] = await db.company.createManyAndReturn({ data: [{ ...company, shop_slug: shopDomain.split(".")[0] }], skipDuplicates: true });
  if (labelled) return labelled;
  try {
    return await db.company.create({ data: { ...company, shop_slug: null } });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A company already uses the shop ${shopDomain}`);
    throw error;
  }
}

/** Operator commands and seeds name a company by id: one that names none is a NotFoundError. */
export async function requireCompany(db: Db, companyId: number): Promise<void> {
  const company = await db.company.findUnique({ where: { id: companyId }, select: { id: true } });
  if (!company) throw new NotFoundError(`no company with id ${companyId}`);
}

/** A company as operators see it: its id (for tokens:create, roles:create, users:create) and its shop. */
interface CompanyListing {
  id: number;
  name: string;
  shop: string;
  shop_label: string | null;
}

export function companyListing(company: { id: number; name: string; shop_domain: string; shop_slug: string | null }): CompanyListing {
  return { id: company.id, name: company.name, shop: company.shop_domain, shop_label: company.shop_slug };
}

/** Every company, in the order they were created (the operator CLI's companies:list). */
export async function listCompanies(db: Db, page: PageRequest): Promise<Page<CompanyListing>> {
  const [rows, total] = await Promise.all([
    db.company.findMany({ select: { id: true, name: true, shop_domain: true, shop_slug: true }, orderBy: { id: "asc" }, ...pageWindow(page) }),
    db.company.count(),
  ]);
  return { rows: rows.map(companyListing), pagination: pagination(page, total) };
}

interface ShopKey {
  column: "shop_domain" | "shop_slug";
  value: string;
}

/**
 * Storefronts name their shop by its domain or by the domain's first label: the companies
 * column and value that find it, or null for a name that names no shop.
 */
export function shopKey(shop: string): ShopKey | null {
  const normalized = normalizeShop(shop);
  if (normalized === "") return null;
  return { column: normalized.includes(".") ? "shop_domain" : "shop_slug", value: normalized };
}

/** What a storefront naming no shop is told, on the cart and the public SDK alike. */
export function shopNotFound(): NotFoundError {
  return new NotFoundError("Shop not found", { code: "shop_not_found" });
}

export async function findCompanyByShop(db: Db, shop: string) {
  const key = shopKey(shop);
  if (key === null) return null;
  return db.company.findFirst({ where: { [key.column]: key.value } });
}
