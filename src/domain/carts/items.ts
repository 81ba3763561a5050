import { ConflictError, NotFoundError, ValidationError } from "../../platform/errors.js";
import { lockCart, storeCartState } from "./cart-repository.js";
import { applyLineChanges, type CartRef, deleteLines, insertLines, isStored, type Line, type LineWrites, type NewLine, newLine, type Subscription, updateLines, writeLines } from "./cart-lines.js";
import { loadCartState } from "./cart-state.js";
import type { SqlTransaction } from "../../platform/db/sql.js";
import { isInt32Id } from "../../platform/http/schemas.js";
import type { CartContext } from "./context.js";
import { type CartOutcome, cartTurn, mutateCart, outcomeOf, requireMutableItems } from "./mutate.js";
import { findVariants, type PurchasableVariant, unavailability } from "./purchasable.js";
import type { SkippedItem } from "./schemas.js";

// Cart lines: adding, setting, removing, changing a line's variant, bundled items, subscription
// flags and volumes. Every function here runs inside a locked cart mutation.

/** A line's quantity may not grow beyond this, however many adds arrive. */
const MAX_LINE_QUANTITY = 100_000;

/**
 * Lines a cart may hold, bundled items and pack lines included. Every mutation reprices the whole
 * cart and rewrites its stored view, so its cost grows with the lines: an audit filled an
 * anonymous cart with 2,000 lines (a 1.45 MB view, 0.2-0.4 s per mutation), and nothing but the
 * company's catalog bounded it. 500 is Shopify's cap on a cart's lines.
 */
const MAX_CART_LINES = 500;

/** The 422 of a change that would take a cart past MAX_CART_LINES; a cart already past it may still shrink. */
function checkLineCount(before: number, after: number, path: string): void {
  if (after > MAX_CART_LINES && after > before) {
    throw ValidationError.field(path, `a cart holds at most ${MAX_CART_LINES} lines: it has ${before} and this request would make it ${after}`);
  }
}

interface ItemEntry {
  variant_id: number;
  quantity: number;
  subscription?: boolean | undefined;
  subscription_plan_id?: number | undefined;
  item_id?: number | undefined;
  display_to_customer?: boolean | undefined;
}

const LINE_COLUMNS = "id, variant_id, quantity, parent_id, enrollment, display_to_customer, subscription, subscription_plan_id";

async function findLine(sql: SqlTransaction, cartId: number, itemId: number): Promise<Line> {
  const [line] = await sql.query<Line>(`SELECT ${LINE_COLUMNS} FROM cart_items WHERE id = $1 AND cart_id = $2`, [itemId, cartId]);
  if (line === undefined) throw new NotFoundError("Cart item not found");
  return line;
}

/**
 * An enrollment pack's lines are priced at 0 (the pack's fee pays for them): the storefront may
 * not change their quantity or variant, remove them, subscribe them or hang bundled items on
 * them, or it could take any product for free.
 */
function requireOutsidePack(line: Line): void {
  if (line.enrollment) throw new ConflictError(`Item ${line.id} belongs to the cart's enrollment pack and changes only with the pack`, { code: "enrollment_pack_line" });
}

/** findLine for the changes a storefront may make to a line (not to an enrollment pack's). */
async function findChangeableLine(sql: SqlTransaction, cartId: number, itemId: number): Promise<Line> {
  const line = await findLine(sql, cartId, itemId);
  requireOutsidePack(line);
  return line;
}

/**
 * The plan a subscribed line uses: the requested one, which must be an active plan linked to the
 * line's product, else the product's default plan. 422 at `path` otherwise.
 */
async function subscriptionPlanFor(sql: SqlTransaction, companyId: number, productId: number, requestedPlanId: number | undefined, path: string): Promise<number> {
  const links = await sql.query<{ subscription_plan_id: number; default: boolean }>(
    `SELECT psp.subscription_plan_id, psp."default" FROM product_subscription_plans psp
     JOIN subscription_plans sp ON sp.id = psp.subscription_plan_id
     WHERE psp.product_id = $1 AND sp.company_id = $2 AND sp.active <> false`,
    [productId, companyId],
  );
  if (requestedPlanId !== undefined) {
    if (!links.some((link) => link.subscription_plan_id === requestedPlanId)) {
      throw ValidationError.field(`${path}subscription_plan_id`, "is not an active subscription plan of this product");
    }
    return requestedPlanId;
  }
  const defaultLink = links.find((link) => link.default);
  if (defaultLink === undefined) throw ValidationError.field(`${path}subscription`, "the product has no default subscription plan");
  return defaultLink.subscription_plan_id;
}

async function subscriptionOf(sql: SqlTransaction, cart: CartRef, variant: PurchasableVariant, entry: ItemEntry, path: string): Promise<Subscription | null> {
  if (entry.subscription === false) return { subscription: false, subscription_plan_id: null };
  if (entry.subscription !== true && entry.subscription_plan_id === undefined) return null;
  const planId = await subscriptionPlanFor(sql, cart.companyId, variant.product_id, entry.subscription_plan_id, path);
  return { subscription: true, subscription_plan_id: planId };
}

function grownQuantity(current: number, added: number, path: string): number {
  const quantity = current + added;
  if (quantity > MAX_LINE_QUANTITY) throw ValidationError.field(`${path}quantity`, `would make the line's quantity exceed ${MAX_LINE_QUANTITY}`);
  return quantity;
}

/** What applying item entries did, besides writing it: for a mutation that keeps its state in memory. */
interface LineChanges extends LineWrites {
  skipped: SkippedItem[];
}

/** What applying item entries reads: the entries' variants and the cart's lines. */
interface EntriesInput {
  variants: ReadonlyMap<number, PurchasableVariant>;
  lines: Line[];
  /** Ids reserved for new lines, used in order (see loadCartState); the sequence gives the rest. */
  reservedLineIds?: readonly number[];
}

/**
 * Applies item entries in order: an entry with `item_id` sets that line's quantity (and its
 * display flag, when sent); otherwise the quantity is added to the variant's line (created when
 * missing); quantity 0 removes.
 * Unavailable variants are skipped and returned, once each; when every entry was skipped the request is a
 * 422 (with each entry's reason) and the caller's transaction rolls back. The entries are
 * applied to the lines in memory, then written with one statement per kind of change (issued,
 * not awaited).
 */
export async function applyItemEntries(
  sql: SqlTransaction,
  cart: CartRef,
  entries: readonly ItemEntry[],
  { variants, lines, reservedLineIds = [] }: EntriesInput,
  now: Date,
  pathPrefix = "items",
): Promise<LineChanges> {
  const lineById = new Map(lines.map((line) => [line.id, line]));
  const topLevel = lines.filter((line) => line.parent_id === null && !line.enrollment);
  const changed = new Set<Line>();
  const deleted = new Set<number>();
  const created: NewLine[] = [];
  const skipped: SkippedItem[] = [];
  const skippedPaths: Record<string, string[]> = {};
  const remove = (line: Line) => {
    deleted.add(line.id);
    lineById.delete(line.id);
    changed.delete(line);
    if (topLevel.includes(line)) topLevel.splice(topLevel.indexOf(line), 1);
  };

  for (const [index, entry] of entries.entries()) {
    const path = `${pathPrefix}.${index}.`;
    const display = entry.display_to_customer === undefined ? {} : { display_to_customer: entry.display_to_customer };
    if (entry.item_id !== undefined) {
      const line = lineById.get(entry.item_id);
      // The cart was found: a line id it does not have is a stale or wrong entry, not a missing resource.
      if (line === undefined) throw ValidationError.field(`${path}item_id`, "is not an item of the cart");
      if (line.enrollment) throw ValidationError.field(`${path}item_id`, "is a line of the cart's enrollment pack, which changes only with the pack");
      if (line.variant_id !== entry.variant_id) throw ValidationError.field(`${path}variant_id`, "does not match the variant of item_id");
      if (entry.quantity === 0) {
        remove(line);
        continue;
      }
      const variant = variants.get(line.variant_id);
      if (line.parent_id !== null && (entry.subscription === true || entry.subscription_plan_id !== undefined)) {
        throw ValidationError.field(`${path}subscription`, "a bundled item is billed with its line, which can be subscribed");
      }
      // A line may fall or go whatever became of its variant, but it grows only as adding the variant would.
      const growthProblem = entry.quantity > line.quantity ? unavailability(variant, line.variant_id, cart.country) : null;
      if (growthProblem !== null) throw ValidationError.field(`${path}quantity`, `cannot grow item ${line.id}: ${growthProblem.message}`);
      const subscription = variant === undefined ? null : await subscriptionOf(sql, cart, variant, entry, path);
      Object.assign(line, { quantity: entry.quantity }, subscription, display);
      changed.add(line);
      continue;
    }
    const existing: Line | NewLine | undefined =
      topLevel.find((line) => line.variant_id === entry.variant_id) ?? created.find((line) => line.variant_id === entry.variant_id);
    if (entry.quantity === 0) {
      if (existing !== undefined && isStored(existing)) remove(existing);
      else if (existing !== undefined) created.splice(created.indexOf(existing), 1);
      continue;
    }
    const variant = variants.get(entry.variant_id);
    const problem = unavailability(variant, entry.variant_id, cart.country);
    if (problem !== null || variant === undefined) {
      // Reported once per variant, however many entries name it (the 422's paths name each entry).
      if (!skipped.some((item) => item.variant_id === entry.variant_id)) skipped.push(problem as SkippedItem);
      skippedPaths[`${path}variant_id`] = [(problem as SkippedItem).message];
      continue;
    }
    const subscription = await subscriptionOf(sql, cart, variant, entry, path);
    if (existing !== undefined) {
      Object.assign(existing, { quantity: grownQuantity(existing.quantity, entry.quantity, path) }, subscription, display);
      if (isStored(existing)) changed.add(existing);
    } else {
      created.push(newLine(variant.id, entry.quantity, { ...subscription, ...display }));
    }
  }
  if (skipped.length > 0 && Object.keys(skippedPaths).length === entries.length) throw new ValidationError(skippedPaths, "None of the items can be added");
  // A line removed takes its bundled items with it.
  const kept = lines.filter((line) => !deleted.has(line.id) && (line.parent_id === null || !deleted.has(line.parent_id))).length;
  checkLineCount(lines.length, kept + created.length, pathPrefix);
  created.forEach((line, index) => {
    const id = reservedLineIds[index];
    if (id !== undefined) line.id = id;
  });
  const changes = { skipped, deleted: [...deleted], changed: [...changed], created };
  writeLines(sql, cart, changes, now);
  return changes;
}

/**
 * Adding items is the storefront's most frequent write, so it keeps the cart's state in memory
 * instead of writing the lines and reading the state back (as mutateCart does): the state, with
 * the entries' variants and reserved line ids, is read behind the lock in the lock's round trip;
 * the entries are applied to it; the line writes, the view and COMMIT leave together. Two round
 * trips instead of three, and no second read of the lines (docs/performance.md).
 */
export function addItems(ctx: CartContext, cartToken: string, entries: ItemEntry[]): Promise<CartOutcome> {
  return cartTurn(ctx, cartToken, () =>
    ctx.sql.transaction(async (sql) => {
      const now = ctx.clock.now();
      const locking = lockCart(sql, cartToken, ctx.shopUrlScheme);
      const extras = { variantIds: entries.map((entry) => entry.variant_id), newLineIds: entries.filter((entry) => entry.item_id === undefined).length };
      const loading = loadCartState(sql, cartToken, extras);
      loading.catch(() => {});
      const cart = await locking;
      requireMutableItems(cart);
      const state = await loading;
      const lines = state.cart.items.map(({ id, variant_id, quantity, parent_id, enrollment, display_to_customer, subscription, subscription_plan_id }) => ({
        id,
        variant_id,
        quantity,
        parent_id,
        enrollment,
        display_to_customer,
        subscription,
        subscription_plan_id,
      }));
      const changes = await applyItemEntries(sql, cart, entries, { variants: state.variants, lines, reservedLineIds: state.newLineIds }, now);
      await applyLineChanges(sql, state, changes, now);
      return outcomeOf(storeCartState(sql, state, now), { skipped: changes.skipped });
    }),
  );
}

export function removeItemsByVariant(ctx: CartContext, cartToken: string, variantIds: number[]): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    requireMutableItems(cart);
    const removed = await sql.query<{ variant_id: number }>(
      "DELETE FROM cart_items WHERE cart_id = $1 AND parent_id IS NULL AND NOT enrollment AND variant_id = ANY ($2::int[]) RETURNING variant_id",
      [cart.id, variantIds.filter(isInt32Id)],
    );
    // As if removed one entry at a time: a variant named twice is no longer in the cart the second time.
    const present = new Set(removed.map((row) => row.variant_id));
    for (const [index, variantId] of variantIds.entries()) {
      if (!present.delete(variantId)) throw ValidationError.field(`items.${index}.variant_id`, "is not in the cart");
    }
  });
}

export function removeItem(ctx: CartContext, cartToken: string, itemId: number): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    requireMutableItems(cart);
    const line = await findChangeableLine(sql, cart.id, itemId);
    await deleteLines(sql, [line.id]);
  });
}

/**
 * Rule 4: the line moves to another variant. When a line of that variant already exists (under
 * the same parent) the quantity (the sent one, else the line's) is added to it, this line's
 * bundled items move to it, and this line is removed; otherwise this line's variant changes. A
 * subscription whose plan the new product does not offer is switched off.
 */
export function changeVariant(ctx: CartContext, cartToken: string, itemId: number, input: { variant_id: number; quantity?: number | undefined }): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    requireMutableItems(cart);
    const now = ctx.clock.now();
    const line = await findChangeableLine(sql, cart.id, itemId);
    const variants = await findVariants(sql, cart.companyId, [input.variant_id]);
    const variant = variants.get(input.variant_id);
    const problem = unavailability(variant, input.variant_id, cart.country);
    if (problem !== null || variant === undefined) throw ValidationError.field("variant_id", (problem as SkippedItem).message);
    const quantity = input.quantity ?? line.quantity;
    const [target] = await sql.query<Line>(
      `SELECT ${LINE_COLUMNS} FROM cart_items
       WHERE cart_id = $1 AND variant_id = $2 AND parent_id IS NOT DISTINCT FROM $3 AND enrollment = $4 AND id <> $5 LIMIT 1`,
      [cart.id, variant.id, line.parent_id, line.enrollment, line.id],
    );
    if (target !== undefined) {
      await updateLines(sql, [{ ...target, quantity: grownQuantity(target.quantity, quantity, "") }], now);
      await moveBundledItems(sql, cart.id, line.id, target.id, now);
      await deleteLines(sql, [line.id]);
      return;
    }
    const keepsPlan = line.subscription_plan_id !== null && variant.product.subscription_plans.some((link) => link.subscription_plan_id === line.subscription_plan_id);
    await sql.query(
      `UPDATE cart_items SET variant_id = $2, quantity = $3, updated_at = $4,
         subscription = CASE WHEN $5::boolean THEN subscription ELSE false END,
         subscription_plan_id = CASE WHEN $5::boolean THEN subscription_plan_id END
       WHERE id = $1`,
      [line.id, variant.id, quantity, now, keepsPlan],
    );
  });
}

/**
 * A line merging into another hands over its bundled items, so a shopper who picks another size
 * keeps what came with the line: they move to the target line, and a bundled variant the target
 * has already gets their quantity added, as the lines themselves do.
 */
async function moveBundledItems(sql: SqlTransaction, cartId: number, fromLineId: number, toLineId: number, now: Date): Promise<void> {
  const children = await sql.query<Line>(`SELECT ${LINE_COLUMNS} FROM cart_items WHERE cart_id = $1 AND parent_id = ANY ($2::int[]) ORDER BY id`, [cartId, [fromLineId, toLineId]]);
  const targetChildren = children.filter((child) => child.parent_id === toLineId);
  const grown: Line[] = [];
  const moved: number[] = [];
  for (const child of children.filter((candidate) => candidate.parent_id === fromLineId)) {
    const same = targetChildren.find((candidate) => candidate.variant_id === child.variant_id);
    if (same === undefined) moved.push(child.id);
    else grown.push({ ...same, quantity: grownQuantity(same.quantity, child.quantity, "") });
  }
  // Children whose quantity was added are deleted with their old line (ON DELETE CASCADE).
  await updateLines(sql, grown, now);
  if (moved.length > 0) await sql.query("UPDATE cart_items SET parent_id = $2, updated_at = $3 WHERE id = ANY ($1::int[])", [moved, toLineId, now], "carts.move-bundled-items");
}

/**
 * Rule 2: sets a line's bundled items. Entries with quantity 0 remove that variant's bundled
 * item; an unknown or unavailable variant is reported in messages.errors of this response while
 * the other entries are still applied.
 */
export function setBundledItems(
  ctx: CartContext,
  cartToken: string,
  itemId: number,
  entries: Array<{ variant_id: number; quantity: number; display_to_customer: boolean }>,
): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    requireMutableItems(cart);
    const parent = await findChangeableLine(sql, cart.id, itemId);
    if (parent.parent_id !== null) throw new NotFoundError("Cart item not found: bundled items belong to a top-level item");
    const variants = await findVariants(sql, cart.companyId, entries.map((entry) => entry.variant_id));
    const children = await sql.query<Line>(`SELECT ${LINE_COLUMNS} FROM cart_items WHERE cart_id = $1 AND parent_id = $2 ORDER BY id`, [cart.id, parent.id]);
    const changed = new Set<Line>();
    const deleted = new Set<Line>();
    const created: NewLine[] = [];
    const operationErrors: string[] = [];
    for (const entry of entries) {
      const variant = variants.get(entry.variant_id);
      const existing: Line | NewLine | undefined =
        children.find((child) => child.variant_id === entry.variant_id && !deleted.has(child)) ?? created.find((child) => child.variant_id === entry.variant_id);
      if (variant === undefined) {
        operationErrors.push(`Variant ${entry.variant_id} is not available`);
        continue;
      }
      if (entry.quantity === 0) {
        if (existing !== undefined && isStored(existing)) deleted.add(existing);
        else if (existing !== undefined) created.splice(created.indexOf(existing), 1);
        continue;
      }
      const problem = unavailability(variant, entry.variant_id, cart.country);
      if (problem !== null) {
        operationErrors.push(problem.message);
        continue;
      }
      if (existing !== undefined) {
        Object.assign(existing, { quantity: entry.quantity, display_to_customer: entry.display_to_customer });
        if (isStored(existing)) changed.add(existing);
      } else {
        created.push(newLine(variant.id, entry.quantity, { parent_id: parent.id, display_to_customer: entry.display_to_customer }));
      }
    }
    if (created.length > deleted.size) {
      const [held] = await sql.query<{ lines: number }>("SELECT count(*)::int AS lines FROM cart_items WHERE cart_id = $1 AND company_id = $2", [cart.id, cart.companyId]);
      const before = held?.lines ?? 0;
      checkLineCount(before, before - deleted.size + created.length, "bundled_items");
    }
    const now = ctx.clock.now();
    await deleteLines(sql, [...deleted].map((line) => line.id));
    await updateLines(sql, [...changed].filter((line) => !deleted.has(line)), now);
    await insertLines(sql, cart, created, now);
    return { operationErrors };
  });
}

export function subscribeItem(ctx: CartContext, cartToken: string, itemId: number, planId: number | undefined): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    requireMutableItems(cart);
    const line = await findChangeableLine(sql, cart.id, itemId);
    if (line.parent_id !== null) throw new ConflictError(`Item ${line.id} is a bundled item: it is billed with its line, which can be subscribed`, { code: "bundled_item" });
    const [variant] = await sql.query<{ product_id: number }>("SELECT product_id FROM variants WHERE id = $1", [line.variant_id]);
    const plan = await subscriptionPlanFor(sql, cart.companyId, (variant as { product_id: number }).product_id, planId, "");
    await updateLines(sql, [{ ...line, subscription: true, subscription_plan_id: plan }], ctx.clock.now());
  });
}

export function unsubscribeItem(ctx: CartContext, cartToken: string, itemId: number): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    requireMutableItems(cart);
    const line = await findChangeableLine(sql, cart.id, itemId);
    await updateLines(sql, [{ ...line, subscription: false, subscription_plan_id: null }], ctx.clock.now());
  });
}

/** Rule 3: only the sent volumes change; totals are recomputed. For the cart's company only. */
export function updateVolumes(ctx: CartContext, cartToken: string, companyId: number, itemId: number, input: { cv?: number | undefined; qv?: number | undefined }): Promise<CartOutcome> {
  return mutateCart(
    ctx,
    cartToken,
    async (sql, cart) => {
      const line = await findLine(sql, cart.id, itemId);
      await sql.query(
        "UPDATE cart_items SET cv = CASE WHEN $2::boolean THEN $3::int ELSE cv END, qv = CASE WHEN $4::boolean THEN $5::int ELSE qv END, updated_at = $6 WHERE id = $1",
        [line.id, input.cv !== undefined, input.cv ?? null, input.qv !== undefined, input.qv ?? null, ctx.clock.now()],
      );
    },
    { companyId },
  );
}
