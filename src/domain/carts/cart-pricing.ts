import { ValidationError } from "../../platform/errors.js";
import { IntegerOverflowError, parseDecimalToMinor } from "../../platform/money.js";
import { unboundAmountIn } from "../catalog/amounts.js";
import { discountProblem } from "../catalog/discount-rules.js";
import { priceAdjustmentOf } from "../subscription-plans/price-adjustment.js";
import type { IntervalUnit } from "../subscription-plans/schedule.js";
import type { CartState, LoadedCart, LoadedItem } from "./cart-state.js";
import { isPricedIn } from "./purchasable.js";
import { discountTermsOf, repricingWarnings, type ViewPricing } from "./repricing.js";
import type { AddressView } from "./schemas.js";
import { computeTotals, type Totals, type TotalsDiscount, type TotalsInput, type TotalsLine } from "./totals.js";

// Turns a loaded cart into the totals engine's input, runs it, and says what must be corrected
// on the cart because the world changed since the last mutation (a code expired, a shipping
// method was switched off, a subscribed line's plan was switched off, unlinked from its product
// or deleted, a saved payment method no longer belongs to the customer) and which prices changed
// since then (repricing.ts).

interface Corrections {
  discountCodes: string[] | null;
  clearShippingMethod: boolean;
  clearPaymentMethod: boolean;
  /** Subscribed lines whose plan they may no longer use: they become one-time purchases. */
  unsubscribedItemIds: number[];
}

export interface PricedCart {
  totals: Totals;
  /** Totals line per cart item id. */
  lineOf: (itemId: number) => Totals["lines"][number];
  /** The list price of an item's variant (rep or retail), before any plan adjustment. */
  listPriceOf: (item: LoadedItem) => number;
  unitCvOf: (item: LoadedItem) => number;
  unitQvOf: (item: LoadedItem) => number;
  appliedDiscounts: TotalsDiscount[];
  messages: { errors: string[]; warnings: string[]; info: string[] };
  corrections: Corrections;
  /** Whether the shipping method in effect survived the corrections. */
  shippingMethodInEffect: boolean;
  /** What this view is priced with, stored with it for the next mutation's repricingWarnings. */
  viewPricing: ViewPricing;
}

/**
 * A line priced from the catalog: every line but an enrollment pack's, which the pack's fee pays
 * for. Bundled items are priced too: nothing in the catalog says which items a line's price
 * covers, and the cart token is the only credential a storefront has.
 */
function isPricedLine(item: Pick<LoadedItem, "enrollment">): boolean {
  return !item.enrollment;
}

/** The variant's price row for the cart's country, when the line is priced from the catalog. */
function priceRowOf(item: LoadedItem, countryId: number) {
  return isPricedLine(item) ? item.variant.prices.find((price) => price.country_id === countryId) : undefined;
}

/**
 * Why a line cannot be checked out as it is, or null. An enrollment pack's line too: its price is
 * the pack's fee, but a variant the catalog does not sell in the cart's country is not sold there
 * in a pack either (the pack is sold whole, see addPackLines).
 */
function unavailableReason(item: LoadedItem, countryId: number, countryName: string): string | null {
  const { variant } = item;
  if (variant.deleted_at !== null || !variant.active || variant.product.deleted_at !== null || !variant.product.active) {
    return `${variant.sku} is no longer available`;
  }
  if (!isPricedIn(variant, countryId)) return `${variant.sku} is not available in ${countryName}`;
  return null;
}

/**
 * Why the ship-to address keeps the cart from checkout, or null: an address in another country
 * than the cart's, whose currency, prices, tax and shipping methods the cart follows. It is taken
 * (a storefront may set the address before the country) and named until the two agree.
 */
function shipToProblem(cart: LoadedCart): string | null {
  const shipTo = cart.ship_to as Pick<AddressView, "country_code"> | null;
  if (shipTo === null || shipTo.country_code === cart.country.iso) return null;
  return `Ship-to country ${shipTo.country_code} differs from the cart's country ${cart.country.iso}: update the cart's country to ${shipTo.country_code}`;
}

/**
 * Why a subscribed line can no longer use its plan, or null when it can: the rules a new
 * subscription is held to (subscriptionPlanFor), and a deleted plan (its foreign key leaves the
 * line subscribed with no plan, for this to find).
 */
function planProblem(item: LoadedItem): string | null {
  const plan = item.subscription_plan;
  if (plan === null) return "its plan was deleted";
  if (plan.active === false) return `its plan ${plan.name} is not active`;
  if (!item.variant.product.subscription_plans.some((link) => link.subscription_plan_id === plan.id)) return `its plan ${plan.name} is no longer offered for this product`;
  return null;
}

/**
 * The totals, or a 422 when an amount or volume would pass the largest exact one (2^53 - 1):
 * the change that would get the cart there is refused, and its transaction changes nothing.
 */
function cartTotals(input: TotalsInput): Totals {
  try {
    return computeTotals(input);
  } catch (error) {
    if (!(error instanceof IntegerOverflowError)) throw error;
    throw new ValidationError(null, "This change would take the cart's totals past the largest amount a cart can hold; nothing was changed", {
      code: "cart_total_out_of_range",
      cause: error,
    });
  }
}

/** `earlierWarnings`: what was corrected on the cart before it was priced (its enrollment pack's lines). */
export function priceCart(state: CartState, now: Date, earlierWarnings: readonly string[] = []): PricedCart {
  const { cart } = state;
  const decimalPlaces = cart.country.currency.decimal_places;
  const pricing = cart.buyer_rep_id !== null ? "rep" : "retail";
  const errors: string[] = [];
  const warnings: string[] = [...earlierWarnings];

  const listPriceOf = (item: LoadedItem): number => {
    const price = priceRowOf(item, cart.country_id);
    if (price === undefined) return 0;
    return pricing === "rep" && price.rep_price !== null ? price.rep_price : price.price;
  };
  // A line whose variant the catalog no longer prices in the cart's country cannot be bought: it
  // carries no volume, as it carries no price. An enrollment line too, although the pack's fee
  // pays for it (unavailableReason holds it to the same rule).
  const unpriced = (item: LoadedItem) => !isPricedIn(item.variant, cart.country_id);
  const unitCvOf = (item: LoadedItem) => (unpriced(item) ? 0 : (item.cv ?? item.variant.cv));
  const unitQvOf = (item: LoadedItem) => (unpriced(item) ? 0 : (item.qv ?? item.variant.qv));

  const unsubscribedItemIds = new Set<number>();
  for (const item of cart.items) {
    const problem = item.subscription ? planProblem(item) : null;
    if (problem === null) continue;
    unsubscribedItemIds.add(item.id);
    warnings.push(`Item ${item.id} (${item.variant.sku}) is no longer a subscription: ${problem}`);
  }

  const lines: TotalsLine[] = cart.items.map((item) => {
    const price = priceRowOf(item, cart.country_id);
    const plan = item.subscription && !unsubscribedItemIds.has(item.id) ? item.subscription_plan : null;
    return {
      key: String(item.id),
      productId: item.variant.product_id,
      retailUnitPrice: price?.price ?? 0,
      repUnitPrice: price?.rep_price ?? null,
      quantity: item.quantity,
      taxable: item.variant.tax_category !== "exempt",
      unitCv: unitCvOf(item),
      unitQv: unitQvOf(item),
      subscription:
        plan === null
          ? null
          : { interval: plan.billing_interval, intervalUnit: plan.billing_interval_unit as IntervalUnit, adjustment: priceAdjustmentOf(plan, decimalPlaces) },
    };
  });

  const unavailableItemIds = new Set<number>();
  for (const item of cart.items) {
    const reason = unavailableReason(item, cart.country_id, cart.country.name);
    if (reason === null) continue;
    errors.push(reason);
    unavailableItemIds.add(item.id);
  }
  const quantityByVariant = new Map<number, { sku: string; inventory: number | null; quantity: number }>();
  for (const item of cart.items) {
    const entry = quantityByVariant.get(item.variant_id) ?? { sku: item.variant.sku, inventory: item.variant.inventory_quantity, quantity: 0 };
    entry.quantity += item.quantity;
    quantityByVariant.set(item.variant_id, entry);
  }
  for (const { sku, inventory, quantity } of quantityByVariant.values()) {
    if (inventory !== null && quantity > inventory) errors.push(`Insufficient inventory for ${sku}`);
  }
  const shipTo = shipToProblem(cart);
  if (shipTo !== null) errors.push(shipTo);

  const discountByCode = new Map(state.discounts.map((discount) => [discount.code, discount]));
  const keptCodes: string[] = [];
  const appliedDiscounts: TotalsDiscount[] = [];
  for (const code of cart.discount_codes) {
    const discount = discountByCode.get(code);
    const problem = discountProblem(discount, now, cart.country.currency.code);
    if (problem !== null || discount === undefined) {
      warnings.push(`Discount code ${code} was removed: it ${problem ?? "is not a valid code"}`);
      continue;
    }
    keptCodes.push(code);
    appliedDiscounts.push({
      code,
      kind: discount.kind === "percentage" ? "percentage" : "fixed_amount",
      amount: discount.kind === "percentage" ? discount.amount.toFixed() : unboundAmountIn(discount.amount, decimalPlaces),
      scope: discount.scope as TotalsDiscount["scope"],
      productIds: discount.product_ids,
    });
  }

  const method = cart.shipping_method;
  const methodUsable = method !== null && method.active && method.country_id === cart.country_id;
  if (method !== null && !methodUsable) warnings.push(`Shipping method ${method.name} is not available for ${cart.country.name} and was removed`);
  const paymentMethodStale = cart.payment_method !== null && cart.payment_method.user_id !== cart.customer_id;

  const enrollmentFee = cart.enrollment_pack === null ? 0 : parseDecimalToMinor(unboundAmountIn(cart.enrollment_pack.price, decimalPlaces), decimalPlaces);
  const totalsInput: TotalsInput = {
    decimalPlaces,
    pricing,
    lines,
    discounts: appliedDiscounts,
    taxRatePercent: state.taxRatePercent,
    shipping: methodUsable ? { price: method.price, freeOver: method.free_over } : null,
    transactionFee: 0,
    enrollmentFee,
  };
  const totals = cartTotals(totalsInput);
  const lineById = new Map(totals.lines.map((line) => [Number(line.key), line]));
  const viewPricing: ViewPricing = {
    country_id: cart.country_id,
    rep: pricing === "rep",
    tax_rate: state.taxRatePercent,
    lines: cart.items.map((item, index) => [
      item.id,
      item.variant_id,
      item.subscription && !unsubscribedItemIds.has(item.id) ? item.subscription_plan_id : null,
      unavailableItemIds.has(item.id) ? null : (lineById.get(item.id)?.unitPrice ?? null),
      lines[index]?.taxable === true,
    ]),
    enrollment: cart.enrollment_pack === null ? null : [cart.enrollment_pack.id, enrollmentFee],
    shipping: methodUsable ? [method.id, method.price, method.free_over] : null,
    discounts: appliedDiscounts.map(discountTermsOf),
  };
  warnings.push(
    ...repricingWarnings(state.viewPricing, viewPricing, {
      skuOf: (itemId) => cart.items.find((item) => item.id === itemId)?.variant.sku ?? "",
      country: cart.country,
      shippingMethodName: methodUsable ? method.name : null,
      input: totalsInput,
      totals,
    }),
  );

  return {
    totals,
    lineOf: (itemId) => lineById.get(itemId) as Totals["lines"][number],
    listPriceOf,
    unitCvOf,
    unitQvOf,
    appliedDiscounts,
    messages: { errors, warnings, info: [] },
    corrections: {
      discountCodes: keptCodes.length === cart.discount_codes.length ? null : keptCodes,
      clearShippingMethod: method !== null && !methodUsable,
      clearPaymentMethod: paymentMethodStale,
      unsubscribedItemIds: [...unsubscribedItemIds],
    },
    shippingMethodInEffect: methodUsable,
    viewPricing,
  };
}
