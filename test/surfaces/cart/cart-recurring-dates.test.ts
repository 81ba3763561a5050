import { describe, expect, it } from "vitest";
import { createCartOverHttp } from "../../helpers/carts.js";
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

/** A variant whose product has a monthly default plan. */
async function subscribable() {
  const { product, variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
  await createPlan(t.db.prisma, acme.id, { productIds: [product.id], defaultFor: [product.id] });
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
