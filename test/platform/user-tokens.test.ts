import { SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { signUserToken, userTokenKey, verifyUserToken } from "../../src/platform/auth/user-tokens.js";
import { UnauthorizedError } from "../../src/platform/errors.js";

const secret = "s".repeat(40);
const key = userTokenKey(secret);
const now = new Date("2026-11-21T12:00:00Z");
const epoch = Math.floor(now.getTime() / 1000);

const sign = (claims: Record<string, unknown>, alg = "HS256", signingKey: Uint8Array = key) =>
  new SignJWT(claims).setProtectedHeader({ alg }).sign(signingKey);

async function rejection(token: string) {
  const error = await verifyUserToken(token, key, now).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return error as UnauthorizedError;
}

describe("user tokens", () => {
  it("round-trips the claims of a signed token", async () => {
    const token = await signUserToken({ userId: 7, companyId: 3, role: "rep" }, key, 600, now);
    expect(await verifyUserToken(token, key, now)).toEqual({ userId: 7, companyId: 3, role: "rep" });
  });

  it("accepts company_id as a numeric string", async () => {
    const token = await sign({ sub: "9", company_id: "4", role: "customer", exp: epoch + 60 });
    expect(await verifyUserToken(token, key, now)).toEqual({ userId: 9, companyId: 4, role: "customer" });
  });

  it("refuses an expired token, saying so", async () => {
    const token = await signUserToken({ userId: 7, companyId: 3, role: "rep" }, key, 60, new Date(now.getTime() - 3_600_000));
    expect((await rejection(token)).message).toBe("User token expired");
  });

  it("refuses a token without exp", async () => {
    await rejection(await sign({ sub: "7", company_id: 3, role: "rep" }));
  });

  it("refuses another algorithm, alg none, and a wrong key", async () => {
    await rejection(await sign({ sub: "7", company_id: 3, role: "rep", exp: epoch + 60 }, "HS512"));
    await rejection(new UnsecuredJWT({ sub: "7", company_id: 3, role: "rep", exp: epoch + 60 }).encode());
    await rejection(await sign({ sub: "7", company_id: 3, role: "rep", exp: epoch + 60 }, "HS256", new TextEncoder().encode("w".repeat(40))));
  });

  it("refuses missing or malformed claims", async () => {
    await rejection(await sign({ company_id: 3, role: "rep", exp: epoch + 60 }));
    await rejection(await sign({ sub: "7", role: "rep", exp: epoch + 60 }));
    await rejection(await sign({ sub: "7", company_id: 3, exp: epoch + 60 }));
    await rejection(await sign({ sub: "7", company_id: 3, role: "admin", exp: epoch + 60 }));
    await rejection(await sign({ sub: "seven", company_id: 3, role: "rep", exp: epoch + 60 }));
    await rejection("not.a.jwt");
  });

  it("refuses a sub no user id can be (0, past int4, twenty digits) and accepts the int4 maximum", async () => {
    for (const sub of ["0", "2147483648", "99999999999999999999"]) {
      expect((await rejection(await sign({ sub, company_id: 3, role: "rep", exp: epoch + 60 }))).message, sub).toBe("Invalid user token");
    }
    const largest = await sign({ sub: "2147483647", company_id: 3, role: "rep", exp: epoch + 60 });
    expect(await verifyUserToken(largest, key, now)).toEqual({ userId: 2_147_483_647, companyId: 3, role: "rep" });
  });

  // The checkout links' tokens are signed with the same key (domain/carts/links.ts): their
  // audience, not the shape of their other claims, keeps them from acting as a user's token.
  it("refuses a token meant for the checkout, even with a user's claims, and accepts other audiences the storefront's login may set", async () => {
    const claims = { sub: "7", company_id: 3, role: "customer", exp: epoch + 60 };
    for (const aud of ["checkout", ["storefront", "checkout"]]) {
      expect((await rejection(await sign({ ...claims, aud }))).message, JSON.stringify(aud)).toBe("Invalid user token");
    }
    expect(await verifyUserToken(await sign({ ...claims, aud: "storefront" }), key, now)).toEqual({ userId: 7, companyId: 3, role: "customer" });
  });

  // Services put company_id in their SQL as an int4: one past it was a 500 there.
  it("refuses a company_id no company id can be (0, past int4, twenty digits, a fraction) and accepts the int4 maximum", async () => {
    for (const company_id of [0, "0", 2_147_483_648, "2147483648", "99999999999999999999", 1.5]) {
      expect((await rejection(await sign({ sub: "7", company_id, role: "rep", exp: epoch + 60 }))).message, String(company_id)).toBe("Invalid user token");
    }
    const largest = await sign({ sub: "7", company_id: "2147483647", role: "rep", exp: epoch + 60 });
    expect(await verifyUserToken(largest, key, now)).toEqual({ userId: 7, companyId: 2_147_483_647, role: "rep" });
  });
});
