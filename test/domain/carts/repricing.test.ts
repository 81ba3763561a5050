import { describe, expect, it } from "vitest";
import { type RepricingContext, repricingWarnings, type ViewPricing } from "../../../src/domain/carts/repricing.js";
import { computeTotals, type TotalsInput, type TotalsLine } from "../../../src/domain/carts/totals.js";
import { totalsInput, totalsLine } from "../../helpers/totals.js";

const US = { name: "United States", currency: { code: "USD", decimal_places: 2 } };
const SKUS: Record<number, string> = { 1: "W1", 2: "W2" };

const line = (id: number, unitPrice: number, fields: Partial<TotalsLine> = {}): TotalsLine => totalsLine({ key: String(id), productId: id * 10, retailUnitPrice: unitPrice, ...fields });

/** The cart as priced now (the lines of pricing() below, W1 at $10.00 and W2 at $5.00), its input overridden. */
const context = (cart: Partial<TotalsInput> = {}): RepricingContext => {
  const input = totalsInput({ lines: [line(1, 1_000), line(2, 500)], taxRatePercent: "8.25", shipping: { price: 599, freeOver: 5_000 }, ...cart });
  return { skuOf: (itemId) => SKUS[itemId] ?? "", country: US, shippingMethodName: "Ground", input, totals: computeTotals(input) };
};

const pricing = (overrides: Partial<ViewPricing> = {}): ViewPricing => ({
  country_id: 1,
  rep: false,
  tax_rate: "8.25",
  lines: [
    [1, 10, null, 1_000],
    [2, 20, null, 500],
  ],
  enrollment: null,
  shipping: [7, 599, 5_000],
  ...overrides,
});

describe("repricingWarnings", () => {
  it("names nothing on a cart's first pricing or when nothing changed", () => {
    expect(repricingWarnings(null, pricing(), context())).toEqual([]);
    expect(repricingWarnings(pricing(), pricing(), context())).toEqual([]);
  });

  it("names a line whose unit price changed with the same variant and plan", () => {
    const now = pricing({ lines: [[1, 10, null, 1_500], [2, 20, null, 500]] });
    expect(repricingWarnings(pricing(), now, context())).toEqual(["Price of W1 changed from $10.00 to $15.00"]);
  });

  it("names nothing the shopper's own change decides: another variant or plan, rep or retail pricing, another country", () => {
    const swapped = pricing({ lines: [[1, 11, null, 1_500], [2, 20, 3, 450]] });
    expect(repricingWarnings(pricing(), swapped, context())).toEqual([]);
    const asRep = pricing({ rep: true, lines: [[1, 10, null, 800], [2, 20, null, 400]] });
    expect(repricingWarnings(pricing(), asRep, context())).toEqual([]);
    const moved = pricing({ country_id: 2, tax_rate: "10", lines: [[1, 10, null, 1_200], [2, 20, null, 600]] });
    expect(repricingWarnings(pricing(), moved, context())).toEqual([]);
  });

  it("names nothing for a line that cannot be bought, before or after (its error says so)", () => {
    const unavailable = pricing({ lines: [[1, 10, null, null], [2, 20, null, 500]] });
    expect(repricingWarnings(pricing(), unavailable, context())).toEqual([]);
    expect(repricingWarnings(unavailable, pricing(), context())).toEqual([]);
  });

  it("names a changed tax rate only when it taxes a line", () => {
    const raised = pricing({ tax_rate: "9" });
    expect(repricingWarnings(pricing(), raised, context())).toEqual(["Tax rate of United States changed from 8.25% to 9%"]);
    const exempt = context({ lines: [line(1, 1_000, { taxable: false }), line(2, 500, { taxable: false })] });
    expect(repricingWarnings(pricing(), raised, exempt)).toEqual([]);
  });

  it("names the fee of the same enrollment pack, not another pack's", () => {
    const before = pricing({ enrollment: [4, 4_900] });
    expect(repricingWarnings(before, pricing({ enrollment: [4, 5_900] }), context())).toEqual(["Enrollment fee changed from $49.00 to $59.00"]);
    expect(repricingWarnings(before, pricing({ enrollment: [5, 5_900] }), context())).toEqual([]);
  });

  it("names the same method's charge as both terms give it for the current subtotal, not a threshold the shopper crossed", () => {
    expect(repricingWarnings(pricing(), pricing({ shipping: [7, 799, 5_000] }), context())).toEqual(["Shipping for Ground changed from $5.99 to $7.99"]);
    expect(repricingWarnings(pricing(), pricing({ shipping: [7, 599, 1_000] }), context())).toEqual(["Shipping for Ground changed from $5.99 to $0.00"]);
    expect(repricingWarnings(pricing(), pricing({ shipping: [7, 799, 5_000] }), context({ lines: [line(1, 1_000, { quantity: 6 }), line(2, 500)] }))).toEqual([]);
    expect(repricingWarnings(pricing(), pricing({ shipping: [8, 799, null] }), context())).toEqual([]);
  });

  it("names a line's tax when its variant became exempt or taxed, at the current rate and amount", () => {
    const taxed = pricing({ lines: [[1, 10, null, 1_000, true], [2, 20, null, 500, true]] });
    const exempt = pricing({ lines: [[1, 10, null, 1_000, false], [2, 20, null, 500, true]] });
    const exemptW1 = context({ lines: [line(1, 1_000, { taxable: false }), line(2, 500)] });
    expect(repricingWarnings(taxed, exempt, exemptW1)).toEqual(["Tax on W1 changed from $0.82 to $0.00"]);
    expect(repricingWarnings(exempt, taxed, context())).toEqual(["Tax on W1 changed from $0.00 to $0.82"]);
    // No tax either way at a rate of 0, and a line stored before the flag was kept compares nothing.
    expect(repricingWarnings(taxed, exempt, context({ lines: [line(1, 1_000, { taxable: false }), line(2, 500)], taxRatePercent: "0" }))).toEqual([]);
    expect(repricingWarnings(pricing(), exempt, exemptW1)).toEqual([]);
  });

  it("names what a code whose terms changed takes off, its old and new terms both applied to the current cart", () => {
    const code = (amount: string, fields: Partial<{ kind: "percentage" | "fixed_amount"; scope: "order" | "product" | "shipping"; productIds: number[] }> = {}) => ({
      code: "T3AMT",
      kind: fields.kind ?? ("percentage" as const),
      amount,
      scope: fields.scope ?? ("order" as const),
      productIds: fields.productIds ?? [],
    });
    const pricedWith = (discount: ReturnType<typeof code>) => pricing({ discounts: [[discount.code, discount.kind, discount.amount, discount.scope, discount.productIds]] });
    const tenPercent = code("10");
    expect(repricingWarnings(pricedWith(tenPercent), pricedWith(code("1")), context({ discounts: [code("1")] }))).toEqual(["Discount code T3AMT changed from $1.50 to $0.15"]);
    expect(repricingWarnings(pricedWith(tenPercent), pricedWith(code("1.00", { kind: "fixed_amount" })), context({ discounts: [code("1.00", { kind: "fixed_amount" })] }))).toEqual([
      "Discount code T3AMT changed from $1.50 to $1.00",
    ]);
    const onW1 = code("10", { scope: "product", productIds: [10] });
    expect(repricingWarnings(pricedWith(onW1), pricedWith(code("10", { scope: "product", productIds: [20] })), context({ discounts: [code("10", { scope: "product", productIds: [20] })] }))).toEqual([
      "Discount code T3AMT changed from $1.00 to $0.50",
    ]);
    // The same terms on a cart the shopper changed, and new terms that take the same off this cart, are no repricing.
    expect(repricingWarnings(pricedWith(tenPercent), pricedWith(tenPercent), context({ discounts: [tenPercent], lines: [line(1, 1_000, { quantity: 3 })] }))).toEqual([]);
    const elsewhere = code("10", { scope: "product", productIds: [99] });
    expect(repricingWarnings(pricedWith(onW1), pricedWith(elsewhere), context({ discounts: [elsewhere], lines: [line(2, 500)] }))).toEqual([]);
    // A view_pricing stored before the codes' terms were kept compares none.
    expect(repricingWarnings(pricing(), pricedWith(code("1")), context({ discounts: [code("1")] }))).toEqual([]);
  });

  it("compares nothing for what a view_pricing stored before it was kept lacks", () => {
    const { enrollment: _enrollment, shipping: _shipping, ...old } = pricing();
    expect(repricingWarnings(old, pricing({ enrollment: [4, 5_900], shipping: [7, 799, null] }), context())).toEqual([]);
  });
});
