import { describe, expect, inject, it } from "vitest";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import { statementsSentDuring } from "../../helpers/database-reads.js";
import { type CompanyFixture, createPlan, createProduct } from "../../helpers/fixtures.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import type { Call } from "../../helpers/http.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;

const clock = fixedClock(new Date("2026-03-10T23:30:00Z"));
useTwoCompanyApp((app) => ({ t, call, acme } = app), { clock });

/** A variant whose product has a default plan, monthly unless told. */
async function subscribable(unit: "day" | "month" = "month") {
  const { product, variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
  await createPlan(t.db.prisma, acme.id, { unit, productIds: [product.id], defaultFor: [product.id] });
  return variant;
}

async function subscribedCart(variantId: number, timezone?: string) {
  const body = { items: [{ variant_id: variantId, quantity: 1, subscription: true }], ...(timezone === undefined ? {} : { timezone }) };
  return (await createCartOverHttp(call, acme, body)).cart;
}

const startDates = (cart: { recurring: Array<{ start_date: string }> | null }) => cart.recurring?.map((entry) => entry.start_date);

describe("recurring start_date", () => {
  it("counts from the day it is in the cart's time zone, not in UTC", async () => {
    const variant = await subscribable();
    // 23:30 UTC on March 10 is already March 11 in Auckland (UTC+13).
    clock.set(new Date("2026-03-10T23:30:00Z"));
    expect(startDates(await subscribedCart(variant.id))).toEqual(["2026-04-10"]);
    expect(startDates(await subscribedCart(variant.id, "Pacific/Auckland"))).toEqual(["2026-04-11"]);
    // 03:00 UTC on March 11 is still March 10 in Los Angeles (UTC-7); a zone in any letter case counts.
    clock.set(new Date("2026-03-11T03:00:00Z"));
    expect(startDates(await subscribedCart(variant.id))).toEqual(["2026-04-11"]);
    expect(startDates(await subscribedCart(variant.id, "america/los_angeles"))).toEqual(["2026-04-10"]);
  });
});

describe("a stored view read on a later day", () => {
  const DAY = 86_400_000;
  const read = async (cartToken: string) => parseCart(await call("GET", `/api/carts/${cartToken}`)).cart;
  const storedRow = (cartToken: string) => t.db.prisma.cart.findUniqueOrThrow({ where: { cart_token: cartToken }, select: { version: true, updated_at: true } });

  it("counts start_date from the day of the read, never showing a past one, without writing the cart", async () => {
    clock.set(new Date("2026-03-10T12:00:00Z"));
    const daily = await subscribable("day");
    const monthly = await subscribable();
    const cart = await subscribedCart(daily.id);
    parseCart(await call("POST", `/api/carts/${cart.cart_token}/items`, { body: { items: [{ variant_id: monthly.id, quantity: 1, subscription: true }] } }));
    const stored = await storedRow(cart.cart_token);
    expect(startDates(await read(cart.cart_token))).toEqual(["2026-03-11", "2026-04-10"]);

    clock.advance(2 * DAY);
    const later = await read(cart.cart_token);
    expect(startDates(later)).toEqual(["2026-03-13", "2026-04-12"]);
    // Nothing else moves, and nothing is written: the next change renders the cart again.
    const touched = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: {} })).cart;
    expect({ ...later, skipped_items: [] }).toEqual({ ...touched, skipped_items: [] });
    expect((await storedRow(cart.cart_token)).version).toBe(stored.version + 1);
  });

  it("compares days in the cart's time zone", async () => {
    // 11:00 UTC on March 10 is March 11, 00:00 in Auckland.
    clock.set(new Date("2026-03-10T11:00:00Z"));
    const daily = await subscribable("day");
    const cart = await subscribedCart(daily.id, "Pacific/Auckland");
    expect(startDates(cart)).toEqual(["2026-03-12"]);
    clock.set(new Date("2026-03-11T10:59:00Z"));
    expect(startDates(await read(cart.cart_token))).toEqual(["2026-03-12"]);
    clock.set(new Date("2026-03-11T11:00:00Z"));
    expect(startDates(await read(cart.cart_token))).toEqual(["2026-03-13"]);
  });

  it.skipIf(!inject("databaseServer"))("stays one statement, and leaves a cart without subscriptions or with its payment through as stored", async () => {
    clock.set(new Date("2026-03-10T12:00:00Z"));
    const daily = await subscribable("day");
    const { variant: plain } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 500 } }] });
    const subscribed = await subscribedCart(daily.id);
    const oneTime = (await createCartOverHttp(call, acme, { items: [{ variant_id: plain.id, quantity: 1 }] })).cart;
    const paid = await subscribedCart(daily.id);
    await t.db.prisma.cart.update({ where: { id: paid.id }, data: { state: "payment_captured" } });
    const before = await storedRow(subscribed.cart_token);

    clock.advance(3 * DAY);
    const statements = await statementsSentDuring(async () => {
      expect(startDates(await read(subscribed.cart_token))).toEqual(["2026-03-14"]);
    });
    expect(statements).toHaveLength(1);
    expect(await storedRow(subscribed.cart_token)).toEqual(before);
    expect(await read(oneTime.cart_token)).toEqual({ ...oneTime, skipped_items: [] });
    // What the shopper paid for: checkout fixed the subscription's dates.
    expect(startDates(await read(paid.cart_token))).toEqual(["2026-03-11"]);
  });
});
