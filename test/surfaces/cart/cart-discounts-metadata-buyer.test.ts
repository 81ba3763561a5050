import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { userTokenKey } from "../../../src/platform/auth/user-tokens.js";
import { MAX_NESTING_DEPTH } from "../../../src/platform/http/storable-input.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import {
  type CompanyFixture,
  createCard,
  createCompanyWithToken,
  createDiscount,
  createProduct,
  createShippingMethod,
  createUserWithToken,
} from "../../helpers/fixtures.js";
import { type Call, httpClient } from "../../helpers/http.js";
import { metadataFor, PUBLIC_PREFIX } from "../../helpers/public-sdk.js";
import { TEST_JWT_SECRET } from "../../helpers/secrets.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

const NOW = new Date("2026-03-15T12:00:00.000Z");
let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), { clock: fixedClock(NOW) });

const stored = (cartToken: string) => t.db.prisma.cart.findUniqueOrThrow({ where: { cart_token: cartToken } });

describe("discount codes", () => {
  it("applies order, product and shipping codes (case-insensitive, single discount_code too) and removes them", async () => {
    const { product, variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 5000 } }] });
    const method = await createShippingMethod(t.db.prisma, acme.id, { price: 800 });
    await createDiscount(t.db.prisma, acme.id, { code: "TENOFF", amount: "10" });
    await createDiscount(t.db.prisma, acme.id, { code: "PROD5", kind: "fixed_amount", amount: "5", scope: "product", productIds: [product.id] });
    await createDiscount(t.db.prisma, acme.id, { code: "FREESHIP", amount: "100", scope: "shipping" });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    parseCart(await call("POST", `/api/carts/${cart.cart_token}`, { body: { shipping_method: { id: method.id } } }));

    const applied = parseCart(await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["tenoff", "prod5"] } }));
    expect(applied.cart).toMatchObject({ discount_codes: ["TENOFF", "PROD5"], product_discount_codes: ["PROD5"], shipping_discount_codes: [], discount_total: "9.50", subtotal_after_discounts: "40.50", amount_total: "48.50" });
    expect(applied.cart.discount_breakdown).toEqual({
      TENOFF: { scope: "order", amount: "4.50", amount_in_currency: "$4.50" },
      PROD5: { scope: "product", amount: "5.00", amount_in_currency: "$5.00" },
    });

    const single = parseCart(await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: { discount_code: "FreeShip" } }));
    expect(single.cart).toMatchObject({ shipping_discount_codes: ["FREESHIP"], shipping_discount: 8, discount_total: "17.50", amount_total: "40.50" });

    const removed = parseCart(await call("DELETE", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["prod5", "NOT-APPLIED"] } }));
    expect(removed.cart.discount_codes).toEqual(["TENOFF", "FREESHIP"]);

    const removedSingle = parseCart(await call("DELETE", `/api/carts/${cart.cart_token}/discount`, { body: { discount_code: "freeship" } }));
    expect(removedSingle.cart.discount_codes).toEqual(["TENOFF"]);
    for (const body of [{}, { discount_codes: [] }, { discount_codes: ["  "] }]) {
      const refused = await call("DELETE", `/api/carts/${cart.cart_token}/discount`, { body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(refused.body.errors), JSON.stringify(body)).toEqual(["discount_codes"]);
    }
    expect(parseCart(await call("GET", `/api/carts/${cart.cart_token}`)).cart.discount_codes).toEqual(["TENOFF"]);
  });

  it("refuses the whole request (422 errors.discount_codes) when any code is unknown, inactive, expired, not started or exhausted", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    await createDiscount(t.db.prisma, acme.id, { code: "GOOD", amount: "10" });
    await createDiscount(t.db.prisma, acme.id, { code: "OFF", amount: "10", active: false });
    await createDiscount(t.db.prisma, acme.id, { code: "OLD", amount: "10", endsAt: new Date("2026-01-01T00:00:00Z") });
    await createDiscount(t.db.prisma, acme.id, { code: "SOON", amount: "10", startsAt: new Date("2026-06-01T00:00:00Z") });
    await createDiscount(t.db.prisma, acme.id, { code: "USEDUP", amount: "10", usageLimit: 5, usageCount: 5 });
    await createDiscount(t.db.prisma, globex.id, { code: "THEIRS", amount: "10" });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    const response = await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["GOOD", "NOPE", "OFF", "OLD", "SOON", "USEDUP", "THEIRS"] } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      // Switched-off and unreleased codes answer as unknown ones: a shopper guessing codes learns nothing of them.
      discount_codes: ["NOPE is not a valid code", "OFF is not a valid code", "OLD has expired", "SOON is not a valid code", "USEDUP has reached its usage limit", "THEIRS is not a valid code"],
    });
    expect((await stored(cart.cart_token)).discount_codes).toEqual([]);
    const empty = await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ discount_codes: ["is required"] });
  });

  it("tells an empty discount_codes list the same on apply and remove: it must name a code; nothing changes", async () => {
    await createDiscount(t.db.prisma, acme.id, { code: "KEEP", amount: "10" });
    const { cart } = await createCartOverHttp(call, acme);
    parseCart(await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["KEEP"] } }));
    for (const [method, codes] of [
      ["POST", []],
      ["POST", ["  "]],
      ["DELETE", []],
    ] as const) {
      const response = await call(method, `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: codes } });
      expect(response.status, `${method} ${JSON.stringify(codes)}`).toBe(422);
      expect(response.body.errors).toEqual({ discount_codes: ["must name at least one code"] });
    }
    expect((await stored(cart.cart_token)).discount_codes).toEqual(["KEEP"]);
  });

  it("drops an applied code that stopped being valid at the next change, with a warning", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id);
    const discount = await createDiscount(t.db.prisma, acme.id, { code: "FLEETING", amount: "10" });
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
    parseCart(await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["FLEETING"] } }));
    await t.db.prisma.discount.update({ where: { id: discount.id }, data: { active: false } });
    const next = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "1" } }));
    expect(next.cart.discount_codes).toEqual([]);
    expect(next.cart.discount_total).toBe("0.00");
    expect(next.cart.messages.warnings).toEqual(["Discount code FLEETING was removed: it is not active"]);
  });

  // Found by an audit: the admin API answered a code whose only product was deleted with a 422
  // until the dead id was dropped, and product_ids [] then made the code take 50% off every line.
  it("takes nothing with a product-scope code whose products were all deleted, and an update cannot widen it to every product", async () => {
    const { product: shirt } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 2000 } }] });
    const { variant: mug } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 2000 } }] });
    const code = await createDiscount(t.db.prisma, acme.id, { code: "SHIRT50", amount: "50", scope: "product", productIds: [shirt.id] });
    expect((await call("DELETE", `/api/products/${shirt.id}`, { token: acme.token })).status).toBe(200);
    const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: mug.id, quantity: 1 }] });

    const applied = parseCart(await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["SHIRT50"] } }));
    expect(applied.cart).toMatchObject({ discount_codes: ["SHIRT50"], product_discount_codes: ["SHIRT50"], discount_total: "0.00", sub_total: "20.00" });
    const widened = await call("PUT", `/api/discounts/${code.id}`, { token: acme.token, body: { discount: { product_ids: [] } } });
    expect(widened.status).toBe(422);
    const next = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}`, { body: { phone: "1" } }));
    expect(next.cart).toMatchObject({ discount_codes: ["SHIRT50"], discount_total: "0.00" });
    expect(next.cart.messages.warnings).toEqual([]);
  });

  // Found by an audit: a fixed amount applied as-is in every currency, so "10.00 off" took 10
  // yen in Japan and the whole of a 3.255 KWD cart.
  describe("bound to a currency", () => {
    const adminCreate = (discount: Record<string, unknown>) => call("POST", "/api/discounts", { token: acme.token, body: { discount: { kind: "fixed_amount", scope: "order", ...discount } } });

    it("apply only in carts of that currency: elsewhere a 422 saying why, changing nothing; unbound codes apply in any currency", async () => {
      const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 2000, JP: 2000 } }] });
      for (const discount of [
        { code: "DOLLARS10", amount: "10", currency_code: "USD" },
        { code: "YEN500", amount: "500", currency_code: "JPY" },
        { code: "ANYWHERE1", amount: "1" },
        { code: "HIDDENYEN", amount: "500", currency_code: "JPY", active: false },
      ]) {
        expect((await adminCreate(discount)).status, discount.code).toBe(201);
      }
      const { cart: us } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
      const applied = parseCart(await call("POST", `/api/carts/${us.cart_token}/discount`, { body: { discount_codes: ["dollars10", "anywhere1"] } }));
      expect(applied.cart).toMatchObject({ discount_codes: ["DOLLARS10", "ANYWHERE1"], discount_total: "11.00" });

      const refused = await call("POST", `/api/carts/${us.cart_token}/discount`, { body: { discount_codes: ["YEN500", "HIDDENYEN"] } });
      expect(refused.status).toBe(422);
      // A switched-off code still answers as an unknown one, whatever its currency.
      expect(refused.body.errors).toEqual({ discount_codes: ["YEN500 is only valid for carts in JPY", "HIDDENYEN is not a valid code"] });
      expect((await stored(us.cart_token)).discount_codes).toEqual(["DOLLARS10", "ANYWHERE1"]);

      const { cart: jp } = await createCartOverHttp(call, acme, { country_code: "JP", items: [{ variant_id: variant.id, quantity: 1 }] });
      const yen = parseCart(await call("POST", `/api/carts/${jp.cart_token}/discount`, { body: { discount_codes: ["YEN500", "ANYWHERE1"] } }));
      expect(yen.cart).toMatchObject({ currency_code: "JPY", discount_codes: ["YEN500", "ANYWHERE1"], discount_total: "501" });
    });

    it("are removed with a warning when the cart moves to another currency, as an expired code is", async () => {
      const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 2000, CA: 2500 } }] });
      await adminCreate({ code: "USONLY5", amount: "5", currency_code: "USD" });
      await adminCreate({ code: "EVERY1", amount: "1" });
      const { cart } = await createCartOverHttp(call, acme, { items: [{ variant_id: variant.id, quantity: 1 }] });
      parseCart(await call("POST", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["USONLY5", "EVERY1"] } }));
      const moved = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/update_country`, { body: { country_code: "CA" } }));
      expect(moved.cart).toMatchObject({ currency_code: "CAD", discount_codes: ["EVERY1"], discount_total: "1.00" });
      expect(moved.cart.messages.warnings).toEqual(["Discount code USONLY5 was removed: it is only valid for carts in USD"]);
      expect((await stored(cart.cart_token)).discount_codes).toEqual(["EVERY1"]);
    });
  });
});

describe("discount code attempts", () => {
  // Found by the security audit: one client tried about 6,000 codes a second (20 a request).
  it("are limited per client address: past DISCOUNT_RATE_LIMIT_PER_MINUTE a 429 with Retry-After, on any cart, changing nothing; removing codes is not limited", async () => {
    const limited = await startTestApp({ env: { DISCOUNT_RATE_LIMIT_PER_MINUTE: "3" } });
    try {
      const limitedCall = httpClient(limited.url);
      const shop = await createCompanyWithToken(limited.db.prisma, "Limited");
      await createDiscount(limited.db.prisma, shop.id, { code: "REAL", amount: "10" });
      const { cart } = await createCartOverHttp(limitedCall, shop);
      const { cart: another } = await createCartOverHttp(limitedCall, shop);
      const attempt = (token: string, code: string) => limitedCall("POST", `/api/carts/${token}/discount`, { body: { discount_codes: [code] } });
      const statuses = [];
      for (const code of ["GUESS1", "GUESS2", "GUESS3"]) statuses.push((await attempt(cart.cart_token, code)).status);
      expect(statuses).toEqual([422, 422, 422]);
      for (const response of [await attempt(cart.cart_token, "REAL"), await attempt(another.cart_token, "REAL")]) {
        expect(response.status).toBe(429);
        expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
        expect(response.headers["x-ratelimit-limit"]).toBeUndefined();
        expect(response.body).toMatchObject({ error_code: "rate_limited", errors: null });
      }
      for (const token of [cart.cart_token, another.cart_token]) {
        expect((await limited.db.prisma.cart.findUniqueOrThrow({ where: { cart_token: token } })).discount_codes).toEqual([]);
      }
      expect((await limitedCall("DELETE", `/api/carts/${cart.cart_token}/discount`, { body: { discount_codes: ["REAL"] } })).status).toBe(200);
      expect((await limitedCall("GET", `/api/carts/${cart.cart_token}`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("metadata", () => {
  it("appends with a deep merge, removes dot-notation keys, merges json_data and replaces with PATCH /metadata", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const base = `/api/carts/${cart.cart_token}`;
    parseCart(await call("PATCH", `${base}/append_metadata`, { body: { metadata: { utm: { source: "ig", medium: "social" }, note: "gift" } } }));
    const merged = parseCart(await call("PATCH", `${base}/append_metadata`, { body: { metadata: { utm: { campaign: "spring" } } } }));
    expect(merged.cart.metadata).toEqual({ utm: { source: "ig", medium: "social", campaign: "spring" }, note: "gift" });
    const removed = parseCart(await call("PATCH", `${base}/remove_metadata`, { body: { cart: { metadata: ["utm.medium", "note", "missing.key"] } } }));
    expect(removed.cart.metadata).toEqual({ utm: { source: "ig", campaign: "spring" } });
    const jsonData = parseCart(await call("PATCH", `${base}/json_data`, { body: { json_data: { utm: { source: "fb" } } } }));
    expect(jsonData.cart.metadata).toEqual({ utm: { source: "fb", campaign: "spring" } });
    const replaced = parseCart(await call("PATCH", `${base}/metadata`, { body: { metadata: { only: true } } }));
    expect(replaced.cart.metadata).toEqual({ only: true });
  });

  it("answers 422 for missing or non-object bodies and oversized metadata, changing nothing", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const base = `/api/carts/${cart.cart_token}`;
    for (const [path, body, field] of [
      [`${base}/append_metadata`, {}, "metadata"],
      [`${base}/append_metadata`, { metadata: [1] }, "metadata"],
      [`${base}/remove_metadata`, { cart: {} }, "cart.metadata"],
      [`${base}/json_data`, { json_data: "x" }, "json_data"],
      [`${base}/metadata`, { metadata: null }, "metadata"],
      [`${base}/append_metadata`, { metadata: { big: "x".repeat(70_000) } }, "metadata"],
      [`${base}/metadata`, { metadata: { deep: JSON.parse(`${'{"a":'.repeat(40)}1${"}".repeat(40)}`) } }, "metadata"],
    ] as const) {
      const response = await call("PATCH", path, { body });
      expect(response.status, path).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual([field]);
    }
    // Found by the bad-input suite: a few thousand levels overflowed the stack (500). Past the
    // platform's bound on every request (MAX_NESTING_DEPTH), that bound refuses it where it is passed.
    for (const depth of [3_000, 20_000]) {
      const rawBody = `{"json_data":{"deep":${"[".repeat(depth)}1${"]".repeat(depth)}}}`;
      const response = await call("PATCH", `${base}/json_data`, { rawBody, headers: { "content-type": "application/json" } });
      expect(response.status, String(depth)).toBe(422);
      expect(response.body.errors).toEqual({ [`json_data.deep${".0".repeat(MAX_NESTING_DEPTH - 2)}`]: [expect.stringMatching(/nested too deeply/)] });
    }
    expect((await stored(cart.cart_token)).metadata).toEqual({});
    expect((await call("PATCH", "/api/carts/ct_0000000000000000000000/append_metadata", { body: { metadata: {} } })).status).toBe(404);
  });

  it("ignores prototype keys (__proto__, constructor.prototype) at any depth, on every metadata operation, polluting nothing", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const base = `/api/carts/${cart.cart_token}`;
    const send = (path: string, rawBody: string) => call("PATCH", `${base}/${path}`, { rawBody, headers: { "content-type": "application/json" } });
    const appended = parseCart(
      await send("append_metadata", '{"metadata":{"__proto__":{"polluted":1},"utm":{"constructor":{"prototype":{"polluted":2}},"source":"ig"}}}'),
    );
    expect(appended.cart.metadata).toEqual({ utm: { source: "ig" } });
    // The same keys spelled with JSON escapes.
    const merged = parseCart(await send("json_data", '{"json_data":{"\\u005f_proto__":{"polluted":3},"\\u0063onstructor":{"prototype":{"polluted":4}},"note":"gift"}}'));
    expect(merged.cart.metadata).toEqual({ utm: { source: "ig" }, note: "gift" });
    const replaced = parseCart(await send("metadata", '{"metadata":{"only":{"__proto__":{"polluted":5}}},"__proto__":{"polluted":6}}'));
    expect(replaced.cart.metadata).toEqual({ only: {} });
    expect((await stored(cart.cart_token)).metadata).toEqual({ only: {} });
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(parseCart(await call("GET", base)).cart.metadata).toEqual({ only: {} });
  });

  it("stores keys named constructor or prototype that hold no prototype, on every metadata operation, and reads them back", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const base = `/api/carts/${cart.cart_token}`;
    const appended = parseCart(await call("PATCH", `${base}/append_metadata`, { body: { metadata: { constructor: "Acme", prototype: "v2", nested: { constructor: "kept" } } } }));
    expect(appended.cart.metadata).toEqual({ constructor: "Acme", prototype: "v2", nested: { constructor: "kept" } });
    const merged = parseCart(await call("PATCH", `${base}/json_data`, { body: { json_data: { constructor: { name: "Acme Inc" }, prototype: { version: 2 } } } }));
    expect(merged.cart.metadata).toEqual({ constructor: { name: "Acme Inc" }, prototype: { version: 2 }, nested: { constructor: "kept" } });
    const mergedAgain = parseCart(await call("PATCH", `${base}/append_metadata`, { body: { metadata: { constructor: { city: "Springfield" } } } }));
    expect(mergedAgain.cart.metadata).toMatchObject({ constructor: { name: "Acme Inc", city: "Springfield" } });
    const replaced = parseCart(await call("PATCH", `${base}/metadata`, { body: { metadata: { constructor: "Globex", prototype: ["a"] } } }));
    expect(replaced.cart.metadata).toEqual({ constructor: "Globex", prototype: ["a"] });
    expect((await stored(cart.cart_token)).metadata).toEqual({ constructor: "Globex", prototype: ["a"] });
    expect(parseCart(await call("GET", base)).cart.metadata).toEqual({ constructor: "Globex", prototype: ["a"] });
    const removed = parseCart(await call("PATCH", `${base}/remove_metadata`, { body: { cart: { metadata: ["constructor"] } } }));
    expect(removed.cart.metadata).toEqual({ prototype: ["a"] });
    expect(Object.prototype).not.toHaveProperty("version");
  });
});

describe("attribution", () => {
  it("stores each of the five shapes with its id and resolves the rep", async () => {
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep", { username: "rita", shareGuid: "guid-rita", externalId: "ext-rita" });
    const { cart } = await createCartOverHttp(call, acme);
    for (const attribution of [{ share_guid: "guid-rita" }, { svc_rep_id: rep.user.id }, { email: rep.user.email.toUpperCase() }, { username: "rita" }, { external_id: "ext-rita" }]) {
      const { cart: updated } = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/attribution`, { body: { attribution } }));
      expect(updated.attribution).toEqual({ id: expect.any(Number), ...attribution });
      expect(updated.volume_rep?.id).toBe(rep.user.id);
    }
    const unknown = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/attribution`, { body: { attribution: { username: "nobody" } } }));
    expect(unknown.cart.attribution).toMatchObject({ username: "nobody" });
    expect(unknown.cart.volume_rep).toBeNull();
  });

  it("answers 422 naming what is wrong when the attribution is not exactly one signal, in the public SDK's words, on update and create", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const signals = "share_guid, svc_rep_id, email, username, external_id";
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{ share_guid: "abc", username: "rita" }, { attribution: [`must name exactly one of ${signals} (got share_guid, username)`] }],
      [{}, { attribution: [`needs one of ${signals}`] }],
      [{ email: null }, { attribution: [`needs one of ${signals}`] }],
      [{ svc_rep_id: "7" }, { "attribution.svc_rep_id": ["Invalid input: expected number, received string"] }],
      [{ share_guid: "abc", color: "red" }, { attribution: ['Unrecognized key: "color"'] }],
      [{ color: "red" }, { attribution: ['Unrecognized key: "color"', `needs one of ${signals}`] }],
    ];
    const carts = await t.db.prisma.cart.count();
    for (const [attribution, errors] of cases) {
      const updated = await call("PATCH", `/api/carts/${cart.cart_token}/attribution`, { body: { attribution } });
      expect(updated.status, JSON.stringify(attribution)).toBe(422);
      expect(updated.body.errors, JSON.stringify(attribution)).toEqual(errors);
      const created = await call("POST", "/api/carts", { body: { country_code: "US", svc_shop: acme.shop, attribution } });
      expect(created.status, JSON.stringify(attribution)).toBe(422);
      expect(created.body.errors, JSON.stringify(attribution)).toEqual(errors);
    }
    expect((await call("PATCH", `/api/carts/${cart.cart_token}/attribution`, { body: {} })).body.errors).toEqual({ attribution: ["is required"] });
    expect(await t.db.prisma.cartAttribution.count({ where: { cart: { cart_token: cart.cart_token } } })).toBe(0);
    expect(await t.db.prisma.cart.count()).toBe(carts);
    // The same object told the same as metadata.attribution of the public SDK.
    for (const [attribution, field] of [
      [{}, "attribution"],
      [{ svc_rep_id: "7" }, "attribution.svc_rep_id"],
    ] as const) {
      const publicAnswer = await call("POST", `${PUBLIC_PREFIX}/affiliates/lookup`, { body: { metadata: { ...metadataFor(acme.shop), attribution } } });
      const cartAnswer = await call("PATCH", `/api/carts/${cart.cart_token}/attribution`, { body: { attribution } });
      expect(cartAnswer.body.errors[field]).toEqual(publicAnswer.body.errors[`metadata.${field}`]);
    }
  });

  it("reads a null signal beside the one named as absent, as the public SDK does", async () => {
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep", { shareGuid: "guid-nulls" });
    const { cart } = await createCartOverHttp(call, acme, { attribution: { share_guid: "guid-nulls", username: null, svc_rep_id: null } });
    expect(cart.attribution).toEqual({ id: expect.any(Number), share_guid: "guid-nulls" });
    expect(cart.volume_rep?.id).toBe(rep.user.id);
  });

  it("reads a blank signal beside the one named as absent, the rep id's too, on create and update", async () => {
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep", { shareGuid: "guid-blanks" });
    const { cart } = await createCartOverHttp(call, acme, { attribution: { share_guid: "guid-blanks", svc_rep_id: "", username: " " } });
    expect(cart.attribution).toEqual({ id: expect.any(Number), share_guid: "guid-blanks" });
    expect(cart.volume_rep?.id).toBe(rep.user.id);
    const { cart: updated } = parseCart(await call("PATCH", `/api/carts/${cart.cart_token}/attribution`, { body: { attribution: { svc_rep_id: "  ", external_id: "ext-other" } } }));
    expect(updated.attribution).toEqual({ id: expect.any(Number), external_id: "ext-other" });
  });

  it("holds each signal to the public SDK's rules: an email that is not an email is a 422 naming it, changing nothing", async () => {
    const { cart } = await createCartOverHttp(call, acme, { attribution: { username: "rita" } });
    for (const [attribution, field, message] of [
      [{ email: "bad" }, "attribution.email", "Invalid email address"],
      // A blank signal is an absent one, as in the public SDK: this attribution names none.
      [{ username: "   " }, "attribution", "needs one of share_guid, svc_rep_id, email, username, external_id"],
      [{ svc_rep_id: "" }, "attribution", "needs one of share_guid, svc_rep_id, email, username, external_id"],
    ] as const) {
      const response = await call("PATCH", `/api/carts/${cart.cart_token}/attribution`, { body: { attribution } });
      expect(response.status, JSON.stringify(attribution)).toBe(422);
      expect(response.body.errors).toEqual({ [field]: [message] });
    }
    const { cart: after } = parseCart(await call("GET", `/api/carts/${cart.cart_token}`));
    expect(after.attribution).toEqual(cart.attribution);
    expect(await t.db.prisma.cartAttribution.count({ where: { cart: { cart_token: cart.cart_token } } })).toBe(1);

    const carts = await t.db.prisma.cart.count();
    const created = await call("POST", "/api/carts", { body: { country_code: "US", svc_shop: acme.shop, attribution: { email: "bad" } } });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual({ "attribution.email": ["Invalid email address"] });
    expect(await t.db.prisma.cart.count()).toBe(carts);
  });
});

describe("logout", () => {
  it("removes the customer and the rep and their payment method", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const card = await createCard(t.db.prisma, customer.user.id);
    const { cart } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    parseCart(await call("POST", `/api/carts/${cart.cart_token}/set_saved_payment_method`, { token: acme.token, body: { payment_method_id: card.id } }));
    const loggedOut = parseCart(await call("DELETE", `/api/carts/${cart.cart_token}/logout`));
    expect(loggedOut.cart).toMatchObject({ state: "start", payment_method: null, buyer_rep_id: null });
    expect(await stored(cart.cart_token)).toMatchObject({ customer_id: null, buyer_rep_id: null, payment_method_id: null });
  });

  it("takes away the email the customer's token filled in, and keeps one typed in as another address", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const { cart: filled } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    expect(filled.email).toBe(customer.user.email);
    expect(parseCart(await call("DELETE", `/api/carts/${filled.cart_token}/logout`)).cart.email).toBeNull();

    const { cart: typed } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    parseCart(await call("PATCH", `/api/carts/${typed.cart_token}`, { body: { email: "gift@example.com" } }));
    expect(parseCart(await call("DELETE", `/api/carts/${typed.cart_token}/logout`)).cart.email).toBe("gift@example.com");
  });
});

describe("POST set_saved_payment_method", () => {
  it("accepts the company's token or the cart customer's token; the cart moves to payment_method", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const card = await createCard(t.db.prisma, customer.user.id);
    const { cart } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    const path = `/api/carts/${cart.cart_token}/set_saved_payment_method`;
    const byCompany = parseCart(await call("POST", path, { token: acme.token, body: { payment_method_id: card.id } }));
    expect(byCompany.cart).toMatchObject({ state: "payment_method", payment_method: { id: card.id, type: "credit_card", last_four: "4242", card_type: "visa" }, payment_method_auto_assignable: false });
    const byCustomer = parseCart(await call("POST", path, { token: customer.token, body: { payment_method_id: card.id } }));
    expect(byCustomer.cart.payment_method?.id).toBe(card.id);
  });

  it("refuses a customer token whose company_id no company can have (401, where the cart lookup failed on it as a 500)", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const card = await createCard(t.db.prisma, customer.user.id);
    const { cart } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    const exp = Math.floor(NOW.getTime() / 1000) + 600;
    for (const company_id of [99_999_999_999, "99999999999999999999"]) {
      const token = await new SignJWT({ sub: String(customer.user.id), company_id, role: "customer", exp }).setProtectedHeader({ alg: "HS256" }).sign(userTokenKey(TEST_JWT_SECRET));
      const response = await call("POST", `/api/carts/${cart.cart_token}/set_saved_payment_method`, { token, body: { payment_method_id: card.id } });
      expect(response.status, String(company_id)).toBe(401);
      expect(response.body.error_code).toBe("invalid_user_token");
    }
    expect(await stored(cart.cart_token)).toMatchObject({ payment_method_id: null, state: "start" });
  });

  it("refuses an expired card (422), changing nothing", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const expired = await createCard(t.db.prisma, customer.user.id, { expMonth: 1, expYear: 2020 });
    const { cart } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    const response = await call("POST", `/api/carts/${cart.cart_token}/set_saved_payment_method`, { token: customer.token, body: { payment_method_id: expired.id } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ payment_method_id: ["is expired"] });
    expect(await stored(cart.cart_token)).toMatchObject({ payment_method_id: null, state: "start" });
  });

  it("refuses: 401 without or with a bad credential, 403 for a rep or another customer, 404 for another company's token, 422 for a method outside the account", async () => {
    const customer = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const stranger = await createUserWithToken(t.db.prisma, acme.id, "customer");
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep");
    await createCard(t.db.prisma, customer.user.id);
    const strangersCard = await createCard(t.db.prisma, stranger.user.id);
    const card = await createCard(t.db.prisma, customer.user.id);
    const { cart } = await createCartOverHttp(call, acme, {}, `/api/carts?jwt=${customer.token}`);
    const path = `/api/carts/${cart.cart_token}/set_saved_payment_method`;
    const body = { payment_method_id: card.id };
    expect((await call("POST", path, { body })).status).toBe(401);
    expect((await call("POST", path, { token: "sct_nope", body })).status).toBe(401);
    expect((await call("POST", path, { token: "a.b.c", body })).status).toBe(401);
    expect((await call("POST", path, { token: rep.token, body })).status).toBe(403);
    expect((await call("POST", path, { token: stranger.token, body })).status).toBe(403);
    expect((await call("POST", path, { token: globex.token, body })).status).toBe(404);
    for (const payment_method_id of [strangersCard.id, 999_999]) {
      const outside = await call("POST", path, { token: acme.token, body: { payment_method_id } });
      expect(outside.status).toBe(422);
      expect(outside.body).toMatchObject({ error_code: "validation_failed", errors: { payment_method_id: ["is not one of the customer's saved payment methods"] } });
    }
    expect((await call("POST", path, { token: acme.token, body: {} })).status).toBe(422);
    expect((await call("POST", path, { body: {} })).status).toBe(401);
    expect((await call("POST", path, { token: rep.token, body: {} })).status).toBe(403);
    expect(await stored(cart.cart_token)).toMatchObject({ payment_method_id: null, state: "start" });

    const headers = { "idempotency-key": `saved-method-${cart.cart_token}` };
    expect((await call("POST", path, { token: customer.token, headers, body })).status).toBe(200);
    expect((await call("POST", path, { token: customer.token, headers, body })).headers["idempotent-replayed"]).toBe("true");
    expect((await call("POST", path, { token: rep.token, headers, body })).status).toBe(403);
    const byCompany = await call("POST", path, { token: acme.token, headers, body });
    expect(byCompany.status).toBe(200);
    expect(byCompany.headers["idempotent-replayed"]).toBeUndefined();

    const anonymous = await createCartOverHttp(call, acme);
    const noCustomer = await call("POST", `/api/carts/${anonymous.cart.cart_token}/set_saved_payment_method`, { token: acme.token, body });
    expect(noCustomer.status).toBe(422);
  });
});
