import type { ServiceContext } from "../../platform/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { escapeLike } from "../../platform/db/like.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { FieldErrorCollector, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, pageWindow, pagination } from "../../platform/http/pagination.js";
import { formatMinor } from "../../platform/money.js";
import { minorInCurrency } from "./amounts.js";
import {
  MAX_VARIANTS_PER_PRODUCT,
  type PriceInput,
  type ProductCreateInput,
  type ProductListQuery,
  type ProductUpdateInput,
  type ProductView,
  type VariantCreateInput,
  type VariantUpdateInput,
  type VariantView,
} from "./product-schemas.js";
import { type CountryView, countriesByIso, UNKNOWN_COUNTRY } from "./reference-data.js";

// Deleted products and variants (deleted_at set) stay in the database, because carts and
// orders keep pointing at them, but the catalog no longer shows them anywhere.
const live = { deleted_at: null };

const productInclude = {
  variants: {
    where: live,
    orderBy: { id: "asc" },
    include: { prices: { orderBy: { id: "asc" }, include: { country: { include: { currency: true } } } } },
  },
} as const;

type ProductRow = NonNullable<Awaited<ReturnType<typeof findProductRow>>>;
type VariantRow = ProductRow["variants"][number];

function findProductRow(db: Prisma.TransactionClient, companyId: number, id: number) {
  return db.product.findFirst({ where: { id, company_id: companyId, ...live }, include: productInclude });
}

function toVariantView(row: VariantRow): VariantView {
  return {
    id: row.id,
    product_id: row.product_id,
    sku: row.sku,
    title: row.title,
    image_url: row.image_url,
    cv: row.cv,
    qv: row.qv,
    inventory_quantity: row.inventory_quantity,
    tax_category: row.tax_category as VariantView["tax_category"],
    active: row.active,
    prices: row.prices.map((price) => ({
      country_code: price.country.iso,
      currency_code: price.country.currency.code,
      price: formatMinor(price.price, price.country.currency.decimal_places),
      rep_price: price.rep_price === null ? null : formatMinor(price.rep_price, price.country.currency.decimal_places),
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toProductView(row: ProductRow): ProductView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    image_url: row.image_url,
    active: row.active,
    variants: row.variants.map(toVariantView),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function requireProduct(ctx: ServiceContext, id: number): Promise<ProductRow> {
  const row = await findProductRow(ctx.db, ctx.companyId, id);
  if (!row) throw new NotFoundError("Product not found");
  return row;
}

export async function listProducts(ctx: ServiceContext, query: ProductListQuery): Promise<Page<ProductView>> {
  const contains = query.search_query ? { contains: escapeLike(query.search_query), mode: "insensitive" as const } : null;
  const search = contains ? { OR: [{ title: contains }, { variants: { some: { ...live, sku: contains } } }] } : {};
  const where = { company_id: ctx.companyId, ...live, ...search };
  const [rows, total] = await Promise.all([
    ctx.db.product.findMany({ where, include: productInclude, orderBy: { id: "desc" }, ...pageWindow(query) }),
    ctx.db.product.count({ where }),
  ]);
  return { rows: rows.map(toProductView), pagination: pagination(query, total) };
}

export async function getProduct(ctx: ServiceContext, id: number): Promise<ProductView> {
  return toProductView(await requireProduct(ctx, id));
}

interface PriceData {
  country_id: number;
  price: number;
  rep_price: number | null;
}

function pricesData(prices: PriceInput[], path: string, countries: Map<string, CountryView>, errors: FieldErrorCollector): PriceData[] {
  const seen = new Set<string>();
  const data: PriceData[] = [];
  prices.forEach((input, index) => {
    const at = `${path}.prices.${index}`;
    const country = countries.get(input.country_code);
    if (!country) {
      errors.add(`${at}.country_code`, UNKNOWN_COUNTRY);
      return;
    }
    if (seen.has(country.iso)) errors.add(`${at}.country_code`, "appears more than once");
    seen.add(country.iso);
    const price = minorInCurrency(input.price, country, `${at}.price`, errors);
    const repPrice = input.rep_price == null ? null : minorInCurrency(input.rep_price, country, `${at}.rep_price`, errors);
    data.push({ country_id: country.id, price, rep_price: repPrice });
  });
  return data;
}

function countryCodesOf(variants: Array<{ prices?: PriceInput[] | undefined }>): string[] {
  return variants.flatMap((variant) => (variant.prices ?? []).map((price) => price.country_code));
}

interface SkuClaim {
  sku: string;
  path: string;
  /** The variant that claims it, when it already exists (its own sku is not a conflict). */
  variantId?: number;
}

/** Skus are unique per company, deleted variants included (orders and carts still name them). */
async function checkSkus(ctx: ServiceContext, claims: SkuClaim[], errors: FieldErrorCollector): Promise<void> {
  const firstClaim = new Map<string, SkuClaim>();
  for (const claim of claims) {
    if (firstClaim.has(claim.sku)) errors.add(claim.path, "is used by more than one variant in this request");
    else firstClaim.set(claim.sku, claim);
  }
  if (firstClaim.size === 0) return;
  const holders = await ctx.db.variant.findMany({
    where: { company_id: ctx.companyId, sku: { in: [...firstClaim.keys()] } },
    select: { id: true, sku: true, deleted_at: true },
  });
  for (const holder of holders) {
    const claim = firstClaim.get(holder.sku);
    if (!claim || claim.variantId === holder.id) continue;
    errors.add(claim.path, holder.deleted_at ? "has already been taken (by a deleted product's variant)" : "has already been taken");
  }
}

/**
 * Two requests claiming one sku at the same moment both pass checkSkus; the unique index
 * decides, and the loser gets the same 422 it would have got a moment later: checkSkus again,
 * now that the winner's variant is committed, names the entry at fault (an audit found the
 * loser told "product.variants" instead). The general message stays for a winner gone again.
 */
function skuRace(ctx: ServiceContext, claims: SkuClaim[]) {
  return async (error: unknown): Promise<never> => {
    if (!isUniqueViolation(error)) throw error;
    const errors = new FieldErrorCollector();
    await checkSkus(ctx, claims, errors);
    errors.throwIfAny();
    throw ValidationError.field("product.variants", "contains a sku that has already been taken");
  };
}

function variantData(input: VariantCreateInput | VariantUpdateInput) {
  return {
    sku: input.sku,
    title: input.title,
    image_url: input.image_url,
    cv: input.cv,
    qv: input.qv,
    inventory_quantity: input.inventory_quantity,
    tax_category: input.tax_category,
    active: input.active,
  };
}

export async function createProduct(ctx: ServiceContext, input: ProductCreateInput): Promise<ProductView> {
  const errors = new FieldErrorCollector();
  const countries = await countriesByIso(ctx.db, countryCodesOf(input.variants));
  const variants = input.variants.map((variant, index) => ({
    ...variantData(variant),
    // variantData serves updates too, where sku is optional: Prisma needs this one as a string.
    sku: variant.sku,
    company_id: ctx.companyId,
    prices: { create: pricesData(variant.prices, `product.variants.${index}`, countries, errors) },
  }));
  const claims = input.variants.map((variant, index): SkuClaim => ({ sku: variant.sku, path: `product.variants.${index}.sku` }));
  await checkSkus(ctx, claims, errors);
  errors.throwIfAny();

  const row = await ctx.db.product
    .create({
      data: {
        company_id: ctx.companyId,
        title: input.title,
        description: input.description ?? null,
        image_url: input.image_url ?? null,
        active: input.active ?? true,
        variants: { create: variants },
      },
      include: productInclude,
    })
    .catch(skuRace(ctx, claims));
  return toProductView(row);
}

/**
 * Locks the company's live product for the rest of the transaction, or 404 (deleted meanwhile:
 * nothing is written to a deleted product). Concurrent updates of one product take turns here,
 * each writing its variants' price lists whole. NO KEY UPDATE is the lock the update's own
 * UPDATE takes (and a soft delete's, an UPDATE of deleted_at).
 */
async function lockLiveProduct(tx: Prisma.TransactionClient, companyId: number, id: number): Promise<void> {
  await lockCompanyRow(tx, { table: "products", companyId, id, live: true }, "NO KEY UPDATE", "Product not found");
}

/** Why adding `added` variants to a product that has `live` is refused, or null when it is not. */
function variantLimitProblem(live: number, added: number): string | null {
  return live + added > MAX_VARIANTS_PER_PRODUCT ? `a product has at most ${MAX_VARIANTS_PER_PRODUCT} variants: it has ${live} and this request adds ${added}` : null;
}

/**
 * Partial update: members absent from the body stay as they are. A `variants` entry with an id
 * updates that variant (its `prices`, when sent, replace the variant's price list); an entry
 * without one adds a variant. Variants not listed are untouched.
 */
export async function updateProduct(ctx: ServiceContext, id: number, input: ProductUpdateInput): Promise<ProductView> {
  // Only its variants' ids are checked: the whole view (every variant's prices) is read once, at the end.
  const current = await ctx.db.product.findFirst({ where: { id, company_id: ctx.companyId, ...live }, select: { id: true, variants: { where: live, select: { id: true } } } });
  if (!current) throw new NotFoundError("Product not found");
  const entries = input.variants ?? [];
  const errors = new FieldErrorCollector();
  const countries = await countriesByIso(ctx.db, countryCodesOf(entries));
  const ownVariantIds = new Set(current.variants.map((variant) => variant.id));
  const listedIds = new Set<number>();

  const planned = entries.map((entry, index) => {
    const path = `product.variants.${index}`;
    if (entry.id !== undefined) {
      if (!ownVariantIds.has(entry.id)) errors.add(`${path}.id`, "is not a variant of this product");
      else if (listedIds.has(entry.id)) errors.add(`${path}.id`, "appears more than once");
      listedIds.add(entry.id);
    }
    return { entry, prices: entry.prices ? pricesData(entry.prices, path, countries, errors) : null };
  });
  const added = entries.filter((entry) => entry.id === undefined).length;
  const tooMany = variantLimitProblem(current.variants.length, added);
  if (tooMany !== null) errors.add("product.variants", tooMany);
  const claims = entries.flatMap((entry, index): SkuClaim[] =>
    entry.sku === undefined ? [] : [{ sku: entry.sku, path: `product.variants.${index}.sku`, ...(entry.id !== undefined ? { variantId: entry.id } : {}) }],
  );
  await checkSkus(ctx, claims, errors);
  errors.throwIfAny();

  await ctx.db
    .$transaction(async (tx) => {
      await lockLiveProduct(tx, ctx.companyId, current.id);
      await tx.product.update({
        where: { id: current.id },
        data: { title: input.title, description: input.description, image_url: input.image_url, active: input.active, updated_at: ctx.clock.now() },
      });
      // Counted again under the lock: updates that each passed the count above may have added variants since.
      if (added > 0) {
        const tooManyNow = variantLimitProblem(await tx.variant.count({ where: { product_id: current.id, ...live } }), added);
        if (tooManyNow !== null) throw ValidationError.field("product.variants", tooManyNow);
      }
      for (const { entry, prices } of planned) {
        if (entry.id === undefined) {
          await tx.variant.create({
            // The request schema requires a sku on every entry without an id.
            data: { ...variantData(entry), sku: entry.sku ?? "", company_id: ctx.companyId, product_id: current.id, prices: { create: prices ?? [] } },
          });
          continue;
        }
        // updated_at is set, not left to @updatedAt, which skips the row when only the prices change.
        const changesVariant = Object.entries(entry).some(([member, value]) => member !== "id" && value !== undefined);
        if (changesVariant) await tx.variant.update({ where: { id: entry.id }, data: { ...variantData(entry), updated_at: ctx.clock.now() } });
        if (prices) {
          await tx.variantPrice.deleteMany({ where: { variant_id: entry.id } });
          await tx.variantPrice.createMany({ data: prices.map((price) => ({ ...price, variant_id: entry.id as number })) });
        }
      }
    }, LOCK_WAITING_TRANSACTION)
    .catch(skuRace(ctx, claims));
  // Read after the commit, out of the lock the next update waits for (a product's view is all its
  // variants and prices): it may show a later update too, and a delete meanwhile makes it a 404.
  return requireProduct(ctx, current.id).then(toProductView);
}

/**
 * Soft delete: the product and its variants disappear from the catalog; carts keep their lines.
 * Under the live product's lock, as its updates: of racing deletes the later ones find it deleted,
 * a 404. The answer is the id and the time written, so nothing else of the product is read.
 */
export async function deleteProduct(ctx: ServiceContext, id: number): Promise<{ id: number; deleted_at: string }> {
  const deletedAt = ctx.clock.now();
  await ctx.db.$transaction(async (tx) => {
    await lockLiveProduct(tx, ctx.companyId, id);
    await tx.product.update({ where: { id }, data: { deleted_at: deletedAt }, select: { id: true } });
    await tx.variant.updateMany({ where: { product_id: id, ...live }, data: { deleted_at: deletedAt } });
  }, LOCK_WAITING_TRANSACTION);
  return { id, deleted_at: deletedAt.toISOString() };
}
