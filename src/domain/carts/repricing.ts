import { formatMoneyDisplay } from "../../platform/money.js";

// Every mutation reprices the cart from the catalog as it is then (see "Stored view" in
// docs/decisions.md): a price changed in the catalog since the last mutation moves the total at
// the next one, whatever that one changed. What the stored view was priced with is stored beside
// it (carts.view_pricing, written by the statement that stores the view, read by the one that
// loads the cart's state), so the next mutation can name each unit price, and the tax rate, that
// changed without the shopper changing what decides them.

/**
 * A line as priced: its id, what the shopper chose that decides its price (the variant, the plan
 * in effect), and its unit price in minor units, null when the line cannot be bought (its error
 * says so, and a price change would be noise beside it).
 */
type PricedLine = [itemId: number, variantId: number, planId: number | null, unitPrice: number | null];

export interface ViewPricing {
  country_id: number;
  rep: boolean;
  /** In percent, as CartState holds it ("8.25"). */
  tax_rate: string;
  lines: PricedLine[];
}

/**
 * The warnings for what changed between the stored view's pricing and the current one, other
 * than by the shopper: a line's unit price with the same variant and plan, at the same country
 * and pricing (rep or retail), and the country's tax rate (for a cart with lines). A cart moved
 * to another country, or whose buyer changed between rep and retail pricing, is priced anew,
 * and its shopper knows why.
 */
export function repricingWarnings(
  previous: ViewPricing | null,
  current: ViewPricing,
  { skuOf, country }: { skuOf: (itemId: number) => string; country: { name: string; currency: { code: string; decimal_places: number } } },
): string[] {
  if (previous === null || previous.country_id !== current.country_id) return [];
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
  if (previous.tax_rate !== current.tax_rate && current.lines.length > 0) warnings.add(`Tax rate of ${country.name} changed from ${previous.tax_rate}% to ${current.tax_rate}%`);
  return [...warnings];
}
