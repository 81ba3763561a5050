// The totals engine shared by carts and subscription orders. Everything is in integer minor
// units of one currency; rounding is half-even. The rules are product decisions (see
// DESIGN.md "Cart totals"); each one below is what the code does, in order:
//
// 1. Unit price: the rep price when pricing is "rep" and the line has one, else retail. A
//    subscribed line's unit price is then reduced by its plan adjustment, a percentage (the
//    amount taken off is rounded half-even) or a fixed amount per unit, floored at 0. The
//    adjustment is part of the price, not of any discount total.
// 2. lineSubtotal = unitPrice x quantity; subTotal = sum of lineSubtotals.
// 3. Discount codes apply by scope: every product code, then every order code, then every
//    shipping code; within a scope percentages first, then fixed amounts, each kind by code, so
//    one set of codes gives one total whatever order a shopper entered them in. Each works on
//    what earlier codes left:
//    - product percentage: per eligible line, rounded per line;
//    - product fixed: the amount once per order, capped at what is left of the eligible lines,
//      spread over them by largest remainder weighted by what is left of each;
//    - order percentage: of what is left of all lines, rounded once, then spread the same way;
//    - order fixed: the amount capped at what is left of all lines, spread the same way.
//    A product code with no productIds applies to every product. No line goes below 0.
//    itemDiscountTotal = sum of line discounts; subtotalAfterDiscounts = subTotal - that.
// 4. Shipping: 0 when no method is chosen, or when the method has a free-shipping threshold
//    and subtotalAfterDiscounts reaches it; else the method's price. Shipping codes take a
//    percentage of, or a fixed amount off, what is left of it (shippingDiscount). Shipping is
//    never taxed.
// 5. Tax: per taxable line, (lineSubtotal - discount) x rate, rounded per line.
// 6. discountTotal = itemDiscountTotal + shippingDiscount; amountTotal = subTotal -
//    discountTotal + taxTotal + shippingTotal + transactionFee + enrollmentFee.
// 7. discountBreakdown: one entry per code, in the given order, with what it actually took.
// 8. cvTotal/qvTotal = unit volume x quantity summed; discounts do not change volume.
// 9. recurring: one entry per distinct (interval, intervalUnit) among subscribed lines with a
//    quantity, in first-seen order, summing their lineSubtotals.
// Lines with quantity 0 are reported but contribute 0 everywhere.
// Every amount and volume is exact: one that would pass 2^53 - 1 throws IntegerOverflowError
// (platform/money.ts), which callers may refuse as too large; malformed input is a RangeError.

import {
  allocateLargestRemainder,
  multiplyByRate,
  multiplySafe,
  parseDecimalToMinor,
  parsePercent,
  sumSafe,
} from "../../platform/money.js";
import type { IntervalUnit } from "../subscription-plans/schedule.js";

export type { IntervalUnit };

export interface PriceAdjustment {
  type: "percentage" | "fixed_amount";
  amount: string; // decimal string: a percent, or currency units
}

export interface TotalsLine {
  key: string; // caller's id for the line
  productId: number;
  retailUnitPrice: number; // minor units
  repUnitPrice: number | null; // minor units; used when pricing is "rep" and not null
  quantity: number; // integer >= 0
  taxable: boolean;
  unitCv: number;
  unitQv: number;
  subscription: { interval: number; intervalUnit: IntervalUnit; adjustment: PriceAdjustment | null } | null;
}

export interface TotalsDiscount {
  code: string;
  kind: "percentage" | "fixed_amount";
  amount: string;
  scope: "order" | "product" | "shipping";
  productIds: number[]; // empty on a product-scope code = every product
}

export interface TotalsInput {
  decimalPlaces: number;
  pricing: "retail" | "rep";
  lines: TotalsLine[];
  discounts: TotalsDiscount[];
  taxRatePercent: string; // "8.25"
  shipping: { price: number; freeOver: number | null } | null; // minor units; null = no method chosen
  transactionFee: number; // minor units
  enrollmentFee: number; // minor units
}

interface LineTotals {
  key: string;
  unitPrice: number;
  lineSubtotal: number;
  discount: number;
  tax: number;
  lineTotal: number;
  cv: number;
  qv: number;
}

export interface Totals {
  lines: LineTotals[];
  subTotal: number;
  itemDiscountTotal: number;
  shippingDiscount: number;
  discountTotal: number;
  subtotalAfterDiscounts: number;
  taxTotal: number;
  shippingTotal: number;
  transactionFee: number;
  enrollmentFee: number;
  amountTotal: number;
  cvTotal: number;
  qvTotal: number;
  recurring: Array<{ interval: number; intervalUnit: IntervalUnit; subtotal: number }>;
  discountBreakdown: Array<{ code: string; scope: "order" | "product" | "shipping"; amount: number }>;
}

// How much of an amount a code or a plan adjustment takes, never more than the amount.
type Reduction = (amount: number) => number;

interface PricedLine {
  source: TotalsLine;
  unitPrice: number;
  lineSubtotal: number;
  discount: number;
}

interface PreparedCode {
  discount: TotalsDiscount;
  take: Reduction;
  taken: number;
}

function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a non-negative integer, got ${value}`);
  }
}

// Rejects malformed amounts up front, so that a bad value fails whether or not a rule happens
// to use it (decimal strings are likewise all parsed before any discount is applied).
function assertValidInput(input: TotalsInput): void {
  assertCount(input.decimalPlaces, "decimalPlaces");
  assertCount(input.transactionFee, "transactionFee");
  assertCount(input.enrollmentFee, "enrollmentFee");
  if (input.shipping !== null) {
    assertCount(input.shipping.price, "shipping.price");
    if (input.shipping.freeOver !== null) assertCount(input.shipping.freeOver, "shipping.freeOver");
  }
  for (const line of input.lines) {
    const where = `line ${line.key}`;
    assertCount(line.retailUnitPrice, `${where} retailUnitPrice`);
    if (line.repUnitPrice !== null) assertCount(line.repUnitPrice, `${where} repUnitPrice`);
    assertCount(line.quantity, `${where} quantity`);
    assertCount(line.unitCv, `${where} unitCv`);
    assertCount(line.unitQv, `${where} unitQv`);
  }
}

function reductionOf(kind: "percentage" | "fixed_amount", amount: string, decimalPlaces: number): Reduction {
  if (kind === "percentage") {
    const rate = parsePercent(amount);
    return (base) => Math.min(base, multiplyByRate(base, rate));
  }
  const fixed = parseDecimalToMinor(amount, decimalPlaces);
  return (base) => Math.min(base, fixed);
}

function unitPriceOf(line: TotalsLine, input: TotalsInput): number {
  const listPrice =
    input.pricing === "rep" && line.repUnitPrice !== null ? line.repUnitPrice : line.retailUnitPrice;
  const adjustment = line.subscription?.adjustment ?? null;
  if (adjustment === null) return listPrice;
  return listPrice - reductionOf(adjustment.type, adjustment.amount, input.decimalPlaces)(listPrice);
}

function leftOf(line: PricedLine): number {
  return line.lineSubtotal - line.discount;
}

function spreadDiscount(lines: PricedLine[], amount: number): void {
  const parts = allocateLargestRemainder(amount, lines.map(leftOf));
  lines.forEach((line, index) => {
    line.discount += parts[index] ?? 0;
  });
}

// Applies one product or order code to the lines and returns what it took.
function applyItemCode(discount: TotalsDiscount, take: Reduction, lines: PricedLine[]): number {
  const eligible =
    discount.scope === "product" && discount.productIds.length > 0
      ? lines.filter((line) => discount.productIds.includes(line.source.productId))
      : lines;
  if (discount.scope === "product" && discount.kind === "percentage") {
    let taken = 0;
    for (const line of eligible) {
      const lineTaken = take(leftOf(line));
      line.discount += lineTaken;
      taken += lineTaken;
    }
    return taken;
  }
  const taken = take(sumSafe(eligible.map(leftOf)));
  spreadDiscount(eligible, taken);
  return taken;
}

export function shippingTotalOf(shipping: TotalsInput["shipping"], subtotalAfterDiscounts: number): number {
  if (shipping === null) return 0;
  if (shipping.freeOver !== null && subtotalAfterDiscounts >= shipping.freeOver) return 0;
  return shipping.price;
}

function recurringOf(lines: PricedLine[]): Totals["recurring"] {
  const groups = new Map<string, Totals["recurring"][number]>();
  for (const { source, lineSubtotal } of lines) {
    if (source.subscription === null || source.quantity === 0) continue;
    const { interval, intervalUnit } = source.subscription;
    const groupKey = `${interval} ${intervalUnit}`;
    const group = groups.get(groupKey);
    if (group === undefined) groups.set(groupKey, { interval, intervalUnit, subtotal: lineSubtotal });
    else group.subtotal = sumSafe([group.subtotal, lineSubtotal]);
  }
  return [...groups.values()];
}

const KIND_ORDER: Record<TotalsDiscount["kind"], number> = { percentage: 0, fixed_amount: 1 };

function byApplicationOrder(a: PreparedCode, b: PreparedCode): number {
  return KIND_ORDER[a.discount.kind] - KIND_ORDER[b.discount.kind] || (a.discount.code < b.discount.code ? -1 : a.discount.code > b.discount.code ? 1 : 0);
}

export function computeTotals(input: TotalsInput): Totals {
  assertValidInput(input);
  const taxRate = parsePercent(input.taxRatePercent);
  const codes: PreparedCode[] = input.discounts.map((discount) => ({
    discount,
    take: reductionOf(discount.kind, discount.amount, input.decimalPlaces),
    taken: 0,
  }));
  const codesOfScope = (scope: TotalsDiscount["scope"]) => codes.filter((code) => code.discount.scope === scope).sort(byApplicationOrder);

  const lines: PricedLine[] = input.lines.map((source) => {
    const unitPrice = unitPriceOf(source, input);
    return { source, unitPrice, lineSubtotal: multiplySafe(unitPrice, source.quantity), discount: 0 };
  });
  const subTotal = sumSafe(lines.map((line) => line.lineSubtotal));

  for (const code of [...codesOfScope("product"), ...codesOfScope("order")]) {
    code.taken = applyItemCode(code.discount, code.take, lines);
  }
  const itemDiscountTotal = sumSafe(lines.map((line) => line.discount));
  const subtotalAfterDiscounts = subTotal - itemDiscountTotal;

  const shippingTotal = shippingTotalOf(input.shipping, subtotalAfterDiscounts);
  let shippingLeft = shippingTotal;
  for (const code of codesOfScope("shipping")) {
    code.taken = code.take(shippingLeft);
    shippingLeft -= code.taken;
  }
  const shippingDiscount = shippingTotal - shippingLeft;
  const discountTotal = sumSafe([itemDiscountTotal, shippingDiscount]);

  const lineTotals: LineTotals[] = lines.map((line) => {
    const discounted = leftOf(line);
    const tax = line.source.taxable ? multiplyByRate(discounted, taxRate) : 0;
    return {
      key: line.source.key,
      unitPrice: line.unitPrice,
      lineSubtotal: line.lineSubtotal,
      discount: line.discount,
      tax,
      lineTotal: sumSafe([discounted, tax]),
      cv: multiplySafe(line.source.unitCv, line.source.quantity),
      qv: multiplySafe(line.source.unitQv, line.source.quantity),
    };
  });

  const taxTotal = sumSafe(lineTotals.map((line) => line.tax));

  return {
    lines: lineTotals,
    subTotal,
    itemDiscountTotal,
    shippingDiscount,
    discountTotal,
    subtotalAfterDiscounts,
    taxTotal,
    shippingTotal,
    transactionFee: input.transactionFee,
    enrollmentFee: input.enrollmentFee,
    amountTotal: sumSafe([
      subTotal - discountTotal,
      taxTotal,
      shippingTotal,
      input.transactionFee,
      input.enrollmentFee,
    ]),
    cvTotal: sumSafe(lineTotals.map((line) => line.cv)),
    qvTotal: sumSafe(lineTotals.map((line) => line.qv)),
    recurring: recurringOf(lines),
    discountBreakdown: codes.map(({ discount, taken }) => ({
      code: discount.code,
      scope: discount.scope,
      amount: taken,
    })),
  };
}
