import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { escapeLike } from "../../platform/db/like.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { ConflictError, FieldErrorCollector, type FieldErrors, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, pageWindow, pagination } from "../../platform/http/pagination.js";
import { missingIds } from "../catalog/references.js";
import type { PricedPlan } from "../subscription-orders/pricing.js";
import type { OrderContext } from "../subscription-orders/records.js";
import { repricePlanOrders } from "../subscription-orders/repricing.js";
import { resolvePage } from "./list-page.js";
import { priceAdjustmentDisplay } from "./price-adjustment.js";
import { type PlanSettings, planSettingErrors } from "./rules.js";
import { billingFrequencyInWords, type IntervalUnit } from "./schedule.js";
import type { LinkUpdateInput, PlanCreateBody, PlanCreateInput, PlanListQuery, PlanUpdateBody, PlanUpdateInput, PlanView } from "./schemas.js";
import { openSubscriptionIds } from "./subscriptions.js";

type Tx = Prisma.TransactionClient;
type Client = ServiceContext["db"] | Tx;

const NESTED_LINKS = "subscription_plan.product_subscription_plans";
const OUTSIDE_LINKS = "product_subscription_plans";

// Links to soft-deleted products are kept (undeleting restores them) but not shown.
const planInclude = {
  company: { select: { id: true, name: true } },
  products: { where: { product: { deleted_at: null } }, orderBy: { id: "asc" }, select: { id: true, product_id: true, default: true } },
} satisfies Prisma.SubscriptionPlanInclude;

type PlanRow = Prisma.SubscriptionPlanGetPayload<{ include: typeof planInclude }>;

function toView(row: PlanRow, subscriptionIds: number[]): PlanView {
  return {
    id: row.id,
    name: row.name,
    billing_interval: row.billing_interval,
    billing_interval_unit: row.billing_interval_unit as IntervalUnit,
    billing_frequency_in_words: billingFrequencyInWords(row.billing_interval, row.billing_interval_unit as IntervalUnit),
    shipping_interval: row.shipping_interval,
    shipping_interval_unit: row.shipping_interval_unit as IntervalUnit,
    volume_interval: row.volume_interval,
    volume_interval_unit: row.volume_interval_unit as IntervalUnit,
    trial_period: row.trial_period,
    trial_period_unit: row.trial_period_unit as IntervalUnit | null,
    split_volume: row.split_volume,
    allow_skipping: row.allow_skipping,
    max_skips: row.max_skips,
    allow_max_billing_cycles: row.allow_max_billing_cycles,
    max_billing_cycles: row.max_billing_cycles,
    price_adjustment_type: row.price_adjustment_type as PlanView["price_adjustment_type"],
    // The JSON edge: the exact stored decimal becomes the nearest number.
    price_adjustment_amount: row.price_adjustment_amount === null ? null : Number(row.price_adjustment_amount.toString()),
    display_price_adjustment_amount: priceAdjustmentDisplay(row),
    active: row.active,
    company_default: row.company_default,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    products_count: row.products.length,
    subscribers_count: subscriptionIds.length,
    company: row.company,
    subscriptions: subscriptionIds.map((id) => ({ id })),
    products: row.products.map((link) => ({ id: link.product_id })),
    product_subscription_plans: row.products,
  };
}

async function viewOf(db: Client, companyId: number, id: number): Promise<PlanView> {
  const row = await db.subscriptionPlan.findFirst({ where: { id, company_id: companyId }, include: planInclude });
  if (!row) throw new NotFoundError("Subscription plan not found");
  const subscriptions = await openSubscriptionIds(db, companyId, [id]);
  return toView(row, subscriptions.get(id) ?? []);
}

/** A JSON number as the decimal string it was written as (the schema allows at most 4 decimals). */
function amountText<Absent extends null | undefined>(amount: number | Absent): string | Absent {
  return typeof amount === "number" ? String(amount) : amount;
}

function settingsData(input: PlanUpdateInput) {
  const { product_subscription_plans: _links, price_adjustment_amount, ...members } = input;
  const defined = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
  return {
    ...defined,
    ...(price_adjustment_amount !== undefined ? { price_adjustment_amount: amountText(price_adjustment_amount) } : {}),
  } as Prisma.SubscriptionPlanUncheckedUpdateInput;
}

function mergedSettings(input: PlanUpdateInput, current: PlanSettings): PlanSettings {
  const pick = <K extends keyof PlanSettings>(key: K, value: PlanSettings[K] | undefined): PlanSettings[K] => (value === undefined ? current[key] : value);
  return {
    trial_period: pick("trial_period", input.trial_period),
    trial_period_unit: pick("trial_period_unit", input.trial_period_unit),
    allow_max_billing_cycles: pick("allow_max_billing_cycles", input.allow_max_billing_cycles),
    max_billing_cycles: pick("max_billing_cycles", input.max_billing_cycles),
    price_adjustment_type: pick("price_adjustment_type", input.price_adjustment_type),
    price_adjustment_amount: pick("price_adjustment_amount", amountText(input.price_adjustment_amount)),
  };
}

const NEW_PLAN: PlanSettings = {
  trial_period: null,
  trial_period_unit: null,
  allow_max_billing_cycles: false,
  max_billing_cycles: null,
  price_adjustment_type: null,
  price_adjustment_amount: null,
};

/** The product ids among `productIds` that are not the company's live products. */
async function foreignProductIds(db: Client, companyId: number, productIds: number[]): Promise<Set<number>> {
  if (productIds.length === 0) return new Set();
  const own = await db.product.findMany({ where: { id: { in: productIds }, company_id: companyId, deleted_at: null }, select: { id: true } });
  return new Set(missingIds(productIds, own));
}

interface ExistingLink {
  id: number;
  product_id: number;
}

interface StoredLink extends ExistingLink {
  default: boolean;
}

interface Links<Link> {
  entries: Link[];
  /** Where an entry's errors go: `product_subscription_plans.<index>`, or no index for the single object. */
  pathOf(index: number): string;
}

/**
 * The links as a list, from inside `subscription_plan` or beside it (never both); the seed's
 * single object is a list of one whose errors name its members directly.
 */
function linksOf<Link extends object>(nested: Link | Link[] | undefined, outside: Link | Link[] | undefined): Links<Link> {
  if (nested !== undefined && outside !== undefined) {
    throw ValidationError.field(OUTSIDE_LINKS, "send the product links in one place: inside subscription_plan or beside it");
  }
  const [sent, path] = outside !== undefined ? [outside, OUTSIDE_LINKS] : [nested, NESTED_LINKS];
  if (sent === undefined) return { entries: [], pathOf: () => path };
  return Array.isArray(sent) ? { entries: sent, pathOf: (index) => `${path}.${index}` } : { entries: [sent], pathOf: () => path };
}

/**
 * Field errors for the links an update (or create, with no existing links) asks for: unknown
 * or foreign products, link ids of other plans, and one product linked twice.
 */
async function linkErrors(db: Client, companyId: number, links: Links<LinkUpdateInput>, existing: ExistingLink[]): Promise<FieldErrors> {
  const { entries, pathOf } = links;
  const errors = new FieldErrorCollector();
  const add = (index: number, member: string, message: string) => errors.add(`${pathOf(index)}.${member}`, message);
  const existingIds = new Set(existing.map((link) => link.id));
  const foreign = await foreignProductIds(db, companyId, [...new Set(entries.flatMap((entry) => (entry.product_id === undefined ? [] : [entry.product_id])))]);
  // Two entries for one link would make the outcome depend on their order.
  const entryNaming = new Map<number, number>();
  entries.forEach((entry, index) => {
    if (entry.id !== undefined && !existingIds.has(entry.id)) add(index, "id", "does not name a product link of this plan");
    if (entry.id !== undefined && entryNaming.has(entry.id)) add(index, "id", `names the same link as entry ${entryNaming.get(entry.id)}`);
    else if (entry.id !== undefined) entryNaming.set(entry.id, index);
    if (entry.id === undefined && entry._destroy) add(index, "id", "is required to remove a link");
    if (entry.id === undefined && !entry._destroy && entry.product_id === undefined) add(index, "product_id", "is required");
    if (entry.product_id !== undefined && foreign.has(entry.product_id)) add(index, "product_id", "does not name a product of this company");
  });
  // The links as they would be after the request (a new one keyed by its entry), to find a
  // product linked twice; the entries that cause it are blamed.
  const productOf = new Map<string, number>(existing.map((link) => [`link ${link.id}`, link.product_id]));
  const entryOf = new Map<string, number>();
  entries.forEach((entry, index) => {
    const key = entry.id !== undefined ? `link ${entry.id}` : `entry ${index}`;
    if (entry._destroy) productOf.delete(key);
    else if (entry.product_id !== undefined) {
      productOf.set(key, entry.product_id);
      entryOf.set(key, index);
    }
  });
  const keysByProduct = new Map<number, string[]>();
  for (const [key, productId] of productOf) keysByProduct.set(productId, [...(keysByProduct.get(productId) ?? []), key]);
  for (const keys of keysByProduct.values()) {
    if (keys.length < 2) continue;
    for (const key of keys) {
      const index = entryOf.get(key);
      if (index !== undefined) add(index, "product_id", "is already linked to this plan");
    }
  }
  return errors.fieldErrors;
}

// Transactions that lock more than one of these take them in one order, so that none waits for a
// lock held by a transaction waiting for one of its own (a deadlock, which PostgreSQL ends by
// failing one of them): the company first (a new company default), then plans (the plan
// itself, then the previous default plan), then products (a new product default).

/**
 * Locks the company's plan for the rest of the transaction, or 404. Concurrent updates and
 * deletes of one plan take turns here (the later one finds it gone: a 404, not a failed
 * write), and a subscription order being created for the plan holds a key-share lock on it
 * (its foreign key check) that this waits for: a delete counts that order, and an update's
 * repricing (after its commit) finds it.
 */
async function lockPlan(tx: Tx, companyId: number, id: number): Promise<void> {
  await lockCompanyRow(tx, { table: "subscription_plans", companyId, id }, "UPDATE", "Subscription plan not found");
}

// Concurrent requests setting defaults take turns on these row locks, so that "at most one
// default" holds without a partial unique index. The company's lock is the weaker NO KEY UPDATE:
// it excludes the other requests setting a default, not the foreign-key checks of every row
// written for the company meanwhile (an order being created for one of its plans among them).
async function lockCompany(tx: Tx, companyId: number): Promise<void> {
  // Not lockCompanyRow: this is the company's own row, not a row the company owns (no company_id).
  await tx.$queryRaw`SELECT id FROM companies WHERE id = ${companyId} FOR NO KEY UPDATE`;
}

async function lockProducts(tx: Tx, companyId: number, productIds: number[]): Promise<void> {
  // Not lockCompanyRow: several rows, in id order, already checked as the company's (linkErrors), so none is a 404.
  await tx.$queryRaw`SELECT id FROM products WHERE company_id = ${companyId} AND id = ANY(${productIds}) ORDER BY id FOR UPDATE`;
}

/** Makes `planId` the company default (under lockCompany), clearing the previous one; a plan being created has no id yet. */
async function takeCompanyDefault(tx: Tx, companyId: number, planId: number | null): Promise<void> {
  await tx.subscriptionPlan.updateMany({
    where: { company_id: companyId, company_default: true, ...(planId === null ? {} : { id: { not: planId } }) },
    data: { company_default: false },
  });
}

/**
 * Whether an update's entry makes its link a product's default: a sent `default: true`, or a
 * default link moved to another product and not sent as `default: false`.
 */
function setsProductDefault(entry: LinkUpdateInput, stored: StoredLink[]): boolean {
  if (entry._destroy) return false;
  if (entry.default !== undefined) return entry.default;
  const link = stored.find((candidate) => candidate.id === entry.id);
  return link !== undefined && link.default && entry.product_id !== undefined && entry.product_id !== link.product_id;
}

/** Makes each default link the only default of its product. */
async function takeProductDefaults(tx: Tx, planId: number): Promise<void> {
  const defaults = await tx.productSubscriptionPlan.findMany({ where: { subscription_plan_id: planId, default: true }, select: { product_id: true } });
  if (defaults.length === 0) return;
  const productIds = defaults.map((link) => link.product_id);
  await tx.productSubscriptionPlan.updateMany({ where: { product_id: { in: productIds }, default: true, subscription_plan_id: { not: planId } }, data: { default: false } });
}

interface PlanPage extends Page<PlanView> {
  bundle_subscriptions_for_company: boolean;
}

/** The column a list sort names: a name sorts by its lower case (name_sort), as people read names. */
function sortColumn(sortedBy: PlanListQuery["sorted_by"]): keyof Prisma.SubscriptionPlanOrderByWithRelationInput {
  return sortedBy === "name" ? "name_sort" : sortedBy;
}

export async function listPlans(ctx: ServiceContext, query: PlanListQuery): Promise<PlanPage> {
  const page = resolvePage(query);
  const where: Prisma.SubscriptionPlanWhereInput = {
    company_id: ctx.companyId,
    ...(query.active !== undefined ? { active: query.active } : {}),
    ...(query.product !== undefined ? { products: { some: { product_id: query.product, product: { deleted_at: null } } } } : {}),
    ...(query.search_query ? { name: { contains: escapeLike(query.search_query), mode: "insensitive" } } : {}),
  };
  const [rows, total, company] = await Promise.all([
    ctx.db.subscriptionPlan.findMany({ where, include: planInclude, orderBy: [{ [sortColumn(query.sorted_by)]: query.sort_direction }, { id: query.sort_direction }], ...pageWindow(page) }),
    ctx.db.subscriptionPlan.count({ where }),
    ctx.db.company.findUniqueOrThrow({ where: { id: ctx.companyId }, select: { bundle_subscriptions: true } }),
  ]);
  const subscriptions = await openSubscriptionIds(ctx.db, ctx.companyId, rows.map((row) => row.id));
  return {
    rows: rows.map((row) => toView(row, subscriptions.get(row.id) ?? [])),
    pagination: pagination(page, total),
    bundle_subscriptions_for_company: company.bundle_subscriptions,
  };
}

export async function getPlan(ctx: ServiceContext, id: number): Promise<PlanView> {
  return viewOf(ctx.db, ctx.companyId, id);
}

export async function createPlan(ctx: ServiceContext, body: PlanCreateBody): Promise<PlanView> {
  const input: PlanCreateInput = body.subscription_plan;
  const sentLinks = linksOf(input.product_subscription_plans, body.product_subscription_plans);
  const links = sentLinks.entries;
  const errors = new FieldErrorCollector();
  errors.merge(planSettingErrors(mergedSettings(input, NEW_PLAN)));
  errors.merge(await linkErrors(ctx.db, ctx.companyId, sentLinks, []));
  errors.throwIfAny();
  return ctx.db.$transaction(async (tx) => {
    if (input.company_default) {
      await lockCompany(tx, ctx.companyId);
      await takeCompanyDefault(tx, ctx.companyId, null);
    }
    const defaultProducts = links.filter((link) => link.default).map((link) => link.product_id);
    if (defaultProducts.length > 0) await lockProducts(tx, ctx.companyId, defaultProducts);
    const plan = await tx.subscriptionPlan.create({
      data: {
        ...(settingsData(input) as Prisma.SubscriptionPlanUncheckedCreateInput),
        company_id: ctx.companyId,
        products: { create: links.map((link) => ({ product_id: link.product_id, default: link.default ?? false })) },
      },
      select: { id: true },
    });
    if (defaultProducts.length > 0) await takeProductDefaults(tx, plan.id);
    return viewOf(tx, ctx.companyId, plan.id);
  }, LOCK_WAITING_TRANSACTION);
}

/**
 * Writes the links as the entries leave them, whatever the entries' order. linkErrors checked
 * the links as they would be after the request, but the unique (plan, product) index is checked
 * row by row, so changing one link at a time could collide with a link yet to move (two links
 * swapping products; a link moving off a product a new link takes). So removed links and links
 * whose product changes are deleted first, links that keep their product are updated, and then
 * the moved links (under their own ids) and the new ones are inserted into a plan where every
 * other link holds its final product.
 */
async function writeLinks(tx: Tx, planId: number, entries: LinkUpdateInput[], stored: StoredLink[]): Promise<void> {
  const storedById = new Map(stored.map((link) => [link.id, link]));
  const movedLink = (entry: LinkUpdateInput): StoredLink | undefined => {
    const link = entry.id === undefined || entry._destroy ? undefined : storedById.get(entry.id);
    return link !== undefined && entry.product_id !== undefined && entry.product_id !== link.product_id ? link : undefined;
  };
  const deletedIds = entries.flatMap((entry) => (entry.id !== undefined && (entry._destroy || movedLink(entry)) ? [entry.id] : []));
  if (deletedIds.length > 0) await tx.productSubscriptionPlan.deleteMany({ where: { id: { in: deletedIds }, subscription_plan_id: planId } });
  const inserted: Prisma.ProductSubscriptionPlanCreateManyInput[] = [];
  for (const entry of entries) {
    if (entry._destroy) continue;
    const moved = movedLink(entry);
    if (entry.id === undefined || moved) {
      const isDefault = entry.default ?? moved?.default ?? false;
      inserted.push({ ...(entry.id !== undefined ? { id: entry.id } : {}), subscription_plan_id: planId, product_id: entry.product_id as number, default: isDefault });
    } else if (entry.default !== undefined) {
      await tx.productSubscriptionPlan.update({ where: { id: entry.id }, data: { default: entry.default } });
    }
  }
  if (inserted.length > 0) await tx.productSubscriptionPlan.createMany({ data: inserted });
}

/**
 * The seed lists `company_default` among a link's members on update; it is the plan's flag,
 * so a link's value is read as the plan's, and two different values are a 422.
 */
function withLinkCompanyDefault(input: PlanUpdateInput, links: Links<LinkUpdateInput>): PlanUpdateInput {
  let companyDefault = input.company_default;
  links.entries.forEach((entry, index) => {
    if (entry.company_default === undefined) return;
    if (companyDefault !== undefined && entry.company_default !== companyDefault) {
      throw ValidationError.field(`${links.pathOf(index)}.company_default`, "differs from the company_default sent with it");
    }
    companyDefault = entry.company_default;
  });
  return companyDefault === undefined ? input : { ...input, company_default: companyDefault };
}

function changesPriceAdjustment(before: PricedPlan, after: PricedPlan): boolean {
  return before.price_adjustment_type !== after.price_adjustment_type || String(before.price_adjustment_amount) !== String(after.price_adjustment_amount);
}

/**
 * Commits the update in a short transaction of its own; a change to what the plan does to prices
 * (its price adjustment) counts a new pricing revision. Then reprices the plan's orders that are
 * not cancelled (repricePlanOrders: in batches, each recorded as done by the caller) and answers
 * once every batch has committed. An update that finds a repricing of the plan unfinished (one
 * running, or cut short) also waits for, or finishes, that one. A batch's failure fails the
 * request with the change committed, deliberately: a 200 would claim the orders priced with the
 * plan, and the error invites the retry that finishes the repricing.
 */
export async function updatePlan(ctx: OrderContext, id: number, body: PlanUpdateBody): Promise<PlanView> {
  if (body.id !== undefined && body.id !== id) throw ValidationError.field("id", "must equal the id in the path");
  const links = linksOf(body.subscription_plan.product_subscription_plans, body.product_subscription_plans);
  const input = withLinkCompanyDefault(body.subscription_plan, links);
  const { entries } = links;
  const plan = await ctx.db.$transaction(async (tx) => {
    if (input.company_default) await lockCompany(tx, ctx.companyId);
    await lockPlan(tx, ctx.companyId, id);
    const current = await tx.subscriptionPlan.findFirstOrThrow({ where: { id, company_id: ctx.companyId }, include: { products: { select: { id: true, product_id: true, default: true } } } });
    const settings: PlanSettings = { ...current, price_adjustment_amount: current.price_adjustment_amount?.toString() ?? null };
    const keepsStoredAdjustment = input.price_adjustment_type === undefined && input.price_adjustment_amount === undefined;
    const errors = new FieldErrorCollector();
    errors.merge(planSettingErrors(mergedSettings(input, settings), { keepsStoredAdjustment }));
    errors.merge(await linkErrors(tx, ctx.companyId, links, current.products));
    errors.throwIfAny();
    if (input.company_default) await takeCompanyDefault(tx, ctx.companyId, id);
    const touchedProducts = entries.flatMap((entry) => (entry.product_id !== undefined ? [entry.product_id] : [])).concat(
      entries.flatMap((entry) => current.products.filter((link) => link.id === entry.id).map((link) => link.product_id)),
    );
    const takesProductDefaults = entries.some((entry) => setsProductDefault(entry, current.products));
    if (takesProductDefaults) await lockProducts(tx, ctx.companyId, [...new Set(touchedProducts)]);
    await writeLinks(tx, id, entries, current.products);
    const updated = await tx.subscriptionPlan.update({ where: { id, company_id: ctx.companyId }, data: { ...settingsData(input), updated_at: ctx.clock.now() } });
    if (takesProductDefaults) await takeProductDefaults(tx, id);
    if (!changesPriceAdjustment(current, updated)) return updated;
    return tx.subscriptionPlan.update({ where: { id, company_id: ctx.companyId }, data: { pricing_revision: { increment: 1 }, updated_at: updated.updated_at } });
  }, LOCK_WAITING_TRANSACTION);
  if (plan.orders_repriced_revision < plan.pricing_revision) await repricePlanOrders(ctx, id);
  return viewOf(ctx.db, ctx.companyId, id);
}

/**
 * Refused (409) while the plan has subscriptions that are not cancelled. Cart lines subscribed
 * to it keep their subscription flag and lose their plan (the foreign key clears it): their
 * cart's next change finds them so, makes them one-time purchases and says so in a warning
 * (domain/carts/cart-pricing.ts), as with a plan switched off.
 */
export async function deletePlan(ctx: ServiceContext, id: number): Promise<PlanView> {
  return ctx.db.$transaction(async (tx) => {
    await lockPlan(tx, ctx.companyId, id);
    const view = await viewOf(tx, ctx.companyId, id);
    if (view.subscriptions.length > 0) {
      throw new ConflictError(`The plan has ${view.subscriptions.length} subscription(s) that are not cancelled`, { code: "plan_has_subscriptions" });
    }
    await tx.subscriptionPlan.delete({ where: { id, company_id: ctx.companyId } });
    return view;
  }, LOCK_WAITING_TRANSACTION);
}
