import { beforeAll, describe, expect, it } from "vitest";
import { createPerson, pageFields } from "../helpers/company-server.js";
import { componentViolations, contractViolations, documentedSchemaName } from "../helpers/documented-responses.js";
import {
  type CompanyFixture,
  createCard,
  createDiscount,
  createEnrollmentPack,
  createPlan,
  createProduct,
  createShippingMethod,
  createUserWithToken,
  setTaxRate,
} from "../helpers/fixtures.js";
import type { Call, HttpResponse } from "../helpers/http.js";
import { createMediaViaApi } from "../helpers/media.js";
import { metadataFor, PUBLIC_PREFIX } from "../helpers/public-sdk.js";
import type { TestApp } from "../helpers/test-app.js";
import { useTwoCompanyApp } from "../helpers/two-company-app.js";

// The answers that bypass Fastify's response serialization (streamed lists, the cart's stored
// view, idempotent replays, error bodies, the public SDK's answers) checked against the schema
// the committed openapi/openapi.json documents for their operation and status: what a client
// generated from the document expects. One app and one set of fixtures for the whole file.

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let variantId: number;
let subscribedVariantId: number;
let discountCode: string;
let cartToken: string;
let lockedCartToken: string;
let lockedItemId: number;
let mediaSlug: string;
let agreementIds: number[];
let customerToken: string;

const SESSION_RATE_LIMIT = 5;
useTwoCompanyApp((app) => ({ t, call, acme } = app), { env: { CHECKOUT_BASE_URL: "https://checkout.example.com", SESSION_RATE_LIMIT_PER_MINUTE: String(SESSION_RATE_LIMIT) } });

/** The body of `response` conforms to what the document says `method documentedPath` answers with its status. */
function expectDocumented(method: string, documentedPath: string, response: HttpResponse, status: number): void {
  expect(response.status, response.text.slice(0, 500)).toBe(status);
  expect(contractViolations(method, documentedPath, response)).toEqual([]);
}

beforeAll(async () => {
  const db = t.db.prisma;
  await db.company.update({ where: { id: acme.id }, data: { logo_url: "https://cdn.example.com/acme.png" } });
  await setTaxRate(db, acme.id, "US", "8.25");
  const { product, variant } = await createProduct(db, acme.id, { imageUrl: "https://cdn.example.com/c.png", variants: [{ prices: { US: 1999 }, repPrices: { US: 1500 }, cv: 10, qv: 5, inventory: 100 }] });
  const { product: subscribable, variant: subscribed } = await createProduct(db, acme.id, { title: "Refill", variants: [{ prices: { US: 2000 }, title: null }] });
  variantId = variant.id;
  subscribedVariantId = subscribed.id;
  await createPlan(db, acme.id, { adjustmentType: "percentage", adjustmentAmount: "10", productIds: [subscribable.id], defaultFor: [subscribable.id] });
  await createShippingMethod(db, acme.id, { name: "Ground", price: 500, freeOver: 100000 });
  discountCode = (await createDiscount(db, acme.id, { code: `TEN${Date.now()}`, amount: "10" })).code;
  await createEnrollmentPack(db, acme.id, { variants: [{ id: variant.id }] });
  const customer = await createUserWithToken(db, acme.id, "customer");
  customerToken = customer.token;
  await createCard(db, customer.user.id);

  const created = await call("POST", `/api/carts?jwt=${customerToken}`, { body: { country_code: "US", svc_shop: acme.shop, items: [{ variant_id: variantId, quantity: 2 }] } });
  expect(created.status, created.text).toBe(200);
  cartToken = created.body.cart.cart_token;
  const locked = await call("POST", "/api/carts", { body: { country_code: "US", svc_shop: acme.shop, items: [{ variant_id: variantId, quantity: 1 }] } });
  lockedCartToken = locked.body.cart.cart_token;
  lockedItemId = locked.body.cart.items[0].id;
  await db.cart.update({ where: { cart_token: lockedCartToken }, data: { state: "payment_authorized" } });

  mediaSlug = (await createMediaViaApi(call, acme.token, { title: "Intro", slug: "intro", kind: "video", description: "<p>Hi</p>", product_ids: [product.id], subtitles: { en: "Hi" } })).slug;
  agreementIds = [];
  for (const title of ["Terms", "Privacy"]) {
    const response = await call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title, description: "Read me", attachments_attributes: [{ url: "https://cdn.example.com/t.pdf" }] } } });
    expect(response.status, response.text).toBe(201);
    agreementIds.push(response.body.agreement.id);
  }
  const alice = await createPerson(db, acme.id, "rep", "Alice", "Admin");
  const bob = await createPerson(db, acme.id, "rep", "Bob", "Builder");
  const dave = await createPerson(db, acme.id, "customer", "Dave", "Doe");
  for (const [type, recipient] of [["DirectConversation", bob], ["GroupConversation", bob], ["ChannelConversation", bob], ["EmailConversation", dave]] as const) {
    const response = await call("POST", "/api/company/messaging/conversations.json", {
      token: acme.token,
      body: { conversation: { type, name: type }, recipients: [{ uid: recipient.id }], user: { email: alice.email } },
    });
    expect(response.status, response.text).toBe(201);
  }
});

describe("cart surface", () => {
  it("cart create, read and add items: the stored view as the Cart schema documents it", async () => {
    const created = await call("POST", `/api/carts?jwt=${customerToken}`, {
      body: { country_code: "US", svc_shop: acme.shop, items: [{ variant_id: variantId, quantity: 1 }, { variant_id: subscribedVariantId, quantity: 1, subscription: true }, { variant_id: 2147483000, quantity: 1 }] },
    });
    expectDocumented("POST", "/api/carts", created, 200);
    expect(created.body.cart.skipped_items).toHaveLength(1);
    const token = created.body.cart.cart_token;
    expectDocumented("POST", "/api/carts/{cart_token}/discount", await call("POST", `/api/carts/${token}/discount`, { body: { discount_codes: [discountCode] } }), 200);
    const methods = (await call("GET", `/api/carts/${token}`)).body.cart.available_shipping_methods;
    expectDocumented("POST", "/api/carts/{cart_token}", await call("POST", `/api/carts/${token}`, { body: { shipping_method: { id: methods[0].id } } }), 200);
    expectDocumented(
      "POST",
      "/api/carts/{cart_token}/address",
      await call("POST", `/api/carts/${token}/address`, { body: { type: "ship_to", address: { first_name: "Ann", address1: "1 Main St", city: "Springfield", country_code: "US", postal_code: "12345" } } }),
      200,
    );
    expectDocumented("PATCH", "/api/carts/{cart_token}/append_metadata", await call("PATCH", `/api/carts/${token}/append_metadata`, { body: { metadata: { gift: true } } }), 200);
    expectDocumented("POST", "/api/carts/{cart_token}/items", await call("POST", `/api/carts/${token}/items`, { body: { items: [{ variant_id: variantId, quantity: 2 }] } }), 200);
    expectDocumented("GET", "/api/carts/{cart_token}", await call("GET", `/api/carts/${token}`), 200);
  });

  it("a cart with a buyer rep, an attribution, an enrollment pack, bundled items, set volumes, a saved card and a shortage", async () => {
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep", { username: `rita${Date.now()}` });
    const pack = await t.db.prisma.enrollmentPack.findFirstOrThrow({ where: { company_id: acme.id } });
    const created = await call("POST", `/api/carts?jwt=${rep.token}`, {
      body: { country_code: "US", svc_shop: acme.shop, enrollment_pack_id: pack.id, items: [{ variant_id: variantId, quantity: 500 }], attribution: { username: rep.user.username } },
    });
    expectDocumented("POST", "/api/carts", created, 200);
    expect(created.body.cart).toMatchObject({ buyer_rep_id: rep.user.id, enrollment_pack_id: pack.id, valid_for_checkout: false });
    expect(created.body.cart.messages.errors.join(" ")).toContain("Insufficient inventory");
    const token = created.body.cart.cart_token;
    const itemId = created.body.cart.items.find((item: { variant_id: number; parent_id: number | null }) => item.variant_id === variantId && item.parent_id === null).id;
    expectDocumented(
      "PATCH",
      "/api/carts/{cart_token}/items/{item_id}/bundled_items",
      await call("PATCH", `/api/carts/${token}/items/${itemId}/bundled_items`, { body: { bundled_items: [{ variant_id: subscribedVariantId, quantity: 1, display_to_customer: true }] } }),
      200,
    );
    expectDocumented(
      "PATCH",
      "/api/carts/{cart_token}/items/{item_id}/update_volumes",
      await call("PATCH", `/api/carts/${token}/items/${itemId}/update_volumes`, { token: acme.token, body: { cv: 3, qv: 2 } }),
      200,
    );
    expectDocumented("PATCH", "/api/carts/{cart_token}/attribution", await call("PATCH", `/api/carts/${token}/attribution`, { body: { attribution: { email: "nobody@example.com" } } }), 200);
    const card = await t.db.prisma.paymentMethod.findFirstOrThrow({});
    const withCard = await call("POST", `/api/carts/${cartToken}/set_saved_payment_method`, { token: acme.token, body: { payment_method_id: card.id } });
    expectDocumented("POST", "/api/carts/{cart_token}/set_saved_payment_method", withCard, 200);
    expectDocumented("GET", "/api/carts/{cart_token}", await call("GET", `/api/carts/${token}`), 200);
    // The customer's saved cards, read now and written into the stored view.
    const withSaved = await call("GET", `/api/carts/${cartToken}?payment_methods_includes=saved_payment_methods`);
    expectDocumented("GET", "/api/carts/{cart_token}", withSaved, 200);
    expect(withSaved.body.cart.available_payment_methods).toContainEqual(expect.objectContaining({ type: "saved_payment_method", id: card.id }));
  });

  it("a locked cart's 410 carries the cart and the shop's address in meta", async () => {
    const response = await call("POST", `/api/carts/${lockedCartToken}/items`, { body: { items: [{ variant_id: variantId, quantity: 1 }] } });
    expectDocumented("POST", "/api/carts/{cart_token}/items", response, 410);
    expect(response.body.meta).toMatchObject({ cart: { cart_token: lockedCartToken, state: "payment_authorized" }, shop_url: expect.any(String) });
    // Documented as a 410 of its own, not only the 4XX Error whose meta takes any member: a generated client reads the cart from it.
    expect(documentedSchemaName("POST", "/api/carts/{cart_token}/items", 410)).toBe("CartLockedError");
    const volumes = await call("PATCH", `/api/carts/${lockedCartToken}/items/${lockedItemId}/update_volumes`, { token: acme.token, body: { cv: 1 } });
    expectDocumented("PATCH", "/api/carts/{cart_token}/items/{item_id}/update_volumes", volumes, 410);
  });

  it("a 413, a 422 and a 404", async () => {
    const tooLarge = { metadata: { note: "x".repeat(t.config.cartBodyLimit) } };
    expectDocumented("PATCH", "/api/carts/{cart_token}/append_metadata", await call("PATCH", `/api/carts/${cartToken}/append_metadata`, { body: tooLarge }), 413);
    expectDocumented("POST", "/api/carts/{cart_token}/items", await call("POST", `/api/carts/${cartToken}/items`, { body: { items: [{ variant_id: "x" }] } }), 422);
    expectDocumented("GET", "/api/carts/{cart_token}", await call("GET", "/api/carts/ct_0000000000000000000000"), 404);
  });

  it("an idempotent replay and a replayed 422", async () => {
    const send = (body: unknown, key: string) => call("POST", `/api/carts/${cartToken}/items`, { body, headers: { "idempotency-key": key } });
    const first = await send({ items: [{ variant_id: variantId, quantity: 1 }] }, "contract-cart-add");
    const replay = await send({ items: [{ variant_id: variantId, quantity: 1 }] }, "contract-cart-add");
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expectDocumented("POST", "/api/carts/{cart_token}/items", first, 200);
    expectDocumented("POST", "/api/carts/{cart_token}/items", replay, 200);
    await send({ items: [] }, "contract-cart-422");
    const replayed422 = await send({ items: [] }, "contract-cart-422");
    expect(replayed422.headers["idempotent-replayed"]).toBe("true");
    expectDocumented("POST", "/api/carts/{cart_token}/items", replayed422, 422);
  });
});

describe("admin surface", () => {
  it("the agreements list and bulk_clone, streamed", async () => {
    expectDocumented("GET", "/api/agreements", await call("GET", "/api/agreements?per_page=1", { token: acme.token }), 200);
    expectDocumented("GET", "/api/agreements", await call("GET", "/api/agreements?page=9", { token: acme.token }), 200);
    expectDocumented("POST", "/api/agreements/bulk_clone", await call("POST", "/api/agreements/bulk_clone", { token: acme.token, body: { agreement_ids: agreementIds } }), 200);
  });

  it("the conversations list, streamed", async () => {
    expectDocumented("GET", "/api/company/messaging/conversations", await call("GET", "/api/company/messaging/conversations", { token: acme.token }), 200);
  });

  it("the media and custom pages lists, streamed", async () => {
    expectDocumented("GET", "/api/media", await call("GET", "/api/media", { token: acme.token }), 200);
    const page = await call("POST", "/api/company/custom_pages", { token: acme.token, body: { lang: "en", custom_page: pageFields() } });
    expect(page.status, page.text).toBe(201);
    expectDocumented("GET", "/api/company/custom_pages", await call("GET", "/api/company/custom_pages?lang=en", { token: acme.token }), 200);
  });

  it("a replayed 422", async () => {
    const send = () => call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title: "" } }, headers: { "idempotency-key": "contract-422" } });
    expectDocumented("POST", "/api/agreements", await send(), 422);
    const replay = await send();
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expectDocumented("POST", "/api/agreements", replay, 422);
  });

  it("an idempotent replay of a streamed answer", async () => {
    const send = () => call("POST", "/api/agreements/bulk_clone", { token: acme.token, body: { agreement_ids: agreementIds }, headers: { "idempotency-key": "contract-clone" } });
    await send();
    const replay = await send();
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expectDocumented("POST", "/api/agreements/bulk_clone", replay, 200);
  });

  it("the admin media read: the object itself with meta", async () => {
    const list = await call("GET", "/api/media", { token: acme.token });
    expectDocumented("GET", "/api/media/{id}", await call("GET", `/api/media/${list.body.media[0].id}`, { token: acme.token }), 200);
  });

  it("a 400, a 415, a 422, a 404 and a 401", async () => {
    expectDocumented("POST", "/api/agreements", await call("POST", "/api/agreements", { token: acme.token, rawBody: "{", headers: { "content-type": "application/json" } }), 400);
    expectDocumented("POST", "/api/agreements", await call("POST", "/api/agreements", { token: acme.token, rawBody: "x", headers: { "content-type": "text/plain" } }), 415);
    expectDocumented("POST", "/api/agreements", await call("POST", "/api/agreements", { token: acme.token, body: {} }), 422);
    expectDocumented("GET", "/api/agreements/{id}", await call("GET", "/api/agreements/2147483000", { token: acme.token }), 404);
    expectDocumented("GET", "/api/agreements", await call("GET", "/api/agreements", { token: "sct_wrong" }), 401);
  });
});

describe("public SDK surface", () => {
  it("the media read", async () => {
    const response = await call("POST", `${PUBLIC_PREFIX}/media/${mediaSlug}`, { body: { metadata: metadataFor(acme.shop, { svc_locale: "en_US" }) } });
    expectDocumented("POST", `${PUBLIC_PREFIX}/media/{slug}`, response, 200);
    expectDocumented("POST", `${PUBLIC_PREFIX}/media`, await call("POST", `${PUBLIC_PREFIX}/media`, { body: { media: { id: mediaSlug }, metadata: metadataFor(acme.shop) } }), 200);
  });

  it("an affiliate lookup and a playlist read", async () => {
    const rep = await createUserWithToken(t.db.prisma, acme.id, "rep", { username: `ann${Date.now()}`, imageUrl: "https://cdn.example.com/ann.png" });
    expectDocumented(
      "POST",
      `${PUBLIC_PREFIX}/affiliates/lookup`,
      await call("POST", `${PUBLIC_PREFIX}/affiliates/lookup`, { body: { metadata: metadataFor(acme.shop, { attribution: { username: rep.user.username } }) } }),
      201,
    );
    expectDocumented(
      "POST",
      `${PUBLIC_PREFIX}/affiliates/lookup`,
      await call("POST", `${PUBLIC_PREFIX}/affiliates/lookup`, { body: { metadata: metadataFor(acme.shop, { attribution: { username: "nobody-at-all" } }) } }),
      404,
    );
    // A picture address stored before addresses were checked, relative or with a space: the document promises a URI or null.
    for (const imageUrl of ["avatars/legacy.png", "https://cdn.example.com/my avatar.png"]) {
      const legacy = await createUserWithToken(t.db.prisma, acme.id, "rep", { username: `legacy${Date.now()}`, imageUrl });
      const response = await call("POST", `${PUBLIC_PREFIX}/affiliates/lookup`, { body: { metadata: metadataFor(acme.shop, { attribution: { username: legacy.user.username } }) } });
      expectDocumented("POST", `${PUBLIC_PREFIX}/affiliates/lookup`, response, 201);
    }
    const playlist = await call("POST", "/api/playlists", { token: acme.token, body: { playlist: { title: "Start here", slug: "start", media_ids: [(await call("GET", "/api/media", { token: acme.token })).body.media[0].id] } } });
    expect(playlist.status, playlist.text).toBe(201);
    expectDocumented("POST", `${PUBLIC_PREFIX}/playlists/{slug}`, await call("POST", `${PUBLIC_PREFIX}/playlists/start`, { body: { metadata: metadataFor(acme.shop) } }), 200);
    expectDocumented("POST", `${PUBLIC_PREFIX}/playlists`, await call("POST", `${PUBLIC_PREFIX}/playlists`, { body: { library: { id: "start" }, metadata: metadataFor(acme.shop) } }), 200);
  });

  it("a 400, a 413 and a 415", async () => {
    expectDocumented("POST", `${PUBLIC_PREFIX}/events/pages/visit`, await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { rawBody: "{", headers: { "content-type": "application/json" } }), 400);
    const tooLarge = { page: { url: "https://acme.example.com/", title: "x".repeat(t.config.publicBodyLimit) }, metadata: metadataFor(acme.shop) };
    expectDocumented("POST", `${PUBLIC_PREFIX}/events/pages/visit`, await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: tooLarge }), 413);
    expectDocumented("POST", `${PUBLIC_PREFIX}/events/pages/visit`, await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { rawBody: "x", headers: { "content-type": "application/xml" } }), 415);
  });

  it("a page visit, a lead and a session", async () => {
    const page = { url: "https://acme.example.com/products/c", title: "C" };
    expectDocumented("POST", `${PUBLIC_PREFIX}/events/pages/visit`, await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: { page, metadata: metadataFor(acme.shop) } }), 201);
    expectDocumented(
      "POST",
      `${PUBLIC_PREFIX}/events/leads/capture`,
      await call("POST", `${PUBLIC_PREFIX}/events/leads/capture`, { body: { lead: { message: "Call me", contact: { name: "Ada", email: "ada@example.com" } }, page, metadata: metadataFor(acme.shop) } }),
      201,
    );
    expectDocumented("POST", `${PUBLIC_PREFIX}/session`, await call("POST", `${PUBLIC_PREFIX}/session`, { body: { metadata: { svc_shop: acme.shop } } }), 201);
  });

  it("a 429 of the per-session limit", async () => {
    const metadata = metadataFor(acme.shop);
    const visit = () => call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: { page: { url: "https://acme.example.com/" }, metadata } });
    for (let sent = 0; sent < SESSION_RATE_LIMIT; sent++) expect((await visit()).status).toBe(201);
    expectDocumented("POST", `${PUBLIC_PREFIX}/events/pages/visit`, await visit(), 429);
  });

  it("a 422 and a 404", async () => {
    expectDocumented("POST", `${PUBLIC_PREFIX}/events/pages/visit`, await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: { metadata: metadataFor(acme.shop) } }), 422);
    expectDocumented("POST", `${PUBLIC_PREFIX}/media/{slug}`, await call("POST", `${PUBLIC_PREFIX}/media/nothing-here`, { body: { metadata: metadataFor(acme.shop) } }), 404);
    expectDocumented("POST", `${PUBLIC_PREFIX}/media/{slug}`, await call("POST", `${PUBLIC_PREFIX}/media/${mediaSlug}`, { body: { metadata: metadataFor("no-such-shop") } }), 404);
  });
});

describe("answers of no operation", () => {
  it("an unknown path: Error on the admin and cart surfaces, PublicError under the public SDK's prefix (an unserved version included)", async () => {
    for (const path of ["/api/nothing", "/api/carts/ct_0000000000000000000000/nothing"]) {
      const response = await call("GET", path);
      expect(response.status).toBe(404);
      expect(componentViolations("Error", response)).toEqual([]);
    }
    for (const path of [`${PUBLIC_PREFIX}/nothing`, "/api/public/v2024-01/session"]) {
      const response = await call("POST", path, { body: { metadata: metadataFor(acme.shop) } });
      expect(response.status).toBe(404);
      expect(componentViolations("PublicError", response)).toEqual([]);
    }
  });

  it("a request Node's parser refuses (headers too large)", async () => {
    const response = await call("GET", "/api/agreements", { headers: { "x-filler": "x".repeat(20_000) } });
    expect(response.status).toBe(431);
    expect(componentViolations("Error", response)).toEqual([]);
  });
});
