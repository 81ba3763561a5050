import { NotFoundError, ValidationError } from "../../platform/errors.js";
import type { LockedCart } from "./cart-repository.js";
import type { CartContext, CartTx } from "./context.js";
import { type CartOutcome, mutateCart, requireMutableItems } from "./mutate.js";
import { type CatalogVariant, findVariants, unavailability } from "./purchasable.js";
import type { SkippedItem } from "./schemas.js";

// Cart lines: adding, setting, removing, changing a line's variant, bundled items, subscription
// flags and volumes. Every function here runs inside a locked cart mutation.

/** A line's quantity may not grow beyond this, however many adds arrive. */
export const MAX_LINE_QUANTITY = 100_000;

export interface ItemEntry {
  variant_id: number;
  quantity: number;
  subscription?: boolean | undefined;
  subscription_plan_id?: number | undefined;
  item_id?: number | undefined;
  display_to_customer?: boolean | undefined;
}

interface CartRef {
  id: number;
  companyId: number;
  countryId: number;
}

type Subscription = { subscription: boolean; subscription_plan_id: number | null };

async function findLine(tx: CartTx, cartId: number, itemId: number) {
  const line = await tx.cartItem.findFirst({ where: { id: itemId, cart_id: cartId } });
  if (line === null) throw new NotFoundError("Cart item not found");
  return line;
}

/**
 * The plan a subscribed line uses: the requested one, which must be an active plan linked to the
 * line's product, else the product's default plan. 422 at `path` otherwise.
 */
export async function subscriptionPlanFor(tx: CartTx, companyId: number, productId: number, requestedPlanId: number | undefined, path: string): Promise<number> {
  const links = await tx.productSubscriptionPlan.findMany({
    where: { product_id: productId, subscription_plan: { company_id: companyId, active: { not: false } } },
  });
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

async function subscriptionOf(tx: CartTx, cart: CartRef, variant: CatalogVariant, entry: ItemEntry, path: string): Promise<Subscription | null> {
  if (entry.subscription === false) return { subscription: false, subscription_plan_id: null };
  if (entry.subscription !== true && entry.subscription_plan_id === undefined) return null;
  const planId = await subscriptionPlanFor(tx, cart.companyId, variant.product_id, entry.subscription_plan_id, path);
  return { subscription: true, subscription_plan_id: planId };
}

function grownQuantity(current: number, added: number, path: string): number {
  const quantity = current + added;
  if (quantity > MAX_LINE_QUANTITY) throw ValidationError.field(`${path}quantity`, `would make the line's quantity exceed ${MAX_LINE_QUANTITY}`);
  return quantity;
}

/**
 * Applies item entries in order: an entry with `item_id` sets that line's quantity; otherwise
 * the quantity is added to the variant's line (created when missing); quantity 0 removes.
 * Unavailable variants are skipped and returned; when every entry was skipped the request is a
 * 422 (with each entry's reason) and the caller's transaction rolls back.
 */
export async function applyItemEntries(tx: CartTx, cart: CartRef, entries: readonly ItemEntry[], pathPrefix = "items"): Promise<SkippedItem[]> {
  const variants = await findVariants(tx, cart.companyId, entries.map((entry) => entry.variant_id));
  const lines = await tx.cartItem.findMany({ where: { cart_id: cart.id, parent_id: null, enrollment: false }, orderBy: { id: "asc" } });
  const skipped: SkippedItem[] = [];
  const skippedPaths: Record<string, string[]> = {};

  for (const [index, entry] of entries.entries()) {
    const path = `${pathPrefix}.${index}.`;
    if (entry.item_id !== undefined) {
      const line = await findLine(tx, cart.id, entry.item_id);
      if (line.variant_id !== entry.variant_id) throw ValidationError.field(`${path}variant_id`, "does not match the variant of item_id");
      if (entry.quantity === 0) {
        await tx.cartItem.delete({ where: { id: line.id } });
        continue;
      }
      const variant = variants.get(line.variant_id);
      const subscription = variant === undefined ? null : await subscriptionOf(tx, cart, variant, entry, path);
      await tx.cartItem.update({ where: { id: line.id }, data: { quantity: entry.quantity, ...subscription } });
      continue;
    }
    const existing = lines.find((line) => line.variant_id === entry.variant_id);
    if (entry.quantity === 0) {
      if (existing !== undefined) {
        await tx.cartItem.delete({ where: { id: existing.id } });
        lines.splice(lines.indexOf(existing), 1);
      }
      continue;
    }
    const variant = variants.get(entry.variant_id);
    const problem = unavailability(variant, entry.variant_id, cart.countryId);
    if (problem !== null || variant === undefined) {
      skipped.push(problem as SkippedItem);
      skippedPaths[`${path}variant_id`] = [(problem as SkippedItem).message];
      continue;
    }
    const subscription = await subscriptionOf(tx, cart, variant, entry, path);
    const display = entry.display_to_customer === undefined ? {} : { display_to_customer: entry.display_to_customer };
    if (existing !== undefined) {
      existing.quantity = grownQuantity(existing.quantity, entry.quantity, path);
      await tx.cartItem.update({ where: { id: existing.id }, data: { quantity: existing.quantity, ...subscription, ...display } });
    } else {
      lines.push(
        await tx.cartItem.create({
          data: { company_id: cart.companyId, cart_id: cart.id, variant_id: variant.id, quantity: entry.quantity, ...subscription, ...display },
        }),
      );
    }
  }
  if (skipped.length > 0 && skipped.length === entries.length) throw new ValidationError(skippedPaths, "None of the items can be added");
  return skipped;
}

function cartRef(cart: LockedCart): CartRef {
  return { id: cart.id, companyId: cart.companyId, countryId: cart.countryId };
}

export function addItems(ctx: CartContext, cartToken: string, entries: ItemEntry[]): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (tx, cart) => {
    requireMutableItems(cart);
    return { skipped: await applyItemEntries(tx, cartRef(cart), entries) };
  });
}

export function removeItemsByVariant(ctx: CartContext, cartToken: string, variantIds: number[]): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (tx, cart) => {
    requireMutableItems(cart);
    for (const [index, variantId] of variantIds.entries()) {
      const { count } = await tx.cartItem.deleteMany({ where: { cart_id: cart.id, parent_id: null, variant_id: variantId } });
      if (count === 0) throw ValidationError.field(`items.${index}.variant_id`, "is not in the cart");
    }
  });
}

export function removeItem(ctx: CartContext, cartToken: string, itemId: number): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (tx, cart) => {
    requireMutableItems(cart);
    const line = await findLine(tx, cart.id, itemId);
    await tx.cartItem.delete({ where: { id: line.id } });
  });
}

/**
 * Rule 4: the line moves to another variant. When a line of that variant already exists (under
 * the same parent) the quantity (the sent one, else the line's) is added to it and this line
 * is removed; otherwise this line's variant changes. A subscription whose plan the new product
 * does not offer is switched off.
 */
export function changeVariant(ctx: CartContext, cartToken: string, itemId: number, input: { variant_id: number; quantity?: number | undefined }): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (tx, cart) => {
    requireMutableItems(cart);
    const line = await findLine(tx, cart.id, itemId);
    const variant = (await findVariants(tx, cart.companyId, [input.variant_id])).get(input.variant_id);
    const problem = unavailability(variant, input.variant_id, cart.countryId, line.parent_id === null && !line.enrollment);
    if (problem !== null || variant === undefined) throw ValidationError.field("variant_id", (problem as SkippedItem).message);
    const quantity = input.quantity ?? line.quantity;
    const target = await tx.cartItem.findFirst({
      where: { cart_id: cart.id, variant_id: variant.id, parent_id: line.parent_id, enrollment: line.enrollment, id: { not: line.id } },
    });
    if (target !== null) {
      await tx.cartItem.update({ where: { id: target.id }, data: { quantity: grownQuantity(target.quantity, quantity, "") } });
      await tx.cartItem.delete({ where: { id: line.id } });
      return;
    }
    const keepsPlan = line.subscription_plan_id !== null && variant.product.subscription_plans.some((link) => link.subscription_plan_id === line.subscription_plan_id);
    await tx.cartItem.update({
      where: { id: line.id },
      data: { variant_id: variant.id, quantity, ...(keepsPlan ? {} : { subscription: false, subscription_plan_id: null }) },
    });
  });
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
  return mutateCart(ctx, cartToken, async (tx, cart) => {
    requireMutableItems(cart);
    const parent = await findLine(tx, cart.id, itemId);
    if (parent.parent_id !== null) throw new NotFoundError("Cart item not found: bundled items belong to a top-level item");
    const variants = await findVariants(tx, cart.companyId, entries.map((entry) => entry.variant_id));
    const children = await tx.cartItem.findMany({ where: { cart_id: cart.id, parent_id: parent.id } });
    const operationErrors: string[] = [];
    for (const entry of entries) {
      const variant = variants.get(entry.variant_id);
      const existing = children.find((child) => child.variant_id === entry.variant_id);
      if (variant === undefined) {
        operationErrors.push(`Variant ${entry.variant_id} is not available`);
        continue;
      }
      if (entry.quantity === 0) {
        if (existing !== undefined) await tx.cartItem.delete({ where: { id: existing.id } });
        continue;
      }
      const problem = unavailability(variant, entry.variant_id, cart.countryId, false);
      if (problem !== null) {
        operationErrors.push(problem.message);
        continue;
      }
      if (existing !== undefined) {
        await tx.cartItem.update({ where: { id: existing.id }, data: { quantity: entry.quantity, display_to_customer: entry.display_to_customer } });
      } else {
        children.push(
          await tx.cartItem.create({
            data: {
              company_id: cart.companyId,
              cart_id: cart.id,
              parent_id: parent.id,
              variant_id: variant.id,
              quantity: entry.quantity,
              display_to_customer: entry.display_to_customer,
            },
          }),
        );
      }
    }
    return { operationErrors };
  });
}

export function subscribeItem(ctx: CartContext, cartToken: string, itemId: number, planId: number | undefined): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (tx, cart) => {
    requireMutableItems(cart);
    const line = await findLine(tx, cart.id, itemId);
    const { product_id } = await tx.variant.findUniqueOrThrow({ where: { id: line.variant_id }, select: { product_id: true } });
    const plan = await subscriptionPlanFor(tx, cart.companyId, product_id, planId, "");
    await tx.cartItem.update({ where: { id: line.id }, data: { subscription: true, subscription_plan_id: plan } });
  });
}

export function unsubscribeItem(ctx: CartContext, cartToken: string, itemId: number): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (tx, cart) => {
    requireMutableItems(cart);
    const line = await findLine(tx, cart.id, itemId);
    await tx.cartItem.update({ where: { id: line.id }, data: { subscription: false, subscription_plan_id: null } });
  });
}

/** Rule 3: only the sent volumes change; totals are recomputed. For the cart's company only. */
export function updateVolumes(ctx: CartContext, cartToken: string, companyId: number, itemId: number, input: { cv?: number | undefined; qv?: number | undefined }): Promise<CartOutcome> {
  return mutateCart(
    ctx,
    cartToken,
    async (tx, cart) => {
      const line = await findLine(tx, cart.id, itemId);
      await tx.cartItem.update({
        where: { id: line.id },
        data: { ...(input.cv === undefined ? {} : { cv: input.cv }), ...(input.qv === undefined ? {} : { qv: input.qv }) },
      });
    },
    { companyId },
  );
}
