import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  computeTotals,
  type IntervalUnit,
  type PriceAdjustment,
  type Totals,
  type TotalsDiscount,
  type TotalsInput,
  type TotalsLine,
} from "../../../src/domain/carts/totals.js";
import { IntegerOverflowError } from "../../../src/platform/money.js";
import { totalsInput, totalsLine } from "../../helpers/totals.js";

let nextKey = 0;

function line(overrides: Partial<TotalsLine> = {}): TotalsLine {
  nextKey += 1;
  return totalsLine({ key: `line-${nextKey}`, ...overrides });
}

const cart = totalsInput;

function code(
  scope: TotalsDiscount["scope"],
  kind: TotalsDiscount["kind"],
  amount: string,
  productIds: number[] = [],
): TotalsDiscount {
  return { code: `${scope.toUpperCase()}-${kind}-${amount}`, kind, amount, scope, productIds };
}

function subscription(interval: number, intervalUnit: IntervalUnit, adjustment: PriceAdjustment | null = null) {
  return { interval, intervalUnit, adjustment };
}

const lineDiscounts = (totals: Totals) => totals.lines.map((l) => l.discount);
const lineTaxes = (totals: Totals) => totals.lines.map((l) => l.tax);

describe("unit price", () => {
  const item = () => line({ retailUnitPrice: 1999, repUnitPrice: 1500, quantity: 2 });

  it("is the retail price under retail pricing", () => {
    const totals = computeTotals(cart({ lines: [item()] }));
    expect(totals.lines[0]).toMatchObject({ unitPrice: 1999, lineSubtotal: 3998 });
    expect(totals.subTotal).toBe(3998);
  });

  it("is the rep price under rep pricing", () => {
    const totals = computeTotals(cart({ pricing: "rep", lines: [item()] }));
    expect(totals.lines[0]).toMatchObject({ unitPrice: 1500, lineSubtotal: 3000 });
    expect(totals.subTotal).toBe(3000);
  });

  it("falls back to retail under rep pricing when the line has no rep price", () => {
    const totals = computeTotals(
      cart({ pricing: "rep", lines: [line({ retailUnitPrice: 1999, repUnitPrice: null, quantity: 2 }), item()] }),
    );
    expect(totals.lines.map((l) => l.unitPrice)).toEqual([1999, 1500]);
    expect(totals.subTotal).toBe(3998 + 3000);
  });
});

describe("subscription price adjustments", () => {
  it("takes a percentage off the unit price, rounding the amount taken half-even", () => {
    // 10% of 1999 = 199.9 -> 200 off; 10% of 1995 = 199.5 -> 200 off (to even)
    const totals = computeTotals(
      cart({
        lines: [
          line({ retailUnitPrice: 1999, quantity: 3, subscription: subscription(1, "month", { type: "percentage", amount: "10" }) }),
          line({ retailUnitPrice: 1995, subscription: subscription(1, "month", { type: "percentage", amount: "10" }) }),
          line({ retailUnitPrice: 1985, subscription: subscription(1, "month", { type: "percentage", amount: "10" }) }),
        ],
      }),
    );
    // 10% of 1985 = 198.5 -> 198 off (to even)
    expect(totals.lines.map((l) => l.unitPrice)).toEqual([1799, 1795, 1787]);
    expect(totals.lines[0]?.lineSubtotal).toBe(5397);
    expect(totals.subTotal).toBe(5397 + 1795 + 1787);
  });

  it("takes a fixed amount off per unit", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ retailUnitPrice: 1999, quantity: 2, subscription: subscription(1, "month", { type: "fixed_amount", amount: "5.00" }) })],
      }),
    );
    expect(totals.lines[0]).toMatchObject({ unitPrice: 1499, lineSubtotal: 2998 });
  });

  it("floors the adjusted price at 0", () => {
    const totals = computeTotals(
      cart({
        lines: [
          line({ retailUnitPrice: 1999, subscription: subscription(1, "month", { type: "fixed_amount", amount: "25.00" }) }),
          line({ retailUnitPrice: 1999, subscription: subscription(1, "month", { type: "percentage", amount: "150" }) }),
        ],
      }),
    );
    expect(totals.lines.map((l) => l.unitPrice)).toEqual([0, 0]);
    expect(totals.amountTotal).toBe(0);
  });

  it("adjusts the rep price under rep pricing", () => {
    const totals = computeTotals(
      cart({
        pricing: "rep",
        lines: [line({ retailUnitPrice: 2000, repUnitPrice: 1600, subscription: subscription(1, "month", { type: "percentage", amount: "25" }) })],
      }),
    );
    expect(totals.lines[0]?.unitPrice).toBe(1200);
  });

  it("is not a discount", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ retailUnitPrice: 2000, subscription: subscription(1, "month", { type: "fixed_amount", amount: "5" }) })],
      }),
    );
    expect(totals.discountTotal).toBe(0);
    expect(totals.itemDiscountTotal).toBe(0);
    expect(totals.lines[0]?.discount).toBe(0);
    expect(totals.subTotal).toBe(1500);
    expect(totals.amountTotal).toBe(1500);
  });

  it("leaves the price alone for a subscribed line without an adjustment", () => {
    const totals = computeTotals(cart({ lines: [line({ retailUnitPrice: 2000, subscription: subscription(2, "week") })] }));
    expect(totals.lines[0]?.unitPrice).toBe(2000);
  });

  it("uses the currency's decimal places for a fixed adjustment", () => {
    const jpy = computeTotals(
      cart({
        decimalPlaces: 0,
        lines: [line({ retailUnitPrice: 1200, subscription: subscription(1, "month", { type: "fixed_amount", amount: "200" }) })],
      }),
    );
    expect(jpy.lines[0]?.unitPrice).toBe(1000);
    expect(() =>
      computeTotals(
        cart({
          decimalPlaces: 0,
          lines: [line({ subscription: subscription(1, "month", { type: "fixed_amount", amount: "2.5" }) })],
        }),
      ),
    ).toThrow(RangeError);
  });
});

describe("order-scope discounts", () => {
  const twoLines = () => [line({ retailUnitPrice: 1000 }), line({ retailUnitPrice: 2500, quantity: 2 })];

  it("percentage: rounded once on the order and spread by what is left of each line", () => {
    const totals = computeTotals(cart({ lines: twoLines(), discounts: [code("order", "percentage", "10")] }));
    expect(totals.subTotal).toBe(6000);
    expect(lineDiscounts(totals)).toEqual([100, 500]);
    expect(totals.itemDiscountTotal).toBe(600);
    expect(totals.discountTotal).toBe(600);
    expect(totals.subtotalAfterDiscounts).toBe(5400);
    expect(totals.amountTotal).toBe(5400);
  });

  it("percentage: rounds at order level, not per line", () => {
    // 12.5% of 1005 + 1005 + 1005 = 376.875 -> 377 once; per line it would be 3 x 126 = 378
    const totals = computeTotals(
      cart({ lines: [line({ retailUnitPrice: 1005 }), line({ retailUnitPrice: 1005 }), line({ retailUnitPrice: 1005 })], discounts: [code("order", "percentage", "12.5")] }),
    );
    expect(totals.itemDiscountTotal).toBe(377);
    expect(lineDiscounts(totals)).toEqual([126, 126, 125]);
  });

  it("fixed: spread by largest remainder", () => {
    // 500 over weights 1000 : 5000 -> 83.33 and 416.67
    const totals = computeTotals(cart({ lines: twoLines(), discounts: [code("order", "fixed_amount", "5.00")] }));
    expect(lineDiscounts(totals)).toEqual([83, 417]);
    expect(totals.itemDiscountTotal).toBe(500);
  });

  it("fixed: 10.00 over three equal lines puts the odd cent on the first", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ retailUnitPrice: 2000 }), line({ retailUnitPrice: 2000 }), line({ retailUnitPrice: 2000 })],
        discounts: [code("order", "fixed_amount", "10.00")],
      }),
    );
    expect(lineDiscounts(totals)).toEqual([334, 333, 333]);
    expect(totals.itemDiscountTotal).toBe(1000);
    expect(totals.lines.map((l) => l.lineTotal)).toEqual([1666, 1667, 1667]);
  });

  it("fixed: larger than the subtotal takes everything and nothing goes negative", () => {
    const totals = computeTotals(
      cart({
        lines: twoLines(),
        discounts: [code("order", "fixed_amount", "100.00"), code("order", "percentage", "10")],
        taxRatePercent: "8.25",
        shipping: { price: 799, freeOver: null },
        transactionFee: 100,
      }),
    );
    expect(lineDiscounts(totals)).toEqual([1000, 5000]);
    expect(totals.itemDiscountTotal).toBe(6000);
    expect(totals.subtotalAfterDiscounts).toBe(0);
    expect(totals.taxTotal).toBe(0);
    expect(totals.lines.map((l) => l.lineTotal)).toEqual([0, 0]);
    // The percentage goes first (10% of 60.00), the fixed code takes the rest.
    expect(totals.discountBreakdown.map((d) => d.amount)).toEqual([5400, 600]);
    expect(totals.amountTotal).toBe(799 + 100);
  });

  it("percentage above 100 is capped at what is left", () => {
    const totals = computeTotals(cart({ lines: twoLines(), discounts: [code("order", "percentage", "250")] }));
    expect(totals.itemDiscountTotal).toBe(6000);
    expect(totals.amountTotal).toBe(0);
  });
});

describe("product-scope discounts", () => {
  it("percentage with no product restriction applies to every line, rounded half-even per line", () => {
    // 10% of 1005 = 100.5 -> 100; 10% of 1015 = 101.5 -> 102
    const totals = computeTotals(
      cart({
        lines: [line({ productId: 1, retailUnitPrice: 1005 }), line({ productId: 2, retailUnitPrice: 1015 })],
        discounts: [code("product", "percentage", "10")],
      }),
    );
    expect(lineDiscounts(totals)).toEqual([100, 102]);
    expect(totals.discountBreakdown).toEqual([{ code: "PRODUCT-percentage-10", scope: "product", amount: 202 }]);
  });

  it("percentage rounds per line, not once on the order", () => {
    // 12.5% of 1005 three times = 3 x 125.625 -> 3 x 126 = 378 (an order code would take 377)
    const totals = computeTotals(
      cart({ lines: [line({ retailUnitPrice: 1005 }), line({ retailUnitPrice: 1005 }), line({ retailUnitPrice: 1005 })], discounts: [code("product", "percentage", "12.5")] }),
    );
    expect(lineDiscounts(totals)).toEqual([126, 126, 126]);
    expect(totals.itemDiscountTotal).toBe(378);
  });

  it("percentage restricted to products only touches those lines", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ productId: 1, retailUnitPrice: 1000 }), line({ productId: 2, retailUnitPrice: 3000 }), line({ productId: 3, retailUnitPrice: 500 })],
        discounts: [code("product", "percentage", "20", [2, 3])],
      }),
    );
    expect(lineDiscounts(totals)).toEqual([0, 600, 100]);
    expect(totals.itemDiscountTotal).toBe(700);
  });

  it("fixed is taken once per order and spread over the eligible lines", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ productId: 1, retailUnitPrice: 1000 }), line({ productId: 2, retailUnitPrice: 500 }), line({ productId: 2, retailUnitPrice: 1000 })],
        discounts: [code("product", "fixed_amount", "3.00", [2])],
      }),
    );
    expect(lineDiscounts(totals)).toEqual([0, 100, 200]);
    expect(totals.itemDiscountTotal).toBe(300);
  });

  it("fixed with no product restriction spreads over every line", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ productId: 1, retailUnitPrice: 1000 }), line({ productId: 2, retailUnitPrice: 3000 })],
        discounts: [code("product", "fixed_amount", "4")],
      }),
    );
    expect(lineDiscounts(totals)).toEqual([100, 300]);
  });

  it("fixed is capped at what is left of the eligible lines", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ productId: 1, retailUnitPrice: 1000 }), line({ productId: 2, retailUnitPrice: 1500 })],
        discounts: [code("product", "fixed_amount", "50.00", [2])],
      }),
    );
    expect(lineDiscounts(totals)).toEqual([0, 1500]);
    expect(totals.discountBreakdown[0]?.amount).toBe(1500);
    expect(totals.subtotalAfterDiscounts).toBe(1000);
  });

  it("a code for a product not in the cart takes nothing", () => {
    const totals = computeTotals(
      cart({ lines: [line({ productId: 1 })], discounts: [code("product", "percentage", "50", [99]), code("product", "fixed_amount", "1", [99])] }),
    );
    expect(totals.itemDiscountTotal).toBe(0);
    expect(totals.discountBreakdown.map((d) => d.amount)).toEqual([0, 0]);
  });
});

describe("stacking codes", () => {
  it("applies product codes, then order codes, then shipping codes, each on what is left", () => {
    const orderPercent = code("order", "percentage", "10");
    const productPercent = code("product", "percentage", "10", [1]);
    const orderFixed = code("order", "fixed_amount", "5.00");
    const shippingFixed = code("shipping", "fixed_amount", "2.00");
    const totals = computeTotals(
      cart({
        lines: [line({ productId: 1, retailUnitPrice: 2000 }), line({ productId: 2, retailUnitPrice: 3000 })],
        // given out of application order on purpose: the product code still goes first
        discounts: [shippingFixed, orderPercent, productPercent, orderFixed],
        shipping: { price: 500, freeOver: null },
      }),
    );
    // product 10% on line 1: 200 -> left 1800, 3000
    // order 10% of 4800 = 480 spread 180 / 300 -> left 1620, 2700
    // order 5.00 over 1620 : 2700 = 187.5 / 312.5 -> tie, lower index takes the unit: 188 / 312
    expect(lineDiscounts(totals)).toEqual([200 + 180 + 188, 300 + 312]);
    expect(totals.itemDiscountTotal).toBe(1180);
    expect(totals.subtotalAfterDiscounts).toBe(3820);
    expect(totals.shippingDiscount).toBe(200);
    expect(totals.discountTotal).toBe(1380);
    expect(totals.discountBreakdown).toEqual([
      { code: shippingFixed.code, scope: "shipping", amount: 200 },
      { code: orderPercent.code, scope: "order", amount: 480 },
      { code: productPercent.code, scope: "product", amount: 200 },
      { code: orderFixed.code, scope: "order", amount: 500 },
    ]);
    expect(totals.amountTotal).toBe(5000 - 1380 + 500);
  });

  it("gives one total for one set of codes, whatever order they came in: percentages before fixed amounts, each kind by code", () => {
    const tenPercent = code("order", "percentage", "10");
    const fivePercent = code("order", "percentage", "5");
    const oneOff = code("order", "fixed_amount", "1.00");
    const lines = [line({ retailUnitPrice: 325, quantity: 3 }), line({ productId: 2, retailUnitPrice: 1999 })];
    const orders = [
      [tenPercent, fivePercent, oneOff],
      [oneOff, fivePercent, tenPercent],
      [fivePercent, oneOff, tenPercent],
    ];
    const results = orders.map((discounts) => computeTotals(cart({ lines, discounts })));
    // 2974; 10% first ("…-10" sorts before "…-5"): 297.4 -> 297, left 2677; 5%: 133.85 -> 134, left 2543; 1.00: 2443
    for (const totals of results) {
      expect(totals.itemDiscountTotal).toBe(2974 - 2443);
      expect(lineDiscounts(totals)).toEqual(lineDiscounts(results[0] as Totals));
    }
    // The breakdown still lists the codes as they came.
    expect(results[1]?.discountBreakdown.map((entry) => entry.code)).toEqual([oneOff.code, fivePercent.code, tenPercent.code]);
  });

  it("two product percentages compound rather than add", () => {
    const totals = computeTotals(
      cart({ lines: [line({ retailUnitPrice: 10000 })], discounts: [code("product", "percentage", "50"), code("product", "percentage", "50")] }),
    );
    expect(totals.discountBreakdown.map((d) => d.amount)).toEqual([5000, 2500]);
    expect(totals.itemDiscountTotal).toBe(7500);
  });
});

describe("shipping", () => {
  const lines = () => [line({ retailUnitPrice: 6000 })];

  it("is 0 when no method is chosen", () => {
    const totals = computeTotals(cart({ lines: lines(), discounts: [code("shipping", "percentage", "100")] }));
    expect(totals.shippingTotal).toBe(0);
    expect(totals.shippingDiscount).toBe(0);
    expect(totals.discountBreakdown[0]?.amount).toBe(0);
  });

  it("is the method's price without a threshold", () => {
    const totals = computeTotals(cart({ lines: lines(), shipping: { price: 799, freeOver: null } }));
    expect(totals.shippingTotal).toBe(799);
    expect(totals.amountTotal).toBe(6799);
  });

  it("is free when the subtotal after discounts reaches the threshold exactly", () => {
    const totals = computeTotals(
      cart({ lines: lines(), discounts: [code("order", "fixed_amount", "10.00")], shipping: { price: 799, freeOver: 5000 } }),
    );
    expect(totals.subtotalAfterDiscounts).toBe(5000);
    expect(totals.shippingTotal).toBe(0);
    expect(totals.amountTotal).toBe(5000);
  });

  it("is charged when discounts bring the subtotal one unit below the threshold", () => {
    const totals = computeTotals(
      cart({ lines: lines(), discounts: [code("order", "fixed_amount", "10.01")], shipping: { price: 799, freeOver: 5000 } }),
    );
    expect(totals.subTotal).toBeGreaterThan(5000);
    expect(totals.subtotalAfterDiscounts).toBe(4999);
    expect(totals.shippingTotal).toBe(799);
    expect(totals.amountTotal).toBe(4999 + 799);
  });

  it("percentage code takes a share of the shipping total", () => {
    const totals = computeTotals(
      cart({ lines: lines(), discounts: [code("shipping", "percentage", "50")], shipping: { price: 999, freeOver: null } }),
    );
    // 499.5 -> 500 (to even)
    expect(totals.shippingDiscount).toBe(500);
    expect(totals.shippingTotal).toBe(999);
    expect(totals.discountTotal).toBe(500);
    expect(totals.itemDiscountTotal).toBe(0);
    expect(totals.amountTotal).toBe(6000 + 999 - 500);
  });

  it("fixed code is capped at the shipping total and stacks after a percentage", () => {
    const totals = computeTotals(
      cart({
        lines: lines(),
        discounts: [code("shipping", "percentage", "50"), code("shipping", "fixed_amount", "3.00"), code("shipping", "fixed_amount", "15.00")],
        shipping: { price: 1000, freeOver: null },
      }),
    );
    // After the percentage, the fixed codes go by code: "…-15.00" sorts before "…-3.00" and takes what is left.
    expect(totals.discountBreakdown.map((d) => d.amount)).toEqual([500, 0, 500]);
    expect(totals.shippingDiscount).toBe(1000);
    expect(totals.amountTotal).toBe(6000);
  });

  it("a shipping code takes nothing when shipping is already free", () => {
    const totals = computeTotals(
      cart({ lines: lines(), discounts: [code("shipping", "fixed_amount", "5")], shipping: { price: 799, freeOver: 100 } }),
    );
    expect(totals.shippingTotal).toBe(0);
    expect(totals.shippingDiscount).toBe(0);
  });

  it("is never taxed", () => {
    const totals = computeTotals(cart({ lines: lines(), taxRatePercent: "10", shipping: { price: 1000, freeOver: null } }));
    expect(totals.taxTotal).toBe(600);
    expect(totals.amountTotal).toBe(6000 + 600 + 1000);
  });
});

describe("tax", () => {
  it("is computed on the discounted line amount", () => {
    // (10000 - 1000) x 8.25% = 742.5 -> 742 (to even)
    const totals = computeTotals(
      cart({ lines: [line({ retailUnitPrice: 10000 })], discounts: [code("order", "percentage", "10")], taxRatePercent: "8.25" }),
    );
    expect(totals.lines[0]).toMatchObject({ lineSubtotal: 10000, discount: 1000, tax: 742, lineTotal: 9742 });
    expect(totals.taxTotal).toBe(742);
    expect(totals.amountTotal).toBe(9742);
  });

  it("rounds half-even per line, both directions", () => {
    // 1005 x 10% = 100.5 -> 100; 1015 x 10% = 101.5 -> 102; the order-level 202.0 would agree only by luck
    const totals = computeTotals(
      cart({ lines: [line({ retailUnitPrice: 1005 }), line({ retailUnitPrice: 1015 }), line({ retailUnitPrice: 1025 })], taxRatePercent: "10" }),
    );
    expect(lineTaxes(totals)).toEqual([100, 102, 102]);
    expect(totals.taxTotal).toBe(304);
  });

  it("is 0 on non-taxable lines", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ retailUnitPrice: 2000, taxable: false }), line({ retailUnitPrice: 3000 })],
        discounts: [code("order", "fixed_amount", "5.00")],
        taxRatePercent: "10",
      }),
    );
    // 500 spread 200 / 300; tax only on 3000 - 300
    expect(lineDiscounts(totals)).toEqual([200, 300]);
    expect(lineTaxes(totals)).toEqual([0, 270]);
    expect(totals.taxTotal).toBe(270);
    expect(totals.amountTotal).toBe(5000 - 500 + 270);
  });
});

describe("currencies with other decimal places", () => {
  it("KWD (3 decimals)", () => {
    const totals = computeTotals(
      cart({
        decimalPlaces: 3,
        lines: [line({ retailUnitPrice: 1500, quantity: 3 })],
        discounts: [code("order", "fixed_amount", "0.250")],
        taxRatePercent: "5",
        shipping: { price: 2000, freeOver: 10000 },
      }),
    );
    // 4.500 - 0.250 = 4.250; 5% = 0.2125 -> 0.212 (to even)
    expect(totals.subTotal).toBe(4500);
    expect(totals.itemDiscountTotal).toBe(250);
    expect(totals.taxTotal).toBe(212);
    expect(totals.shippingTotal).toBe(2000);
    expect(totals.amountTotal).toBe(4250 + 212 + 2000);
  });

  it("KWD rejects a fixed amount with four decimals", () => {
    expect(() =>
      computeTotals(cart({ decimalPlaces: 3, lines: [line()], discounts: [code("order", "fixed_amount", "0.2505")] })),
    ).toThrow(RangeError);
  });

  it("JPY (0 decimals)", () => {
    const totals = computeTotals(
      cart({
        decimalPlaces: 0,
        lines: [line({ retailUnitPrice: 1200, quantity: 3 }), line({ retailUnitPrice: 333 })],
        discounts: [code("order", "percentage", "15"), code("order", "fixed_amount", "100")],
        taxRatePercent: "10",
      }),
    );
    // subtotal 3933; 15% = 589.95 -> 590, spread over 3600 : 333 = 540.05 / 49.95 -> 540 / 50
    // left 3060 / 283; 100 spread = 91.53 / 8.47 -> 92 / 8
    expect(totals.subTotal).toBe(3933);
    expect(totals.discountBreakdown.map((d) => d.amount)).toEqual([590, 100]);
    expect(lineDiscounts(totals)).toEqual([632, 58]);
    // tax 10% of 2968 = 296.8 -> 297; of 275 = 27.5 -> 28 (to even)
    expect(lineTaxes(totals)).toEqual([297, 28]);
    expect(totals.amountTotal).toBe(3933 - 690 + 325);
  });

  it("JPY rejects a fixed amount with a fraction", () => {
    expect(() =>
      computeTotals(cart({ decimalPlaces: 0, lines: [line()], discounts: [code("order", "fixed_amount", "100.5")] })),
    ).toThrow(RangeError);
  });
});

describe("volumes, fees, recurring and empty lines", () => {
  it("sums unit cv and qv times quantity, unaffected by discounts", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ unitCv: 10, unitQv: 7, quantity: 3 }), line({ unitCv: 5, unitQv: 2, quantity: 2 })],
        discounts: [code("order", "percentage", "100")],
      }),
    );
    expect(totals.lines.map((l) => [l.cv, l.qv])).toEqual([[30, 21], [10, 4]]);
    expect(totals.cvTotal).toBe(40);
    expect(totals.qvTotal).toBe(25);
    expect(totals.amountTotal).toBe(0);
  });

  it("adds transaction and enrollment fees to the amount total", () => {
    const totals = computeTotals(cart({ lines: [line({ retailUnitPrice: 1000 })], transactionFee: 150, enrollmentFee: 2500, taxRatePercent: "10" }));
    expect(totals.transactionFee).toBe(150);
    expect(totals.enrollmentFee).toBe(2500);
    expect(totals.amountTotal).toBe(1000 + 100 + 150 + 2500);
  });

  it("groups subscribed lines by interval in first-seen order", () => {
    const totals = computeTotals(
      cart({
        lines: [
          line({ retailUnitPrice: 1000, subscription: subscription(1, "month") }),
          line({ retailUnitPrice: 700, quantity: 2, subscription: subscription(2, "week") }),
          line({ retailUnitPrice: 2000 }),
          line({ retailUnitPrice: 3000, subscription: subscription(1, "month", { type: "fixed_amount", amount: "5" }) }),
          line({ retailUnitPrice: 4000, quantity: 0, subscription: subscription(3, "day") }),
          line({ retailUnitPrice: 4000, quantity: 0, subscription: subscription(1, "month") }),
          line({ retailUnitPrice: 900, subscription: subscription(2, "month") }),
        ],
        discounts: [code("order", "percentage", "50")],
      }),
    );
    expect(totals.recurring).toEqual([
      { interval: 1, intervalUnit: "month", subtotal: 1000 + 2500 },
      { interval: 2, intervalUnit: "week", subtotal: 1400 },
      { interval: 2, intervalUnit: "month", subtotal: 900 },
    ]);
  });

  it("has no recurring entries without subscribed lines", () => {
    expect(computeTotals(cart({ lines: [line()] })).recurring).toEqual([]);
  });

  it("lets quantity-0 lines contribute nothing", () => {
    const totals = computeTotals(
      cart({
        lines: [line({ retailUnitPrice: 5000, quantity: 0, unitCv: 9, unitQv: 9 }), line({ retailUnitPrice: 1000 })],
        discounts: [code("order", "fixed_amount", "3.00"), code("product", "percentage", "10")],
        taxRatePercent: "10",
      }),
    );
    expect(totals.lines[0]).toEqual({
      key: totals.lines[0]?.key,
      unitPrice: 5000,
      lineSubtotal: 0,
      discount: 0,
      tax: 0,
      lineTotal: 0,
      cv: 0,
      qv: 0,
    });
    expect(lineDiscounts(totals)).toEqual([0, 400]);
    expect(totals.subTotal).toBe(1000);
    expect(totals.cvTotal).toBe(0);
  });

  it("returns zeros for an empty cart", () => {
    const totals = computeTotals(cart({ discounts: [code("order", "fixed_amount", "5")] }));
    expect(totals).toEqual({
      lines: [],
      subTotal: 0,
      itemDiscountTotal: 0,
      shippingDiscount: 0,
      discountTotal: 0,
      subtotalAfterDiscounts: 0,
      taxTotal: 0,
      shippingTotal: 0,
      transactionFee: 0,
      enrollmentFee: 0,
      amountTotal: 0,
      cvTotal: 0,
      qvTotal: 0,
      recurring: [],
      discountBreakdown: [{ code: "ORDER-fixed_amount-5", scope: "order", amount: 0 }],
    });
  });

  it("keeps the caller's keys in order", () => {
    const lines = [line({ key: "b" }), line({ key: "a" })];
    expect(computeTotals(cart({ lines })).lines.map((l) => l.key)).toEqual(["b", "a"]);
  });
});

describe("invalid input", () => {
  it.each<[string, Partial<TotalsInput>]>([
    ["a negative price", { lines: [line({ retailUnitPrice: -1 })] }],
    ["a fractional price", { lines: [line({ retailUnitPrice: 10.5 })] }],
    ["a negative rep price", { lines: [line({ repUnitPrice: -1 })] }],
    ["a fractional quantity", { lines: [line({ quantity: 1.5 })] }],
    ["a negative quantity", { lines: [line({ quantity: -1 })] }],
    ["a negative fee", { transactionFee: -1 }],
    ["a negative shipping price", { shipping: { price: -1, freeOver: null } }],
    ["a malformed tax rate", { taxRatePercent: "8,25" }],
    ["a malformed discount amount", { discounts: [code("order", "percentage", "ten")] }],
    ["a malformed shipping discount even without shipping", { discounts: [code("shipping", "fixed_amount", "-1")] }],
  ])("rejects %s with a RangeError, not as an overflow", (_, overrides) => {
    expect(() => computeTotals(cart(overrides))).toThrow(RangeError);
    expect(() => computeTotals(cart(overrides))).not.toThrow(IntegerOverflowError);
  });
});

describe("totals beyond 2^53 - 1", () => {
  it.each<[string, Partial<TotalsInput>]>([
    ["a line's subtotal", { lines: [line({ retailUnitPrice: 2 ** 40, quantity: 2 ** 20 })] }],
    ["the sum of lines that fit one by one", { lines: [line({ retailUnitPrice: 2 ** 31, quantity: 2 ** 21 }), line({ retailUnitPrice: 2 ** 31, quantity: 2 ** 21 })] }],
    ["a volume", { lines: [line({ retailUnitPrice: 0, unitCv: 2 ** 30, quantity: 2 ** 23 })] }],
  ])("throw IntegerOverflowError for %s, which a caller may refuse as too large", (_, overrides) => {
    expect(() => computeTotals(cart(overrides))).toThrow(IntegerOverflowError);
  });
});

describe("invariants over random carts", () => {
  const intervalUnit = fc.constantFrom<IntervalUnit>("day", "week", "month", "year");
  const percentString = fc.nat({ max: 15000 }).map((hundredths) => `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}`);
  const amountString = (decimalPlaces: number) =>
    fc.nat({ max: 20000 }).map((minor) => {
      const digits = String(minor).padStart(decimalPlaces + 1, "0");
      return decimalPlaces === 0 ? digits : `${digits.slice(0, -decimalPlaces)}.${digits.slice(-decimalPlaces)}`;
    });
  const adjustment = (decimalPlaces: number) =>
    fc.oneof(
      fc.constant(null),
      fc.record({ type: fc.constant("percentage" as const), amount: percentString }),
      fc.record({ type: fc.constant("fixed_amount" as const), amount: amountString(decimalPlaces) }),
    );
  const randomLine = (decimalPlaces: number) =>
    fc.record({
      key: fc.uuid(),
      productId: fc.integer({ min: 1, max: 4 }),
      retailUnitPrice: fc.nat({ max: 100_000 }),
      repUnitPrice: fc.option(fc.nat({ max: 100_000 })),
      quantity: fc.nat({ max: 12 }),
      taxable: fc.boolean(),
      unitCv: fc.nat({ max: 500 }),
      unitQv: fc.nat({ max: 500 }),
      subscription: fc.option(
        fc.record({ interval: fc.integer({ min: 1, max: 29 }), intervalUnit, adjustment: adjustment(decimalPlaces) }),
      ),
    });
  const randomDiscount = (decimalPlaces: number) =>
    fc.oneof(
      fc.record({
        code: fc.string({ minLength: 1, maxLength: 8 }),
        kind: fc.constant("percentage" as const),
        amount: percentString,
        scope: fc.constantFrom("order" as const, "product" as const, "shipping" as const),
        productIds: fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
      }),
      fc.record({
        code: fc.string({ minLength: 1, maxLength: 8 }),
        kind: fc.constant("fixed_amount" as const),
        amount: amountString(decimalPlaces),
        scope: fc.constantFrom("order" as const, "product" as const, "shipping" as const),
        productIds: fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
      }),
    );
  const randomCart: fc.Arbitrary<TotalsInput> = fc.integer({ min: 0, max: 3 }).chain((decimalPlaces) =>
    fc.record({
      decimalPlaces: fc.constant(decimalPlaces),
      pricing: fc.constantFrom("retail" as const, "rep" as const),
      lines: fc.array(randomLine(decimalPlaces), { maxLength: 8 }),
      discounts: fc.array(randomDiscount(decimalPlaces), { maxLength: 5 }),
      taxRatePercent: percentString,
      shipping: fc.option(fc.record({ price: fc.nat({ max: 5000 }), freeOver: fc.option(fc.nat({ max: 200_000 })) })),
      transactionFee: fc.nat({ max: 1000 }),
      enrollmentFee: fc.nat({ max: 5000 }),
    }),
  );

  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

  it("balance, stay non-negative integers and never over-discount", () => {
    fc.assert(
      fc.property(randomCart, (input) => {
        const totals = computeTotals(input);

        expect(totals.amountTotal).toBe(
          totals.subTotal - totals.discountTotal + totals.taxTotal + totals.shippingTotal + totals.transactionFee + totals.enrollmentFee,
        );
        expect(sum(totals.lines.map((l) => l.discount))).toBe(totals.itemDiscountTotal);
        expect(sum(totals.lines.map((l) => l.tax))).toBe(totals.taxTotal);
        expect(sum(totals.lines.map((l) => l.lineSubtotal))).toBe(totals.subTotal);
        expect(sum(totals.discountBreakdown.map((d) => d.amount))).toBe(totals.discountTotal);
        expect(totals.itemDiscountTotal).toBeLessThanOrEqual(totals.subTotal);
        expect(totals.shippingDiscount).toBeLessThanOrEqual(totals.shippingTotal);
        expect(totals.subtotalAfterDiscounts).toBe(totals.subTotal - totals.itemDiscountTotal);
        expect(totals.discountTotal).toBe(totals.itemDiscountTotal + totals.shippingDiscount);

        const numbers = [
          totals.subTotal,
          totals.itemDiscountTotal,
          totals.shippingDiscount,
          totals.discountTotal,
          totals.subtotalAfterDiscounts,
          totals.taxTotal,
          totals.shippingTotal,
          totals.transactionFee,
          totals.enrollmentFee,
          totals.amountTotal,
          totals.cvTotal,
          totals.qvTotal,
          ...totals.lines.flatMap((l) => [l.unitPrice, l.lineSubtotal, l.discount, l.tax, l.lineTotal, l.cv, l.qv]),
          ...totals.recurring.map((r) => r.subtotal),
          ...totals.discountBreakdown.map((d) => d.amount),
        ];
        for (const value of numbers) {
          expect(Number.isSafeInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
        }

        totals.lines.forEach((l, index) => {
          const source = input.lines[index];
          expect(l.key).toBe(source?.key);
          expect(l.discount).toBeLessThanOrEqual(l.lineSubtotal);
          expect(l.lineTotal).toBe(l.lineSubtotal - l.discount + l.tax);
          if (source?.taxable === false || source?.quantity === 0) expect(l.tax).toBe(0);
          if (source?.quantity === 0) expect([l.lineSubtotal, l.discount, l.cv, l.qv]).toEqual([0, 0, 0, 0]);
        });
        expect(totals.cvTotal).toBe(sum(input.lines.map((l) => l.unitCv * l.quantity)));
        expect(totals.qvTotal).toBe(sum(input.lines.map((l) => l.unitQv * l.quantity)));
        expect(totals.discountBreakdown).toHaveLength(input.discounts.length);
        expect(sum(totals.recurring.map((r) => r.subtotal))).toBe(
          sum(totals.lines.filter((_, index) => (input.lines[index]?.subscription ?? null) !== null).map((l) => l.lineSubtotal)),
        );
      }),
      { numRuns: 1000 },
    );
  });
});
