import { formatMoneyDisplay, IntegerOverflowError, multiplyByRate, parsePercent } from "../../platform/money.js";
import { computeTotals, shippingTotalOf, type Totals, type TotalsDiscount, type TotalsInput } from "./totals.js";

// Every mutation reprices the cart from the catalog as it is then (see "Stored view" in
// docs/decisions.md): a price changed in the catalog since the last mutation moves the total at
// the next one, whatever that one changed. What the stored view was priced with is stored beside
// it (carts.view_pricing, written by the statement that stores the view, read by the one that
// loads the cart's state), so the next mutation can name each amount that changed without the
// shopper changing what decides it: a unit price, a line's tax, the tax rate, a code's discount,
// the enrollment fee, the shipping charge.

/**
 * A line as priced: its id, what the shopper chose that decides its price (the variant, the plan
 * in effect), its unit price in minor units, null when the line cannot be bought (its error
 * says so, and a price change would be noise beside it), and whether it is taxed (absent from a
 * line stored before it was kept: not compared).
 */
type PricedLine = [itemId: number, variantId: number, planId: number | null, unitPrice: number | null, taxable?: boolean];

/** An applied code and its terms, as the totals take them: what it takes off follows the cart, which the shopper moves. */
type DiscountTerms = [code: string, kind: TotalsDiscount["kind"], amount: string, scope: TotalsDiscount["scope"], productIds: number[]];

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
  // The members below are optional because a view_pricing stored before they were kept lacks
  // them: it compares nothing for them.
  /** The cart's enrollment pack and its fee in minor units, null without a pack. */
  enrollment?: [packId: number, fee: number] | null;
  /** The shipping method in effect and its terms, null without one. */
  shipping?: ShippingTerms | null;
  /** The codes applied, with their terms. */
  discounts?: DiscountTerms[];
}

export function discountTermsOf({ code, kind, amount, scope, productIds }: TotalsDiscount): DiscountTerms {
  return [code, kind, amount, scope, productIds];
}

function discountOf([code, kind, amount, scope, productIds]: DiscountTerms): TotalsDiscount {
  return { code, kind, amount, scope, productIds };
}

export interface RepricingContext {
  skuOf: (itemId: number) => string;
  country: { name: string; currency: { code: string; decimal_places: number } };
  /** The name of the shipping method in effect, null without one. */
  shippingMethodName: string | null;
  /** What the cart is priced with now, and its totals: the old terms of a code or a line's tax are applied to them. */
  input: TotalsInput;
  totals: Totals;
}

/** What each code takes off the cart `input` prices with `discounts` instead of its own, or null when that cart is past the largest amount. */
function discountsTakenWith(input: TotalsInput, discounts: TotalsDiscount[]): Map<string, number> | null {
  try {
    return new Map(computeTotals({ ...input, discounts }).discountBreakdown.map((entry) => [entry.code, entry.amount]));
  } catch (error) {
    if (error instanceof IntegerOverflowError) return null;
    throw error;
  }
}

/**
 * Each code applied before and now whose terms changed (amount, kind, scope, products), with what
 * it took off before and takes now: the old and the new terms both applied to the current cart,
 * so that what the shopper's own change moved is not a repricing, nor new terms that take the
 * same off this cart.
 */
function discountChanges(previous: DiscountTerms[], context: RepricingContext): Array<[code: string, before: number, now: number]> {
  const termsBefore = new Map(previous.map((terms) => [terms[0], terms]));
  const oldTermsOf = new Map<TotalsDiscount, TotalsDiscount>();
  for (const discount of context.input.discounts) {
    const before = termsBefore.get(discount.code);
    if (before !== undefined && JSON.stringify(before) !== JSON.stringify(discountTermsOf(discount))) oldTermsOf.set(discount, discountOf(before));
  }
  if (oldTermsOf.size === 0) return [];
  const before = discountsTakenWith(context.input, context.input.discounts.map((discount) => oldTermsOf.get(discount) ?? discount));
  if (before === null) return [];
  const now = new Map(context.totals.discountBreakdown.map((entry) => [entry.code, entry.amount]));
  return [...oldTermsOf.keys()].flatMap(({ code }) => {
    const [takenBefore, taken] = [before.get(code) ?? 0, now.get(code) ?? 0];
    return takenBefore === taken ? [] : [[code, takenBefore, taken] as [string, number, number]];
  });
}

/**
 * The warnings for what changed between the stored view's pricing and the current one, other
 * than by the shopper, at the same country: a line's unit price with the same variant and plan
 * and the same pricing (rep or retail); a line's tax, when its variant became taxed or exempt;
 * the country's tax rate, when it taxes a line; what a code whose terms changed takes off; the
 * fee of the same enrollment pack; and the charge of the same shipping method. The old and the
 * new terms of a line's tax, a code and a shipping method are applied to the current cart (a
 * threshold the shopper's own change crossed is not a repricing). A cart moved to another
 * country, or whose buyer changed between rep and retail pricing, is priced anew, and its
 * shopper knows why.
 */
export function repricingWarnings(previous: ViewPricing | null, current: ViewPricing, context: RepricingContext): string[] {
  if (previous === null || previous.country_id !== current.country_id) return [];
  const { skuOf, country, input, totals } = context;
  const display = (minor: number) => formatMoneyDisplay(minor, country.currency.code, country.currency.decimal_places);
  const warnings = new Set<string>();
  const before = new Map(previous.lines.map((line) => [line[0], line]));
  const rate = parsePercent(input.taxRatePercent);
  current.lines.forEach(([id, variantId, planId, unitPrice, taxable], index) => {
    const was = before.get(id);
    if (was === undefined) return;
    const [, variantBefore, planBefore, priceBefore, taxableBefore] = was;
    if (variantBefore !== variantId || planBefore !== planId || priceBefore === null || unitPrice === null) return;
    if (previous.rep === current.rep && priceBefore !== unitPrice) warnings.add(`Price of ${skuOf(id)} changed from ${display(priceBefore)} to ${display(unitPrice)}`);
    const line = totals.lines[index];
    if (taxableBefore === undefined || taxableBefore === taxable || line === undefined) return;
    const taxBefore = taxableBefore ? multiplyByRate(line.lineSubtotal - line.discount, rate) : 0;
    if (taxBefore !== line.tax) warnings.add(`Tax on ${skuOf(id)} changed from ${display(taxBefore)} to ${display(line.tax)}`);
  });
  const taxesALine = totals.lines.some((line, index) => input.lines[index]?.taxable === true && line.lineSubtotal > line.discount);
  if (previous.tax_rate !== current.tax_rate && taxesALine) warnings.add(`Tax rate of ${country.name} changed from ${previous.tax_rate}% to ${current.tax_rate}%`);
  for (const [code, takenBefore, taken] of discountChanges(previous.discounts ?? [], context)) {
    warnings.add(`Discount code ${code} changed from ${display(takenBefore)} to ${display(taken)}`);
  }
  const { enrollment: enrollmentBefore, shipping: shippingBefore } = previous;
  const { enrollment, shipping } = current;
  if (enrollmentBefore && enrollment && enrollmentBefore[0] === enrollment[0] && enrollmentBefore[1] !== enrollment[1]) {
    warnings.add(`Enrollment fee changed from ${display(enrollmentBefore[1])} to ${display(enrollment[1])}`);
  }
  if (shippingBefore && shipping && shippingBefore[0] === shipping[0] && context.shippingMethodName !== null) {
    const chargeOf = ([, price, freeOver]: ShippingTerms) => shippingTotalOf({ price, freeOver }, totals.subtotalAfterDiscounts);
    const [chargeBefore, charge] = [chargeOf(shippingBefore), chargeOf(shipping)];
    if (chargeBefore !== charge) warnings.add(`Shipping for ${context.shippingMethodName} changed from ${display(chargeBefore)} to ${display(charge)}`);
  }
  return [...warnings];
}
