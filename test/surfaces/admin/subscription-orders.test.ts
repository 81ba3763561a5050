import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { smtpTransport } from "../../../src/domain/mail/transports.js";
import { deliverDueMail } from "../../../src/domain/mail/worker.js";
import { createSavedCard } from "../../../src/domain/payment-methods/service.js";
import type { Variant } from "../../../src/generated/prisma/client.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import {
  type CompanyFixture,
  countryId,
  createCard,
  createCompanyWithToken,
  createPlan,
  createProduct,
  createShippingMethod,
  createUserWithToken,
  setTaxRate,
} from "../../helpers/fixtures.js";
import { type Call, expectReplayOf, httpClient } from "../../helpers/http.js";
import { lockWaiters, queuedBehindHeldLock } from "../../helpers/lock-queue.js";
import { startSmtpSink } from "../../helpers/smtp-sink.js";
import { usAddress } from "../../helpers/subscription-orders.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";

const TODAY = new Date("2026-01-15T12:00:00.000Z");
const clock = fixedClock(TODAY);
const BASE = "/api/v2/subscription_orders";
const CALENDAR_DATE = "must be a calendar date, YYYY-MM-DD, without a time or time zone";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let US: number;
let CA: number;
let bottle: Variant; // US $25.00 (rep $20.00), CA CA$30.00
let tablet: Variant; // US $10.00, no CA price
let serum: Variant; // US $40.00, tax exempt
let foreignVariant: Variant;
let plan: { id: number };
let customer: { id: number; email: string };
let otherCustomer: { id: number };
let rep: { id: number };
let card: { id: number };
let foreign: { customer: { id: number }; plan: { id: number } };

beforeAll(async () => {
  t = await startTestApp({ clock });
  call = httpClient(t.url);
  const db = t.db.prisma;
  acme = await createCompanyWithToken(db, "Acme");
  globex = await createCompanyWithToken(db, "Globex");
  US = await countryId(db, "US");
  CA = await countryId(db, "CA");
  await setTaxRate(db, acme.id, "US", "8.25");
  await createShippingMethod(db, acme.id, { country: "US", price: 799 });
  await createShippingMethod(db, acme.id, { country: "US", price: 599, freeOver: 10_000 }); // the cheapest active method is used
  bottle = (await createProduct(db, acme.id, { title: "Bottle", imageUrl: "https://cdn.example.com/bottle.png", variants: [{ prices: { US: 2500, CA: 3000 }, repPrices: { US: 2000 } }] })).variant;
  tablet = (await createProduct(db, acme.id, { title: "Tablet", variants: [{ prices: { US: 1000 } }] })).variant;
  serum = (await createProduct(db, acme.id, { title: "Serum", variants: [{ prices: { US: 4000 }, taxCategory: "exempt" }] })).variant;
  plan = await createPlan(db, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10", maxSkips: 2 });
  customer = (await createUserWithToken(db, acme.id, "customer", { firstName: "Casey", lastName: "Customer" })).user;
  otherCustomer = (await createUserWithToken(db, acme.id, "customer", { firstName: "Other" })).user;
  rep = (await createUserWithToken(db, acme.id, "rep")).user;
  card = await createCard(db, customer.id);
  foreignVariant = (await createProduct(db, globex.id, { variants: [{ prices: { US: 100 } }] })).variant;
  foreign = { customer: (await createUserWithToken(db, globex.id, "customer")).user, plan: await createPlan(db, globex.id) };
});

afterAll(async () => {
  await t.close();
});

beforeEach(async () => {
  clock.set(TODAY);
  await t.db.prisma.mailOutbox.deleteMany();
  await t.db.prisma.subscriptionOrder.deleteMany();
});

function orderBody(overrides: Record<string, unknown> = {}) {
  return {
    subscription_order: {
      customer_id: customer.id,
      subscription_plan_id: plan.id,
      items: [
        { variant_id: bottle.id, quantity: 2 },
        { variant_id: tablet.id, quantity: 1 },
      ],
      ship_to: usAddress(US),
      ...overrides,
    },
  };
}

async function createOrder(overrides: Record<string, unknown> = {}, token = acme.token) {
  const response = await call("POST", BASE, { token, body: orderBody(overrides) });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.subscription_order;
}

const patch = (id: number | string, action: string, body?: unknown, token = acme.token) => call("PATCH", `${BASE}/${id}${action ? `/${action}` : ""}`, { token, body });
const stored = (id: number) => t.db.prisma.subscriptionOrder.findUniqueOrThrow({ where: { id }, include: { items: { orderBy: { position: "asc" } }, activities: true } });

const SHOWN_KEYS = [
  "activities", "activities_count", "additional_feedback", "amount", "bill_date", "bill_to", "buyer", "cancellation_reason", "created_at", "currency_code", "customer",
  "days_until_next_bill_date", "discount", "display_amount", "display_discount", "display_shipping", "display_subtotal", "display_tax", "display_total",
  "id", "items", "next_bill_date", "order_number", "order_thumbnail", "payment_method", "ship_to", "shipping", "skips_count", "status",
  "subscription_interval", "subscription_interval_unit", "subscription_plan_id", "subtotal", "tax", "total", "updated_at", "user",
].sort();
// Every amount has its display_* twin (DESIGN.md); an audit found the item's discount without one.
const ITEM_KEYS = [
  "discount", "display_discount", "display_price", "display_subtotal", "display_tax", "id", "option_value_ids", "price", "product", "product_id",
  "quantity", "subtotal", "tax", "variant", "variant_id",
].sort();

describe("POST /api/v2/subscription_orders", () => {
  it("creates a pending subscription priced by the totals engine, with every field", async () => {
    const response = await call("POST", BASE, { token: acme.token, body: orderBody() });
    expect(response.status).toBe(201);
    const order = response.body.subscription_order;
    expect(Object.keys(order).sort()).toEqual(SHOWN_KEYS);
    // Bottle: 2 x (25.00 - 10%) = 45.00; tablet 1 x 9.00; tax 8.25% per line 3.71 + 0.74;
    // shipping: the cheapest US method, 5.99 (not free below 100.00).
    expect(order).toMatchObject({
      status: "pending",
      order_number: `SO-${String(order.id).padStart(6, "0")}`,
      currency_code: "USD",
      subtotal: 54,
      display_subtotal: "$54.00",
      tax: 4.45,
      display_tax: "$4.45",
      shipping: 5.99,
      display_shipping: "$5.99",
      discount: 0,
      display_discount: "$0.00",
      total: 64.44,
      amount: 64.44,
      display_total: "$64.44",
      display_amount: "$64.44",
      bill_date: "2026-01-15",
      next_bill_date: "2026-02-15",
      days_until_next_bill_date: 31,
      subscription_interval: 1,
      subscription_interval_unit: "month",
      subscription_plan_id: plan.id,
      skips_count: 0,
      cancellation_reason: null,
      additional_feedback: null,
      order_thumbnail: "https://cdn.example.com/bottle.png",
      customer: { id: customer.id, email: customer.email, first_name: "Casey", last_name: "Customer" },
      user: null,
      buyer: null,
      payment_method: null,
    });
    expect(order.ship_to).toEqual({ name: "Casey Customer", address1: "1 Main St", address2: "Apt 2", city: "Springfield", state: "IL", postal_code: "62701", country_id: US, country_code: "US", country_name: "United States" });
    expect(order.bill_to).toEqual(order.ship_to);
    expect(order.items).toHaveLength(2);
    for (const item of order.items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    expect(order.items[0]).toMatchObject({
      variant_id: bottle.id,
      product_id: bottle.product_id,
      quantity: 2,
      option_value_ids: [],
      price: 22.5,
      display_price: "$22.50",
      subtotal: 45,
      display_subtotal: "$45.00",
      discount: 0,
      display_discount: "$0.00",
      tax: 3.71,
      display_tax: "$3.71",
      product: { id: bottle.product_id, title: "Bottle", image_url: "https://cdn.example.com/bottle.png" },
      variant: { id: bottle.id, sku: bottle.sku, title: "Default", image_url: "" },
    });
    expect(order.activities).toEqual([
      {
        id: expect.any(Number),
        action: "created",
        performed_by: { type: "api_token", id: acme.token.slice(0, 12) },
        before: null,
        after: { status: "pending", next_bill_date: "2026-02-15", total: 64.44, currency_code: "USD" },
        created_at: TODAY.toISOString(),
      },
    ]);
    const row = await stored(order.id);
    expect([row.subtotal, row.tax, row.shipping, row.total, row.company_id]).toEqual([5400, 445, 599, 6444, acme.id]);
  });

  it("is active with a saved payment method; a buyer rep gets rep prices; user and bill_to are kept", async () => {
    const order = await createOrder({
      payment_method_id: card.id,
      buyer_id: rep.id,
      user_id: rep.id,
      items: [{ variant_id: bottle.id, quantity: 1, option_value_ids: [3, 4] }],
      bill_to: { country_code: "ca", name: "Billing Person", address1: "9 Queen St", city: "Toronto" },
    });
    expect(order.status).toBe("active");
    expect(order.payment_method).toEqual({ id: card.id, kind: "credit_card", card_type: "visa", last_four: "4242", exp_month: 12, exp_year: 2030, paypal_email: null });
    expect(order.items[0]).toMatchObject({ price: 18, option_value_ids: [3, 4] }); // rep 20.00 - 10%
    expect(order.buyer.id).toBe(rep.id);
    expect(order.user.id).toBe(rep.id);
    expect(order.bill_to).toMatchObject({ name: "Billing Person", country_code: "CA", address2: null, state: null, postal_code: null });
    expect(order.ship_to.country_code).toBe("US");
  });

  it("bills first after the plan's trial, or on the next_bill_date sent; tax-exempt lines pay no tax", async () => {
    const trial = await createPlan(t.db.prisma, acme.id, { trialPeriod: 2, trialUnit: "week" });
    const order = await createOrder({ subscription_plan_id: trial.id, items: [{ variant_id: serum.id, quantity: 3 }] });
    expect(order.next_bill_date).toBe("2026-01-29");
    expect(order).toMatchObject({ subtotal: 120, tax: 0, shipping: 0, total: 120 }); // free shipping over 100.00
    const dated = await createOrder({ next_bill_date: "2026-01-15", status: "paused" });
    expect(dated).toMatchObject({ next_bill_date: "2026-01-15", days_until_next_bill_date: 0, status: "paused" });
  });

  it("answers 422 on next_bill_date for a date past 9999-12-31, sent or computed from the plan; nothing is created", async () => {
    for (const next_bill_date of ["10000-01-01", "+010000-01-01"]) {
      const response = await call("POST", BASE, { token: acme.token, body: orderBody({ next_bill_date }) });
      expect(response.status, next_bill_date).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(["subscription_order.next_bill_date"]);
    }
    clock.set(new Date("9990-06-15T12:00:00.000Z"));
    const generational = await createPlan(t.db.prisma, acme.id, { interval: 29, unit: "year" });
    const longTrial = await createPlan(t.db.prisma, acme.id, { trialPeriod: 10, trialUnit: "year" });
    for (const planId of [generational.id, longTrial.id]) {
      const response = await call("POST", BASE, { token: acme.token, body: orderBody({ subscription_plan_id: planId }) });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ "subscription_order.next_bill_date": ["would be after 9999-12-31, the last day a bill can be scheduled"] });
    }
    expect(await t.db.prisma.subscriptionOrder.count()).toBe(0);
    expect((await call("POST", BASE, { token: acme.token, body: orderBody({ subscription_plan_id: generational.id, next_bill_date: "9999-12-31" }) })).status).toBe(201);
  });

  it("answers 422 for references that are not the company's, and creates nothing", async () => {
    const inactivePlan = await createPlan(t.db.prisma, acme.id, { active: false });
    const otherCard = await createCard(t.db.prisma, otherCustomer.id, { lastFour: "1111" });
    const expiredCard = await createSavedCard(t.db.prisma, { customerId: customer.id, cardType: "visa", lastFour: "2020", expMonth: 1, expYear: 2020 });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ customer_id: foreign.customer.id }, "subscription_order.customer_id", "does not name a customer of this company"],
      [{ customer_id: rep.id }, "subscription_order.customer_id", "does not name a customer of this company"],
      [{ buyer_id: customer.id }, "subscription_order.buyer_id", "does not name a rep of this company"],
      [{ user_id: 999_999 }, "subscription_order.user_id", "does not name a rep of this company"],
      [{ subscription_plan_id: foreign.plan.id }, "subscription_order.subscription_plan_id", "does not name a subscription plan of this company"],
      [{ subscription_plan_id: inactivePlan.id }, "subscription_order.subscription_plan_id", "names an inactive subscription plan"],
      [{ payment_method_id: otherCard.id }, "subscription_order.payment_method_id", "is not one of the customer's saved payment methods"],
      [{ payment_method_id: expiredCard.id }, "subscription_order.payment_method_id", "is expired"],
      [{ status: "active" }, "subscription_order.status", "active needs a payment_method_id"],
      [{ next_bill_date: "2026-01-14" }, "subscription_order.next_bill_date", "must not be in the past"],
      [{ items: [{ variant_id: foreignVariant.id, quantity: 1 }] }, "subscription_order.items.0.variant_id", "does not name an available variant of this company"],
      [{ items: [{ variant_id: bottle.id, quantity: 1 }, { variant_id: bottle.id, quantity: 2 }] }, "subscription_order.items.1.variant_id", "appears more than once: set one item's quantity instead"],
      [{ ship_to: usAddress(CA), items: [{ variant_id: tablet.id, quantity: 1 }] }, "subscription_order.items.0.variant_id", `${tablet.sku} has no price in Canada`],
      [{ ship_to: usAddress(99_999) }, "subscription_order.ship_to.country_id", "does not name a country"],
      [{ ship_to: { ...usAddress(US), country_id: undefined, country_code: "ZZ" } }, "subscription_order.ship_to.country_code", "does not name a country"],
      [{ ship_to: { ...usAddress(US), country_id: undefined } }, "subscription_order.ship_to.country_id", "is required (or send country_code)"],
    ];
    for (const [overrides, path, message] of cases) {
      const response = await call("POST", BASE, { token: acme.token, body: orderBody(overrides) });
      expect(response.status, path).toBe(422);
      expect(response.body.errors[path], path).toEqual([message]);
    }
    expect(await t.db.prisma.subscriptionOrder.count()).toBe(0);
  });

  it("refuses a variant whose product the plan does not offer", async () => {
    const linked = await createPlan(t.db.prisma, acme.id, { productIds: [bottle.product_id] });
    const response = await call("POST", BASE, { token: acme.token, body: orderBody({ subscription_plan_id: linked.id }) });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "subscription_order.items.1.variant_id": [`${tablet.sku} is not offered with this subscription plan`] });
    await createOrder({ subscription_plan_id: linked.id, items: [{ variant_id: bottle.id, quantity: 1 }] });
  });

  // Found by an audit: the plan read showed no product once its only one was deleted, and every
  // product was refused, with no link left in sight to remove.
  it("reads a plan whose linked products are all deleted as the plan's view does: linked to none, offering every product", async () => {
    const { product: retired } = await createProduct(t.db.prisma, acme.id, { title: "Retired", variants: [{ prices: { US: 500 } }] });
    const linked = await createPlan(t.db.prisma, acme.id, { productIds: [retired.id] });
    expect((await call("DELETE", `/api/products/${retired.id}`, { token: acme.token })).status).toBe(200);
    expect((await call("GET", `/api/subscription_plans/${linked.id}`, { token: acme.token })).body.subscription_plan.product_subscription_plans).toEqual([]);
    const response = await call("POST", BASE, { token: acme.token, body: orderBody({ subscription_plan_id: linked.id }) });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });

  it("answers 422 with field paths for a malformed body", async () => {
    const response = await call("POST", BASE, { token: acme.token, body: { subscription_order: { customer_id: "x", items: [{ variant_id: bottle.id, quantity: 0 }], ship_to: { country_id: US } } } });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(
      expect.arrayContaining(["subscription_order.customer_id", "subscription_order.subscription_plan_id", "subscription_order.items.0.quantity", "subscription_order.ship_to.name"]),
    );
    expect((await call("POST", BASE, { token: acme.token, body: orderBody({ items: [] }) })).status).toBe(422);
    const nulls = await call("POST", BASE, { token: acme.token, body: orderBody({ bill_to: null, next_bill_date: null, status: null, ship_to: usAddress(US, { country_code: null }) }) });
    expect(nulls.status, JSON.stringify(nulls.body)).toBe(201);
    expect(nulls.body.subscription_order).toMatchObject({ status: "pending", next_bill_date: "2026-02-15", bill_to: { country_id: US, address1: "1 Main St" } });
    await t.db.prisma.subscriptionOrder.deleteMany();
    const dateTime = await call("POST", BASE, { token: acme.token, body: orderBody({ next_bill_date: "2026-02-01T00:00:00+01:00" }) });
    expect(dateTime.status).toBe(422);
    expect(dateTime.body.errors).toEqual({ "subscription_order.next_bill_date": [CALENDAR_DATE] });
    expect(await t.db.prisma.subscriptionOrder.count()).toBe(0);
  });
});

describe("GET /api/v2/subscription_orders and /stats", () => {
  it("lists the company's orders, soonest bill first, with flat pagination meta and without order_number", async () => {
    const later = await createOrder({ next_bill_date: "2026-03-01" });
    const sooner = await createOrder({ next_bill_date: "2026-02-01" });
    await createOrder({ customer_id: foreign.customer.id, subscription_plan_id: foreign.plan.id, items: [{ variant_id: foreignVariant.id, quantity: 1 }] }, globex.token);
    const response = await call("GET", BASE, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.subscription_orders.map((o: { id: number }) => o.id)).toEqual([sooner.id, later.id]);
    expect(Object.keys(response.body.subscription_orders[0]).sort()).toEqual(SHOWN_KEYS.filter((key) => key !== "order_number"));
    expect(response.body.meta).toEqual({ request_id: response.headers["x-request-id"], timestamp: TODAY.toISOString(), total_count: 2, total_pages: 1, current_page: 1 });
    const paged = await call("GET", `${BASE}?page=2&per_page=1`, { token: acme.token });
    expect(paged.body.subscription_orders.map((o: { id: number }) => o.id)).toEqual([later.id]);
    expect(paged.body.meta).toMatchObject({ total_count: 2, total_pages: 2, current_page: 2 });
  });

  it("filters by customer, buyer, credited rep, ship-to country (id or ISO code) and next bill date range", async () => {
    const plain = await createOrder({ next_bill_date: "2026-02-01" });
    const repOrder = await createOrder({ buyer_id: rep.id, user_id: rep.id, next_bill_date: "2026-02-10" });
    const canadian = await createOrder({ customer_id: otherCustomer.id, ship_to: usAddress(CA), items: [{ variant_id: bottle.id, quantity: 1 }], next_bill_date: "2026-02-20" });
    const ids = async (query: string) => (await call("GET", `${BASE}?${query}`, { token: acme.token })).body.subscription_orders.map((o: { id: number }) => o.id);
    expect(await ids(`customer_id=${customer.id}`)).toEqual([plain.id, repOrder.id]);
    expect(await ids(`buyer_id=${rep.id}`)).toEqual([repOrder.id]);
    expect(await ids(`user_company_id=${rep.id}`)).toEqual([repOrder.id]);
    expect(await ids(`ship_to_country_id=${CA}`)).toEqual([canadian.id]);
    expect(await ids("ship_to_country_id=ca")).toEqual([canadian.id]);
    expect(await ids("ship_to_country_id=ZZ")).toEqual([]);
    expect(await ids("next_bill_date_start_date=2026-02-10")).toEqual([repOrder.id, canadian.id]);
    expect(await ids("next_bill_date_end_date=2026-02-10")).toEqual([plain.id, repOrder.id]);
    expect(await ids("next_bill_date_start_date=2026-02-02&next_bill_date_end_date=2026-02-19")).toEqual([repOrder.id]);
    expect(await ids(`customer_id=${customer.id}&status=pending`)).toEqual([plain.id, repOrder.id]);
    // An admin screen's "All" choices and empty date pickers send blanks: they filter nothing, as on every other list.
    const blanks = "customer_id=&buyer_id=%20&user_company_id=&ship_to_country_id=&next_bill_date_start_date=&next_bill_date_end_date=%20%20&status=";
    expect(await ids(blanks)).toEqual([plain.id, repOrder.id, canadian.id]);
    expect((await call("GET", `${BASE}/stats?${blanks.replace("user_company_id=&", "")}`, { token: acme.token })).body.subscriptions_count).toBe(3);
  });

  it("answers 422 for malformed filters", async () => {
    for (const query of ["next_bill_date_start_date=01/02/2026", "customer_id=abc", "page=0", "per_page=101", "next_bill_date_start_date=2026-03-01&next_bill_date_end_date=2026-02-01", "ship_to_country_id=USA", `customer_id=%20${customer.id}`, "status=archived"]) {
      const response = await call("GET", `${BASE}?${query}`, { token: acme.token });
      expect(response.status, query).toBe(422);
      expect(response.body.error_code).toBe("validation_failed");
    }
  });

  // Found by audit T: eleven digits had the same message twice, and a month 13 the years' message
  // after the format's, which was wrong for it.
  it("answers a malformed filter with one message, the one that fits it", async () => {
    for (const path of [BASE, `${BASE}/stats`]) {
      for (const [query, errors] of [
        ["ship_to_country_id=99999999999", { ship_to_country_id: ["must be a country id or a two-letter ISO code"] }],
        ["ship_to_country_id=2147483648", { ship_to_country_id: ["must be a country id or a two-letter ISO code"] }],
        ["next_bill_date_start_date=2026-13-01", { next_bill_date_start_date: [CALENDAR_DATE] }],
        // A date-time is ISO 8601 too: zod's "Invalid ISO date" did not say that the time and zone must go.
        ["next_bill_date_start_date=2026-02-01T00:00:00-05:00", { next_bill_date_start_date: [CALENDAR_DATE] }],
        ["next_bill_date_end_date=2026-02-01T00:00:00Z", { next_bill_date_end_date: [CALENDAR_DATE] }],
        ["next_bill_date_end_date=0000-01-01", { next_bill_date_end_date: ["must be in the years 0001 to 9999 (UTC)"] }],
      ] as const) {
        const response = await call("GET", `${path}?${query}`, { token: acme.token });
        expect(response.status, `${path}?${query}`).toBe(422);
        expect(response.body.errors, `${path}?${query}`).toEqual(errors);
      }
    }
  });

  // Found by the bad-input suite: these reached PostgreSQL and were 500s.
  it("answers 422, not 500, for a ship_to_country_id beyond the id range or a date PostgreSQL cannot hold, in the list and the stats", async () => {
    for (const path of [BASE, `${BASE}/stats`]) {
      for (const [query, field] of [
        ["ship_to_country_id=5149400181", "ship_to_country_id"],
        ["next_bill_date_start_date=0000-02-29", "next_bill_date_start_date"],
        ["next_bill_date_end_date=0000-01-01", "next_bill_date_end_date"],
      ] as const) {
        const response = await call("GET", `${path}?${query}`, { token: acme.token });
        expect(response.status, `${path}?${query}`).toBe(422);
        expect(response.body.errors).toEqual({ [field]: [expect.any(String)] });
      }
    }
  });

  it("counts by status with the same filters, for the calling company only", async () => {
    const first = await createOrder();
    await createOrder({ payment_method_id: card.id });
    await createOrder({ customer_id: otherCustomer.id, next_bill_date: "2026-06-01" });
    await patch(first.id, "cancel_subscription");
    await createOrder({ customer_id: foreign.customer.id, subscription_plan_id: foreign.plan.id, items: [{ variant_id: foreignVariant.id, quantity: 1 }] }, globex.token);
    const all = await call("GET", `${BASE}/stats`, { token: acme.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      subscriptions_count: 3,
      active_subscriptions_count: 1,
      cancelled_subscriptions_count: 1,
      pending_subscriptions_count: 1,
      paused_subscriptions_count: 0,
      past_due_subscriptions_count: 0,
    });
    expect(all.body.meta.request_id).toBe(all.headers["x-request-id"]);
    const filtered = await call("GET", `${BASE}/stats?customer_id=${customer.id}&next_bill_date_end_date=2026-03-01&page=1`, { token: acme.token });
    expect(filtered.body).toMatchObject({ subscriptions_count: 2, active_subscriptions_count: 1, cancelled_subscriptions_count: 1 });
    expect((await call("GET", `${BASE}/stats`, { token: globex.token })).body.subscriptions_count).toBe(1);
  });
});

describe("GET /api/v2/subscription_orders/{id}", () => {
  it("shows an order; days_until_next_bill_date follows the clock", async () => {
    const order = await createOrder();
    clock.set(new Date("2026-02-10T23:59:00.000Z"));
    const response = await call("GET", `${BASE}/${order.id}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.subscription_order).toMatchObject({ id: order.id, order_number: order.order_number, days_until_next_bill_date: 5, total: 64.44 });
  });

  it("answers 404 for another company's order, an unknown id and a malformed id", async () => {
    const order = await createOrder();
    for (const [path, token] of [[`${BASE}/${order.id}`, globex.token], [`${BASE}/999999`, acme.token], [`${BASE}/abc`, acme.token]] as const) {
      const response = await call("GET", path, { token });
      expect(response.status, path).toBe(404);
      expect(response.body.error_code).toBe("not_found");
    }
  });

  // The specification types retrieve's path id as a string and shows order_number in retrieve: the
  // number a customer quotes (the reminder mail shows it) finds the order without a list scan.
  it("finds an order by its order number too; only the retrieve does, and only the number as written", async () => {
    const order = await createOrder();
    const byId = await call("GET", `${BASE}/${order.id}`, { token: acme.token });
    const byNumber = await call("GET", `${BASE}/${order.order_number}`, { token: acme.token });
    expect(byNumber.status).toBe(200);
    expect(byNumber.body.subscription_order).toEqual(byId.body.subscription_order);
    // Digits are an id (without leading zeros, as every id in a path): an order number's digits alone name nothing.
    const digits = order.order_number.slice(3);
    for (const [path, token] of [
      [`${BASE}/${digits}`, acme.token],
      [`${BASE}/${order.order_number}`, globex.token],
      [`${BASE}/SO-${order.id}`, acme.token],
      [`${BASE}/so-${digits}`, acme.token],
      [`${BASE}/SO-999999`, acme.token],
      [`${BASE}/${order.order_number}/activities`, acme.token],
    ] as const) {
      const response = await call("GET", path, { token });
      expect(response.status, path).toBe(404);
      expect(response.body.error_code, path).toBe("not_found");
    }
    expect((await patch(order.order_number, "skip_order")).status).toBe(404);
  });
});

// The reads go through plain pg, the mutations' answers through Prisma: one toView, two sources.
describe("GET /api/v2/subscription_orders(/{id}) renders as the mutations answer", () => {
  it("a rich order: payment method, buyer, rep, reordered items, activities with before and after, another bill-to country", async () => {
    const created = await createOrder({
      payment_method_id: card.id,
      buyer_id: rep.id,
      user_id: rep.id,
      items: [
        { variant_id: bottle.id, quantity: 2, option_value_ids: [3, 4] },
        { variant_id: tablet.id, quantity: 1 },
        { variant_id: serum.id, quantity: 1 },
      ],
      bill_to: { country_code: "CA", name: "Billing Person", address1: "9 Queen St", city: "Toronto" },
    });
    const [bottleItem, , serumItem] = created.items;
    await patch(created.id, "", { update: true, items: [{ id: serumItem.id, quantity: 3 }, { id: bottleItem.id, quantity: 1, option_value_ids: [5] }, { variant_id: tablet.id, quantity: 2 }] });
    await patch(created.id, "skip_order");
    const changed = (await patch(created.id, "cancellation_feedback", { reason: "moving", feedback: "Back next year." })).body.subscription_order;
    expect(changed.activities.map((activity: { action: string }) => activity.action)).toEqual(["created", "items_updated", "skipped", "cancellation_feedback"]);
    expect(changed).toMatchObject({ status: "active", payment_method: { id: card.id }, buyer: { id: rep.id }, user: { id: rep.id }, bill_to: { country_code: "CA" } });

    const shown = await call("GET", `${BASE}/${created.id}`, { token: acme.token });
    expect(shown.body.subscription_order).toEqual(changed);
    const { order_number: _, ...listed } = changed;
    expect((await call("GET", `${BASE}?customer_id=${customer.id}`, { token: acme.token })).body.subscription_orders).toEqual([listed]);
  });

  it("an order without payment method, buyer, rep or bill date", async () => {
    const created = await createOrder();
    expect(created).toMatchObject({ payment_method: null, buyer: null, user: null });
    expect((await call("GET", `${BASE}/${created.id}`, { token: acme.token })).body.subscription_order).toEqual(created);
    // No API leaves bill_date empty; imported rows may. Plain SQL keeps updated_at as it was.
    await t.db.sql.query("UPDATE subscription_orders SET bill_date = NULL WHERE id = $1", [created.id]);
    expect((await call("GET", `${BASE}/${created.id}`, { token: acme.token })).body.subscription_order).toEqual({ ...created, bill_date: null });
  });
});

describe("PATCH /api/v2/subscription_orders/{id} (items)", () => {
  // Integrations serialize their records as they hold them: a new item's id, a kept item's
  // variant_id and option_value_ids, an address's other country member are null there. The
  // order's other optional members (user_id, buyer_id, payment_method_id, address2 ...) read
  // null as absent; these were 422s ("expected number, received null").
  it("reads null as absent in an item's optional members", async () => {
    const order = await createOrder();
    const [bottleItem] = order.items;
    const response = await patch(order.id, "", {
      update: true,
      items: [
        { id: bottleItem.id, variant_id: null, quantity: 3, option_value_ids: null },
        { id: null, variant_id: serum.id, quantity: 1, option_value_ids: null },
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.subscription_order.items).toMatchObject([
      { id: bottleItem.id, variant_id: bottle.id, quantity: 3, option_value_ids: [] },
      { variant_id: serum.id, quantity: 1, option_value_ids: [] },
    ]);
    const neither = await patch(order.id, "", { update: true, items: [{ id: null, variant_id: null, quantity: 1 }] });
    expect(neither.status).toBe(422);
    expect(neither.body.errors).toEqual({ "items.0": ["needs an id (an item of this order) or a variant_id (a new item)"] });
  });

  it("replaces the items when update is true: kept, changed, swapped, added and removed, repriced with an activity", async () => {
    const order = await createOrder();
    const [bottleItem, tabletItem] = order.items;
    const response = await patch(order.id, "", {
      update: true,
      items: [
        { id: bottleItem.id, quantity: 1, option_value_ids: [7] },
        { variant_id: serum.id, quantity: 2 },
      ],
    });
    expect(response.status).toBe(200);
    const updated = response.body.subscription_order;
    expect(updated.items.map((item: { id: number; variant_id: number; quantity: number }) => [item.id === bottleItem.id, item.variant_id, item.quantity])).toEqual([
      [true, bottle.id, 1],
      [false, serum.id, 2],
    ]);
    expect(updated.items[0].option_value_ids).toEqual([7]);
    // 22.50 + 2 x 36.00 = 94.50; tax only on the bottle: 1.86; shipping 5.99 (below 100.00).
    expect(updated).toMatchObject({ subtotal: 94.5, tax: 1.86, shipping: 5.99, total: 102.35, display_total: "$102.35" });
    expect(updated.items.some((item: { id: number }) => item.id === tabletItem.id)).toBe(false);
    const activity = updated.activities.at(-1);
    expect(activity).toMatchObject({ action: "items_updated", before: { total: 64.44, currency_code: "USD" }, after: { total: 102.35, currency_code: "USD" } });
    expect(activity.before.items).toHaveLength(2);

    const swapped = await patch(order.id, "", { update: true, items: [{ id: bottleItem.id, variant_id: tablet.id, quantity: 3 }] });
    expect(swapped.status).toBe(200);
    expect(swapped.body.subscription_order.items).toMatchObject([{ id: bottleItem.id, variant_id: tablet.id, quantity: 3, price: 9 }]);
    expect((await stored(order.id)).items).toHaveLength(1);
  });

  it("previews without saving when update is not true", async () => {
    const order = await createOrder();
    for (const update of [false, null, undefined]) {
      const response = await patch(order.id, "", { update, items: [{ id: order.items[0].id, quantity: 10 }] });
      expect(response.status).toBe(200);
      expect(response.body.subscription_order).toMatchObject({ subtotal: 225, shipping: 0, items: [{ quantity: 10 }] });
    }
    const row = await stored(order.id);
    expect(row.items.map((item) => item.quantity)).toEqual([2, 1]);
    expect(row.total).toBe(6444);
    expect(row.activities.map((activity) => activity.action)).toEqual(["created"]);
  });

  // Found by audit T: the order's own items appended an items_updated activity whose before and
  // after were the same.
  it("saves nothing and appends no activity for the order's own items; the same items at new prices are repriced", async () => {
    const order = await createOrder();
    const [bottleItem, tabletItem] = order.items;
    const before = await stored(order.id);
    const same = [
      { id: bottleItem.id, quantity: 2 },
      { id: tabletItem.id, variant_id: tablet.id, quantity: 1, option_value_ids: [] },
    ];
    const response = await patch(order.id, "", { update: true, items: same });
    expect(response.status).toBe(200);
    expect(response.body.subscription_order).toMatchObject({ total: 64.44, items: [{ id: bottleItem.id, quantity: 2 }, { id: tabletItem.id, quantity: 1 }] });
    expect(response.body.subscription_order.activities.map((activity: { action: string }) => activity.action)).toEqual(["created"]);
    expect(await stored(order.id)).toEqual(before);

    // The same items in another order are a change (their positions), and so are new prices.
    const reordered = await patch(order.id, "", { update: true, items: [...same].reverse() });
    expect(reordered.body.subscription_order.activities.map((activity: { action: string }) => activity.action)).toEqual(["created", "items_updated"]);
    await t.db.prisma.variantPrice.updateMany({ where: { variant_id: tablet.id }, data: { price: 1200 } });
    try {
      const repriced = await patch(order.id, "", { update: true, items: [...same].reverse() });
      expect(repriced.body.subscription_order.total).not.toBe(reordered.body.subscription_order.total);
      expect(repriced.body.subscription_order.activities.map((activity: { action: string }) => activity.action)).toEqual(["created", "items_updated", "items_updated"]);
    } finally {
      await t.db.prisma.variantPrice.updateMany({ where: { variant_id: tablet.id }, data: { price: 1000 } });
    }
  });

  it("answers 422 for items that are not this order's, unknown variants, duplicates and an empty list; nothing changes", async () => {
    const order = await createOrder();
    const other = await createOrder({ customer_id: otherCustomer.id });
    const cases: Array<[unknown[], string]> = [
      [[{ id: other.items[0].id, quantity: 1 }], "items.0.id"],
      [[{ variant_id: foreignVariant.id, quantity: 1 }], "items.0.variant_id"],
      [[{ id: order.items[0].id, quantity: 1 }, { variant_id: bottle.id, quantity: 1 }], "items.1.variant_id"],
      [[{ id: order.items[0].id, quantity: 1 }, { id: order.items[0].id, quantity: 2 }], "items.1.id"],
      [[{ quantity: 1 }], "items.0"],
      [[], "items"],
      [[{ id: order.items[0].id, quantity: 0 }], "items.0.quantity"],
    ];
    for (const [items, path] of cases) {
      const response = await patch(order.id, "", { update: true, items });
      expect(response.status, path).toBe(422);
      expect(Object.keys(response.body.errors), path).toEqual([path]);
    }
    const row = await stored(order.id);
    expect(row.items.map((item) => [item.variant_id, item.quantity])).toEqual([[bottle.id, 2], [tablet.id, 1]]);
    expect(row.activities).toHaveLength(1);
  });

  // Found by a review: amounts are int4 columns, and a line or total past them was a 500.
  it("answers 422 for a line or an order that would come to more than an order can hold, also on create; nothing changes", async () => {
    const db = t.db.prisma;
    // $12,000,000.00 each, $10,800,000.00 with the plan's 10% off: two make more than $21,474,836.47.
    const { variants: [gold, platinum] } = await createProduct(db, acme.id, { title: "Bullion", variants: [{ prices: { US: 1_200_000_000 } }, { prices: { US: 1_200_000_000 } }] });
    if (!gold || !platinum) throw new Error("two variants were created");
    const order = await createOrder();
    const before = await stored(order.id);
    const limit = "come to more than the largest amount a subscription order can hold ($21,474,836.47)";

    for (const update of [true, false]) {
      const line = await patch(order.id, "", { update, items: [{ id: order.items[0].id, quantity: 1 }, { variant_id: gold.id, quantity: 2 }] });
      expect(line.status).toBe(422);
      expect(line.body.errors).toEqual({ "items.1.quantity": [`2 x ${gold.sku} at $10,800,000.00 ${limit}`] });
      const total = await patch(order.id, "", { update, items: [{ variant_id: gold.id, quantity: 1 }, { variant_id: platinum.id, quantity: 1 }] });
      expect(total.status).toBe(422);
      expect(total.body.errors).toEqual({ items: [`together ${limit}`] });
    }
    expect(await stored(order.id)).toEqual(before);

    const created = await call("POST", BASE, { token: acme.token, body: orderBody({ items: [{ variant_id: gold.id, quantity: 2 }] }) });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual({ "subscription_order.items.0.quantity": [`2 x ${gold.sku} at $10,800,000.00 ${limit}`] });
    expect(await db.subscriptionOrder.count()).toBe(1);
  });

  it("answers 409 on a cancelled order and 404 for another company's", async () => {
    const order = await createOrder();
    expect((await patch(order.id, "", { update: true, items: [{ id: order.items[0].id, quantity: 1 }] }, globex.token)).status).toBe(404);
    await patch(order.id, "cancel_subscription");
    const response = await patch(order.id, "", { update: true, items: [{ id: order.items[0].id, quantity: 1 }] });
    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe("subscription_cancelled");
  });
});

describe("PATCH .../update_shipping_address", () => {
  it("moves the order to the new address and reprices it in that country's currency", async () => {
    const order = await createOrder({ items: [{ variant_id: bottle.id, quantity: 1 }] });
    const response = await patch(order.id, "update_shipping_address", { address: { country_id: CA, name: "Casey", address1: "9 Queen St", city: "Toronto", state: "ON", postal_code: "M5H 2N2" } });
    expect(response.status).toBe(200);
    const moved = response.body.subscription_order;
    expect(moved.ship_to).toEqual({ name: "Casey", address1: "9 Queen St", address2: null, city: "Toronto", state: "ON", postal_code: "M5H 2N2", country_id: CA, country_code: "CA", country_name: "Canada" });
    // CA$30.00 - 10%, no Canadian tax rate or shipping method for this company.
    expect(moved).toMatchObject({ currency_code: "CAD", subtotal: 27, tax: 0, shipping: 0, total: 27, display_total: "CA$27.00" });
    expect(moved.bill_to.country_code).toBe("US");
    expect(moved.activities.at(-1)).toMatchObject({
      action: "shipping_address_updated",
      before: { ship_to: { country_id: US }, total: 30.35, currency_code: "USD" },
      after: { ship_to: { country_id: CA }, total: 27, currency_code: "CAD" },
    });
  });

  it("records the totals before and after as the order showed them, each with its currency", async () => {
    const db = t.db.prisma;
    const [KW, JP] = [await countryId(db, "KW"), await countryId(db, "JP")];
    const lamp = (await createProduct(db, acme.id, { title: "Lamp", variants: [{ prices: { KW: 8439, JP: 4050 } }] })).variant;
    const plainPlan = await createPlan(db, acme.id);
    const order = await createOrder({ subscription_plan_id: plainPlan.id, items: [{ variant_id: lamp.id, quantity: 1 }], ship_to: usAddress(KW) });
    expect(order).toMatchObject({ currency_code: "KWD", total: 8.439 });
    expect(order.activities[0].after).toMatchObject({ total: 8.439, currency_code: "KWD" });

    const moved = (await patch(order.id, "update_shipping_address", { address: usAddress(JP) })).body.subscription_order;
    expect(moved).toMatchObject({ currency_code: "JPY", total: 4050 });
    expect(moved.activities.at(-1)).toMatchObject({ action: "shipping_address_updated", before: { total: 8.439, currency_code: "KWD" }, after: { total: 4050, currency_code: "JPY" } });
    expect((await call("GET", `${BASE}/${order.id}`, { token: acme.token })).body.subscription_order.activities).toEqual(moved.activities);
  });

  it("answers 422 when an item has no price in the new country, the country is unknown, or country_code and country_id disagree; nothing changes", async () => {
    const order = await createOrder();
    const noPrice = await patch(order.id, "update_shipping_address", { address: usAddress(CA) });
    expect(noPrice.status).toBe(422);
    expect(noPrice.body.errors).toEqual({ "address.country_id": [`${tablet.sku} has no price in Canada`] });
    const unknown = await patch(order.id, "update_shipping_address", { address: usAddress(99_999) });
    expect(unknown.body.errors).toEqual({ "address.country_id": ["does not name a country"] });
    const disagreeing = await patch(order.id, "update_shipping_address", { address: usAddress(CA, { country_code: "US" }) });
    expect(disagreeing.body.errors).toEqual({ "address.country_code": ["does not match country_id"] });
    const invalid = await patch(order.id, "update_shipping_address", { address: { country_id: US, name: "", city: "X" } });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(["address.address1", "address.name"]);
    const row = await stored(order.id);
    expect([row.ship_to_country_id, row.ship_to_city, row.total, row.activities.length]).toEqual([US, "Springfield", 6444, 1]);
  });

  it("blames the item, not the country, when an item's product was deleted or is no longer offered; nothing changes", async () => {
    const db = t.db.prisma;
    const candle = (await createProduct(db, acme.id, { title: "Candle", variants: [{ prices: { US: 1500, CA: 1800 } }] })).variant;
    const linked = await createPlan(db, acme.id, { productIds: [bottle.product_id, candle.product_id] });
    const order = await createOrder({ subscription_plan_id: linked.id, items: [{ variant_id: bottle.id, quantity: 1 }, { variant_id: candle.id, quantity: 1 }] });
    const before = await stored(order.id);
    const unchanged = async () => expect(await stored(order.id)).toEqual(before);
    const toCanada = { address: { ...usAddress(CA), city: "Toronto" } };

    await db.productSubscriptionPlan.deleteMany({ where: { subscription_plan_id: linked.id, product_id: candle.product_id } });
    const notOffered = await patch(order.id, "update_shipping_address", toCanada);
    expect(notOffered.status).toBe(422);
    expect(notOffered.body.errors).toEqual({ "items.1.variant_id": [`${candle.sku} is not offered with this subscription plan`] });
    await unchanged();

    await db.productSubscriptionPlan.create({ data: { subscription_plan_id: linked.id, product_id: candle.product_id } });
    expect((await call("DELETE", `/api/products/${candle.product_id}`, { token: acme.token })).status).toBe(200);
    const deleted = await patch(order.id, "update_shipping_address", toCanada);
    expect(deleted.status).toBe(422);
    expect(deleted.body.errors).toEqual({ "items.1.variant_id": ["does not name an available variant of this company"] });
    await unchanged();
  });

  it("answers 422 on the item when the new country's price takes its line past what an order can hold; nothing changes", async () => {
    const db = t.db.prisma;
    const JP = await countryId(db, "JP");
    const rug = (await createProduct(db, acme.id, { title: "Rug", variants: [{ prices: { US: 100, JP: 2_000_000_000 } }] })).variant;
    const order = await createOrder({ items: [{ variant_id: rug.id, quantity: 2 }] });
    const before = await stored(order.id);
    const response = await patch(order.id, "update_shipping_address", { address: usAddress(JP) });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "items.0.quantity": [`2 x ${rug.sku} at ¥1,800,000,000 come to more than the largest amount a subscription order can hold (¥2,147,483,647)`] });
    expect(await stored(order.id)).toEqual(before);
  });

  it("answers 409 on a cancelled order and 404 for another company's", async () => {
    const order = await createOrder();
    expect((await patch(order.id, "update_shipping_address", { address: usAddress(US) }, globex.token)).status).toBe(404);
    await patch(order.id, "cancel_subscription");
    expect((await patch(order.id, "update_shipping_address", { address: usAddress(US) })).status).toBe(409);
  });
});

describe("PATCH .../skip_order", () => {
  it("moves the next bill one billing interval later and counts the skip", async () => {
    const order = await createOrder({ next_bill_date: "2026-01-31" });
    const first = await patch(order.id, "skip_order");
    expect(first.status).toBe(200);
    expect(first.body.subscription_order).toMatchObject({ next_bill_date: "2026-02-28", skips_count: 1, days_until_next_bill_date: 44 });
    expect(first.body.subscription_order.activities.at(-1)).toMatchObject({
      action: "skipped",
      before: { next_bill_date: "2026-01-31", skips_count: 0 },
      after: { next_bill_date: "2026-02-28", skips_count: 1 },
    });
    // The order keeps its anchor day: February's last day does not become every later month's.
    expect((await patch(order.id, "skip_order")).body.subscription_order.next_bill_date).toBe("2026-03-31");
  });

  // Found by a review: a skip counted from the stored date, so one February moved a subscription
  // billed on the 31st to the 28th for good (Jan 31 -> Feb 28 -> Mar 28).
  describe("keeps the order's anchor day across short months", () => {
    const skips = async (id: number, count: number) => {
      const dates: string[] = [];
      for (let skip = 0; skip < count; skip += 1) {
        const response = await patch(id, "skip_order");
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        dates.push(response.body.subscription_order.next_bill_date);
      }
      return dates;
    };

    it("monthly, through February of a common year and of a leap year", async () => {
      const monthly = await createPlan(t.db.prisma, acme.id);
      const common = await createOrder({ subscription_plan_id: monthly.id, next_bill_date: "2027-01-31" });
      expect(await skips(common.id, 4)).toEqual(["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31"]);
      const leap = await createOrder({ subscription_plan_id: monthly.id, next_bill_date: "2028-01-31" });
      expect(await skips(leap.id, 3)).toEqual(["2028-02-29", "2028-03-31", "2028-04-30"]);
      const thirtieth = await createOrder({ subscription_plan_id: monthly.id, next_bill_date: "2027-01-30" });
      expect(await skips(thirtieth.id, 2)).toEqual(["2027-02-28", "2027-03-30"]);
      expect((await call("GET", `${BASE}/${common.id}`, { token: acme.token })).body.subscription_order).toMatchObject({ next_bill_date: "2027-05-31", skips_count: 4 });
    });

    it("from the day a subscription without a trial was created, whose first bill falls in a shorter month", async () => {
      const monthly = await createPlan(t.db.prisma, acme.id);
      clock.set(new Date("2026-01-31T12:00:00.000Z"));
      const order = await createOrder({ subscription_plan_id: monthly.id });
      expect(order).toMatchObject({ bill_date: "2026-01-31", next_bill_date: "2026-02-28" });
      expect(await skips(order.id, 2)).toEqual(["2026-03-31", "2026-04-30"]);
    });

    it("yearly from Feb 29: Feb 28 in common years, Feb 29 in the next leap year", async () => {
      const yearly = await createPlan(t.db.prisma, acme.id, { unit: "year" });
      const order = await createOrder({ subscription_plan_id: yearly.id, next_bill_date: "2028-02-29" });
      expect(await skips(order.id, 4)).toEqual(["2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"]);
    });

    it("not by days or weeks", async () => {
      const weekly = await createPlan(t.db.prisma, acme.id, { unit: "week" });
      const order = await createOrder({ subscription_plan_id: weekly.id, next_bill_date: "2027-01-31" });
      expect(await skips(order.id, 2)).toEqual(["2027-02-07", "2027-02-14"]);
    });

    it("and still stores no bill date past 9999-12-31", async () => {
      const monthly = await createPlan(t.db.prisma, acme.id);
      clock.set(new Date("9999-10-31T12:00:00.000Z"));
      const order = await createOrder({ subscription_plan_id: monthly.id });
      expect(order.next_bill_date).toBe("9999-11-30");
      expect(await skips(order.id, 1)).toEqual(["9999-12-31"]);
      const response = await patch(order.id, "skip_order");
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ error_code: "next_bill_date_out_of_range", errors: { next_bill_date: ["would be after 9999-12-31, the last day a bill can be scheduled"] } });
      const row = await stored(order.id);
      expect([row.next_bill_date.toISOString().slice(0, 10), row.skips_count, row.activities.length]).toEqual(["9999-12-31", 1, 2]);
    });
  });

  it("skips by the plan's unit: two weeks", async () => {
    const biweekly = await createPlan(t.db.prisma, acme.id, { interval: 2, unit: "week" });
    const order = await createOrder({ subscription_plan_id: biweekly.id, next_bill_date: "2026-02-26" });
    expect((await patch(order.id, "skip_order")).body.subscription_order.next_bill_date).toBe("2026-03-12");
  });

  it("answers 422 when the plan allows no skipping or max_skips is used up, also when skips race", async () => {
    const noSkips = await createPlan(t.db.prisma, acme.id, { allowSkipping: false });
    const refused = await patch((await createOrder({ subscription_plan_id: noSkips.id })).id, "skip_order");
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error_code: "skipping_not_allowed", errors: null });

    const oneSkip = await createPlan(t.db.prisma, acme.id, { maxSkips: 1 });
    const order = await createOrder({ subscription_plan_id: oneSkip.id });
    const racing = await Promise.all([patch(order.id, "skip_order"), patch(order.id, "skip_order"), patch(order.id, "skip_order")]);
    expect(racing.map((response) => response.status).sort()).toEqual([200, 422, 422]);
    expect(racing.find((response) => response.status === 422)?.body.error_code).toBe("max_skips_reached");
    const row = await stored(order.id);
    expect([row.skips_count, row.next_bill_date.toISOString().slice(0, 10)]).toEqual([1, "2026-03-15"]);
  });

  // Found by an audit: addInterval made a five-digit year that was stored and then read back as
  // an Invalid Date, so the skip and every later read of the order were 500s.
  it("answers 422 on next_bill_date when the skip would move it past 9999-12-31, and changes nothing", async () => {
    const generational = await createPlan(t.db.prisma, acme.id, { interval: 29, unit: "year" });
    const order = await createOrder({ subscription_plan_id: generational.id, next_bill_date: "9990-06-15" });
    const response = await patch(order.id, "skip_order");
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error_code: "next_bill_date_out_of_range", errors: { next_bill_date: ["would be after 9999-12-31, the last day a bill can be scheduled"] } });
    const row = await stored(order.id);
    expect([row.next_bill_date.toISOString().slice(0, 10), row.skips_count, row.activities.length]).toEqual(["9990-06-15", 0, 1]);
    expect((await call("GET", `${BASE}/${order.id}`, { token: acme.token })).body.subscription_order).toMatchObject({ next_bill_date: "9990-06-15" });
  });

  it("answers 409 for cancelled, paused and past-due orders, and 404 for another company's", async () => {
    const paused = await createOrder({ status: "paused" });
    expect((await patch(paused.id, "skip_order")).body.error_code).toBe("subscription_paused");
    const pastDue = await createOrder({ status: "past_due" });
    expect((await patch(pastDue.id, "skip_order")).status).toBe(409);
    const order = await createOrder();
    expect((await patch(order.id, "skip_order", undefined, globex.token)).status).toBe(404);
    await patch(order.id, "cancel_subscription");
    const response = await patch(order.id, "skip_order");
    expect(response.status).toBe(409);
    expect((await stored(order.id)).skips_count).toBe(0);
  });
});

describe("PATCH .../cancel_subscription and .../cancellation_feedback", () => {
  it("cancels once; a second cancel is a 409", async () => {
    const order = await createOrder({ payment_method_id: card.id });
    const response = await patch(order.id, "cancel_subscription");
    expect(response.status).toBe(200);
    expect(response.body.subscription_order.status).toBe("cancelled");
    expect(response.body.subscription_order.activities.at(-1)).toMatchObject({ action: "cancelled", before: { status: "active" }, after: { status: "cancelled" } });
    const again = await patch(order.id, "cancel_subscription");
    expect(again.status).toBe(409);
    expect(again.body.error_code).toBe("already_cancelled");
    expect((await stored(order.id)).activities).toHaveLength(2);
    expect((await patch(order.id, "cancel_subscription", undefined, globex.token)).status).toBe(404);
  });

  it("keeps a cancelled order, with its billing terms, when its plan is deleted", async () => {
    const weekly = await createPlan(t.db.prisma, acme.id, { interval: 3, unit: "week" });
    const order = await createOrder({ subscription_plan_id: weekly.id });
    await patch(order.id, "cancel_subscription");
    await t.db.prisma.subscriptionPlan.delete({ where: { id: weekly.id } });
    const response = await call("GET", `${BASE}/${order.id}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.subscription_order).toMatchObject({ status: "cancelled", subscription_plan_id: null, subscription_interval: 3, subscription_interval_unit: "week" });
  });

  it("records the reason and feedback (one may come alone), with an activity", async () => {
    const order = await createOrder();
    await patch(order.id, "cancel_subscription");
    const response = await patch(order.id, "cancellation_feedback", { reason: "too_expensive", feedback: "Loved it, but money is tight." });
    expect(response.status).toBe(200);
    expect(response.body.subscription_order).toMatchObject({ cancellation_reason: "too_expensive", additional_feedback: "Loved it, but money is tight." });
    const reasonOnly = await patch(order.id, "cancellation_feedback", { reason: "moving" });
    expect(reasonOnly.body.subscription_order).toMatchObject({ cancellation_reason: "moving", additional_feedback: "Loved it, but money is tight." });
    expect(reasonOnly.body.subscription_order.activities.at(-1)).toMatchObject({
      action: "cancellation_feedback",
      before: { cancellation_reason: "too_expensive" },
      after: { cancellation_reason: "moving" },
    });
  });

  it("answers 422 without reason and feedback, 404 for another company's order", async () => {
    const order = await createOrder();
    for (const body of [{}, { reason: "", feedback: "" }, { reason: 5 }]) {
      expect((await patch(order.id, "cancellation_feedback", body)).status).toBe(422);
    }
    expect((await patch(order.id, "cancellation_feedback", { reason: "x" }, globex.token)).status).toBe(404);
    const row = await stored(order.id);
    expect([row.cancellation_reason, row.activities.length]).toEqual([null, 1]);
  });
});

// Found by audit T: each request of a burst on one order held a pooled connection while it
// waited for the order's row lock, so the burst took the whole pool: other companies' requests
// queued behind it, and past the pool's 5 s wait its own answered 503 database_unavailable.
describe("a queue of changes on one order", () => {
  it.skipIf(!inject("databaseServer"))("waits in the process, holding one pooled connection: another company's request answers meanwhile, and every change succeeds", async () => {
    const order = await createOrder();
    const BURST = 60;
    // Another transaction holds the order, as a plan update's repricing batch does. With a pooled
    // connection per waiting change, none was left for the other company until it committed.
    const responses = await queuedBehindHeldLock(
      t.db,
      t.app.rowQueue,
      { sql: "SELECT id FROM subscription_orders WHERE id = $1 FOR UPDATE", params: [order.id] },
      Array.from({ length: BURST }, (_, index) => () => patch(order.id, "cancellation_feedback", { reason: `r${index}` })),
      async () => expect((await call("GET", `${BASE}?per_page=1`, { token: globex.token })).status).toBe(200),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(BURST).fill(200));
    const row = await stored(order.id);
    expect(row.activities.filter((activity) => activity.action === "cancellation_feedback")).toHaveLength(BURST);
  });

  // Found by a review: the queue's key was the id alone, taken from the URL before the company
  // check, so another company's requests for an order's id held its turn ahead of its owner's.
  it.skipIf(!inject("databaseServer"))("keeps another company's requests for the order's id out of its queue: they answer 404 while the owner's change waits", async () => {
    const order = await createOrder();
    const holder = await t.db.sql.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT id FROM subscription_orders WHERE id = $1 FOR UPDATE", [order.id]);
      const owners = patch(order.id, "cancellation_feedback", { reason: "mine" });
      await expect.poll(async () => (await holder.query<{ waiting: number }>("SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"))[0]?.waiting, { timeout: 10_000 }).toBe(1);
      const foreign = await call("PATCH", `${BASE}/${order.id}/cancellation_feedback`, { token: globex.token, body: { reason: "theirs" } });
      expect(foreign.status).toBe(404);
      await holder.query("COMMIT");
      expect((await owners).status).toBe(200);
    } finally {
      await holder.query("ROLLBACK");
      await holder.release();
    }
  });
});

describe("PATCH .../update_payment (credit_card)", () => {
  it("puts one of the customer's saved cards on the order and activates a pending order", async () => {
    const order = await createOrder();
    const response = await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: card.id });
    expect(response.status).toBe(200);
    expect(response.body.subscription_order).toMatchObject({ status: "active", payment_method: { id: card.id, kind: "credit_card", last_four: "4242" } });
    expect(response.body.subscription_order.activities.at(-1)).toMatchObject({
      action: "payment_updated",
      before: { payment_method_id: null, status: "pending" },
      after: { payment_method_id: card.id, status: "active" },
    });
  });

  // Found by audit T: it appended a payment_updated activity whose before and after were the same.
  it("saves nothing and appends no activity for the card the order has already, unless it settles the order", async () => {
    const order = await createOrder({ payment_method_id: card.id });
    const before = await stored(order.id);
    const response = await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: card.id });
    expect(response.status).toBe(200);
    expect(response.body.subscription_order).toMatchObject({ status: "active", payment_method: { id: card.id } });
    expect(response.body.subscription_order.activities.map((activity: { action: string }) => activity.action)).toEqual(["created"]);
    expect(await stored(order.id)).toEqual(before);

    const pastDue = await createOrder({ payment_method_id: card.id, status: "past_due" });
    const settled = await patch(pastDue.id, "update_payment", { payment_method: "credit_card", card_id: card.id });
    expect(settled.body.subscription_order.activities.at(-1)).toMatchObject({
      action: "payment_updated",
      before: { payment_method_id: card.id, status: "past_due" },
      after: { payment_method_id: card.id, status: "active" },
    });
  });

  it("settles a past-due order and leaves a paused one paused", async () => {
    const pastDue = await createOrder({ status: "past_due" });
    expect((await patch(pastDue.id, "update_payment", { payment_method: "credit_card", card_id: card.id })).body.subscription_order.status).toBe("active");
    const paused = await createOrder({ status: "paused" });
    expect((await patch(paused.id, "update_payment", { payment_method: "credit_card", card_id: card.id })).body.subscription_order.status).toBe("paused");
  });

  it("answers 422 for another customer's card or a malformed variant; nothing changes", async () => {
    const order = await createOrder();
    const otherCard = await createCard(t.db.prisma, otherCustomer.id, { lastFour: "0005" });
    const response = await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: otherCard.id });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ card_id: ["is not one of the customer's saved cards"] });
    for (const body of [{ payment_method: "credit_card" }, { payment_method: "bitcoin", card_id: card.id }, { card_id: card.id }, { payment_method: "paypal", return_url: "https://shop.example.com/ok" }]) {
      expect((await patch(order.id, "update_payment", body)).status, JSON.stringify(body)).toBe(422);
    }
    const row = await stored(order.id);
    expect([row.payment_method_id, row.status]).toEqual([null, "pending"]);
  });

  it("answers 422 for an expired card, which is valid through its expiry month by the service's clock; nothing changes", async () => {
    const expired = await createSavedCard(t.db.prisma, { customerId: customer.id, cardType: "visa", lastFour: "2020", expMonth: 1, expYear: 2020 });
    const endingThisMonth = await createSavedCard(t.db.prisma, { customerId: customer.id, cardType: "visa", lastFour: "2026", expMonth: 1, expYear: 2026 });
    const order = await createOrder({ status: "past_due" });
    const unchanged = async () => {
      const row = await stored(order.id);
      expect([row.status, row.payment_method_id, row.activities.length]).toEqual(["past_due", null, 1]);
    };
    const refused = await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: expired.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ card_id: ["is expired"] });
    await unchanged();

    clock.set(new Date("2026-02-01T00:00:00.000Z"));
    expect((await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: endingThisMonth.id })).body.errors).toEqual({ card_id: ["is expired"] });
    await unchanged();
    clock.set(new Date("2026-01-31T23:59:59.999Z"));
    const accepted = await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: endingThisMonth.id });
    expect(accepted.status).toBe(200);
    expect(accepted.body.subscription_order).toMatchObject({ status: "active", payment_method: { id: endingThisMonth.id, exp_month: 1, exp_year: 2026 } });
  });

  it("answers 409 on a cancelled order and 404 for another company's", async () => {
    const order = await createOrder();
    expect((await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: card.id }, globex.token)).status).toBe(404);
    await patch(order.id, "cancel_subscription");
    expect((await patch(order.id, "update_payment", { payment_method: "credit_card", card_id: card.id })).status).toBe(409);
  });
});

describe("PATCH .../send_autoship_reminder_email", () => {
  it("queues the reminder to the customer's address, and the mail worker delivers it over SMTP", async () => {
    const order = await createOrder();
    const response = await patch(order.id, "send_autoship_reminder_email");
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["id", "meta"]);
    const mail = await t.db.prisma.mailOutbox.findUniqueOrThrow({ where: { id: response.body.id } });
    expect(mail).toMatchObject({ company_id: acme.id, to: customer.email, kind: "autoship_reminder", status: "pending", attempts: 0 });
    expect(mail.subject).toBe("Your Acme autoship ships on 2026-02-15");
    expect(mail.body).toContain("$64.44");
    expect((await stored(order.id)).activities.at(-1)).toMatchObject({ action: "reminder_email_queued", after: { mail_id: mail.id, to: customer.email } });

    const sink = await startSmtpSink();
    try {
      const sent = await deliverDueMail({ db: t.db.prisma, transport: smtpTransport(sink.url), from: t.config.mail.from, clock, logger: t.app.log as never });
      expect(sent).toBe(1);
      expect(sink.received).toHaveLength(1);
      expect(sink.received[0]?.to).toEqual([customer.email]);
      expect(sink.received[0]?.raw).toContain("Subject: Your Acme autoship ships on 2026-02-15");
      expect(await t.db.prisma.mailOutbox.findUniqueOrThrow({ where: { id: mail.id } })).toMatchObject({ status: "sent", attempts: 1, sent_at: TODAY });
    } finally {
      await sink.close();
    }
  });

  it("answers 409 for cancelled and paused orders and 404 for another company's; nothing is queued", async () => {
    const order = await createOrder();
    expect((await patch(order.id, "send_autoship_reminder_email", undefined, globex.token)).status).toBe(404);
    const paused = await createOrder({ status: "paused" });
    expect((await patch(paused.id, "send_autoship_reminder_email")).status).toBe(409);
    await patch(order.id, "cancel_subscription");
    expect((await patch(order.id, "send_autoship_reminder_email")).status).toBe(409);
    expect(await t.db.prisma.mailOutbox.count()).toBe(0);
  });

  // Found by an audit: every call queued a mail, so an integration retrying in a loop mailed the
  // customer once per call.
  describe("at most one reminder per order within AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES (a day)", () => {
    const DAY_MS = 24 * 60 * 60 * 1000;
    const remind = (id: number, headers?: Record<string, string>) => call("PATCH", `${BASE}/${id}/send_autoship_reminder_email`, { token: acme.token, headers });
    const reminderActivities = async (id: number) => (await stored(id)).activities.filter((activity) => activity.action === "reminder_email_queued").length;

    it("two calls fired together queue one mail: the other is a 429 reminder_throttled with Retry-After", async () => {
      const order = await createOrder();
      const before = (await stored(order.id)).updated_at;
      const answers = await Promise.all([remind(order.id), remind(order.id)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 429]);
      const throttled = answers.find((answer) => answer.status === 429);
      expect(throttled?.headers["retry-after"]).toBe(String(DAY_MS / 1000));
      expect(throttled?.body).toEqual({
        error_message: "A reminder for this subscription order was queued at 2026-01-15T12:00:00.000Z: the next one can be sent from 2026-01-16T12:00:00.000Z",
        error_code: "reminder_throttled",
        errors: null,
        meta: { request_id: throttled?.headers["x-request-id"], timestamp: TODAY.toISOString() },
      });
      expect(await t.db.prisma.mailOutbox.count()).toBe(1);
      expect(await reminderActivities(order.id)).toBe(1);
      // Queuing a reminder changes nothing a client reads of the order.
      expect((await stored(order.id)).updated_at).toEqual(before);
    });

    it("holds across instances: calls fired together at two apps on one database queue one mail", async () => {
      const other = await startTestApp({ clock, database: t.db });
      try {
        const order = await createOrder();
        const path = `${BASE}/${order.id}/send_autoship_reminder_email`;
        const answers = await Promise.all([call("PATCH", path, { token: acme.token }), httpClient(other.url)("PATCH", path, { token: acme.token })]);
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 429]);
        expect(await t.db.prisma.mailOutbox.count()).toBe(1);
      } finally {
        await other.close();
      }
    });

    it("counts per order, says how long is left, and takes the next reminder once the interval has passed", async () => {
      const order = await createOrder();
      const other = await createOrder();
      expect((await remind(order.id)).status).toBe(200);
      expect((await remind(other.id)).status).toBe(200);
      clock.advance(DAY_MS - 1_500);
      const early = await remind(order.id);
      expect(early.status).toBe(429);
      expect(early.headers["retry-after"]).toBe("2");
      clock.advance(1_500);
      const next = await remind(order.id);
      expect(next.status).toBe(200);
      expect(await t.db.prisma.mailOutbox.count()).toBe(3);
      expect(await reminderActivities(order.id)).toBe(2);
    });

    it("a retry with the first call's Idempotency-Key replays its answer; another key is throttled", async () => {
      const order = await createOrder();
      const first = await remind(order.id, { "idempotency-key": "reminder-1" });
      expect(first.status).toBe(200);
      expectReplayOf(await remind(order.id, { "idempotency-key": "reminder-1" }), first);
      expect((await remind(order.id, { "idempotency-key": "reminder-2" })).status).toBe(429);
      expect(await t.db.prisma.mailOutbox.count()).toBe(1);
    });

    it("is off with AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES=0", async () => {
      const unlimited = await startTestApp({ clock, env: { AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES: "0" } });
      try {
        const db = unlimited.db.prisma;
        const company = await createCompanyWithToken(db, "Unlimited");
        const product = await createProduct(db, company.id, { variants: [{ prices: { US: 1000 } }] });
        const buyer = (await createUserWithToken(db, company.id, "customer")).user;
        const created = await httpClient(unlimited.url)("POST", BASE, {
          token: company.token,
          body: { subscription_order: { customer_id: buyer.id, subscription_plan_id: (await createPlan(db, company.id)).id, items: [{ variant_id: product.variant.id, quantity: 1 }], ship_to: usAddress(await countryId(db, "US")) } },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const path = `${BASE}/${created.body.subscription_order.id}/send_autoship_reminder_email`;
        for (let i = 0; i < 2; i++) expect((await httpClient(unlimited.url)("PATCH", path, { token: company.token })).status).toBe(200);
        expect(await db.mailOutbox.count()).toBe(2);
      } finally {
        await unlimited.close();
      }
    });
  });
});

// Found by an audit: a plan's new price adjustment reached no stored order (GET, the list and the
// reminder mail kept the old amounts while a preview showed the new ones).
describe("repricing stored orders", () => {
  const putPlan = (id: number, plan: Record<string, unknown>) => call("PUT", `/api/subscription_plans/${id}`, { token: acme.token, body: { subscription_plan: plan } });
  const show = async (id: number) => (await call("GET", `${BASE}/${id}`, { token: acme.token })).body.subscription_order;
  const actions = (order: { activities: Array<{ action: string }> }) => order.activities.map((activity) => activity.action);

  it("a plan's new price adjustment reprices its orders that are not cancelled at once, each with a repriced activity", async () => {
    const tenOff = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const live = await createOrder({ subscription_plan_id: tenOff.id });
    const repOrder = await createOrder({ subscription_plan_id: tenOff.id, buyer_id: rep.id, items: [{ variant_id: bottle.id, quantity: 1 }], status: "paused" });
    const canadian = await createOrder({ subscription_plan_id: tenOff.id, ship_to: usAddress(CA), items: [{ variant_id: bottle.id, quantity: 1 }] });
    const cancelled = await createOrder({ subscription_plan_id: tenOff.id });
    await patch(cancelled.id, "cancel_subscription");
    const otherPlans = await createOrder();
    expect(live.total).toBe(64.44);

    const response = await putPlan(tenOff.id, { price_adjustment_amount: 50 });
    expect(response.status).toBe(200);

    const shown = await show(live.id);
    // Bottle 2 x 12.50 and tablet 5.00: 30.00; tax 2.06 + 0.41; shipping 5.99.
    expect(shown).toMatchObject({ subtotal: 30, tax: 2.47, shipping: 5.99, total: 38.46, amount: 38.46, display_amount: "$38.46" });
    expect(shown.items.map((item: { price: number; subtotal: number; tax: number }) => [item.price, item.subtotal, item.tax])).toEqual([[12.5, 25, 2.06], [5, 5, 0.41]]);
    expect(shown.activities.at(-1)).toEqual({
      id: expect.any(Number),
      action: "repriced",
      performed_by: { type: "api_token", id: acme.token.slice(0, 12) },
      before: { total: 64.44, currency_code: "USD" },
      after: { total: 38.46, currency_code: "USD" },
      created_at: TODAY.toISOString(),
    });
    const preview = await patch(live.id, "", { items: shown.items.map((item: { id: number; quantity: number }) => ({ id: item.id, quantity: item.quantity })) });
    expect(preview.body.subscription_order).toMatchObject({ subtotal: shown.subtotal, tax: shown.tax, total: shown.total });
    const listed = (await call("GET", `${BASE}?customer_id=${customer.id}`, { token: acme.token })).body.subscription_orders;
    expect(listed.find((order: { id: number }) => order.id === live.id)).toMatchObject({ total: 38.46 });

    expect(await show(repOrder.id)).toMatchObject({ status: "paused", items: [{ price: 10 }] }); // rep 20.00 - 50%
    expect(await show(canadian.id)).toMatchObject({ currency_code: "CAD", total: 15, items: [{ price: 15 }] }); // CA$30.00 - 50%
    const untouched = await show(cancelled.id);
    expect(untouched).toMatchObject({ status: "cancelled", total: 64.44, items: [{ price: 22.5 }, { price: 9 }] });
    expect(actions(untouched)).toEqual(["created", "cancelled"]);
    expect(await show(otherPlans.id)).toMatchObject({ total: 64.44 });
    expect(actions(await show(otherPlans.id))).toEqual(["created"]);
  });

  it.skipIf(!inject("databaseServer"))("an order created while its plan's price adjustment changes prices with the plan as committed", async () => {
    const tenOff = await createPlan(t.db.prisma, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    // Holds the plan as a plan update does, until the create waits for it.
    const planUpdate = await t.db.sql.connect();
    try {
      await planUpdate.query("BEGIN");
      await planUpdate.query("SELECT id FROM subscription_plans WHERE id = $1 FOR UPDATE", [tenOff.id]);
      await planUpdate.query("UPDATE subscription_plans SET price_adjustment_amount = 50 WHERE id = $1", [tenOff.id]);
      const creating = call("POST", BASE, { token: acme.token, body: orderBody({ subscription_plan_id: tenOff.id }) });
      await expect.poll(async () => (await t.db.sql.query<{ waiting: number }>("SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0]?.waiting).toBe(1);
      await planUpdate.query("COMMIT");
      const created = await creating;
      expect(created.status).toBe(201);
      expect(created.body.subscription_order).toMatchObject({ subtotal: 30, total: 38.46 });
    } finally {
      await planUpdate.query("ROLLBACK");
      await planUpdate.release();
    }
  });

  it.skipIf(!inject("databaseServer"))("an order whose plan is deleted while the create waits for the plan's lock is refused as naming an unknown plan", async () => {
    const doomed = await createPlan(t.db.prisma, acme.id);
    // Deletes the plan as a plan delete does, holding its row until the create waits for it.
    const planDelete = await t.db.sql.connect();
    try {
      await planDelete.query("BEGIN");
      await planDelete.query("SELECT id FROM subscription_plans WHERE id = $1 FOR UPDATE", [doomed.id]);
      await planDelete.query("DELETE FROM subscription_plans WHERE id = $1", [doomed.id]);
      const creating = call("POST", BASE, { token: acme.token, body: orderBody({ subscription_plan_id: doomed.id }) });
      await expect.poll(() => lockWaiters(t.db.sql)).toBe(1);
      await planDelete.query("COMMIT");
      const refused = await creating;
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({ "subscription_order.subscription_plan_id": ["does not name a subscription plan of this company"] });
    } finally {
      await planDelete.query("ROLLBACK");
      await planDelete.release();
    }
    expect(await t.db.prisma.subscriptionOrder.count()).toBe(0);
  });

  // Found by an audit of races: the plan read again under its lock priced the order, but only the
  // read before the lock was checked for being active, so a plan switched off meanwhile took a new order.
  it.skipIf(!inject("databaseServer"))("an order whose plan is switched off while the create waits for the plan's lock is refused as naming an inactive plan", async () => {
    const retiring = await createPlan(t.db.prisma, acme.id);
    // Switches the plan off as a plan update does, holding its row until the create waits for it.
    const planUpdate = await t.db.sql.connect();
    try {
      await planUpdate.query("BEGIN");
      await planUpdate.query("SELECT id FROM subscription_plans WHERE id = $1 FOR UPDATE", [retiring.id]);
      await planUpdate.query("UPDATE subscription_plans SET active = false WHERE id = $1", [retiring.id]);
      const creating = call("POST", BASE, { token: acme.token, body: orderBody({ subscription_plan_id: retiring.id }) });
      await expect.poll(() => lockWaiters(t.db.sql)).toBe(1);
      await planUpdate.query("COMMIT");
      const refused = await creating;
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({ "subscription_order.subscription_plan_id": ["names an inactive subscription plan"] });
    } finally {
      await planUpdate.query("ROLLBACK");
      await planUpdate.release();
    }
    expect(await t.db.prisma.subscriptionOrder.count()).toBe(0);
  });

  it("reprices only when the update changes the price adjustment; an order whose items no longer price keeps its amounts", async () => {
    const db = t.db.prisma;
    const tenOff = await createPlan(db, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
    const soap = (await createProduct(db, acme.id, { title: "Soap", variants: [{ prices: { US: 1000 } }] })).variant;
    const candle = (await createProduct(db, acme.id, { title: "Candle", variants: [{ prices: { US: 2000 } }] })).variant;
    const order = await createOrder({ subscription_plan_id: tenOff.id, items: [{ variant_id: soap.id, quantity: 1 }] });
    const stranded = await createOrder({ subscription_plan_id: tenOff.id, items: [{ variant_id: soap.id, quantity: 1 }, { variant_id: candle.id, quantity: 1 }] });
    await db.variantPrice.updateMany({ where: { variant_id: soap.id }, data: { price: 4000 } });
    expect((await call("DELETE", `/api/products/${candle.product_id}`, { token: acme.token })).status).toBe(200);

    for (const plan of [{ name: "Renamed" }, { price_adjustment_type: "percentage", price_adjustment_amount: 10 }]) {
      expect((await putPlan(tenOff.id, plan)).status).toBe(200);
      expect(await show(order.id), JSON.stringify(plan)).toMatchObject({ total: 15.73, activities: [{ action: "created" }] });
    }

    expect((await putPlan(tenOff.id, { price_adjustment_type: "fixed_amount", price_adjustment_amount: 1 })).status).toBe(200);
    // The catalog's new price arrives with the repricing: 40.00 - 1.00, tax 3.22, shipping 5.99.
    expect(await show(order.id)).toMatchObject({ subtotal: 39, total: 48.21, activities: [{ action: "created" }, { action: "repriced", before: { total: 15.73 }, after: { total: 48.21 } }] });
    const kept = await show(stranded.id);
    expect(kept).toMatchObject({ total: stranded.total, items: [{ price: 9 }, { price: 18 }] });
    expect(actions(kept)).toEqual(["created"]);
  });

  it("the reminder reprices the order first, so its mail quotes what the next bill charges after a catalog change", async () => {
    const db = t.db.prisma;
    const soap = (await createProduct(db, acme.id, { title: "Soap", variants: [{ prices: { US: 1000 } }] })).variant;
    const order = await createOrder({ items: [{ variant_id: soap.id, quantity: 1 }] });
    expect(order.total).toBe(15.73); // 9.00 + 0.74 tax + 5.99 shipping
    await db.variantPrice.updateMany({ where: { variant_id: soap.id }, data: { price: 4000 } });

    const response = await patch(order.id, "send_autoship_reminder_email");
    expect(response.status).toBe(200);
    const mail = await db.mailOutbox.findUniqueOrThrow({ where: { id: response.body.id } });
    // 36.00 + 2.97 tax + 5.99 shipping.
    expect(mail.body).toContain("Total: $44.96");
    expect(mail.body).not.toContain("$15.73");
    const shown = await show(order.id);
    expect(shown).toMatchObject({ total: 44.96, items: [{ price: 36 }] });
    expect(shown.activities.slice(1)).toMatchObject([
      { action: "repriced", performed_by: { type: "api_token", id: acme.token.slice(0, 12) }, before: { total: 15.73 }, after: { total: 44.96 } },
      { action: "reminder_email_queued" },
    ]);

    clock.advance(24 * 60 * 60 * 1000);
    await patch(order.id, "send_autoship_reminder_email");
    expect(actions(await show(order.id))).toEqual(["created", "repriced", "reminder_email_queued", "reminder_email_queued"]);
  });

  // Found by an audit of races: the repricing writes its amounts with a raw statement, whose
  // foreign-key failure Prisma reports as P2010 with the SQLSTATE in the driver adapter's
  // `originalCode`, which the error handler did not recognise: a 500 instead of the 409 that a
  // write naming a record deleted meanwhile answers everywhere else.
  it.skipIf(!inject("databaseServer"))("the reminder of an order repriced with a shipping method deleted meanwhile is a 409 conflict; nothing is queued or changed", async () => {
    const order = await createOrder();
    const economy = await createShippingMethod(t.db.prisma, acme.id, { name: "Economy", country: "US", price: 199 });
    const before = await stored(order.id);
    // Deletes the method as its delete does, holding its row until the reminder's write waits for it.
    const methodDelete = await t.db.sql.connect();
    try {
      await methodDelete.query("BEGIN");
      await methodDelete.query("DELETE FROM shipping_methods WHERE id = $1", [economy.id]);
      const reminding = patch(order.id, "send_autoship_reminder_email");
      await expect.poll(() => lockWaiters(t.db.sql)).toBe(1);
      await methodDelete.query("COMMIT");
      const refused = await reminding;
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body).toMatchObject({ error_code: "conflict", errors: null });
    } finally {
      await methodDelete.query("ROLLBACK");
      await methodDelete.release();
      await t.db.prisma.shippingMethod.deleteMany({ where: { id: economy.id } });
    }
    expect(await t.db.prisma.mailOutbox.count()).toBe(0);
    expect(await stored(order.id)).toEqual(before);
  });

  // Found by a review: the database refused the amounts (int4) of an order priced past them,
  // which failed the whole plan update (500) and so blocked every price adjustment of the plan.
  describe("an order whose line would come to more than an order can hold", () => {
    async function pricedPast() {
      const db = t.db.prisma;
      const tenOff = await createPlan(db, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10" });
      const { product, variant: crate } = await createProduct(db, acme.id, { title: "Crate", variants: [{ prices: { US: 100 } }] });
      const big = await createOrder({ subscription_plan_id: tenOff.id, items: [{ variant_id: crate.id, quantity: 300 }] });
      const live = await createOrder({ subscription_plan_id: tenOff.id });
      const repriced = await call("PUT", `/api/products/${product.id}`, { token: acme.token, body: { product: { variants: [{ id: crate.id, prices: [{ country_code: "US", price: "100000.00" }] }] } } });
      expect(repriced.status).toBe(200);
      return { tenOff, crate, big, live, before: await stored(big.id) };
    }

    it("keeps its stored amounts through its plan's new price adjustment, which reprices the plan's other orders", async () => {
      const { tenOff, big, live, before } = await pricedPast();
      // 300 x $80,000.00 still come to more than the order can hold.
      const response = await putPlan(tenOff.id, { price_adjustment_amount: 20 });
      expect(response.status).toBe(200);
      expect(await show(live.id)).toMatchObject({ total: 57.95, activities: [{ action: "created" }, { action: "repriced", after: { total: 57.95 } }] });
      expect(await stored(big.id)).toEqual(before);
    });

    it("makes its reminder a 422 on the item's quantity; nothing is queued or changed", async () => {
      const { crate, big, before } = await pricedPast();
      const response = await patch(big.id, "send_autoship_reminder_email");
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ "items.0.quantity": [`300 x ${crate.sku} at $90,000.00 come to more than the largest amount a subscription order can hold ($21,474,836.47)`] });
      expect(await t.db.prisma.mailOutbox.count()).toBe(0);
      expect(await stored(big.id)).toEqual(before);
    });
  });

  it("the reminder answers 422 for an order whose items no longer price, and queues nothing", async () => {
    const db = t.db.prisma;
    const candle = (await createProduct(db, acme.id, { title: "Candle", variants: [{ prices: { US: 2000 } }] })).variant;
    const order = await createOrder({ items: [{ variant_id: bottle.id, quantity: 1 }, { variant_id: candle.id, quantity: 1 }] });
    expect((await call("DELETE", `/api/products/${candle.product_id}`, { token: acme.token })).status).toBe(200);
    const response = await patch(order.id, "send_autoship_reminder_email");
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "items.1.variant_id": ["does not name an available variant of this company"] });
    expect(await db.mailOutbox.count()).toBe(0);
    expect(actions(await show(order.id))).toEqual(["created"]);
  });
});

describe("authentication", () => {
  it("answers 401 without a token on every operation", async () => {
    const order = await createOrder();
    const operations: Array<[string, string]> = [
      ["GET", BASE],
      ["POST", BASE],
      ["GET", `${BASE}/stats`],
      ["GET", `${BASE}/${order.id}`],
      ["PATCH", `${BASE}/${order.id}`],
      ...["update_shipping_address", "update_payment", "skip_order", "cancel_subscription", "cancellation_feedback", "send_autoship_reminder_email"].map(
        (action): [string, string] => ["PATCH", `${BASE}/${order.id}/${action}`],
      ),
      ["GET", `${BASE}/${order.id}/authorize_paypal?token=abc`],
    ];
    for (const [method, path] of operations) {
      const response = await call(method, path, { body: method === "GET" ? undefined : {} });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
    }
    expect((await stored(order.id)).activities).toHaveLength(1);
  });
});
