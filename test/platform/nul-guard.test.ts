import { describe, expect, it } from "vitest";
import { createCartOverHttp } from "../helpers/carts.js";
import type { CompanyFixture } from "../helpers/fixtures.js";
import type { Call } from "../helpers/http.js";
import type { TestApp } from "../helpers/test-app.js";
import { useTwoCompanyApp } from "../helpers/two-company-app.js";

/** U+0000 cannot be stored by PostgreSQL: it is refused up front instead of failing as a 500 (found by test/security/bad-input). */
let t: TestApp;
let call: Call;
let acme: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme } = app));

const MESSAGE = ["must not contain the NUL character"];

describe("NUL characters", () => {
  it("in a query value: 422 naming the parameter", async () => {
    const response = await call("GET", "/api/droplet_installations?category=a%00b", { token: acme.token });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error_code: "validation_failed", errors: { category: MESSAGE } });
  });

  it("in body strings and member names, at any depth: 422 naming each path, nothing written", async () => {
    const response = await call("POST", "/api/droplet_installations", {
      token: acme.token,
      body: { droplet_uuid: "x\u0000", scopes: ["ok", "\u0000"], "bad\u0000key": 1 },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ droplet_uuid: MESSAGE, "scopes.1": MESSAGE, "bad\u0000key": MESSAGE });
    expect(await t.db.prisma.dropletInstallation.count()).toBe(0);
  });

  it("under member names Object.prototype has (constructor, toString): 422 naming them, not a 500", async () => {
    const response = await call("POST", "/api/droplet_installations", {
      token: acme.token,
      body: { droplet_uuid: "x", constructor: "\u0000", toString: ["\u0000"], hasOwnProperty: { valueOf: "\u0000" } },
    });
    expect(response.status, response.text).toBe(422);
    expect(response.body.errors).toEqual({ constructor: MESSAGE, "toString.0": MESSAGE, "hasOwnProperty.valueOf": MESSAGE });
    const query = await call("GET", "/api/droplet_installations?constructor=%00", { token: acme.token });
    expect(query.status, query.text).toBe(422);
    expect(query.body.errors).toEqual({ constructor: MESSAGE });
  });

  it("in a path parameter: 404", async () => {
    const response = await call("GET", "/api/droplet_installations/%00", { token: acme.token });
    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe("not_found");
  });

  it("walks bodies of any depth JSON.parse accepts without overflowing the stack", async () => {
    for (const depth of [2_000, 50_000]) {
      const rawBody = `{"droplet_uuid":${"[".repeat(depth)}"leaf\\u0000"${"]".repeat(depth)}}`;
      const response = await call("POST", "/api/droplet_installations", { token: acme.token, rawBody, headers: { "content-type": "application/json" } });
      expect(response.status).toBe(422);
      expect(Object.keys(response.body.errors)[0]).toBe(`droplet_uuid${".0".repeat(depth)}`);
    }
  });
});

/** Lone UTF-16 surrogates (JSON allows "\\ud800") are no text: jsonb refuses them (a 500), text would store U+FFFD. */
describe("lone surrogates", () => {
  const LONE = ["must be valid Unicode text (no lone surrogate)"];

  it("in body strings and member names, at any depth: 422 naming each path, nothing written", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const path = `/api/carts/${cart.cart_token}/metadata`;
    const response = await call("PATCH", path, { body: { metadata: { note: "\udfff\ud800", list: ["ok", "a\ud800"], "key\udc00": 1, pair: "\ud83d\ude00" } } });
    expect(response.status, response.text).toBe(422);
    expect(response.body.errors).toEqual({ "metadata.note": LONE, "metadata.list.1": LONE, "metadata.key\udc00": LONE });
    expect((await t.db.prisma.cart.findUniqueOrThrow({ where: { cart_token: cart.cart_token } })).metadata).toEqual({});
  });

  it("lets well-formed text through, surrogate pairs (emoji) included", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const response = await call("PATCH", `/api/carts/${cart.cart_token}/metadata`, { body: { metadata: { note: "caf\u00e9 \ud83d\ude00" } } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.cart.metadata).toEqual({ note: "café 😀" });
  });
});
