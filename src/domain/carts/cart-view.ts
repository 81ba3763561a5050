import { formatMinor, formatMoneyDisplay, minorToNumber } from "../../platform/money.js";
import { addInterval, billingFrequencyInWords, type IntervalUnit } from "../subscription-plans/schedule.js";
import { isCardExpired } from "../payment-methods/expiry.js";
import type { PricedCart } from "./cart-pricing.js";
import type { CartState, LoadedItem } from "./cart-state.js";
import type { AddressView, CartView, StoredCartView } from "./schemas.js";

// The cart's wire shape, computed from a loaded cart and its priced totals. It is rendered once
// per mutation and stored, so reads never recompute it.

const PAYMENT_OPTIONS: CartView["available_payment_methods"] = [
  { type: "credit_card", name: "Credit card" },
  { type: "paypal", name: "PayPal" },
];

interface Money {
  amount(minor: number): string;
  display(minor: number): string;
  number(minor: number): number;
}

function moneyOf(currencyCode: string, decimalPlaces: number): Money {
  return {
    amount: (minor) => formatMinor(minor, decimalPlaces),
    display: (minor) => formatMoneyDisplay(minor, currencyCode, decimalPlaces),
    number: (minor) => minorToNumber(minor, decimalPlaces),
  };
}

function userSummary(user: { id: number; first_name: string | null; last_name: string | null; email: string; username: string | null; image_url: string | null } | null) {
  if (user === null) return null;
  const { id, first_name, last_name, email, username, image_url } = user;
  return { id, first_name, last_name, email, username, image_url };
}

function attributionOf(state: CartState): CartView["attribution"] {
  const row = state.cart.attributions[0];
  if (row === undefined) return null;
  switch (row.signal) {
    case "svc_rep_id":
      return { id: row.id, svc_rep_id: Number(row.value) };
    case "share_guid":
      return { id: row.id, share_guid: row.value };
    case "email":
      return { id: row.id, email: row.value };
    case "username":
      return { id: row.id, username: row.value };
    default:
      return { id: row.id, external_id: row.value };
  }
}

function paymentMethodOf(method: CartState["cart"]["payment_method"]): CartView["payment_method"] {
  if (method === null) return null;
  if (method.kind === "paypal") return { id: method.id, type: "paypal", email: method.paypal_email };
  return { id: method.id, type: "credit_card", card_type: method.card_type, last_four: method.last_four, exp_month: method.exp_month, exp_year: method.exp_year };
}

/** A day (midnight UTC, as calendarDayIn gives it) as an ISO date: "2026-03-11". */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A recurring entry's `start_date`: one billing interval from the cart's today. */
function startDateOf(today: Date, interval: number, unit: string): string {
  return isoDate(addInterval(today, interval, unit as IntervalUnit));
}

/**
 * The view with its recurring entries' start dates counted from `today` (the cart's day, as
 * calendarDayIn gives it), as a render on that day would count them: each entry carries its
 * interval, and nothing else in a start date depends on the day.
 */
export function withStartDatesFrom(view: StoredCartView, today: Date): StoredCartView {
  const recurring = view.recurring?.map((entry) => ({ ...entry, start_date: startDateOf(today, entry.interval, entry.interval_unit) })) ?? null;
  return { ...view, recurring };
}

/**
 * The cart's view at `now`. `today` is the day it is then where the shopper is (calendarDayIn of
 * the cart's `timezone`, a name the create schema checked with Intl), not the UTC day, which near
 * midnight is another one in Auckland or Los Angeles: subscription start dates count from it.
 */
export function renderCart(state: CartState, priced: PricedCart, now: Date, today: Date): StoredCartView {
  const { cart } = state;
  const { currency } = cart.country;
  const money = moneyOf(currency.code, currency.decimal_places);
  const { totals, corrections } = priced;

  const unsubscribed = new Set(corrections.unsubscribedItemIds);
  const renderItem = (item: LoadedItem) => {
    const line = priced.lineOf(item.id);
    const lostPlan = unsubscribed.has(item.id);
    const listPrice = priced.listPriceOf(item);
    const { variant } = item;
    const { product } = variant;
    const unitCv = priced.unitCvOf(item);
    const unitQv = priced.unitQvOf(item);
    return {
      id: item.id,
      variant_id: item.variant_id,
      quantity: item.quantity,
      price: money.amount(line.unitPrice),
      price_in_currency: money.display(line.unitPrice),
      subtotal: money.amount(line.lineSubtotal),
      subtotal_in_currency: money.display(line.lineSubtotal),
      tax: money.amount(line.tax),
      tax_in_currency: money.display(line.tax),
      cv: unitCv,
      qv: unitQv,
      // Volumes are points, shown the way storefronts show them: as an amount of the currency.
      cv_in_currency: money.display(unitCv * 10 ** currency.decimal_places),
      qv_in_currency: money.display(unitQv * 10 ** currency.decimal_places),
      subscription: item.subscription && !lostPlan,
      subscription_plan_id: lostPlan ? null : item.subscription_plan_id,
      enrollment: item.enrollment,
      display_to_customer: item.display_to_customer,
      parent_id: item.parent_id,
      product_title: product.title,
      variant_title: variant.title,
      variant_image: variant.image_url ?? product.image_url,
      product: {
        id: product.id,
        title: product.title,
        sku: variant.sku,
        image_url: product.image_url ?? "",
        image_path: product.image_url,
        price: money.amount(line.unitPrice),
        price_in_currency: money.display(line.unitPrice),
        cv: unitCv,
        tax: money.amount(line.tax),
      },
      variant: {
        id: variant.id,
        sku: variant.sku,
        title: variant.title,
        image_url: variant.image_url,
        image_path: variant.image_url,
        primary_image: variant.image_url ?? product.image_url,
        price: money.amount(listPrice),
        price_in_currency: money.display(listPrice),
      },
    };
  };

  const childrenOf = new Map<number, LoadedItem[]>();
  for (const item of cart.items) {
    if (item.parent_id === null) continue;
    childrenOf.set(item.parent_id, [...(childrenOf.get(item.parent_id) ?? []), item]);
  }
  const items = cart.items
    .filter((item) => item.parent_id === null)
    .map((item) => ({ ...renderItem(item), bundled_items: (childrenOf.get(item.id) ?? []).map(renderItem) }));

  const shippingMethodView = (method: CartState["shippingMethods"][number]) => ({
    id: method.id,
    name: method.name,
    price: money.amount(method.price),
    price_in_currency: money.display(method.price),
    free_over: method.free_over === null ? null : money.amount(method.free_over),
    free_over_in_currency: method.free_over === null ? null : money.display(method.free_over),
  });
  const shippingMethod = priced.shippingMethodInEffect && cart.shipping_method !== null ? shippingMethodView(cart.shipping_method) : null;

  const codes = corrections.discountCodes ?? cart.discount_codes;
  const scopeOf = new Map(priced.appliedDiscounts.map((discount) => [discount.code, discount.scope]));
  const discountBreakdown = Object.fromEntries(
    totals.discountBreakdown.map((entry) => [entry.code, { scope: entry.scope, amount: money.amount(entry.amount), amount_in_currency: money.display(entry.amount) }]),
  );

  const paymentMethod = corrections.clearPaymentMethod ? null : cart.payment_method;
  const effectiveState = corrections.clearPaymentMethod && cart.state === "payment_method" ? "start" : cart.state;
  const shipTo = cart.ship_to as AddressView | null;
  const billTo = cart.bill_to as AddressView | null;
  const validForCheckout = cart.items.length > 0 && priced.messages.errors.length === 0;
  // What the shopper pays for shipping: shipping_total less the shipping codes, which
  // discount_total counts (so a code that makes shipping free shows "Free", as a threshold does).
  const shippingCharged = totals.shippingTotal - totals.shippingDiscount;

  return {
    id: cart.id,
    cart_token: cart.cart_token,
    state: effectiveState as CartView["state"],
    processed: cart.state === "payment_captured",
    valid_for_checkout: validForCheckout,
    type: cart.type as CartView["type"],
    buyer_rep_id: cart.buyer_rep_id,
    buyer_rep: userSummary(cart.buyer_rep),
    volume_rep: userSummary(state.volumeRep),
    email: cart.email,
    phone: cart.phone,
    email_marketing: cart.email_marketing,
    sms_marketing: cart.sms_marketing,
    language_iso: cart.language_iso,
    currency_symbol: currency.symbol,
    currency_code: currency.code,
    currency_decimal_places: currency.decimal_places,
    sub_total: money.amount(totals.subTotal),
    discount_total: money.amount(totals.discountTotal),
    subtotal_after_discounts: money.amount(totals.subtotalAfterDiscounts),
    tax_total: money.amount(totals.taxTotal),
    shipping_total: money.amount(totals.shippingTotal),
    amount_total: money.amount(totals.amountTotal),
    transaction_fee: money.amount(totals.transactionFee),
    enrollment_fee: money.amount(totals.enrollmentFee),
    shipping_discount: money.number(totals.shippingDiscount),
    sub_total_in_currency: money.display(totals.subTotal),
    discount_total_in_currency: money.display(totals.discountTotal),
    subtotal_after_discounts_in_currency: money.display(totals.subtotalAfterDiscounts),
    tax_total_in_currency: money.display(totals.taxTotal),
    shipping_total_in_currency: money.display(totals.shippingTotal),
    amount_total_in_currency: money.display(totals.amountTotal),
    transaction_fee_in_currency: money.display(totals.transactionFee),
    enrollment_fee_in_currency: money.display(totals.enrollmentFee),
    shipping_total_for_display: shippingMethod !== null && shippingCharged === 0 ? "Free" : money.display(shippingCharged),
    cv_total: totals.cvTotal,
    qv_total: totals.qvTotal,
    discount_codes: codes,
    product_discount_codes: codes.filter((code) => scopeOf.get(code) === "product"),
    shipping_discount_codes: codes.filter((code) => scopeOf.get(code) === "shipping"),
    discount_breakdown: discountBreakdown,
    external_discount: { amount: money.amount(0), amount_in_currency: money.display(0) },
    company: { id: cart.company.id, name: cart.company.name, logo_url: cart.company.logo_url },
    company_logo_url: cart.company.logo_url ?? "",
    country: { id: cart.country.id, iso: cart.country.iso, name: cart.country.name, country_code: cart.country.iso },
    messages: priced.messages,
    metadata: cart.metadata as Record<string, unknown>,
    attribution: attributionOf(state),
    agreements: state.agreements,
    payment_account: paymentMethod?.external_id ?? null,
    payment_method: paymentMethodOf(paymentMethod),
    // A card that has expired cannot be chosen (set_saved_payment_method refuses it), so it is not one to assign.
    payment_method_auto_assignable: paymentMethod === null && (cart.customer?.payment_methods.some((method) => !isCardExpired(method, now)) ?? false),
    available_payment_methods: PAYMENT_OPTIONS,
    immutable_items: cart.immutable_items,
    digital_only: false,
    requires_3ds: false,
    items,
    available_shipping_methods: state.shippingMethods.map(shippingMethodView),
    shipping_method: shippingMethod,
    ship_to: shipTo,
    bill_to: billTo,
    shipping_address: shipTo,
    billing_address: billTo,
    enrollment_pack_id: cart.enrollment_pack_id,
    enrollment_pack:
      cart.enrollment_pack === null
        ? null
        : { id: cart.enrollment_pack.id, title: cart.enrollment_pack.title, price: money.amount(totals.enrollmentFee), price_in_currency: money.display(totals.enrollmentFee) },
    recurring: totals.recurring.map((entry) => ({
      subtotal: money.amount(entry.subtotal),
      subtotal_in_currency: money.display(entry.subtotal),
      interval: entry.interval,
      interval_unit: entry.intervalUnit,
      subtotal_for_display: `${money.display(entry.subtotal)} ${billingFrequencyInWords(entry.interval, entry.intervalUnit as IntervalUnit).toLowerCase()}`,
      start_date: startDateOf(today, entry.interval, entry.intervalUnit),
    })),
    points_enabled: false,
    points_applied: 0,
    customer_total_points: 0,
    remaining_customer_points: 0,
    max_applicable_points: 0,
    total_creditable_points: 0,
    points_applied_amount_in_currency: 0,
    customer_total_points_in_currency: 0,
    remaining_customer_points_amount_in_currency: 0,
    remaining_cart_amount_after_points: money.number(totals.amountTotal),
    remaining_cart_amount_after_points_in_currency: money.display(totals.amountTotal),
  };
}
