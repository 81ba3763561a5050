import { beforeEach, describe, expect, inject, it } from "vitest";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import { type CompanyFixture, countryId, createProduct, createUserWithToken, createVariant } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { burstBehindHeldLock } from "../../helpers/lock-queue.js";
import { addSubscriptionOrder } from "../../helpers/subscription-orders.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let coffee: { id: number };
let tea: { id: number };
let foreignProduct: { id: number };

const PLAN_KEYS = [
  "active",
  "allow_max_billing_cycles",
  "allow_skipping",
  "billing_frequency_in_words",
  "billing_interval",
  "billing_interval_unit",
  "company",
  "company_default",
  "created_at",
  "display_price_adjustment_amount",
  "id",
  "max_billing_cycles",
  "max_skips",
  "name",
  "price_adjustment_amount",
  "price_adjustment_type",
  "product_subscription_plans",
  "products",
  "products_count",
  "shipping_interval",
  "shipping_interval_unit",
  "split_volume",
  "subscribers_count",
  "subscriptions",
  "trial_period",
  "trial_period_unit",
  "updated_at",
  "volume_interval",
  "volume_interval_unit",
];

const REQUIRED = {
  name: "Monthly",
  billing_interval: 1,
  billing_interval_unit: "month",
  shipping_interval: 1,
  shipping_interval_unit: "month",
  volume_interval: 1,
  volume_interval_unit: "month",
};

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  coffee = (await createProduct(t.db.prisma, acme.id, { title: "Coffee", variants: [] })).product;
  tea = (await createProduct(t.db.prisma, acme.id, { title: "Tea", variants: [] })).product;
  foreignProduct = (await createProduct(t.db.prisma, globex.id, { title: "Foreign", variants: [] })).product;
});

beforeEach(async () => {
  await t.db.prisma.subscriptionPlan.deleteMany();
});

const create = (plan: Record<string, unknown>, token = acme.token) => call("POST", "/api/subscription_plans", { token, body: { subscription_plan: { ...REQUIRED, ...plan } } });
const update = (id: number, plan: Record<string, unknown>, extra: Record<string, unknown> = {}, token = acme.token) =>
  call("PUT", `/api/subscription_plans/${id}`, { token, body: { subscription_plan: plan, ...extra } });
const show = (id: number, token = acme.token) => call("GET", `/api/subscription_plans/${id}`, { token });
const list = (query = "", token = acme.token) => call("GET", `/api/subscription_plans${query}`, { token });

async function createId(plan: Record<string, unknown> = {}, token = acme.token): Promise<number> {
  const response = await create(plan, token);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.subscription_plan.id;
}

const snapshot = async () =>
  JSON.stringify(await t.db.prisma.subscriptionPlan.findMany({ orderBy: { id: "asc" }, include: { products: { orderBy: { id: "asc" } } } }));

async function expectRejected(plan: Record<string, unknown>, errors: Record<string, string[]> | string[]) {
  const before = await snapshot();
  const response = await create(plan);
  expect(response.status, JSON.stringify(plan)).toBe(422);
  expect(response.body.error_code).toBe("validation_failed");
  if (Array.isArray(errors)) expect(Object.keys(response.body.errors).sort()).toEqual(errors.sort());
  else expect(response.body.errors).toEqual(errors);
  expect(await snapshot()).toBe(before);
}

describe("POST /api/subscription_plans", () => {
  // A company-default create waits for the company's row lock other default writes hold; it ran in
  // Prisma's default transaction options (503 database_busy behind a slow write, as plan deletes).
  it.skipIf(!inject("databaseServer"))("lets a burst of company-default creates wait for a slow write holding the company: every one 201, one default", async () => {
    const companyWrite = { sql: "SELECT id FROM companies WHERE id = $1 FOR NO KEY UPDATE", params: [acme.id] };
    const burst = await burstBehindHeldLock(t.db, companyWrite, () => Promise.all(Array.from({ length: 12 }, (_, index) => create({ name: `Default ${index}`, company_default: true }))));
    expect(burst.map((response) => response.status)).toEqual(Array(12).fill(201));
    expect(await t.db.prisma.subscriptionPlan.count({ where: { company_id: acme.id, company_default: true } })).toBe(1);
  });

  it("creates a plan: 201 with every field, the seed's defaults and computed members", async () => {
    const response = await create({ name: "Every two weeks", billing_interval: 2, billing_interval_unit: "week", product_subscription_plans: [{ product_id: coffee.id, default: true }, { product_id: tea.id }] });
    expect(response.status).toBe(201);
    const plan = response.body.subscription_plan;
    expect(Object.keys(plan).sort()).toEqual(PLAN_KEYS);
    expect(plan).toMatchObject({
      name: "Every two weeks",
      billing_interval: 2,
      billing_interval_unit: "week",
      billing_frequency_in_words: "Every 2 weeks",
      shipping_interval: 1,
      volume_interval_unit: "month",
      trial_period: null,
      trial_period_unit: null,
      split_volume: false,
      allow_skipping: true,
      max_skips: null,
      allow_max_billing_cycles: false,
      max_billing_cycles: null,
      price_adjustment_type: null,
      price_adjustment_amount: null,
      display_price_adjustment_amount: null,
      active: true,
      company_default: false,
      products_count: 2,
      subscribers_count: 0,
      company: { id: acme.id, name: "Acme" },
      subscriptions: [],
      products: [{ id: coffee.id }, { id: tea.id }],
    });
    expect(plan.product_subscription_plans).toEqual([
      { id: expect.any(Number), product_id: coffee.id, default: true },
      { id: expect.any(Number), product_id: tea.id, default: false },
    ]);
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
  });

  it("takes one link as an object, as the seed shows it, like a list of one", async () => {
    const response = await create({ product_subscription_plans: { product_id: coffee.id, default: true } });
    expect(response.status).toBe(201);
    expect(response.body.subscription_plan.product_subscription_plans).toEqual([{ id: expect.any(Number), product_id: coffee.id, default: true }]);
    await expectRejected({ product_subscription_plans: { product_id: "coffee" } }, ["subscription_plan.product_subscription_plans.product_id"]);
    await expectRejected({ product_subscription_plans: [{ product_id: coffee.id }, { product_id: "tea" }] }, ["subscription_plan.product_subscription_plans.1.product_id"]);
    await expectRejected({ product_subscription_plans: { product_id: foreignProduct.id } }, {
      "subscription_plan.product_subscription_plans.product_id": ["does not name a product of this company"],
    });
    await expectRejected({ product_subscription_plans: "coffee" }, ["subscription_plan.product_subscription_plans"]);
    // zod's own "Invalid input" for a value that fits neither form said nothing of what to send.
    for (const links of [null, "coffee", 7]) {
      await expectRejected({ product_subscription_plans: links }, { "subscription_plan.product_subscription_plans": ["must be a product link object or a list of them"] });
    }
  });

  it("takes the links beside subscription_plan too, as the seed's wording allows, but not in both places", async () => {
    const response = await call("POST", "/api/subscription_plans", {
      token: acme.token,
      body: { subscription_plan: REQUIRED, product_subscription_plans: { product_id: coffee.id, default: true } },
    });
    expect(response.status).toBe(201);
    expect(response.body.subscription_plan.product_subscription_plans).toEqual([{ id: expect.any(Number), product_id: coffee.id, default: true }]);
    const before = await snapshot();
    const both = await call("POST", "/api/subscription_plans", {
      token: acme.token,
      body: { subscription_plan: { ...REQUIRED, product_subscription_plans: [{ product_id: tea.id }] }, product_subscription_plans: [{ product_id: coffee.id }] },
    });
    expect(both.status).toBe(422);
    expect(both.body.errors).toEqual({ product_subscription_plans: ["send the product links in one place: inside subscription_plan or beside it"] });
    const foreign = await call("POST", "/api/subscription_plans", { token: acme.token, body: { subscription_plan: REQUIRED, product_subscription_plans: [{ product_id: foreignProduct.id }] } });
    expect(foreign.body.errors).toEqual({ "product_subscription_plans.0.product_id": ["does not name a product of this company"] });
    expect(await snapshot()).toBe(before);
  });

  it("says the frequency in words for each unit", async () => {
    for (const [interval, unit, words] of [
      [1, "month", "Every month"],
      [1, "day", "Every day"],
      [3, "year", "Every 3 years"],
      [29, "day", "Every 29 days"],
    ] as const) {
      const response = await create({ billing_interval: interval, billing_interval_unit: unit });
      expect(response.body.subscription_plan.billing_frequency_in_words).toBe(words);
    }
  });

  it("stores every optional member", async () => {
    const optional = {
      trial_period: 14,
      trial_period_unit: "day",
      split_volume: true,
      allow_skipping: false,
      max_skips: 3,
      allow_max_billing_cycles: true,
      max_billing_cycles: 12,
      price_adjustment_type: "percentage",
      price_adjustment_amount: 12.5,
      active: false,
      company_default: true,
    };
    const response = await create(optional);
    expect(response.status).toBe(201);
    expect(response.body.subscription_plan).toMatchObject(optional);
  });

  it("requires name and the six interval members (422 naming each; nothing created)", async () => {
    const before = await snapshot();
    const response = await call("POST", "/api/subscription_plans", { token: acme.token, body: { subscription_plan: {} } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual(Object.fromEntries(Object.keys(REQUIRED).map((key) => [`subscription_plan.${key}`, ["is required"]])));
    expect((await call("POST", "/api/subscription_plans", { token: acme.token, body: {} })).body.errors).toEqual({ subscription_plan: ["is required"] });
    expect(await snapshot()).toBe(before);
  });

  it("enforces intervals 1..29 and the unit enum on all three intervals", async () => {
    for (const prefix of ["billing", "shipping", "volume"]) {
      await expectRejected({ [`${prefix}_interval`]: 0 }, [`subscription_plan.${prefix}_interval`]);
      await expectRejected({ [`${prefix}_interval`]: 30 }, [`subscription_plan.${prefix}_interval`]);
      await expectRejected({ [`${prefix}_interval`]: 1.5 }, [`subscription_plan.${prefix}_interval`]);
      await expectRejected({ [`${prefix}_interval_unit`]: "fortnight" }, [`subscription_plan.${prefix}_interval_unit`]);
    }
    expect((await create({ billing_interval: 29, shipping_interval: 29, volume_interval: 29 })).status).toBe(201);
    expect((await create({ billing_interval: 1, shipping_interval_unit: "day", volume_interval_unit: "year" })).status).toBe(201);
  });

  it("enforces trial_period >= 1 with a unit, max_skips >= 1, max_billing_cycles when allowed", async () => {
    await expectRejected({ trial_period: 0, trial_period_unit: "day" }, ["subscription_plan.trial_period"]);
    await expectRejected({ trial_period: 7 }, { "subscription_plan.trial_period_unit": ["is required when trial_period is set"] });
    await expectRejected({ trial_period: 7, trial_period_unit: "hour" }, ["subscription_plan.trial_period_unit"]);
    await expectRejected({ trial_period: null, trial_period_unit: "day" }, { "subscription_plan.trial_period": ["is required when trial_period_unit is set"] });
    await expectRejected({ trial_period_unit: "day" }, { "subscription_plan.trial_period": ["is required when trial_period_unit is set"] });
    await expectRejected({ max_skips: 0 }, ["subscription_plan.max_skips"]);
    await expectRejected({ allow_max_billing_cycles: true }, { "subscription_plan.max_billing_cycles": ["is required when allow_max_billing_cycles is true"] });
    await expectRejected({ allow_max_billing_cycles: true, max_billing_cycles: 0 }, ["subscription_plan.max_billing_cycles"]);
    expect((await create({ trial_period: 1, trial_period_unit: "week", max_skips: 1, allow_max_billing_cycles: true, max_billing_cycles: 1 })).status).toBe(201);
  });

  it("enforces the price adjustment: type enum, non-negative amount, percentage at most 100, both or neither", async () => {
    await expectRejected({ price_adjustment_type: "bogus", price_adjustment_amount: 5 }, ["subscription_plan.price_adjustment_type"]);
    await expectRejected({ price_adjustment_type: "fixed_amount", price_adjustment_amount: -1 }, { "subscription_plan.price_adjustment_amount": ["Too small: expected number to be >=0"] });
    await expectRejected({ price_adjustment_type: "percentage", price_adjustment_amount: 100.01 }, { "subscription_plan.price_adjustment_amount": ["must be at most 100 for a percentage"] });
    await expectRejected({ price_adjustment_type: "percentage" }, { "subscription_plan.price_adjustment_amount": ["is required when price_adjustment_type is set"] });
    await expectRejected({ price_adjustment_amount: 5 }, { "subscription_plan.price_adjustment_type": ["is required when price_adjustment_amount is set"] });
    await expectRejected({ price_adjustment_type: "fixed_amount", price_adjustment_amount: 1.00001 }, ["subscription_plan.price_adjustment_amount"]);
    expect((await create({ price_adjustment_type: "percentage", price_adjustment_amount: 100 })).body.subscription_plan.price_adjustment_amount).toBe(100);
    expect((await create({ price_adjustment_type: "percentage", price_adjustment_amount: 0 })).body.subscription_plan.price_adjustment_amount).toBe(0);
    expect((await create({ price_adjustment_type: "fixed_amount", price_adjustment_amount: 150.25 })).body.subscription_plan.price_adjustment_amount).toBe(150.25);
  });

  it("takes a fixed amount with at most 3 decimals, as every amount bound to no currency; a percentage with 4", async () => {
    await expectRejected(
      { price_adjustment_type: "fixed_amount", price_adjustment_amount: 1.0005 },
      { "subscription_plan.price_adjustment_amount": ["must have at most 3 decimal places for a fixed_amount"] },
    );
    expect((await create({ price_adjustment_type: "fixed_amount", price_adjustment_amount: 1.005 })).body.subscription_plan.price_adjustment_amount).toBe(1.005);
    expect((await create({ price_adjustment_type: "percentage", price_adjustment_amount: 12.3456 })).body.subscription_plan.price_adjustment_amount).toBe(12.3456);
  });

  // A plan is bound to no currency: the cart or order it prices gives one, so no symbol.
  it("says the adjustment as display text: a percent sign for a percentage, plain decimal text for a fixed amount", async () => {
    for (const [type, amount, display] of [
      ["percentage", 12.5, "12.5%"],
      ["percentage", 10, "10%"],
      ["percentage", 0.0125, "0.0125%"],
      ["fixed_amount", 5, "5.00"],
      ["fixed_amount", 5.1, "5.10"],
      ["fixed_amount", 1.005, "1.005"],
    ] as const) {
      const plan = (await create({ price_adjustment_type: type, price_adjustment_amount: amount })).body.subscription_plan;
      expect(plan, `${type} ${amount}`).toMatchObject({ price_adjustment_amount: amount, display_price_adjustment_amount: display });
    }
  });

  it("answers 422 for another company's or unknown products and a product linked twice", async () => {
    await expectRejected(
      { product_subscription_plans: [{ product_id: foreignProduct.id }, { product_id: 999_999 }] },
      {
        "subscription_plan.product_subscription_plans.0.product_id": ["does not name a product of this company"],
        "subscription_plan.product_subscription_plans.1.product_id": ["does not name a product of this company"],
      },
    );
    await expectRejected(
      { product_subscription_plans: [{ product_id: coffee.id }, { product_id: coffee.id }] },
      {
        "subscription_plan.product_subscription_plans.0.product_id": ["is already linked to this plan"],
        "subscription_plan.product_subscription_plans.1.product_id": ["is already linked to this plan"],
      },
    );
  });

  it("keeps at most one company default: a new default clears the previous one", async () => {
    const first = await createId({ company_default: true });
    const foreignDefault = await createId({ company_default: true }, globex.token);
    const second = await createId({ company_default: true });
    expect((await show(first)).body.subscription_plan.company_default).toBe(false);
    expect((await show(second)).body.subscription_plan.company_default).toBe(true);
    expect((await show(foreignDefault, globex.token)).body.subscription_plan.company_default).toBe(true);
  });

  it("keeps concurrent company defaults to one", async () => {
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => create({ name: `Plan ${i}`, company_default: true })));
    expect(results.every((response) => response.status === 201)).toBe(true);
    expect(await t.db.prisma.subscriptionPlan.count({ where: { company_id: acme.id, company_default: true } })).toBe(1);
  });

  it("keeps one default plan per product: a new default link clears the product's other", async () => {
    const first = await createId({ product_subscription_plans: [{ product_id: coffee.id, default: true }] });
    await createId({ product_subscription_plans: [{ product_id: coffee.id, default: true }, { product_id: tea.id, default: true }] });
    expect((await show(first)).body.subscription_plan.product_subscription_plans).toEqual([expect.objectContaining({ product_id: coffee.id, default: false })]);
    expect(await t.db.prisma.productSubscriptionPlan.count({ where: { product_id: coffee.id, default: true } })).toBe(1);
  });

  it("answers 401 without a token", async () => {
    const response = await call("POST", "/api/subscription_plans", { body: { subscription_plan: REQUIRED } });
    expect(response.status).toBe(401);
    expect(await t.db.prisma.subscriptionPlan.count()).toBe(0);
  });
});

describe("GET /api/subscription_plans/{id}", () => {
  it("shows the plan with subscriptions that are not cancelled and their count", async () => {
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const active = await addSubscriptionOrder(t.db.prisma, acme.id, id, "active");
    const paused = await addSubscriptionOrder(t.db.prisma, acme.id, id, "paused");
    await addSubscriptionOrder(t.db.prisma, acme.id, id, "cancelled");
    const response = await show(id);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.subscription_plan).sort()).toEqual(PLAN_KEYS);
    expect(response.body.subscription_plan).toMatchObject({ subscribers_count: 2, subscriptions: [{ id: active }, { id: paused }], products_count: 1, products: [{ id: coffee.id }] });
    await t.db.prisma.$executeRaw`DELETE FROM subscription_orders`;
  });

  it("does not show links to deleted products", async () => {
    const { product: discontinued } = await createProduct(t.db.prisma, acme.id, { title: "Discontinued", variants: [] });
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id }, { product_id: discontinued.id }] });
    await t.db.prisma.product.update({ where: { id: discontinued.id }, data: { deleted_at: new Date() } });
    expect((await show(id)).body.subscription_plan).toMatchObject({ products_count: 1, products: [{ id: coffee.id }] });
  });

  it("answers 404 for another company's plan, an unknown id and a malformed id; 401 without a token", async () => {
    const foreign = await createId({}, globex.token);
    for (const path of [`/api/subscription_plans/${foreign}`, "/api/subscription_plans/999999", "/api/subscription_plans/x"]) {
      const response = await call("GET", path, { token: acme.token });
      expect(response.status).toBe(404);
      expect(response.body.error_code).toBe("not_found");
    }
    expect((await call("GET", `/api/subscription_plans/${foreign}`)).status).toBe(401);
  });
});

describe("PUT /api/subscription_plans/{id}", () => {
  it("updates only the members sent; the interval members may be omitted", async () => {
    const id = await createId({ trial_period: 7, trial_period_unit: "day" });
    const response = await update(id, { name: "Renamed", billing_interval: 3 });
    expect(response.status).toBe(200);
    expect(response.body.subscription_plan).toMatchObject({ name: "Renamed", billing_interval: 3, billing_frequency_in_words: "Every 3 months", trial_period: 7, trial_period_unit: "day", shipping_interval: 1 });
  });

  it("clears nullable members with null", async () => {
    const id = await createId({ trial_period: 7, trial_period_unit: "day", price_adjustment_type: "fixed_amount", price_adjustment_amount: 2 });
    const response = await update(id, { trial_period: null, trial_period_unit: null, price_adjustment_type: null, price_adjustment_amount: null });
    expect(response.body.subscription_plan).toMatchObject({
      trial_period: null,
      trial_period_unit: null,
      price_adjustment_type: null,
      price_adjustment_amount: null,
      display_price_adjustment_amount: null,
    });
  });

  it("refuses a trial unit without a period, counting the stored members the update leaves in place", async () => {
    const trial = await createId({ trial_period: 7, trial_period_unit: "day" });
    const plain = await createId();
    const before = await snapshot();
    for (const [id, plan] of [
      [trial, { trial_period: null }],
      [plain, { trial_period_unit: "week" }],
      [plain, { trial_period: null, trial_period_unit: "week" }],
    ] as const) {
      const response = await update(id, plan);
      expect(response.status, JSON.stringify(plan)).toBe(422);
      expect(response.body.errors).toEqual({ "subscription_plan.trial_period": ["is required when trial_period_unit is set"] });
    }
    expect(await snapshot()).toBe(before);
  });

  it("checks the rules against the plan as it would be stored, and changes nothing on 422", async () => {
    const id = await createId({ price_adjustment_type: "fixed_amount", price_adjustment_amount: 150 });
    const before = await snapshot();
    for (const [plan, field] of [
      [{ price_adjustment_type: "percentage" }, "subscription_plan.price_adjustment_amount"],
      [{ allow_max_billing_cycles: true }, "subscription_plan.max_billing_cycles"],
      [{ trial_period: 3 }, "subscription_plan.trial_period_unit"],
      [{ billing_interval: 30 }, "subscription_plan.billing_interval"],
      [{ max_skips: 0 }, "subscription_plan.max_skips"],
      [{ name: "" }, "subscription_plan.name"],
      [{ name: "\u200b\u2060 " }, "subscription_plan.name"],
    ] as const) {
      const response = await update(id, { ...plan, active: false });
      expect(response.status, JSON.stringify(plan)).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual([field]);
    }
    expect(await snapshot()).toBe(before);
  });

  it("keeps a fixed amount stored with 4 decimals editable, and checks it once the adjustment is sent", async () => {
    const id = await createId({ price_adjustment_type: "fixed_amount", price_adjustment_amount: 2 });
    await t.db.prisma.subscriptionPlan.update({ where: { id }, data: { price_adjustment_amount: "1.0005" } });
    const renamed = await update(id, { name: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.subscription_plan).toMatchObject({ name: "Renamed", price_adjustment_amount: 1.0005 });
    const before = await snapshot();
    const retyped = await update(id, { price_adjustment_type: "fixed_amount" });
    expect(retyped.status).toBe(422);
    expect(retyped.body.errors).toEqual({ "subscription_plan.price_adjustment_amount": ["must have at most 3 decimal places for a fixed_amount"] });
    expect(await snapshot()).toBe(before);
    expect((await update(id, { price_adjustment_amount: 1.5 })).body.subscription_plan.price_adjustment_amount).toBe(1.5);
  });

  it("adds, changes and removes product links; an entry with id changes that link", async () => {
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const [coffeeLink] = (await show(id)).body.subscription_plan.product_subscription_plans;
    const added = await update(id, { product_subscription_plans: [{ id: coffeeLink.id, default: true }, { product_id: tea.id }] });
    expect(added.status).toBe(200);
    expect(added.body.subscription_plan.product_subscription_plans).toEqual([
      { id: coffeeLink.id, product_id: coffee.id, default: true },
      { id: expect.any(Number), product_id: tea.id, default: false },
    ]);
    const removed = await update(id, { product_subscription_plans: [{ id: coffeeLink.id, _destroy: true }] });
    expect(removed.body.subscription_plan).toMatchObject({ products_count: 1, products: [{ id: tea.id }] });
    const [teaLink] = removed.body.subscription_plan.product_subscription_plans;
    const changedAsObject = await update(id, { product_subscription_plans: { id: teaLink.id, default: true } });
    expect(changedAsObject.body.subscription_plan.product_subscription_plans).toEqual([{ id: teaLink.id, product_id: tea.id, default: true }]);
  });

  // An integration sends a link as its record holds it: a new link's id, a kept link's product_id
  // are null there. Both were 422s ("expected number, received null").
  it("reads a link's null id or product_id as absent", async () => {
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const [coffeeLink] = (await show(id)).body.subscription_plan.product_subscription_plans;
    const response = await update(id, { product_subscription_plans: [{ id: coffeeLink.id, product_id: null, default: true }, { id: null, product_id: tea.id }] });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.subscription_plan.product_subscription_plans).toEqual([
      { id: coffeeLink.id, product_id: coffee.id, default: true },
      { id: expect.any(Number), product_id: tea.id, default: false },
    ]);
    const before = await snapshot();
    const neither = await update(id, { product_subscription_plans: [{ id: null, product_id: null }] });
    expect(neither.status).toBe(422);
    expect(neither.body.errors).toEqual({ "subscription_plan.product_subscription_plans.0.product_id": ["is required"] });
    expect(await snapshot()).toBe(before);
  });

  it("moves the product default between plans", async () => {
    const first = await createId({ product_subscription_plans: [{ product_id: coffee.id, default: true }] });
    const second = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const [link] = (await show(second)).body.subscription_plan.product_subscription_plans;
    await update(second, { product_subscription_plans: [{ id: link.id, default: true }] });
    expect((await show(first)).body.subscription_plan.product_subscription_plans[0].default).toBe(false);
    expect((await show(second)).body.subscription_plan.product_subscription_plans[0].default).toBe(true);
  });

  it("moves a default link to another product as that product's default, clearing its previous default", async () => {
    const teaDefault = await createId({ name: "Tea default", product_subscription_plans: [{ product_id: tea.id, default: true }] });
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id, default: true }] });
    const [link] = (await show(id)).body.subscription_plan.product_subscription_plans;
    const moved = await update(id, { product_subscription_plans: { id: link.id, product_id: tea.id } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.subscription_plan.product_subscription_plans).toEqual([{ id: link.id, product_id: tea.id, default: true }]);
    expect((await show(teaDefault)).body.subscription_plan.product_subscription_plans).toEqual([expect.objectContaining({ product_id: tea.id, default: false })]);
    expect(await t.db.prisma.productSubscriptionPlan.count({ where: { product_id: tea.id, default: true } })).toBe(1);
  });

  it("moves a default link sent as no longer default without taking the product's default", async () => {
    const teaDefault = await createId({ name: "Tea default", product_subscription_plans: [{ product_id: tea.id, default: true }] });
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id, default: true }] });
    const [link] = (await show(id)).body.subscription_plan.product_subscription_plans;
    const moved = await update(id, { product_subscription_plans: { id: link.id, product_id: tea.id, default: false } });
    expect(moved.body.subscription_plan.product_subscription_plans).toEqual([{ id: link.id, product_id: tea.id, default: false }]);
    expect((await show(teaDefault)).body.subscription_plan.product_subscription_plans[0].default).toBe(true);
  });

  // The request is checked against the links as they would be after it; they are written so,
  // whatever the entries' order, though the unique (plan, product) index holds between any two.
  it.each([
    ["coffee's link first", [0, 1]],
    ["tea's link first", [1, 0]],
  ])("swaps the products of two links (%s), each keeping its id and default", async (_, order) => {
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id, default: true }, { product_id: tea.id }] });
    const [coffeeLink, teaLink] = (await show(id)).body.subscription_plan.product_subscription_plans;
    const entries = [
      { id: coffeeLink.id, product_id: tea.id },
      { id: teaLink.id, product_id: coffee.id },
    ];
    const swapped = await update(id, { product_subscription_plans: order.map((index) => entries[index]) });
    expect(swapped.status, JSON.stringify(swapped.body)).toBe(200);
    expect(swapped.body.subscription_plan.product_subscription_plans).toEqual([
      { id: coffeeLink.id, product_id: tea.id, default: true },
      { id: teaLink.id, product_id: coffee.id, default: false },
    ]);
  });

  it.each([
    ["the new link first", [0, 1]],
    ["the moved link first", [1, 0]],
  ])("moves a link off a product while adding a new link for it (%s)", async (_, order) => {
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const [coffeeLink] = (await show(id)).body.subscription_plan.product_subscription_plans;
    const entries = [{ product_id: coffee.id, default: true }, { id: coffeeLink.id, product_id: tea.id }];
    const rearranged = await update(id, { product_subscription_plans: order.map((index) => entries[index]) });
    expect(rearranged.status, JSON.stringify(rearranged.body)).toBe(200);
    expect(rearranged.body.subscription_plan.product_subscription_plans).toEqual([
      { id: coffeeLink.id, product_id: tea.id, default: false },
      { id: expect.any(Number), product_id: coffee.id, default: true },
    ]);
  });

  it("answers 422 for two entries naming one link, whose outcome would depend on their order", async () => {
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const [link] = (await show(id)).body.subscription_plan.product_subscription_plans;
    const before = await snapshot();
    const response = await update(id, { product_subscription_plans: [{ id: link.id, product_id: tea.id }, { id: link.id, _destroy: true }] });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "subscription_plan.product_subscription_plans.1.id": ["names the same link as entry 0"] });
    expect(await snapshot()).toBe(before);
  });

  it("answers 422 for a link of another plan, a removal without id, a new link without product, a second link to a product", async () => {
    const other = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const [otherLink] = (await show(other)).body.subscription_plan.product_subscription_plans;
    const id = await createId({ product_subscription_plans: [{ product_id: tea.id }] });
    const before = await snapshot();
    const response = await update(id, {
      name: "Changed",
      product_subscription_plans: [{ id: otherLink.id, default: true }, { _destroy: true }, { default: true }, { product_id: tea.id }, { product_id: foreignProduct.id }],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "subscription_plan.product_subscription_plans.0.id": ["does not name a product link of this plan"],
      "subscription_plan.product_subscription_plans.1.id": ["is required to remove a link"],
      "subscription_plan.product_subscription_plans.2.product_id": ["is required"],
      "subscription_plan.product_subscription_plans.3.product_id": ["is already linked to this plan"],
      "subscription_plan.product_subscription_plans.4.product_id": ["does not name a product of this company"],
    });
    expect(await snapshot()).toBe(before);
  });

  it("sets company_default, clearing the other plan's, in one step", async () => {
    const first = await createId({ company_default: true });
    const second = await createId();
    const response = await update(second, { company_default: true });
    expect(response.body.subscription_plan.company_default).toBe(true);
    expect((await show(first)).body.subscription_plan.company_default).toBe(false);
  });

  it("takes links beside subscription_plan, and a link's company_default as the plan's", async () => {
    const first = await createId({ company_default: true });
    const id = await createId();
    const response = await update(id, {}, { id, product_subscription_plans: { product_id: tea.id, default: true, company_default: true } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.subscription_plan).toMatchObject({ company_default: true, product_subscription_plans: [{ product_id: tea.id, default: true }] });
    expect((await show(first)).body.subscription_plan.company_default).toBe(false);
    const before = await snapshot();
    const conflicting = await update(id, { company_default: true }, { product_subscription_plans: [{ product_id: coffee.id, company_default: false }] });
    expect(conflicting.status).toBe(422);
    expect(conflicting.body.errors).toEqual({ "product_subscription_plans.0.company_default": ["differs from the company_default sent with it"] });
    expect(await snapshot()).toBe(before);
  });

  it("answers 422 when the body's id differs from the path's", async () => {
    const id = await createId();
    const response = await update(id, { name: "X" }, { id: id + 1 });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ id: ["must equal the id in the path"] });
    expect((await update(id, { name: "Same id" }, { id })).status).toBe(200);
  });

  it("answers 404 for another company's plan and changes nothing; 401 without a token", async () => {
    const foreign = await createId({}, globex.token);
    const before = await snapshot();
    expect((await update(foreign, { name: "Mine" })).status).toBe(404);
    expect((await call("PUT", `/api/subscription_plans/${foreign}`, { body: { subscription_plan: { name: "Mine" } } })).status).toBe(401);
    expect(await snapshot()).toBe(before);
  });
});

// Found by an audit: an update locked its plan, then the company, then (clearing the previous
// default) the other plan, so two plans made default at once each waited for the other's lock
// and PostgreSQL failed one of them with a deadlock (a 500).
describe("concurrent company defaults", () => {
  it("two plans made the company default at once both answer 200, and one of them is the default", async () => {
    const first = await createId({ name: "First" });
    const second = await createId({ name: "Second" });
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all([first, second].map((id) => update(id, { company_default: true })));
      expect(answers.map((answer) => answer.status), `round ${round}`).toEqual([200, 200]);
      const defaults = await t.db.prisma.subscriptionPlan.findMany({ where: { company_id: acme.id, company_default: true }, select: { id: true } });
      expect(defaults, `round ${round}`).toHaveLength(1);
    }
  });

  it("a plan created as the default while the default plan is made default again: both answer, one default", async () => {
    const current = await createId({ name: "Current", company_default: true });
    for (let round = 0; round < 10; round++) {
      const [updated, created] = await Promise.all([update(current, { company_default: true, product_subscription_plans: [{ product_id: coffee.id, default: true }] }), create({ name: `New ${round}`, company_default: true, product_subscription_plans: [{ product_id: coffee.id, default: true }] })]);
      expect([updated.status, created.status], `round ${round}`).toEqual([200, 201]);
      expect(await t.db.prisma.subscriptionPlan.count({ where: { company_id: acme.id, company_default: true } })).toBe(1);
      await t.db.prisma.subscriptionPlan.delete({ where: { id: created.body.subscription_plan.id } });
      await t.db.prisma.productSubscriptionPlan.deleteMany({ where: { subscription_plan_id: current } });
    }
  });
});

describe("DELETE /api/subscription_plans/{id}", () => {
  // A plan's delete waits for the plan's row lock that other plan writes hold; it ran in Prisma's
  // default transaction options, so a burst behind a slow write answered 503 database_busy for
  // the requests left waiting 2 s for a pooled connection.
  it.skipIf(!inject("databaseServer"))("lets a burst of deletes wait for a slow write holding the plans: every one 200", async () => {
    const ids: number[] = [];
    for (let index = 0; index < 12; index++) ids.push(await createId());
    const planWrite = { sql: "SELECT id FROM subscription_plans WHERE id = ANY($1::int[]) FOR UPDATE", params: [ids] };
    const burst = await burstBehindHeldLock(t.db, planWrite, () => Promise.all(ids.map((id) => call("DELETE", `/api/subscription_plans/${id}`, { token: acme.token }))));
    expect(burst.map((response) => response.status)).toEqual(Array(ids.length).fill(200));
    expect(await t.db.prisma.subscriptionPlan.count({ where: { id: { in: ids } } })).toBe(0);
  });

  it("deletes the plan and its product links: {subscription_plan, meta}", async () => {
    const id = await createId({ product_subscription_plans: [{ product_id: coffee.id }] });
    const response = await call("DELETE", `/api/subscription_plans/${id}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.subscription_plan).toMatchObject({ id, name: "Monthly" });
    expect(await t.db.prisma.productSubscriptionPlan.count()).toBe(0);
    expect((await show(id)).status).toBe(404);
  });

  it("answers 409 while the plan has subscriptions that are not cancelled; cancelled ones do not hold it", async () => {
    for (const status of ["pending", "active", "paused", "past_due"]) {
      const id = await createId();
      await addSubscriptionOrder(t.db.prisma, acme.id, id, status);
      const response = await call("DELETE", `/api/subscription_plans/${id}`, { token: acme.token });
      expect(response.status, status).toBe(409);
      expect(response.body.error_code).toBe("plan_has_subscriptions");
      expect(await t.db.prisma.subscriptionPlan.count({ where: { id } })).toBe(1);
    }
    const cancelledOnly = await createId();
    await addSubscriptionOrder(t.db.prisma, acme.id, cancelledOnly, "cancelled");
    expect((await call("DELETE", `/api/subscription_plans/${cancelledOnly}`, { token: acme.token })).status).toBe(200);
    await t.db.prisma.$executeRaw`DELETE FROM subscription_orders`;
  });

  it("answers concurrent deletes, and updates racing a delete, with 200 or 404, never a 500", async () => {
    const id = await createId();
    const deletes = await Promise.all(Array.from({ length: 6 }, () => call("DELETE", `/api/subscription_plans/${id}`, { token: acme.token })));
    expect(deletes.map((response) => response.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
    const raced = await createId();
    const responses = await Promise.all([
      update(raced, { name: "A" }),
      update(raced, { name: "B" }),
      call("DELETE", `/api/subscription_plans/${raced}`, { token: acme.token }),
      update(raced, { name: "C" }),
      update(raced, { name: "D" }),
    ]);
    for (const response of responses) expect([200, 404]).toContain(response.status);
    expect(await t.db.prisma.subscriptionPlan.count({ where: { id: raced } })).toBe(0);
  });

  it("never deletes a plan while a subscription to it is being created: one of the two is refused", async () => {
    const { user: customer } = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const { product } = await createProduct(t.db.prisma, acme.id, { title: "Racing beans", variants: [] });
    const variant = await createVariant(t.db.prisma, acme.id, product.id, { prices: { US: 1000 } });
    const us = await countryId(t.db.prisma, "US");
    for (let round = 0; round < 6; round += 1) {
      const id = await createId({ name: `Raced ${round}` });
      const [order, removal] = await Promise.all([
        call("POST", "/api/v2/subscription_orders", {
          token: acme.token,
          body: {
            subscription_order: {
              customer_id: customer.id,
              subscription_plan_id: id,
              items: [{ variant_id: variant.id, quantity: 1 }],
              ship_to: { country_id: us, name: "Casey", address1: "1 Main St", city: "Springfield" },
            },
          },
        }),
        call("DELETE", `/api/subscription_plans/${id}`, { token: acme.token }),
      ]);
      expect([order.status, removal.status].sort(), JSON.stringify([order.body, removal.body])).toEqual(order.status === 201 ? [201, 409] : [200, 422]);
      const orders = await t.db.prisma.subscriptionOrder.findMany({ where: { company_id: acme.id, subscription_plan_id: null } });
      expect(orders).toEqual([]);
    }
    await t.db.prisma.$executeRaw`DELETE FROM subscription_orders`;
  });

  it("turns the cart lines subscribed to it into one-time purchases", async () => {
    const { product, variant } = await createProduct(t.db.prisma, acme.id, { title: "Beans" });
    const id = await createId({ product_subscription_plans: [{ product_id: product.id, default: true }] });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1, subscription: true }] });
    expect(cart.items[0]).toMatchObject({ subscription: true, subscription_plan_id: id });
    expect((await call("DELETE", `/api/subscription_plans/${id}`, { token: acme.token })).status).toBe(200);
    const changed = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { email: "next@example.com" } }));
    expect(changed.cart.items[0]).toMatchObject({ subscription: false, subscription_plan_id: null });
    expect(changed.cart.recurring).toEqual([]);
  });

  it("answers 404 for another company's plan and deletes nothing; 401 without a token", async () => {
    const foreign = await createId({}, globex.token);
    expect((await call("DELETE", `/api/subscription_plans/${foreign}`, { token: acme.token })).status).toBe(404);
    expect((await call("DELETE", `/api/subscription_plans/${foreign}`)).status).toBe(401);
    expect(await t.db.prisma.subscriptionPlan.count()).toBe(1);
  });
});

describe("GET /api/subscription_plans", () => {
  it("lists the company's plans newest first with pagination and bundle_subscriptions_for_company", async () => {
    const first = await createId({ name: "First" });
    const second = await createId({ name: "Second" });
    await createId({ name: "Foreign" }, globex.token);
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.body.subscription_plans.map((plan: { id: number }) => plan.id)).toEqual([second, first]);
    expect(Object.keys(response.body.subscription_plans[0]).sort()).toEqual(PLAN_KEYS);
    expect(response.body.meta).toMatchObject({ pagination: { current_page: 1, total_pages: 1, total_count: 2, per_page: 25 }, bundle_subscriptions_for_company: false });
    await t.db.prisma.company.update({ where: { id: acme.id }, data: { bundle_subscriptions: true } });
    expect((await list()).body.meta.bundle_subscriptions_for_company).toBe(true);
    await t.db.prisma.company.update({ where: { id: acme.id }, data: { bundle_subscriptions: false } });
  });

  it("pages with page/per_page or the pagination object; both spellings must agree", async () => {
    for (const name of ["A", "B", "C"]) await createId({ name });
    const names = (response: { body: { subscription_plans: { name: string }[] } }) => response.body.subscription_plans.map((plan) => plan.name);
    const flat = await list("?sorted_by=name&sort_direction=asc&page=2&per_page=2");
    expect(names(flat)).toEqual(["C"]);
    expect(flat.body.meta.pagination).toEqual({ current_page: 2, total_pages: 2, total_count: 3, per_page: 2 });
    const nested = await list(`?sorted_by=name&sort_direction=asc&${encodeURI("pagination[page]=2&pagination[per_page]=2")}`);
    expect(names(nested)).toEqual(["C"]);
    expect(nested.body.meta.pagination).toEqual(flat.body.meta.pagination);
    expect((await list("?pagination[page]=1&page=1&pagination[per_page]=1")).body.meta.pagination).toMatchObject({ current_page: 1, per_page: 1, total_pages: 3 });
    const conflicting = await list("?page=1&pagination[page]=2&per_page=5&pagination[per_page]=10");
    expect(conflicting.status).toBe(422);
    expect(conflicting.body.errors).toEqual({ "pagination[page]": ["conflicts with page"], "pagination[per_page]": ["conflicts with per_page"] });
    for (const query of ["pagination[per_page]=101", "pagination[page]=0", "per_page=101", "page=0"]) {
      expect((await list(`?${query}`)).status, query).toBe(422);
    }
  });

  it("filters by active, product and search_query", async () => {
    const coffeePlan = await createId({ name: "Coffee monthly", product_subscription_plans: [{ product_id: coffee.id }] });
    const inactive = await createId({ name: "Old 50%_plan", active: false });
    const ids = async (query: string) => (await list(query)).body.subscription_plans.map((plan: { id: number }) => plan.id);
    expect(await ids("?active=true")).toEqual([coffeePlan]);
    expect(await ids("?active=false")).toEqual([inactive]);
    expect(await ids(`?product=${coffee.id}`)).toEqual([coffeePlan]);
    expect(await ids(`?product=${tea.id}`)).toEqual([]);
    // A link to a deleted product is not shown, and filters nothing in.
    const { product: retired } = await createProduct(t.db.prisma, acme.id, { title: "Retired", variants: [] });
    await createId({ name: "Retired monthly", product_subscription_plans: [{ product_id: retired.id }] });
    expect((await call("DELETE", `/api/products/${retired.id}`, { token: acme.token })).status).toBe(200);
    expect(await ids(`?product=${retired.id}`)).toEqual([]);
    expect(await ids("?search_query=COFFEE")).toEqual([coffeePlan]);
    expect(await ids(`?search_query=${encodeURIComponent("%_")}`)).toEqual([inactive]);
    expect(await ids(`?search_query=${encodeURIComponent("%x")}`)).toEqual([]);
  });

  it("sorts by sorted_by and sort_direction", async () => {
    const b = await createId({ name: "b", billing_interval: 1 });
    const a = await createId({ name: "A", billing_interval: 3 });
    const ids = async (query: string) => (await list(query)).body.subscription_plans.map((plan: { id: number }) => plan.id);
    expect(await ids("?sorted_by=id&sort_direction=asc")).toEqual([b, a]);
    expect(await ids("?sorted_by=billing_interval&sort_direction=desc")).toEqual([a, b]);
    expect(await ids("?sorted_by=created_at&sort_direction=asc")).toEqual([b, a]);
  });

  // On the C collation every capitalised name sorted before every lower-case one.
  it("sorts names as people read them, whatever their case, and renamed plans by their new name", async () => {
    const zebra = await createId({ name: "Zebra" });
    const apple = await createId({ name: "apple" });
    const banana = await createId({ name: "Banana" });
    const names = async (direction: string) => (await list(`?sorted_by=name&sort_direction=${direction}`)).body.subscription_plans.map((plan: { id: number }) => plan.id);
    expect(await names("asc")).toEqual([apple, banana, zebra]);
    expect(await names("desc")).toEqual([zebra, banana, apple]);
    expect((await call("PUT", `/api/subscription_plans/${zebra}`, { token: acme.token, body: { subscription_plan: { name: "aardvark" } } })).status).toBe(200);
    expect(await names("asc")).toEqual([zebra, apple, banana]);
  });

  it("counts subscribers per plan in the list", async () => {
    const held = await createId({ name: "Held" });
    await createId({ name: "Free" });
    const order = await addSubscriptionOrder(t.db.prisma, acme.id, held, "active");
    const response = await list("?sorted_by=name&sort_direction=asc");
    expect(response.body.subscription_plans.map((plan: { name: string; subscribers_count: number; subscriptions: unknown }) => [plan.name, plan.subscribers_count, plan.subscriptions])).toEqual([
      ["Free", 0, []],
      ["Held", 1, [{ id: order }]],
    ]);
    await t.db.prisma.$executeRaw`DELETE FROM subscription_orders`;
  });

  it("answers 422 for invalid filters and sorts; 401 without a token", async () => {
    for (const query of ["active=yes", "product=abc", "sorted_by=price", "sort_direction=up"]) {
      const response = await list(`?${query}`);
      expect(response.status, query).toBe(422);
      expect(response.body.error_code).toBe("validation_failed");
    }
    expect((await call("GET", "/api/subscription_plans")).status).toBe(401);
  });
});
