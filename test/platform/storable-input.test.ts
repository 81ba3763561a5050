import { describe, expect, it } from "vitest";
import { MAX_NESTING_DEPTH } from "../../src/platform/http/storable-input.js";
import { createCartOverHttp } from "../helpers/carts.js";
import type { CompanyFixture } from "../helpers/fixtures.js";
import type { Call } from "../helpers/http.js";
import { createMediaViaApi } from "../helpers/media.js";
import type { TestApp } from "../helpers/test-app.js";
import { useTwoCompanyApp } from "../helpers/two-company-app.js";

/**
 * What no request may carry, refused before validation as a 422 naming the field: U+0000 and lone
 * surrogates (PostgreSQL cannot store them; found by test/security/bad-input), numbers past double
 * range and nesting past MAX_NESTING_DEPTH (found by the security audit).
 */
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

  it("still finds them at the deepest level a body may nest", async () => {
    const rawBody = `{"droplet_uuid":${"[".repeat(MAX_NESTING_DEPTH - 1)}"leaf\\u0000"${"]".repeat(MAX_NESTING_DEPTH - 1)}}`;
    const response = await call("POST", "/api/droplet_installations", { token: acme.token, rawBody, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ [`droplet_uuid${".0".repeat(MAX_NESTING_DEPTH - 1)}`]: MESSAGE });
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

/** Found by the security audit: free-form members (media settings, cart metadata) stored 1e309, which JSON.parse reads as Infinity, as null. */
describe("numbers past double range", () => {
  const NOT_FINITE = ["must be a finite number"];

  it("in media settings: 422 naming each, nothing written", async () => {
    const before = await t.db.prisma.media.count();
    const response = await call("POST", "/api/media", {
      token: acme.token,
      rawBody: '{"media":{"title":"Inf","media_type":"share","settings":{"a":1e309,"b":[1,-1e400],"c":{"d":1.5}}}}',
      headers: { "content-type": "application/json" },
    });
    expect(response.status, response.text).toBe(422);
    expect(response.body.errors).toEqual({ "media.settings.a": NOT_FINITE, "media.settings.b.1": NOT_FINITE });
    expect(await t.db.prisma.media.count()).toBe(before);
  });

  it("in cart metadata: 422 naming it, the metadata unchanged", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const base = `/api/carts/${cart.cart_token}`;
    expect((await call("PATCH", `${base}/append_metadata`, { body: { metadata: { kept: 1e308 } } })).status).toBe(200);
    const response = await call("PATCH", `${base}/append_metadata`, { rawBody: '{"metadata":{"inf":1e309}}', headers: { "content-type": "application/json" } });
    expect(response.status, response.text).toBe(422);
    expect(response.body.errors).toEqual({ "metadata.inf": NOT_FINITE });
    expect((await t.db.prisma.cart.findUniqueOrThrow({ where: { cart_token: cart.cart_token } })).metadata).toEqual({ kept: 1e308 });
  });
});

const rawJson = (rawBody: string) => ({ rawBody, headers: { "content-type": "application/json" } });
/** A JSON object `depth` levels deep: {"a":{"a":...1...}}. */
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const TOO_DEEP = [`is nested too deeply (at most ${MAX_NESTING_DEPTH} levels of objects and arrays)`];
/** The path of the first object past the bound in a nestedObject at `prefix`, whose outermost object is `prefixDepth` levels deep. */
const tooDeepAt = (prefix: string, prefixDepth: number) => `${prefix}${".a".repeat(MAX_NESTING_DEPTH + 1 - prefixDepth)}`;

describe("nesting", () => {
  // Found by the security audit: 5,000 levels overflowed the stack in the media size check and in
  // Prisma's JSON encoder, a 500 on every free-form member of an admin body.
  it("past the bound is a 422 naming where, on media create and update, nothing written", async () => {
    const before = await t.db.prisma.media.count();
    for (const member of ["settings", "watch"]) {
      const response = await call("POST", "/api/media", { token: acme.token, ...rawJson(`{"media":{"title":"Deep","media_type":"share","${member}":${nestedObject(5_000)}}}`) });
      expect(response.status, member).toBe(422);
      expect(response.body.errors, member).toEqual({ [tooDeepAt(`media.${member}`, 3)]: TOO_DEEP });
    }
    const prompts = await call("POST", "/api/media", { token: acme.token, ...rawJson(`{"media":{"title":"Deep","media_type":"share","prompts":[${nestedObject(5_000)}]}}`) });
    expect(prompts.status).toBe(422);
    expect(prompts.body.errors).toEqual({ [tooDeepAt("media.prompts.0", 4)]: TOO_DEEP });
    expect(await t.db.prisma.media.count()).toBe(before);

    const media = await createMediaViaApi(call, acme.token, { title: "Shallow", settings: { theme: "dark" } });
    const update = await call("PUT", `/api/media/${media.id}`, { token: acme.token, ...rawJson(`{"media":{"settings":${nestedObject(5_000)}}}`) });
    expect(update.status).toBe(422);
    expect(update.body.errors).toEqual({ [tooDeepAt("media.settings", 3)]: TOO_DEEP });
    expect((await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id } })).settings).toEqual({ theme: "dark" });
  });

  it("past the bound is a 422 naming where, on agreement create and update (attachment metadata), nothing written", async () => {
    const attachment = (metadata: string) => `{"url":"https://files.example.com/a.pdf","filename":"a.pdf","metadata":${metadata}}`;
    const before = await t.db.prisma.agreement.count();
    const created = await call("POST", "/api/agreements", {
      token: acme.token,
      ...rawJson(`{"agreement":{"title":"T","description":"D","attachments_attributes":[${attachment(nestedObject(5_000))}]}}`),
    });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual({ [tooDeepAt("agreement.attachments_attributes.0.metadata", 5)]: TOO_DEEP });
    expect(await t.db.prisma.agreement.count()).toBe(before);

    const agreement = await call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title: "T", description: "D" } } });
    expect(agreement.status).toBe(201);
    const id = agreement.body.agreement.id as number;
    const updated = await call("PUT", `/api/agreements/${id}`, {
      token: acme.token,
      ...rawJson(`{"agreement":{"attachments_attributes":[${attachment(nestedObject(5_000))}]}}`),
    });
    expect(updated.status).toBe(422);
    expect(updated.body.errors).toEqual({ [tooDeepAt("agreement.attachments_attributes.0.metadata", 5)]: TOO_DEEP });
    expect(await t.db.prisma.agreementAttachment.count({ where: { agreement_id: id } })).toBe(0);
  });

  it("up to the bound is stored as sent", async () => {
    const settings = JSON.parse(nestedObject(MAX_NESTING_DEPTH - 2)); // body, media, then these
    const media = await createMediaViaApi(call, acme.token, { title: "As deep as may be", settings });
    expect((await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id } })).settings).toEqual(settings);
  });

  it("is one rule with the Idempotency-Key fingerprint's: a deep body with a key is the same 422, no key stored", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const response = await call("PATCH", `/api/carts/${cart.cart_token}/metadata`, {
      rawBody: `{"metadata":${nestedObject(20_000)}}`,
      headers: { "content-type": "application/json", "idempotency-key": "deep-1" },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ [tooDeepAt("metadata", 2)]: TOO_DEEP });
    expect(await t.db.sql.query("SELECT 1 FROM idempotency_keys WHERE key = 'deep-1'")).toEqual([]);
  });

  // Found by a review: every container past the bound added its own error, so 256 KB of `{}` in
  // an array 63 levels down answered 87,251 errors, 17.5 MB, to anyone (cart create needs no credential).
  it("is reported once, at the first container past the bound, however many there are: a small 422", async () => {
    const open = `${'{"a":'.repeat(MAX_NESTING_DEPTH - 2)}{"x":[`;
    const close = `]}${"}".repeat(MAX_NESTING_DEPTH - 2)}`;
    const rawBody = `${open}${Array.from({ length: 80_000 }, () => "{}").join(",")}${close}`;
    const response = await call("POST", "/api/carts", rawJson(rawBody));
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ [`${"a.".repeat(MAX_NESTING_DEPTH - 2)}x.0`]: TOO_DEEP });
    expect(response.text.length).toBeLessThan(1_000);
  });
});

describe("many errors in one request", () => {
  it("list the first 100 in document order, then say how many more were left out: a small 422", async () => {
    // JSON escapes of a NUL and a lone surrogate, by turns.
    const strings = Array.from({ length: 20_000 }, (_, index) => (index % 2 === 0 ? '"\\u0000"' : '"\\ud800"'));
    const response = await call("POST", "/api/carts", rawJson(`{"metadata":{"list":[${strings.join(",")}]}}`));
    expect(response.status, response.text).toBe(422);
    const listed = Object.entries(response.body.errors);
    expect(listed).toHaveLength(101);
    expect(listed.slice(0, 2)).toEqual([
      ["metadata.list.0", MESSAGE],
      ["metadata.list.1", ["must be valid Unicode text (no lone surrogate)"]],
    ]);
    expect(listed[100]).toEqual(["metadata.list.100", ["and 19900 more errors not listed (a response lists at most 100)"]]);
    expect(response.text.length).toBeLessThan(10_000);
  });
});
