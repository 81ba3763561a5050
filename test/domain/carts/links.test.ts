import { decodeJwt, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { CheckoutUrls } from "../../../src/domain/carts/links.js";
import { fixedClock } from "../../helpers/fixed-clock.js";

const START = new Date("2026-05-01T12:00:00.000Z");
const HOUR_MS = 60 * 60 * 1000;
const cart = { cartToken: "ct_first", companyId: 7 };
const tokenOf = (url: string) => new URL(url).searchParams.get("jwt") as string;

describe("CheckoutUrls", () => {
  it("hands out one address per cart for an hour, then signs a new one", () => {
    const clock = fixedClock(START);
    const urls = new CheckoutUrls("https://checkout.example.com/", "s".repeat(40), clock);
    const first = urls.of(cart);
    expect(first).toMatch(/^https:\/\/checkout\.example\.com\/checkout\?jwt=/);
    clock.advance(HOUR_MS - 1);
    expect(urls.of(cart)).toBe(first);
    expect(decodeJwt(tokenOf(urls.of({ cartToken: "ct_second", companyId: 7 }))).sub).toBe("ct_second");
    clock.advance(1);
    const renewed = urls.of(cart);
    expect(renewed).not.toBe(first);
    expect(decodeJwt(tokenOf(renewed)).iat).toBe(START.getTime() / 1000 + 3600);
  });

  it("never hands out a token issued after the clock's now (a clock set back signs anew)", () => {
    const clock = fixedClock(START);
    const urls = new CheckoutUrls("https://checkout.example.com", "s".repeat(40), clock);
    urls.of(cart);
    clock.set(new Date(START.getTime() - 1_000));
    expect(decodeJwt(tokenOf(urls.of(cart))).iat).toBe(START.getTime() / 1000 - 1);
  });

  it("signs each app's addresses with that app's secret", async () => {
    const clock = fixedClock(START);
    const [one, other] = ["a".repeat(40), "b".repeat(40)];
    const key = (secret: string) => new TextEncoder().encode(secret);
    const fromOne = tokenOf(new CheckoutUrls("https://one.example.com", one, clock).of(cart));
    const fromOther = tokenOf(new CheckoutUrls("https://other.example.com", other, clock).of(cart));
    await expect(jwtVerify(fromOne, key(one), { audience: "checkout", currentDate: START })).resolves.toMatchObject({ payload: { sub: cart.cartToken, company_id: 7 } });
    await expect(jwtVerify(fromOther, key(other), { audience: "checkout", currentDate: START })).resolves.toBeDefined();
    await expect(jwtVerify(fromOther, key(one), { currentDate: START })).rejects.toThrow();
  });
});
