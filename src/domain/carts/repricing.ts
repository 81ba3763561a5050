import { formatMoneyDisplay } from "../../platform/money.js";
import { shippingTotalOf } from "./totals.js";

// Every mutation reprices the cart from the catalog as it is then (see "Stored view" in
// docs/decisions.md): a price changed in the catalog since the last mutation moves the total at
// the next one, whatever that one changed. What the stored view was priced with is stored beside
// it (carts.view_pricing, written by the statement that stores the view, read by the one that
// loads the cart's state), so the next mutation can name each amount that changed without the
// shopper changing what decides it: a unit price, the tax rate, the enrollment fee, the shipping
// charge.

/**
 * A line as priced: its id, what the shopper chose that decides its price (the variant, the plan
 * in effect), and its unit price in minor units, null when the line cannot be bought (its error
 * says so, and a price change would be noise beside it).
 */
type PricedLine = [itemId: number, variantId: number, planId: number | null, unitPrice: number | null];

/**
 * The shipping method in effect and its terms in minor units (price, free-shipping threshold):
 * the terms, not the charge, since the charge also follows the cart's subtotal, which the shopper
 * moves.
 */
type ShippingTerms = [methodId: number, price: number, freeOver: number | null];

export interface ViewPricing {
  country_id: number;
  rep: boolean;
  /** In percent, as CartState holds it ("8.25"). */
  tax_rate: string;
  lines: PricedLine[];
  // The two members below are optional because a view_pricing stored before they were kept has
  // neither: it compares nothing for them.
  /** The cart's enrollment pack and its fee in minor units, null without a pack. */
  enrollment?: [packId: number, fee: number] | null;
  /** The shipping method in effect and its terms, null without one. */
  shipping?: ShippingTerms | null;
}

export interface RepricingContext {
  skuOf: (itemId: number) => string;
  country: { name: string; currency: { code: string; decimal_places: number } };
  /** The name of the shipping method in effect, null without one. */
  shippingMethodName: string | null;
  /** What the shipping method's free-shipping threshold is measured against (totals.ts). */
  subtotalAfterDiscounts: number;
  /** Whether the tax rate applies to anything: a taxable line with an amount left after discounts. */
  taxesALine: boolean;
}

/**
 * The warnings for what changed between the stored view's pricing and the current one, other
 * than by the shopper, at the same country: a line's unit price with the same variant and plan
 * and the same pricing (rep or retail); the country's tax rate, when it taxes a line; the fee of
 * the same enrollment pack; and the charge of the same shipping method, the old and the new terms
 * both applied to the current subtotal (a threshold the shopper's own change crossed is not a
 * repricing). A cart moved to another country, or whose buyer changed between rep and retail
 * pricing, is priced anew, and its shopper knows why.
 */
export function repricingWarnings(previous: ViewPricing | null, current: ViewPricing, context: RepricingContext): string[] {
  if (previous === null || previous.country_id !== current.country_id) return [];
  const { skuOf, country } = context;
  const display = (minor: number) => formatMoneyDisplay(minor, country.currency.code, country.currency.decimal_places);
  const warnings = new Set<string>();
  if (previous.rep === current.rep) {
    const before = new Map(previous.lines.map((line) => [line[0], line]));
    for (const [id, variantId, planId, unitPrice] of current.lines) {
      const was = before.get(id);
      if (was === undefined) continue;
      const [, variantBefore, planBefore, priceBefore] = was;
      if (variantBefore !== variantId || planBefore !== planId || priceBefore === null || unitPrice === null || priceBefore === unitPrice) continue;
      warnings.add(`Price of ${skuOf(id)} changed from ${display(priceBefore)} to ${display(unitPrice)}`);
    }
  }
  if (previous.tax_rate !== current.tax_rate && context.taxesALine) warnings.add(`Tax rate of ${country.name} changed from ${previous.tax_rate}% to ${current.tax_rate}%`);
  const { enrollment: enrollmentBefore, shipping: shippingBefore } = previous;
  const { enrollment, shipping } = current;
  if (enrollmentBefore && enrollment && enrollmentBefore[0] === enrollment[0] && enrollmentBefore[1] !== enrollment[1]) {
    warnings.add(`Enrollment fee changed from ${display(enrollmentBefore[1])} to ${display(enrollment[1])}`);
  }
  if (shippingBefore && shipping && shippingBefore[0] === shipping[0] && context.shippingMethodName !== null) {
    const chargeOf = ([, price, freeOver]: ShippingTerms) => shippingTotalOf({ price, freeOver }, context.subtotalAfterDiscounts);
    const [chargeBefore, charge] = [chargeOf(shippingBefore), chargeOf(shipping)];
    if (chargeBefore !== charge) warnings.add(`Shipping for ${context.shippingMethodName} changed from ${display(chargeBefore)} to ${display(charge)}`);
  }
  return [...warnings];
}
