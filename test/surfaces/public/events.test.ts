import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { createCompany } from "../../../src/domain/companies/service.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { createRep, expectPublicError, metadataFor, PUBLIC_PREFIX, type RepFixture } from "../../helpers/public-sdk.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let rita: RepFixture;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// A millisecond later at every read, so that an answer built from two reads of the clock shows it.
let clockReads = 0;
const tickingClock = { now: () => new Date(Date.now() + clockReads++) };

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), { clock: tickingClock }, async () => {
  rita = await createRep(t.db.prisma, acme.id, "Rita");
});

beforeEach(async () => {
  await t.db.prisma.lead.deleteMany();
  await t.db.prisma.pageVisit.deleteMany();
});

const capture = (body: unknown) => call("POST", `${PUBLIC_PREFIX}/events/leads/capture`, { body });
const visit = (body: unknown) => call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body });
const lead = (contact: Record<string, unknown> = { name: "Ada", email: "ada@example.com" }) => ({ message: "Call me about the starter kit", contact });

describe("POST /session", () => {
  it("issues a new ss_ session for a shop named by domain or first label: 201 with metadata", async () => {
    const firstLabel = acme.shop.split(".")[0] as string;
    // A fully qualified name too (its trailing dot kept, as a browser's location.hostname does).
    for (const body of [{ metadata: { svc_shop: acme.shop, svc_locale: "fr_FR" } }, { svc_shop: firstLabel }, { svc_shop: acme.shop, metadata: null }, { svc_shop: `${acme.shop}.` }]) {
      const response = await call("POST", `${PUBLIC_PREFIX}/session`, { body });
      expect(response.status).toBe(201);
      expect(response.body.status).toBe(201);
      expect(response.body.svc_session).toMatch(/^ss_[1-9A-HJ-NP-Za-km-z]{22}$/);
      expect(response.body.metadata).toMatchObject({ svc_session: response.body.svc_session, request_uuid: expect.stringMatching(UUID) });
      expect(response.body.metadata.request_uuid).toBe(response.headers["x-request-id"]);
    }
    const [a, b] = await Promise.all([1, 2].map(() => call("POST", `${PUBLIC_PREFIX}/session`, { body: { svc_shop: acme.shop } })));
    expect(a?.body.svc_session).not.toBe(b?.body.svc_session);
  });

  it("reads svc_locale beside a bare svc_shop as it reads it in metadata: echoed when valid, a 422 at its own path when not", async () => {
    const session = (body: unknown) => call("POST", `${PUBLIC_PREFIX}/session`, { body });
    for (const [body, locale] of [
      [{ svc_shop: acme.shop, svc_locale: "fr_CA" }, "fr_CA"],
      [{ svc_shop: acme.shop, svc_locale: null }, null],
      [{ svc_shop: acme.shop, svc_locale: "de_DE", metadata: { svc_shop: acme.shop, svc_locale: "fr_CA" } }, "fr_CA"],
      [{ svc_shop: acme.shop, svc_locale: "de_DE", metadata: { svc_shop: acme.shop } }, "de_DE"],
      // Found by an audit: a metadata naming only the locale hid the bare shop beside it (a 422).
      [{ svc_shop: acme.shop, metadata: { svc_locale: "fr_FR" } }, "fr_FR"],
      [{ svc_shop: acme.shop, svc_locale: "fr_CA", metadata: {} }, "fr_CA"],
    ] as const) {
      const response = await session(body);
      expect(response.status, JSON.stringify(body)).toBe(201);
      expect(response.body.metadata.svc_locale, JSON.stringify(body)).toBe(locale);
    }
    for (const [body, path] of [
      [{ svc_shop: acme.shop, svc_locale: "bad" }, "svc_locale"],
      [{ metadata: { svc_shop: acme.shop, svc_locale: "bad" } }, "metadata.svc_locale"],
    ] as const) {
      const response = await session(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.errors).toEqual({ [path]: ["must look like en_US"] });
    }
  });

  // Found by an audit: a shop at an internationalized domain could be named only by its punycode.
  it("names a shop at an internationalized domain by its Unicode or its ASCII form, domain or first label", async () => {
    const label = `bücher-${randomBytes(3).toString("hex")}`;
    const company = await createCompany(t.db.prisma, { name: "Bücher", shop: `${label}.example` });
    const ascii = company.shop_domain;
    expect(ascii).toMatch(/^xn--bcher-.*-[a-z0-9]+\.example$/);
    for (const svc_shop of [`${label}.example`, ascii, label.toUpperCase(), ascii.split(".")[0]]) {
      const response = await call("POST", `${PUBLIC_PREFIX}/session`, { body: { svc_shop } });
      expect(response.status, svc_shop).toBe(201);
    }
  });

  it("answers 404 for an unknown shop and 422 without a shop", async () => {
    const unknown = await call("POST", `${PUBLIC_PREFIX}/session`, { body: { metadata: { svc_shop: "nobody.example.com" } } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 404, error_code: "shop_not_found" });
    for (const body of [{}, { metadata: { svc_locale: "fr_FR" } }, { svc_shop: null, metadata: { svc_shop: null } }]) {
      const missing = await call("POST", `${PUBLIC_PREFIX}/session`, { body });
      expect(missing.status, JSON.stringify(body)).toBe(422);
      expect(missing.body.errors).toEqual({ "metadata.svc_shop": ["is required"] });
    }
  });
});

describe("POST /events/leads/capture", () => {
  it("stores the lead durably before the 201, linked to session, shop, page and attributed rep", async () => {
    const metadata = metadataFor(acme.shop, { svc_locale: "en_US", svc_journey: "checkout", attribution: { username: rita.username } });
    const page = { url: "https://acme.example.com/kits?ref=1", title: "Kits", description: "All kits", image: "https://cdn.example.com/kit.png" };
    const response = await capture({ lead: lead({ name: "Ada", email: "Ada@Example.com", phone: "+1 (555) 010-2030" }), page, metadata });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["metadata", "status"]);
    expect(response.body.status).toBe(201);
    expect(response.body.metadata).toEqual({
      svc_shop: acme.shop,
      svc_session: metadata.svc_session,
      svc_locale: "en_US",
      request_uuid: expect.stringMatching(UUID),
      timestamp: expect.any(String),
    });
    // The row is there the moment the 201 arrives: no queue in between.
    const rows = await t.db.prisma.lead.findMany({ where: { company_id: acme.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: "public",
      message: "Call me about the starter kit",
      contact_name: "Ada",
      contact_email: "ada@example.com",
      contact_phone: "+1 (555) 010-2030",
      rep_id: rita.id,
      svc_session: metadata.svc_session,
      svc_shop: acme.shop,
      svc_locale: "en_US",
      svc_journey: "checkout",
      page_url: page.url,
      page_title: "Kits",
      page_image: page.image,
    });
  });

  it("accepts both contact shapes: with email (phone optional) and with phone (email optional)", async () => {
    // A slash is the German-speaking countries' separator of the area code (found by an audit: a 422).
    for (const contact of [
      { name: "Ada", email: "ada@example.com" },
      { name: "Bob", phone: "+44 20 7946 0958" },
      { name: "Cy", phone: "5550102030", email: "cy@example.com" },
      { name: "Dora", phone: "030/12345678" },
    ]) {
      const response = await capture({ lead: lead(contact), metadata: metadataFor(acme.shop) });
      expect(response.status, JSON.stringify(contact)).toBe(201);
    }
    expect(await t.db.prisma.lead.count()).toBe(4);
  });

  it("stores no rep when the attribution names nobody, and no page when none is sent", async () => {
    const response = await capture({ lead: lead(), metadata: metadataFor(acme.shop, { attribution: { email: "nobody@example.com" } }) });
    expect(response.status).toBe(201);
    const row = await t.db.prisma.lead.findFirstOrThrow();
    expect(row).toMatchObject({ rep_id: null, page_url: null, attribution: { email: "nobody@example.com" } });
  });

  it("reads null in an optional member as absent, as storefront scripts send it for none", async () => {
    const metadata = metadataFor(acme.shop, { svc_locale: null, svc_journey: null, attribution: null });
    const response = await capture({ lead: lead({ name: "Ada", email: "ada@example.com", phone: null }), page: null, metadata });
    expect(response.status).toBe(201);
    expect(response.body.metadata).toMatchObject({ svc_session: metadata.svc_session, svc_locale: null });
    const withPage = await capture({
      lead: lead({ name: "Bob", email: null, phone: "+44 20 7946 0958" }),
      page: { url: "https://acme.example.com/", title: null, description: null, image: null },
      metadata: metadataFor(acme.shop, { attribution: { email: null, username: rita.username } }),
    });
    expect(withPage.status).toBe(201);
    const rows = await t.db.prisma.lead.findMany({ orderBy: { id: "asc" } });
    expect(rows.map(({ contact_email, contact_phone, svc_journey, page_url, page_title, rep_id, attribution }) => ({ contact_email, contact_phone, svc_journey, page_url, page_title, rep_id, attribution }))).toEqual([
      { contact_email: "ada@example.com", contact_phone: null, svc_journey: null, page_url: null, page_title: null, rep_id: null, attribution: null },
      { contact_email: null, contact_phone: "+44 20 7946 0958", svc_journey: null, page_url: "https://acme.example.com/", page_title: null, rep_id: rita.id, attribution: { username: rita.username } },
    ]);
  });

  it("reads a blank in an optional member of a checked format as absent, as an empty form input sends it", async () => {
    const withPhone = await capture({
      lead: lead({ name: "Ann", phone: "+1 555 123 4567", email: "" }),
      page: { url: "https://acme.example.com/", title: "", image: "" },
      metadata: metadataFor(acme.shop, { svc_locale: "", attribution: { email: " ", username: rita.username, share_guid: "", svc_rep_id: "" } }),
    });
    expect(withPhone.status).toBe(201);
    expect(withPhone.body.metadata.svc_locale).toBeNull();
    expect((await capture({ lead: lead({ name: "Bea", email: "bea@example.com", phone: " " }), metadata: metadataFor(acme.shop) })).status).toBe(201);
    const session = await call("POST", `${PUBLIC_PREFIX}/session`, { body: { metadata: { svc_shop: acme.shop, svc_locale: "" } } });
    expect(session.status).toBe(201);
    expect(session.body.metadata.svc_locale).toBeNull();
    const rows = await t.db.prisma.lead.findMany({ orderBy: { id: "asc" } });
    expect(rows.map(({ contact_email, contact_phone, svc_locale, page_title, page_image, rep_id, attribution }) => ({ contact_email, contact_phone, svc_locale, page_title, page_image, rep_id, attribution }))).toEqual([
      { contact_email: null, contact_phone: "+1 555 123 4567", svc_locale: null, page_title: "", page_image: null, rep_id: rita.id, attribution: { username: rita.username } },
      { contact_email: "bea@example.com", contact_phone: null, svc_locale: null, page_title: null, page_image: null, rep_id: null, attribution: null },
    ]);
  });

  it("trims the contact's and the attribution's email, as every other identifier, so a stray space does not lose the lead", async () => {
    const response = await capture({ lead: lead({ name: "Ada", email: " Ada@Example.com\t" }), metadata: metadataFor(acme.shop, { attribution: { email: ` ${rita.email} ` } }) });
    expect(response.status).toBe(201);
    expect(await t.db.prisma.lead.findFirstOrThrow()).toMatchObject({ contact_email: "ada@example.com", rep_id: rita.id, attribution: { email: rita.email } });
  });

  // Found by an audit: a 422 "Invalid email address", losing the lead of a visitor whose mail is at an IDN domain.
  it("reads an email at an internationalized domain in its ASCII form, as a browser's email input sends it", async () => {
    const response = await capture({ lead: lead({ name: "Jürgen", email: "juergen@Müller.de" }), metadata: metadataFor(acme.shop) });
    expect(response.status).toBe(201);
    expect(await t.db.prisma.lead.findFirstOrThrow()).toMatchObject({ contact_name: "Jürgen", contact_email: "juergen@xn--mller-kva.de" });
    // A domain that has no ASCII form is still no email.
    const invalid = await capture({ lead: lead({ name: "Ada", email: "ada@exa mple.de" }), metadata: metadataFor(acme.shop) });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual({ "lead.contact.email": ["Invalid email address"] });
  });

  // Found by an audit: a leading space before the + was a 422 ("is not a phone number"), losing the lead.
  it("trims the contact's phone, as its email, so a pasted international number keeps the lead", async () => {
    const response = await capture({ lead: lead({ name: "Bob", phone: " +44 20 7946 0958\t" }), metadata: metadataFor(acme.shop) });
    expect(response.status).toBe(201);
    expect(await t.db.prisma.lead.findFirstOrThrow()).toMatchObject({ contact_phone: "+44 20 7946 0958" });
  });

  it("does not attribute to another company's rep", async () => {
    await capture({ lead: lead(), metadata: metadataFor(globex.shop, { attribution: { share_guid: rita.share_guid } }) });
    expect(await t.db.prisma.lead.findFirstOrThrow()).toMatchObject({ company_id: globex.id, rep_id: null });
  });

  const invalid: Array<[string, (body: Record<string, any>) => void, Record<string, string[]> | string[]]> = [
    ["message missing", (b) => delete b.lead.message, ["lead.message"]],
    ["message blank", (b) => (b.lead.message = "   "), ["lead.message"]],
    ["contact missing", (b) => delete b.lead.contact, ["lead.contact"]],
    ["contact without name", (b) => delete b.lead.contact.name, ["lead.contact.name"]],
    ["contact with neither email nor phone", (b) => (b.lead.contact = { name: "Ada" }), { "lead.contact.email": ["needs an email or a phone"] }],
    ["contact with a null email and a null phone", (b) => (b.lead.contact = { name: "Ada", email: null, phone: null }), { "lead.contact.email": ["needs an email or a phone"] }],
    ["contact whose only email is blank", (b) => (b.lead.contact = { name: "Ada", email: "" }), { "lead.contact.email": ["needs an email or a phone"] }],
    ["contact whose only phone is blank", (b) => (b.lead.contact = { name: "Ada", phone: "  " }), { "lead.contact.email": ["needs an email or a phone"] }],
    ["attribution whose only signal is blank", (b) => (b.metadata.attribution = { share_guid: "" }), ["metadata.attribution"]],
    ["attribution whose only signal is a blank svc_rep_id", (b) => (b.metadata.attribution = { svc_rep_id: " " }), ["metadata.attribution"]],
    ["lead null", (b) => (b.lead = null), ["lead"]],
    ["contact name null", (b) => (b.lead.contact.name = null), ["lead.contact.name"]],
    ["page url null", (b) => (b.page = { url: null }), ["page.url"]],
    ["svc_session null", (b) => (b.metadata.svc_session = null), ["metadata.svc_session"]],
    ["contact email not an email", (b) => (b.lead.contact.email = "ada-at-example"), ["lead.contact.email"]],
    ["contact phone not a phone", (b) => (b.lead.contact = { name: "Ada", phone: "call me" }), { "lead.contact.phone": ["is not a phone number"] }],
    ["page url missing", (b) => (b.page = { title: "x" }), ["page.url"]],
    ["page url not a URI", (b) => (b.page = { url: "not a url" }), ["page.url"]],
    ["page url not http(s)", (b) => (b.page = { url: "javascript:alert(1)" }), { "page.url": ["must be an http(s) URL"] }],
    // Found by an audit: a well-formed URL past the bound was told it was no http(s) URL.
    ["page url too long", (b) => (b.page = { url: `https://a.example.com/?q=${"x".repeat(2048)}` }), { "page.url": ["Too big: expected string to have <=2048 characters"] }],
    ["page image not a URI", (b) => (b.page = { url: "https://a.example.com", image: "kit.png" }), ["page.image"]],
    ["metadata missing", (b) => delete b.metadata, ["metadata"]],
    ["svc_shop missing", (b) => delete b.metadata.svc_shop, ["metadata.svc_shop"]],
    ["svc_session missing", (b) => delete b.metadata.svc_session, ["metadata.svc_session"]],
    ["svc_session without ss_", (b) => (b.metadata.svc_session = "xx_2bQ9yFhT7cM4kP8wZr5nJd"), ["metadata.svc_session"]],
    ["svc_session too short", (b) => (b.metadata.svc_session = "ss_2bQ9yFhT7cM4kP8wZr5nJ"), ["metadata.svc_session"]],
    ["svc_session with 0", (b) => (b.metadata.svc_session = "ss_0bQ9yFhT7cM4kP8wZr5nJd"), ["metadata.svc_session"]],
    ["svc_session with O", (b) => (b.metadata.svc_session = "ss_ObQ9yFhT7cM4kP8wZr5nJd"), ["metadata.svc_session"]],
    ["svc_session with I", (b) => (b.metadata.svc_session = "ss_IbQ9yFhT7cM4kP8wZr5nJd"), ["metadata.svc_session"]],
    ["svc_session with l", (b) => (b.metadata.svc_session = "ss_lbQ9yFhT7cM4kP8wZr5nJd"), ["metadata.svc_session"]],
    ["svc_locale lower-case region", (b) => (b.metadata.svc_locale = "en_us"), ["metadata.svc_locale"]],
    ["svc_locale with a hyphen", (b) => (b.metadata.svc_locale = "en-US"), ["metadata.svc_locale"]],
    ["attribution with none of the five keys", (b) => (b.metadata.attribution = { rep: "rita" }), ["metadata.attribution"]],
    ["attribution email not an email", (b) => (b.metadata.attribution = { email: "rita" }), ["metadata.attribution.email"]],
    ["attribution svc_rep_id not an integer", (b) => (b.metadata.attribution = { svc_rep_id: "12" }), ["metadata.attribution.svc_rep_id"]],
    ["message too long", (b) => (b.lead.message = "x".repeat(5001)), ["lead.message"]],
  ];

  for (const [name, mutate, expected] of invalid) {
    it(`answers 422 and stores nothing: ${name}`, async () => {
      const body: Record<string, any> = { lead: lead({ name: "Ada", email: "ada@example.com" }), metadata: metadataFor(acme.shop) };
      mutate(body);
      const response = await capture(body);
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ status: 422, error_code: "validation_failed" });
      if (Array.isArray(expected)) expect(Object.keys(response.body.errors)).toEqual(expected);
      else expect(response.body.errors).toEqual(expected);
      expect(await t.db.prisma.lead.count()).toBe(0);
    });
  }

  it("error bodies carry status and, when the metadata could be read, metadata", async () => {
    const metadata = metadataFor(acme.shop, { svc_locale: "de_DE" });
    const readable = await capture({ lead: { contact: { name: "Ada", email: "ada@example.com" } }, metadata });
    expectPublicError(readable, 422);
    expect(readable.body).toMatchObject({ meta: { request_id: readable.headers["x-request-id"] } });
    expect(readable.body.metadata).toEqual({ svc_shop: acme.shop, svc_session: metadata.svc_session, svc_locale: "de_DE", request_uuid: expect.stringMatching(UUID), timestamp: expect.any(String) });
    const unreadable = await capture({ lead: lead(), metadata: { svc_shop: acme.shop, svc_session: "nope" } });
    expectPublicError(unreadable, 422);
    expect(unreadable.body).not.toHaveProperty("metadata");
  });

  it("answers 404 with status and metadata for an unknown shop, storing nothing", async () => {
    const response = await capture({ lead: lead(), metadata: metadataFor("unknown-shop.example.com") });
    expectPublicError(response, 404);
    expect(response.body).toMatchObject({ error_code: "shop_not_found", metadata: { svc_shop: "unknown-shop.example.com" } });
    expect(await t.db.prisma.lead.count()).toBe(0);
  });

  it("refuses a body over the public limit with 413, malformed JSON with 400", async () => {
    const big = await capture({ lead: lead(), metadata: metadataFor(acme.shop), padding: "x".repeat(t.config.publicBodyLimit) });
    expectPublicError(big, 413);
    expect(big.body.error_code).toBe("payload_too_large");
    const malformed = await call("POST", `${PUBLIC_PREFIX}/events/leads/capture`, { rawBody: "{", headers: { "content-type": "application/json" } });
    expectPublicError(malformed, 400);
  });

  it("answers CORS preflights from any origin and unknown public paths with the error body", async () => {
    const preflight = await call("OPTIONS", `${PUBLIC_PREFIX}/events/leads/capture`, {
      headers: { origin: "https://shop.example.org", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://shop.example.org");
    const unknown = await call("POST", `${PUBLIC_PREFIX}/nothing-here`, { body: {} });
    expectPublicError(unknown, 404);
    expect(unknown.body.error_code).toBe("route_not_found");
  });

  it("answers routing errors under the prefix (a URL that does not decode, an overlong slug) in the public error body", async () => {
    const undecodable = await call("POST", `${PUBLIC_PREFIX}/media/%E0%A4%A`, { body: { metadata: metadataFor(acme.shop) } });
    expectPublicError(undecodable, 400);
    const overlong = await call("POST", `${PUBLIC_PREFIX}/media/${"a".repeat(201)}`, { body: { metadata: metadataFor(acme.shop) } });
    expectPublicError(overlong, 404);
    const elsewhere = await call("GET", "/api/agreements/%E0%A4%A");
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.status).toBeUndefined();
  });
});

describe("POST /events/pages/visit (deprecated)", () => {
  it("stores the visit before the 201", async () => {
    const metadata = metadataFor(acme.shop, { attribution: { svc_rep_id: rita.id } });
    const response = await visit({ page: { url: "https://acme.example.com/", title: "Home" }, metadata });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ status: 201, metadata: { svc_session: metadata.svc_session, svc_locale: null } });
    const rows = await t.db.prisma.pageVisit.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ company_id: acme.id, url: "https://acme.example.com/", title: "Home", rep_id: rita.id, svc_session: metadata.svc_session });
  });

  it("reads a blank svc_rep_id as absent, attributing the visit by the next signal", async () => {
    const response = await visit({ page: { url: "https://acme.example.com/" }, metadata: metadataFor(acme.shop, { attribution: { svc_rep_id: "  ", username: rita.username } }) });
    expect(response.status).toBe(201);
    expect(await t.db.prisma.pageVisit.findFirstOrThrow()).toMatchObject({ rep_id: rita.id, attribution: { username: rita.username } });
  });

  it("reads null in an optional member as absent", async () => {
    const response = await visit({ page: { url: "https://acme.example.com/", title: null, image: null }, metadata: metadataFor(acme.shop, { svc_journey: null, attribution: null }) });
    expect(response.status).toBe(201);
    expect(await t.db.prisma.pageVisit.findFirstOrThrow()).toMatchObject({ title: null, rep_id: null, svc_journey: null });
  });

  it("requires a page with a valid url", async () => {
    for (const body of [{ metadata: metadataFor(acme.shop) }, { page: null, metadata: metadataFor(acme.shop) }, { page: { url: "nope" }, metadata: metadataFor(acme.shop) }]) {
      const response = await visit(body);
      expect(response.status).toBe(422);
    }
    expect(await t.db.prisma.pageVisit.count()).toBe(0);
  });

  it("is marked deprecated in the OpenAPI document", async () => {
    const document = (await call("GET", "/openapi.json")).body;
    expect(document.paths[`${PUBLIC_PREFIX}/events/pages/visit`].post.deprecated).toBe(true);
    expect(document.paths[`${PUBLIC_PREFIX}/events/leads/capture`].post.deprecated).toBeUndefined();
  });
});

describe("beacons: JSON sent as text/plain", () => {
  const beacon = (path: string, rawBody: string, contentType = "text/plain;charset=UTF-8") =>
    call("POST", `${PUBLIC_PREFIX}${path}`, { rawBody, headers: { "content-type": contentType, origin: "https://shop.example.org" } });

  it("stores a visit and a lead sent by navigator.sendBeacon(url, JSON.stringify(body)) or a fetch without a Content-Type", async () => {
    const visitMetadata = metadataFor(acme.shop);
    const visited = await beacon("/events/pages/visit", JSON.stringify({ page: { url: "https://acme.example.com/bye" }, metadata: visitMetadata }));
    expect(visited.status).toBe(201);
    expect(visited.body).toMatchObject({ status: 201, metadata: { svc_session: visitMetadata.svc_session } });
    expect(visited.headers["access-control-allow-origin"]).toBe("https://shop.example.org");
    expect(await t.db.prisma.pageVisit.findFirstOrThrow()).toMatchObject({ url: "https://acme.example.com/bye", svc_session: visitMetadata.svc_session });
    // Any charset parameter and any case: JSON is UTF-8.
    for (const contentType of ["text/plain", "Text/Plain; charset=ISO-8859-1"]) {
      const captured = await beacon("/events/leads/capture", JSON.stringify({ lead: lead(), metadata: metadataFor(acme.shop) }), contentType);
      expect(captured.status, contentType).toBe(201);
    }
    expect(await t.db.prisma.lead.count()).toBe(2);
    // The other public POSTs read it the same way.
    const session = await beacon("/session", JSON.stringify({ svc_shop: acme.shop }));
    expect(session.status).toBe(201);
  });

  // Found by an audit: a 415, which no beacon reads, so the event was lost.
  it("reads a body sent with no Content-Type at all as JSON: sendBeacon or fetch of a Blob or bytes without a type", async () => {
    const metadata = metadataFor(acme.shop);
    const body = JSON.stringify({ page: { url: "https://acme.example.com/bye" }, metadata });
    const visited = await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { rawBody: new TextEncoder().encode(body), headers: { origin: "https://shop.example.org" } });
    expect(visited.status).toBe(201);
    expect(visited.headers["access-control-allow-origin"]).toBe("https://shop.example.org");
    expect(await t.db.prisma.pageVisit.findFirstOrThrow()).toMatchObject({ url: "https://acme.example.com/bye", svc_session: metadata.svc_session });
    // The JSON parser's rules hold: not JSON is a 400, and no body at all reads as {} (fetch(url, { method: "POST" })).
    const malformed = await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { rawBody: "page=visit" });
    expectPublicError(malformed, 400);
    expect(malformed.body.error_code).toBe("malformed_json");
    const empty = await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`);
    expectPublicError(empty, 422);
    expect(empty.body.errors).toEqual({ page: ["is required"], metadata: ["is required"] });
    expect(await t.db.prisma.pageVisit.count()).toBe(1);
    // The other surfaces stay JSON only.
    const cart = await call("POST", "/api/carts", { rawBody: JSON.stringify({ country_code: "US", svc_shop: acme.shop }) });
    expect(cart.status).toBe(415);
  });

  it("holds a text/plain body to the JSON parser's rules and limits: not JSON is the same 400, too large the same 413, an invalid body the same 422", async () => {
    for (const [contentType, rawBody] of [
      ["application/json", "{"],
      ["text/plain;charset=UTF-8", "{"],
      ["text/plain", "page=visit"],
    ] as const) {
      const response = await beacon("/events/pages/visit", rawBody, contentType);
      expectPublicError(response, 400);
      expect(response.body.error_code, `${contentType} ${rawBody}`).toBe("malformed_json");
    }
    const big = await beacon("/events/leads/capture", JSON.stringify({ lead: lead(), metadata: metadataFor(acme.shop), padding: "x".repeat(t.config.publicBodyLimit) }));
    expectPublicError(big, 413);
    const invalid = await beacon("/events/leads/capture", JSON.stringify({ lead: lead({ name: "Ada" }), metadata: metadataFor(acme.shop) }));
    expectPublicError(invalid, 422);
    expect(invalid.body.errors).toEqual({ "lead.contact.email": ["needs an email or a phone"] });
    expect(await t.db.prisma.lead.count()).toBe(0);
    expect(await t.db.prisma.pageVisit.count()).toBe(0);
    // Other types stay refused, with a message naming both, and text/plain is the public SDK's alone.
    const html = await beacon("/events/pages/visit", "{}", "text/html");
    expectPublicError(html, 415);
    expect(html.body.error_message).toBe("Unsupported content type: send application/json (or text/plain JSON)");
    expect(html.headers.accept).toBe("application/json, text/plain");
    const cart = await call("POST", "/api/carts", { rawBody: JSON.stringify({ country_code: "US", svc_shop: acme.shop }), headers: { "content-type": "text/plain" } });
    expect(cart.status).toBe(415);
    expect(cart.body.error_message).toBe("Unsupported content type: send application/json");
    expect(cart.headers.accept).toBe("application/json");
    expect(cart.headers["accept-patch"]).toBeUndefined();
  });

  it("passes the preflight of a JSON Blob beacon, which is always sent with credentials", async () => {
    const preflight = await call("OPTIONS", `${PUBLIC_PREFIX}/events/pages/visit`, {
      headers: { origin: "https://shop.example.org", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://shop.example.org");
    expect(preflight.headers["access-control-allow-credentials"]).toBe("true");
  });

  it("lists text/plain beside application/json, with the one body schema, on every public operation with a body", async () => {
    const document = (await call("GET", "/openapi.json")).body;
    const operations = Object.entries(document.paths as Record<string, Record<string, any>>)
      .filter(([path]) => path.startsWith(PUBLIC_PREFIX))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => [`${method} ${path}`, operation] as const))
      .filter(([, operation]) => operation.requestBody !== undefined);
    expect(operations.map(([name]) => name)).toContain(`post ${PUBLIC_PREFIX}/events/pages/visit`);
    for (const [name, operation] of operations) {
      const content = operation.requestBody.content;
      expect(Object.keys(content), name).toEqual(["application/json", "text/plain"]);
      expect(content["text/plain"].schema, name).toEqual(content["application/json"].schema);
    }
    const cartCreate = document.paths["/api/carts"].post.requestBody.content;
    expect(Object.keys(cartCreate)).toEqual(["application/json"]);
  });
});
