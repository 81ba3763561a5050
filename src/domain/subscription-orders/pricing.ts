// Prices a subscription order's items with THE totals engine (src/domain/carts/totals.ts): the
// same rules as a cart, so a subscription bills what the same cart would cost. Prices are the
// ship-to country's; rep prices apply when a buyer rep is set; the plan's price adjustment is
// part of each unit price; tax is the company's rate for the country; shipping is the
// company's cheapest active method for the country (none: free).

import type { Prisma } from "../../generated/prisma/client.js";
import { FieldErrorCollector } from "../../platform/errors.js";
import { formatMoneyDisplay } from "../../platform/money.js";
import { computeTotals, type TotalsLine } from "../carts/totals.js";
import { MAX_MINOR_AMOUNT } from "../catalog/amounts.js";
import { type AdjustingPlan, priceAdjustmentOf } from "../subscription-plans/price-adjustment.js";
import type { IntervalUnit } from "../subscription-plans/schedule.js";

export interface PricedPlan extends AdjustingPlan {
  id: number;
  /** Which of the plan's price adjustments this is (each change of it counts one). */
  pricing_revision: number;
}

export interface ItemToPrice {
  variant_id: number;
  quantity: number;
}

export interface PricingRequest {
  companyId: number;
  countryId: number;
  /** The subscription's billing terms. */
  interval: { count: number; unit: IntervalUnit };
  /** null once the plan is deleted: no price adjustment, no product restriction. */
  plan: PricedPlan | null;
  buyerId: number | null;
  items: ItemToPrice[];
  /**
   * Where the items are reported ("items"): a problem with one at `${itemsPath}.${index}.variant_id`
   * or `.quantity`, an order that together they take past what it can hold at itemsPath.
   */
  itemsPath: string;
  /**
   * Where an item without a price in the country is reported, when that is the country's fault
   * rather than the item's (an address change); the item's variant_id otherwise.
   */
  unpricedErrorPath?: string;
}

interface PricedLine {
  unit_price: number;
  subtotal: number;
  discount: number;
  tax: number;
}

export interface PricedOrder {
  currency: { code: string; decimal_places: number };
  shipping_method_id: number | null;
  subtotal: number;
  discount: number;
  tax: number;
  shipping: number;
  total: number;
  lines: PricedLine[];
  /** The revision of the plan the order is priced with; null for an order whose plan is gone. */
  plan_pricing_revision: number | null;
}

export async function priceItems(tx: Prisma.TransactionClient, request: PricingRequest): Promise<PricedOrder> {
  const catalog = await readCountryCatalog(tx, { ...request, variantIds: request.items.map((item) => item.variant_id) });
  return priceWithCatalog(catalog, request);
}

/** What pricing reads for one ship-to country and plan: read once for many orders there. */
export type CountryCatalog = Awaited<ReturnType<typeof readCountryCatalog>>;

export async function readCountryCatalog(
  tx: Prisma.TransactionClient,
  { companyId, countryId, plan, variantIds }: Pick<PricingRequest, "companyId" | "countryId" | "plan"> & { variantIds: number[] },
) {
  const [country, variants, planProducts, taxRate, shippingMethod] = await Promise.all([
    tx.country.findUniqueOrThrow({ where: { id: countryId }, include: { currency: true } }),
    tx.variant.findMany({
      where: { id: { in: [...new Set(variantIds)] }, company_id: companyId, active: true, deleted_at: null, product: { active: true, deleted_at: null } },
      include: { prices: { where: { country_id: countryId } } },
    }),
    // Links to deleted products are kept but count for nothing, as the plan's view shows them.
    plan ? tx.productSubscriptionPlan.findMany({ where: { subscription_plan_id: plan.id, product: { deleted_at: null } }, select: { product_id: true } }) : [],
    tx.taxRate.findUnique({ where: { company_id_country_id: { company_id: companyId, country_id: countryId } } }),
    tx.shippingMethod.findFirst({ where: { company_id: companyId, country_id: countryId, active: true }, orderBy: [{ price: "asc" }, { id: "asc" }] }),
  ]);
  return {
    country,
    variantsById: new Map(variants.map((variant) => [variant.id, variant])),
    // A plan linked to no product is offered with every product.
    offered: new Set(planProducts.map((link) => link.product_id)),
    taxRate,
    shippingMethod,
  };
}

/**
 * Prices a request with what readCountryCatalog read for its country and plan. A ValidationError
 * names the items that do not price, or an amount the order's columns cannot store.
 */
export function priceWithCatalog(catalog: CountryCatalog, request: PricingRequest): PricedOrder {
  const { plan } = request;
  const { country, variantsById, offered, taxRate, shippingMethod } = catalog;
  const decimalPlaces = country.currency.decimal_places;
  const subscription = {
    interval: request.interval.count,
    intervalUnit: request.interval.unit,
    adjustment: plan === null ? null : priceAdjustmentOf(plan, decimalPlaces),
  };

  const errors = new FieldErrorCollector();
  const lines: TotalsLine[] = [];
  const skus: string[] = [];
  const variantPath = (index: number) => `${request.itemsPath}.${index}.variant_id`;
  request.items.forEach((item, index) => {
    const variant = variantsById.get(item.variant_id);
    if (!variant) return errors.add(variantPath(index), "does not name an available variant of this company");
    if (offered.size > 0 && !offered.has(variant.product_id)) return errors.add(variantPath(index), `${variant.sku} is not offered with this subscription plan`);
    const price = variant.prices[0];
    if (!price) return errors.add(request.unpricedErrorPath ?? variantPath(index), `${variant.sku} has no price in ${country.name}`);
    skus.push(variant.sku);
    lines.push({
      key: String(index),
      productId: variant.product_id,
      retailUnitPrice: price.price,
      repUnitPrice: price.rep_price,
      quantity: item.quantity,
      taxable: variant.tax_category !== "exempt",
      unitCv: variant.cv,
      unitQv: variant.qv,
      subscription,
    });
  });
  errors.throwIfAny();

  const totals = computeTotals({
    decimalPlaces,
    pricing: request.buyerId === null ? "retail" : "rep",
    lines,
    discounts: [],
    taxRatePercent: taxRate ? taxRate.rate.toFixed() : "0",
    shipping: shippingMethod ? { price: shippingMethod.price, freeOver: shippingMethod.free_over } : null,
    transactionFee: 0,
    enrollmentFee: 0,
  });
  const priced: PricedOrder = {
    currency: { code: country.currency.code, decimal_places: decimalPlaces },
    shipping_method_id: shippingMethod?.id ?? null,
    subtotal: totals.subTotal,
    discount: totals.discountTotal,
    tax: totals.taxTotal,
    shipping: totals.shippingTotal,
    total: totals.amountTotal,
    lines: totals.lines.map((line) => ({ unit_price: line.unitPrice, subtotal: line.lineSubtotal, discount: line.discount, tax: line.tax })),
    plan_pricing_revision: plan?.pricing_revision ?? null,
  };
  checkStorable(priced, request, skus, errors);
  errors.throwIfAny();
  return priced;
}

/** A priced line's stored amounts, and a priced order's. */
export const LINE_AMOUNTS = ["unit_price", "subtotal", "discount", "tax"] as const;
const ORDER_AMOUNTS = ["subtotal", "discount", "tax", "shipping", "total"] as const;

/**
 * Amounts are stored as minor units in 32-bit integer columns, which a variant's price (up to
 * the maximum itself) times a quantity (up to 9,999) can pass: such a line names its item's
 * quantity, lines that only together pass it name the items, and nothing is stored.
 */
function checkStorable(priced: PricedOrder, { items, itemsPath }: PricingRequest, skus: string[], errors: FieldErrorCollector): void {
  const { code, decimal_places } = priced.currency;
  const display = (minor: number) => formatMoneyDisplay(minor, code, decimal_places);
  const tooLarge = `come to more than the largest amount a subscription order can hold (${display(MAX_MINOR_AMOUNT)})`;
  priced.lines.forEach((line, index) => {
    if (LINE_AMOUNTS.some((amount) => line[amount] > MAX_MINOR_AMOUNT)) {
      errors.add(`${itemsPath}.${index}.quantity`, `${items[index]?.quantity} x ${skus[index]} at ${display(line.unit_price)} ${tooLarge}`);
    }
  });
  if (errors.empty && ORDER_AMOUNTS.some((amount) => priced[amount] > MAX_MINOR_AMOUNT)) errors.add(itemsPath, `together ${tooLarge}`);
}

/** The stored totals columns of a priced order, and the plan revision they are priced with (kept as stored when the plan is gone). */
export function totalsColumns(priced: PricedOrder) {
  return {
    currency_code: priced.currency.code,
    shipping_method_id: priced.shipping_method_id,
    subtotal: priced.subtotal,
    discount: priced.discount,
    tax: priced.tax,
    shipping: priced.shipping,
    total: priced.total,
    ...(priced.plan_pricing_revision === null ? {} : { plan_pricing_revision: priced.plan_pricing_revision }),
  };
}
