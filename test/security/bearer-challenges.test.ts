import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { issueCompanyToken, revokeCompanyToken } from "../../src/platform/auth/company-tokens.js";
import { signUserToken, userTokenKey } from "../../src/platform/auth/user-tokens.js";
import { systemClock } from "../../src/platform/clock.js";
import { createCartOverHttp } from "../helpers/carts.js";
import { type CompanyFixture, createCard, createProduct, createUserWithToken } from "../helpers/fixtures.js";
import type { Call, HttpResponse } from "../helpers/http.js";
import { TEST_JWT_SECRET } from "../helpers/secrets.js";
import type { TestApp } from "../helpers/test-app.js";
import { useTwoCompanyApp } from "../helpers/two-company-app.js";

/**
 * RFC 6750 §3.1: the WWW-Authenticate challenge says what was wrong. Without a credential it is
 * the bare challenge; with one that is invalid, expired, revoked or malformed it adds
 * `error="invalid_token"` and a description; a valid credential without the right (403) gets
 * `error="insufficient_scope"`. The body stays the documented error body.
 */
let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

const BARE = 'Bearer realm="svc-commerce"';
const invalidToken = (description: string) => `${BARE}, error="invalid_token", error_description="${description}"`;
const insufficientScope = (description: string) => `${BARE}, error="insufficient_scope", error_description="${description}"`;

function expectChallenge(response: HttpResponse, status: number, challenge: string, errorCode: string, what: string) {
  expect(response.status, `${what}: ${response.text}`).toBe(status);
  expect(response.headers["www-authenticate"], what).toBe(challenge);
  expect(response.body, what).toMatchObject({ error_code: errorCode, meta: { request_id: response.headers["x-request-id"] } });
  expect(Object.keys(response.body).sort(), what).toEqual(["error_code", "error_message", "errors", "meta"]);
}

const expiredToken = (userId: number, companyId: number, role: "rep" | "customer") =>
  signUserToken({ userId, companyId, role }, userTokenKey(TEST_JWT_SECRET), 60, new Date(Date.now() - 3_600_000));

describe("WWW-Authenticate on the admin surface (company API tokens)", () => {
  it("is the bare challenge without a credential, or with one of a scheme the API does not take", async () => {
    expectChallenge(await call("GET", "/api/droplet_installations"), 401, BARE, "unauthorized", "no Authorization");
    const basic = await call("GET", "/api/droplet_installations", { headers: { authorization: "Basic dXNlcjpwYXNz" } });
    expectChallenge(basic, 401, BARE, "invalid_token", "Basic");
  });

  it("says invalid_token for an unknown, revoked, malformed or user token, without echoing it", async () => {
    const revoked = await issueCompanyToken(t.db.prisma, acme.id);
    expect(await revokeCompanyToken(t.db.prisma, { token: revoked }, systemClock)).not.toBeNull();
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    for (const [what, authorization, description] of [
      ["unknown", `Bearer sct_${"x".repeat(40)}`, "Invalid or revoked API token"],
      ["revoked", `Bearer ${revoked}`, "Invalid or revoked API token"],
      ["a user's JWT", `Bearer ${rep.token}`, "Invalid or revoked API token"],
      ["two words", `Bearer ${acme.token} extra`, "Authorization header must be 'Bearer <token>'"],
      ["no token", "Bearer", "Authorization header must be 'Bearer <token>'"],
    ] as const) {
      const response = await call("GET", "/api/droplet_installations", { headers: { authorization } });
      expectChallenge(response, 401, invalidToken(description), "invalid_token", what);
      // The description is ours: it never carries what was sent (a company token, a JWT).
      expect(String(response.headers["www-authenticate"]), what).not.toMatch(/sct_|eyJ/);
    }
  });

  it("says invalid_token where a token is optional (the tokenless agreement read) and the one sent is not valid", async () => {
    const response = await call("GET", "/api/agreements/1", { token: "sct_nope" });
    expectChallenge(response, 401, invalidToken("Invalid or revoked API token"), "invalid_token", "agreement read");
  });
});

describe("WWW-Authenticate on the cart surface (user JWTs)", () => {
  it("says invalid_token for a bad jwt query parameter or _svc_session cookie on cart create, keeping the body that names the member", async () => {
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    const foreignRep = await createUserWithToken(t.db.prisma, globex.id, "rep");
    const expired = await expiredToken(rep.user.id, acme.id, "rep");
    const nobody = await signUserToken({ userId: 2_000_000_000, companyId: acme.id, role: "rep" }, userTokenKey(TEST_JWT_SECRET));
    const body = { country_code: "US", svc_shop: acme.shop };
    for (const [what, path, headers, member, description] of [
      ["expired jwt", `/api/carts?jwt=${expired}`, {}, "jwt", "User token expired"],
      ["malformed jwt", "/api/carts?jwt=not-a-jwt", {}, "jwt", "Invalid user token"],
      ["another shop's jwt", `/api/carts?jwt=${foreignRep.token}`, {}, "jwt", "The user token belongs to another shop"],
      ["a jwt naming nobody", `/api/carts?jwt=${nobody}`, {}, "jwt", "The user token names no user of this shop"],
      ["expired cookie", "/api/carts", { cookie: `_svc_session=${expired}` }, "_svc_session", "User token expired"],
      ["malformed cookie", "/api/carts", { cookie: "_svc_session=garbage" }, "_svc_session", "Invalid user token"],
      [
        "a cookie from a page that may not use it",
        "/api/carts",
        { cookie: `_svc_session=${rep.token}`, origin: "https://elsewhere.example.net" },
        "_svc_session",
        "This page's origin may not use the session cookie for this shop: only pages of the shop's own domain and its subdomains may",
      ],
    ] as const) {
      const response = await call("POST", path, { body, headers });
      expectChallenge(response, 401, invalidToken(description), "invalid_user_token", what);
      expect(response.body.errors, what).toEqual({ [member]: [description] });
    }
  });

  it("lets a storefront's script read the challenge across origins", async () => {
    const origin = `https://${acme.shop}`;
    const response = await call("POST", "/api/carts?jwt=not-a-jwt", { body: { country_code: "US", svc_shop: acme.shop }, headers: { origin } });
    expectChallenge(response, 401, invalidToken("Invalid user token"), "invalid_user_token", "cross-origin");
    expect(response.headers["access-control-allow-origin"]).toBe(origin);
    expect(String(response.headers["access-control-expose-headers"]).split(", ")).toContain("www-authenticate");
  });

  it("sends no challenge when cart create carries no credential: the cart is anonymous", async () => {
    const response = await call("POST", "/api/carts", { body: { country_code: "US", svc_shop: acme.shop } });
    expect(response.status).toBe(200);
    expect(response.headers["www-authenticate"]).toBeUndefined();
  });

  it("says invalid_token for a bad jwt body member of the address operation", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const { cart } = await createCartOverHttp(call, acme);
    const response = await call("POST", `/api/carts/${cart.cart_token}/address`, { body: { type: "ship_to", jwt: await expiredToken(customer.user.id, acme.id, "customer") } });
    expectChallenge(response, 401, invalidToken("User token expired"), "invalid_user_token", "address jwt");
  });

  it("set_saved_payment_method: bare without a credential, invalid_token for a bad one, insufficient_scope for a rep or another customer", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const stranger = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    const card = await createCard(t.db.prisma, customer.user.id);
    const { cart } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    const path = `/api/carts/${cart.cart_token}/set_saved_payment_method`;
    const body = { payment_method_id: card.id };
    const revoked = await issueCompanyToken(t.db.prisma, acme.id);
    await revokeCompanyToken(t.db.prisma, { token: revoked }, systemClock);

    expectChallenge(await call("POST", path, { body }), 401, BARE, "unauthorized", "no credential");
    expectChallenge(await call("POST", path, { token: await expiredToken(customer.user.id, acme.id, "customer"), body }), 401, invalidToken("User token expired"), "invalid_user_token", "expired JWT");
    expectChallenge(await call("POST", path, { token: revoked, body }), 401, invalidToken("Invalid or revoked API token"), "invalid_token", "revoked company token");
    // Signed with the right key and the customer's claims, but for the checkout (as the cart's checkout_url's token is).
    const forCheckout = await new SignJWT({ company_id: acme.id, role: "customer", aud: "checkout" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(String(customer.user.id))
      .setExpirationTime("10m")
      .sign(userTokenKey(TEST_JWT_SECRET));
    expectChallenge(await call("POST", path, { token: forCheckout, body }), 401, invalidToken("Invalid user token"), "invalid_user_token", "a checkout token");
    const asRep = await call("POST", path, { token: rep.token, body });
    expectChallenge(asRep, 403, insufficientScope("Only a customer token or a company token may choose a payment method"), "forbidden", "rep");
    const asStranger = await call("POST", path, { token: stranger.token, body });
    expectChallenge(asStranger, 403, insufficientScope("Only the cart's customer may choose its payment method"), "forbidden", "another customer");
    const done = await call("POST", path, { token: customer.token, body });
    expect(done.status).toBe(200);
    expect(done.headers["www-authenticate"]).toBeUndefined();
  });

  it("update_volumes: bare without a credential, invalid_token for a bad one, insufficient_scope for a valid user token", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const path = `/api/carts/${cart.cart_token}/items/${cart.items[0]?.id}/update_volumes`;
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    const [header, payload] = rep.token.split(".");

    expectChallenge(await call("PATCH", path, { body: { cv: 1 } }), 401, BARE, "unauthorized", "no credential");
    expectChallenge(await call("PATCH", path, { token: "sct_wrong", body: { cv: 1 } }), 401, invalidToken("Invalid or revoked API token"), "invalid_token", "unknown company token");
    expectChallenge(await call("PATCH", path, { token: `${header}.${payload}.forged`, body: { cv: 1 } }), 401, invalidToken("Invalid user token"), "invalid_user_token", "forged JWT");
    expectChallenge(await call("PATCH", path, { token: rep.token, body: { cv: 1 } }), 403, insufficientScope("Only a company API token may set a line's volumes"), "forbidden", "rep");
  });
});
