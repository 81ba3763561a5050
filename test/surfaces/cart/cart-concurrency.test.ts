import { describe, expect, inject, it } from "vitest";
import { cartResponse } from "../../../src/domain/carts/schemas.js";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import { type CompanyFixture, createProduct } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { queuedBehindHeldLock } from "../../helpers/lock-queue.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

describe("concurrent mutations of one cart serialize on its row lock", () => {
  it("keeps all 50 keys of 50 concurrent append_metadata calls", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => call("PATCH", `/api/carts/${cart.cart_token}/append_metadata`, { body: { metadata: { [`key${index}`]: index } } })),
    );
    for (const response of responses) cartResponse.parse(response.body);
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    const { cart: after } = parseCart(await call("GET", `/api/carts/${cart.cart_token}`));
    expect(Object.keys(after.metadata).sort()).toEqual(Array.from({ length: 50 }, (_, index) => `key${index}`).sort());
  });

  it("leaves the exact summed quantity after 20 concurrent adds, with totals to match", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 }, cv: 2 }] });
    const { cart } = await createCartOverHttp(call, acme);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: variant.id, quantity: index + 1 }] } })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const { cart: after } = parseCart(await call("GET", `/api/carts/${cart.cart_token}`));
    expect(after.items).toHaveLength(1);
    expect(after.items[0]?.quantity).toBe(210);
    expect(after).toMatchObject({ sub_total: "2100.00", cv_total: 420 });
    expect(await t.db.prisma.cartItem.count({ where: { cart_id: after.id } })).toBe(1);
  });

  // Found by audit T (on subscription orders, which queued the same way): each waiting mutation
  // held a pooled connection in PostgreSQL's lock queue, so a burst on one cart took the whole
  // pool, and every other shop's requests waited behind it.
  it.skipIf(!inject("databaseServer"))("wait in the process, holding one pooled connection: another shop's request answers meanwhile, and every mutation succeeds", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
    const { cart } = await createCartOverHttp(call, acme);
    const { cart: otherShopsCart } = await createCartOverHttp(call, globex);
    const BURST = 60;
    const path = `/api/carts/${cart.cart_token}`;
    // The three ways a mutation runs: plain pg (mutateCart), adding items, and Prisma (mutateCartWithPrisma).
    const mutation = (index: number) =>
      [
        () => call("PATCH", `${path}/append_metadata`, { body: { metadata: { [`key${index}`]: index } } }),
        () => call("POST", `${path}/items`, { body: { items: [{ variant_id: variant.id, quantity: 1 }] } }),
        () => call("PATCH", `${path}/change_language`, { body: { language_iso: "en" } }),
      ][index % 3]!();
    const responses = await queuedBehindHeldLock(
      t.db,
      t.app.rowQueue,
      { sql: "SELECT id FROM carts WHERE cart_token = $1 FOR UPDATE", params: [cart.cart_token] },
      Array.from({ length: BURST }, (_, index) => () => mutation(index)),
      async () => expect((await call("GET", `/api/carts/${otherShopsCart.cart_token}`)).status).toBe(200),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(BURST).fill(200));
    const { cart: after } = parseCart(await call("GET", path));
    expect(Object.keys(after.metadata)).toHaveLength(BURST / 3);
    expect(after.items[0]?.quantity).toBe(BURST / 3);
  });
});
