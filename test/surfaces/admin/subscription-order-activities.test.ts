import { beforeEach, describe, expect, inject, it } from "vitest";
import { RECENT_ACTIVITIES } from "../../../src/domain/subscription-orders/schemas.js";
import { valuesReadDuring } from "../../helpers/database-reads.js";
import { type CompanyFixture, countryId, createCard, createPlan, createProduct, createUserWithToken } from "../../helpers/fixtures.js";
import type { Call, HttpResponse } from "../../helpers/http.js";
import { usAddress } from "../../helpers/subscription-orders.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

// Found by an audit: every read and write of an order carried all its activities, which nothing
// caps. At 10,000 a show was 84 MB and a skip took 11.6 s holding the order's lock; at 20,000
// every change was a 500 (PostgreSQL's jsonb limit, in the change's read of the order).

const BASE = "/api/v2/subscription_orders";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
/** What Acme's orders are made of: a US customer with a saved card, one variant, one plan. */
let refs: { US: number; variantId: number; planId: number; customerId: number; cardId: number };

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  const db = t.db.prisma;
  const customerId = (await createUserWithToken(db, acme.id, "customer")).user.id;
  refs = {
    US: await countryId(db, "US"),
    variantId: (await createProduct(db, acme.id, { variants: [{ prices: { US: 2500 } }] })).variant.id,
    planId: (await createPlan(db, acme.id)).id,
    customerId,
    cardId: (await createCard(db, customerId)).id,
  };
});

beforeEach(async () => {
  await t.db.prisma.subscriptionOrder.deleteMany();
});

interface ActivityShown {
  id: number;
  action: string;
  before: { note?: string } | null;
}

async function createOrder(): Promise<{ id: number; items: Array<{ id: number }> }> {
  const response = await call("POST", BASE, {
    token: acme.token,
    body: {
      subscription_order: {
        customer_id: refs.customerId,
        subscription_plan_id: refs.planId,
        items: [{ variant_id: refs.variantId, quantity: 1 }],
        ship_to: usAddress(refs.US),
        payment_method_id: refs.cardId,
      },
    },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.subscription_order;
}

/** Appends `count` activities to the order with SQL, the n-th noting `<label> <n>` in its before; `pad` characters more make each as large as wanted. */
async function appendActivities(orderId: number, count: number, label: string, pad = 0): Promise<void> {
  await t.db.sql.query(
    `INSERT INTO subscription_order_activities (company_id, subscription_order_id, action, actor_type, actor_id, "before", "after", created_at)
     SELECT $1, $2, 'cancellation_feedback', 'api_token', 'sct_testtest', jsonb_build_object('note', $3 || ' ' || n, 'pad', repeat('x', $5)), NULL, now()
     FROM generate_series(1, $4::int) n ORDER BY n`,
    [acme.id, orderId, label, count, pad],
  );
}

async function activityIds(orderId: number): Promise<number[]> {
  const rows = await t.db.sql.query<{ id: number }>("SELECT id FROM subscription_order_activities WHERE subscription_order_id = $1 ORDER BY id", [orderId]);
  return rows.map((row) => row.id);
}

const ids = (activities: ActivityShown[]) => activities.map((activity) => activity.id);

describe("an order's activities", () => {
  it(`are its ${RECENT_ACTIVITIES} most recent, oldest first, with activities_count, in the show, the list and every change's answer`, async () => {
    const order = await createOrder();
    await appendActivities(order.id, 1_000, "history");
    const stored = await activityIds(order.id);

    const shown = (await call("GET", `${BASE}/${order.id}`, { token: acme.token })).body.subscription_order;
    expect(ids(shown.activities)).toEqual(stored.slice(-RECENT_ACTIVITIES));
    expect(shown.activities.at(-1)).toMatchObject({ action: "cancellation_feedback", before: { note: "history 1000" } });
    expect(shown.activities_count).toBe(1_001);
    const { order_number: _, ...listed } = shown;
    expect((await call("GET", BASE, { token: acme.token })).body.subscription_orders).toEqual([listed]);

    const skipped = (await call("PATCH", `${BASE}/${order.id}/skip_order`, { token: acme.token })).body.subscription_order;
    const afterSkip = await activityIds(order.id);
    expect(ids(skipped.activities)).toEqual(afterSkip.slice(-RECENT_ACTIVITIES));
    expect(skipped.activities.at(-1).action).toBe("skipped");
    expect(skipped.activities_count).toBe(1_002);
    expect((await call("GET", `${BASE}/${order.id}`, { token: acme.token })).body.subscription_order).toEqual(skipped);
  });

  it("are all there for an order that has fewer", async () => {
    const order = await createOrder();
    const skipped = (await call("PATCH", `${BASE}/${order.id}/skip_order`, { token: acme.token })).body.subscription_order;
    expect(skipped.activities.map((activity: ActivityShown) => activity.action)).toEqual(["created", "skipped"]);
    expect(skipped.activities_count).toBe(2);
  });
});

describe("GET /api/v2/subscription_orders/{id}/activities", () => {
  it("pages through the whole history, oldest first, with meta.pagination; each activity as the order shows it", async () => {
    const order = await createOrder();
    await appendActivities(order.id, 250, "history");
    const stored = await activityIds(order.id);
    const pages = [];
    for (let page = 1; page <= 3; page += 1) {
      const response = await call("GET", `${BASE}/${order.id}/activities?per_page=100&page=${page}`, { token: acme.token });
      expect(response.status, response.text).toBe(200);
      expect(response.body.meta).toEqual({
        request_id: response.headers["x-request-id"],
        timestamp: expect.any(String),
        pagination: { current_page: page, total_pages: 3, total_count: 251, per_page: 100 },
      });
      pages.push(...response.body.activities);
    }
    expect(ids(pages)).toEqual(stored);
    expect(pages[0]).toMatchObject({ action: "created", performed_by: { type: "api_token", id: acme.token.slice(0, 12) }, before: null });
    const shown = (await call("GET", `${BASE}/${order.id}`, { token: acme.token })).body.subscription_order;
    expect(pages.slice(-RECENT_ACTIVITIES)).toEqual(shown.activities);

    const firstPage = await call("GET", `${BASE}/${order.id}/activities`, { token: acme.token });
    expect(ids(firstPage.body.activities)).toEqual(stored.slice(0, 25));
    expect(firstPage.body.meta.pagination).toEqual({ current_page: 1, total_pages: 11, total_count: 251, per_page: 25 });
    const pastTheEnd = await call("GET", `${BASE}/${order.id}/activities?per_page=100&page=4`, { token: acme.token });
    expect(pastTheEnd.body.activities).toEqual([]);
    expect(pastTheEnd.body.meta.pagination).toEqual({ current_page: 4, total_pages: 3, total_count: 251, per_page: 100 });
  });

  it("answers 404 for another company's order, an unknown id and a malformed id; 422 for a bad page", async () => {
    const order = await createOrder();
    for (const [path, token] of [[`${BASE}/${order.id}/activities`, globex.token], [`${BASE}/999999/activities`, acme.token], [`${BASE}/abc/activities`, acme.token]] as const) {
      const response = await call("GET", path, { token });
      expect(response.status, path).toBe(404);
      expect(response.body.error_code).toBe("not_found");
    }
    for (const query of ["per_page=101", "page=0", "page=x"]) {
      const response = await call("GET", `${BASE}/${order.id}/activities?${query}`, { token: acme.token });
      expect(response.status, query).toBe(422);
      expect(response.body.error_code).toBe("validation_failed");
    }
  });
});

describe.skipIf(!inject("databaseServer"))("what a read or a change of an order with a long history reads", () => {
  const notesIn = (values: readonly string[]) => new Set(values.flatMap((value) => value.match(/history \d+/g) ?? []));
  const notesAnswered = (response: HttpResponse) => {
    const orders: Array<{ activities: ActivityShown[] }> = response.body.subscription_orders ?? (response.body.subscription_order ? [response.body.subscription_order] : []);
    return orders.flatMap((order) => order.activities.flatMap((activity) => activity.before?.note ?? []));
  };

  it("reads no activity but those it answers with; the reminder, which answers with none, reads none", async () => {
    const order = await createOrder();
    await appendActivities(order.id, 300, "history");
    const itemId = order.items[0]!.id;
    const requests: Array<[string, string, unknown?]> = [
      ["GET", `${BASE}/${order.id}`],
      ["GET", BASE],
      ["PATCH", `${BASE}/${order.id}/skip_order`],
      ["PATCH", `${BASE}/${order.id}`, { items: [{ id: itemId, quantity: 3 }] }],
      ["PATCH", `${BASE}/${order.id}`, { update: true, items: [{ id: itemId, quantity: 2 }] }],
      ["PATCH", `${BASE}/${order.id}/update_shipping_address`, { address: usAddress(refs.US, { address1: "2 Elm St" }) }],
      ["PATCH", `${BASE}/${order.id}/update_payment`, { payment_method: "credit_card", card_id: refs.cardId }],
      ["PATCH", `${BASE}/${order.id}/cancellation_feedback`, { reason: "moving" }],
      ["PATCH", `${BASE}/${order.id}/send_autoship_reminder_email`],
      ["PATCH", `${BASE}/${order.id}/cancel_subscription`],
    ];
    for (const [method, path, body] of requests) {
      let response: HttpResponse | undefined;
      const values = await valuesReadDuring(async () => {
        response = await call(method, path, { token: acme.token, body });
      });
      expect(response?.status, `${method} ${path}: ${response?.text.slice(0, 300)}`).toBe(200);
      expect([...notesIn(values)].sort(), `${method} ${path}`).toEqual(notesAnswered(response!).sort());
    }
  });

  it("changes an order whose activities together pass PostgreSQL's limit of 256 MB for a jsonb array", async () => {
    const order = await createOrder();
    await appendActivities(order.id, 2, "large", 140_000_000);
    await appendActivities(order.id, RECENT_ACTIVITIES, "recent");
    // created, the two large ones and the recent ones; then each change's own.
    for (const [action, count] of [["skip_order", RECENT_ACTIVITIES + 4], ["cancel_subscription", RECENT_ACTIVITIES + 5]] as const) {
      const response = await call("PATCH", `${BASE}/${order.id}/${action}`, { token: acme.token });
      expect(response.status, `${action}: ${response.text.slice(0, 300)}`).toBe(200);
      expect(response.body.subscription_order.activities_count).toBe(count);
    }
  });
});
