import { afterAll, describe, expect, it } from "vitest";
import { createCartOverHttp } from "../helpers/carts.js";
import { createCompanyWithToken, createProduct } from "../helpers/fixtures.js";
import { expectReplayOf, httpClient } from "../helpers/http.js";
import { startTestApp } from "../helpers/test-app.js";

/**
 * Idempotency keys on real operations: a client that retries a cart add-item or an admin
 * create (a lost response, a timeout) with the same Idempotency-Key and body gets the first
 * answer again, marked Idempotent-Replayed, and nothing happens twice. The contract itself is
 * proven in test/platform/idempotency.test.ts.
 */
const t = await startTestApp();
const call = httpClient(t.url);
const shop = await createCompanyWithToken(t.db.prisma, "Retries");
afterAll(async () => {
  await t.close();
});

const withKey = (key: string) => ({ "idempotency-key": key });

describe("a retried cart add-item", () => {
  async function cartAndVariant() {
    const { variant } = await createProduct(t.db.prisma, shop.id, { variants: [{ prices: { US: 1999 } }] });
    const { cart } = await createCartOverHttp(call, shop);
    const add = (key: string) => call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: variant.id, quantity: 2 }] }, headers: withKey(key) });
    const lines = () => t.db.prisma.cartItem.findMany({ where: { cart: { cart_token: cart.cart_token } } });
    return { add, lines };
  }

  it("adds once and replays the first answer with Idempotent-Replayed: true", async () => {
    const { add, lines } = await cartAndVariant();
    const first = await add("add-1");
    expect(first.status, first.text).toBe(200);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(first.body.cart.items).toHaveLength(1);
    expect(first.body.cart.items[0].quantity).toBe(2);

    const retry = await add("add-1");
    expectReplayOf(retry, first);
    expect((await lines()).map((line) => line.quantity)).toEqual([2]);

    // The same request under a new key is a new add: what the key prevented above.
    const again = await add("add-2");
    expect(again.headers["idempotent-replayed"]).toBeUndefined();
    expect((await lines()).map((line) => line.quantity)).toEqual([4]);
  });

  it("adds once when the retries race the first request", async () => {
    const { add, lines } = await cartAndVariant();
    const answers = await Promise.all([1, 2, 3, 4].map(() => add("race-1")));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 409), statuses.join()).toBe(true);
    expect(answers.filter((answer) => answer.status === 200 && answer.headers["idempotent-replayed"] === undefined)).toHaveLength(1);
    for (const busy of answers.filter((answer) => answer.status === 409)) expect(busy.body.error_code).toBe("idempotency_key_in_progress");
    expect((await lines()).map((line) => line.quantity)).toEqual([2]);
  });
});

describe("a retried admin create", () => {
  it("creates one product and replays its 201; the same body under a new key runs again (and meets the sku it made)", async () => {
    const sku = `RETRY-${Date.now()}`;
    const body = { product: { title: "Retry shirt", variants: [{ sku, prices: [{ country_code: "US", price: "25.00" }] }] } };
    const create = (key: string) => call("POST", "/api/products", { token: shop.token, body, headers: withKey(key) });
    const products = () => t.db.prisma.product.count({ where: { company_id: shop.id, title: "Retry shirt" } });

    const first = await create("create-1");
    expect(first.status, first.text).toBe(201);
    const retry = await create("create-1");
    expectReplayOf(retry, first);
    expect(retry.body.product.id).toBe(first.body.product.id);
    expect(await products()).toBe(1);

    const fresh = await create("create-2");
    expect(fresh.status).toBe(422);
    expect(fresh.body.errors).toEqual({ "product.variants.0.sku": ["has already been taken"] });
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();
    expect(await products()).toBe(1);
  });
});
