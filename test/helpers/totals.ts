import type { TotalsInput, TotalsLine } from "../../src/domain/carts/totals.js";

// Inputs of the totals engine, for the tests of it and of what compares its results.

/** A taxable one-off line of one unit at 10.00 of product 1, overridden. */
export function totalsLine(overrides: Partial<TotalsLine> = {}): TotalsLine {
  return {
    key: "line",
    productId: 1,
    retailUnitPrice: 1000,
    repUnitPrice: null,
    quantity: 1,
    taxable: true,
    unitCv: 0,
    unitQv: 0,
    subscription: null,
    ...overrides,
  };
}

/** A retail cart in a currency of 2 decimals, with no line, code, tax, shipping or fee, overridden. */
export function totalsInput(overrides: Partial<TotalsInput> = {}): TotalsInput {
  return {
    decimalPlaces: 2,
    pricing: "retail",
    lines: [],
    discounts: [],
    taxRatePercent: "0",
    shipping: null,
    transactionFee: 0,
    enrollmentFee: 0,
    ...overrides,
  };
}
