import { describe, expect, it } from "vitest";
import { type RepricingContext, repricingWarnings, type ViewPricing } from "../../../src/domain/carts/repricing.js";

const US = { name: "United States", currency: { code: "USD", decimal_places: 2 } };
const SKUS: Record<number, string> = { 1: "W1", 2: "W2" };

const context = (overrides: Partial<RepricingContext> = {}): RepricingContext => ({
  skuOf: (itemId) => SKUS[itemId] ?? "",
  country: US,
  shippingMethodName: "Ground",
  subtotalAfterDiscounts: 2_000,
  taxesALine: true,
  ...overrides,
});

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
    expect(repricingWarnings(pricing(), raised, context({ taxesALine: false }))).toEqual([]);
  });

  it("names the fee of the same enrollment pack, not another pack's", () => {
    const before = pricing({ enrollment: [4, 4_900] });
    expect(repricingWarnings(before, pricing({ enrollment: [4, 5_900] }), context())).toEqual(["Enrollment fee changed from $49.00 to $59.00"]);
    expect(repricingWarnings(before, pricing({ enrollment: [5, 5_900] }), context())).toEqual([]);
  });

  it("names the same method's charge as both terms give it for the current subtotal, not a threshold the shopper crossed", () => {
    expect(repricingWarnings(pricing(), pricing({ shipping: [7, 799, 5_000] }), context())).toEqual(["Shipping for Ground changed from $5.99 to $7.99"]);
    expect(repricingWarnings(pricing(), pricing({ shipping: [7, 599, 1_000] }), context())).toEqual(["Shipping for Ground changed from $5.99 to $0.00"]);
    expect(repricingWarnings(pricing(), pricing({ shipping: [7, 799, 5_000] }), context({ subtotalAfterDiscounts: 6_000 }))).toEqual([]);
    expect(repricingWarnings(pricing(), pricing({ shipping: [8, 799, null] }), context())).toEqual([]);
  });

  it("compares nothing for what a view_pricing stored before it was kept lacks", () => {
    const { enrollment: _enrollment, shipping: _shipping, ...old } = pricing();
    expect(repricingWarnings(old, pricing({ enrollment: [4, 5_900], shipping: [7, 799, null] }), context())).toEqual([]);
  });
});
