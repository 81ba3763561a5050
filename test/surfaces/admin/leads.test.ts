import { beforeEach, describe, expect, it } from "vitest";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { createRep, metadataFor, PUBLIC_PREFIX, type RepFixture } from "../../helpers/public-sdk.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let rita: RepFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  rita = await createRep(t.db.prisma, acme.id, "Rita");
});

beforeEach(async () => {
  await t.db.prisma.lead.deleteMany();
  await t.db.prisma.contact.deleteMany();
});

const captureFromStorefront = (shop: string, attribution?: Record<string, unknown>) =>
  call("POST", `${PUBLIC_PREFIX}/events/leads/capture`, {
    body: { lead: { message: "Hi", contact: { name: "Ada", email: "ada@example.com" } }, metadata: metadataFor(shop, attribution ? { attribution } : {}) },
  });

describe("GET /api/leads", () => {
  it("lists the company's leads newest first with their rep, filtered by rep and date range", async () => {
    await captureFromStorefront(acme.shop, { share_guid: rita.share_guid });
    await captureFromStorefront(acme.shop);
    await captureFromStorefront(globex.shop);
    await t.db.prisma.lead.updateMany({ where: { rep_id: rita.id }, data: { created_at: new Date("2025-06-30T23:00:00Z") } });

    const all = await call("GET", "/api/leads", { token: acme.token });
    expect(all.status).toBe(200);
    expect(all.body.leads).toHaveLength(2);
    expect(all.body.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 2, per_page: 25 });
    expect(all.body.leads[1]).toMatchObject({
      source: "public",
      message: "Hi",
      contact: { name: "Ada", email: "ada@example.com", phone: null },
      rep: { id: rita.id, name: "Rita Rep", email: rita.email },
      svc_shop: acme.shop,
      page: null,
      created_at: "2025-06-30T23:00:00.000Z",
    });

    const byRep = await call("GET", `/api/leads?rep_id=${rita.id}`, { token: acme.token });
    expect(byRep.body.leads.map((l: { rep: { id: number } }) => l.rep.id)).toEqual([rita.id]);
    const june = await call("GET", "/api/leads?from=2025-06-01&to=2025-06-30", { token: acme.token });
    expect(june.body.leads).toHaveLength(1);
    const afterJune = await call("GET", "/api/leads?from=2025-07-01T00:00:00Z", { token: acme.token });
    expect(afterJune.body.leads).toHaveLength(1);
    expect(afterJune.body.leads[0].rep).toBeNull();
  });

  it("filters up to the ends of the calendar, and answers 422, not a 500, beyond them (no year 0000 in PostgreSQL)", async () => {
    for (const query of ["from=0001-01-01", "to=9999-12-31", "from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59.999Z"]) {
      expect((await call("GET", `/api/leads?${query}`, { token: acme.token })).status, query).toBe(200);
    }
    const before = await call("GET", "/api/leads?from=0000-02-29&to=0001-01-01T00:30:00%2B01:00", { token: acme.token });
    expect(before.status).toBe(422);
    expect(before.body.errors).toEqual({ from: ["must be in the years 0001 to 9999 (UTC)"], to: ["must be in the years 0001 to 9999 (UTC)"] });
  });

  it("compares from and to finer than a millisecond exactly: created_at holds milliseconds, so such a bound is rounded up", async () => {
    await captureFromStorefront(acme.shop);
    await t.db.prisma.lead.updateMany({ data: { created_at: new Date("2026-11-24T22:30:09.331Z") } });
    const count = async (query: string) => (await call("GET", `/api/leads?${query}`, { token: acme.token })).body.leads.length;
    expect(await count("to=2026-11-24T22:30:09.3315Z")).toBe(1);
    expect(await count("to=2026-11-24T22:30:09.331000Z")).toBe(0);
    expect(await count("from=2026-11-24T22:30:09.331999Z")).toBe(0);
    expect(await count("from=2026-11-24T22:30:09.3310Z")).toBe(1);
    expect(await count("from=2026-11-24T23:30:09.3305%2B01:00")).toBe(1);
    expect((await call("GET", "/api/leads?to=9999-12-31T23:59:59.9999Z", { token: acme.token })).status).toBe(200);
  });

  it("answers 422 for a malformed filter and 401 without a token", async () => {
    for (const query of ["from=yesterday", "to=2025-13-01", "rep_id=abc", "per_page=0"]) {
      expect((await call("GET", `/api/leads?${query}`, { token: acme.token })).status, query).toBe(422);
    }
    expect((await call("GET", "/api/leads")).status).toBe(401);
  });
});

describe("POST /api/company/leads", () => {
  const contact = {
    id: 4711,
    token: "tok-1",
    first_name: "Ada",
    last_name: "Lovelace",
    full_name: "Ada Lovelace",
    avatar_url: "https://cdn.example.com/ada.png",
    status: "new",
    email: "Ada@Example.com",
    email2: "ada2@example.com",
    phone: "+44 20 7946 0958",
    phone2: "+1 555 010 2030",
    phone_id: "p-1",
    address: "12 St James's Square",
    address2: "Flat 3",
    city: "London",
    state: "London",
    postal_code: "SW1Y 4JH",
    language_id: "1",
    country_id: "44",
    lead_type: "customer",
    ip: "203.0.113.7",
    requested_at: "2025-06-01T09:30:00Z",
    best_time: "mornings",
    time_zone: "Europe/London",
    reason: "Wants the starter kit",
    income: "50-75k",
    hours: "20",
    invest: "500",
    interest: "wellness",
  };
  const send = (body: unknown, token = acme.token) => call("POST", "/api/company/leads", { token, body });

  it("creates the contact and the lead: 201 {lead, contact, meta}", async () => {
    const response = await send({ lead: { message: "From our CRM", contact }, page: { url: "https://acme.example.com/join" } });
    expect(response.status).toBe(201);
    const { id: _id, ...members } = contact;
    expect(response.body.contact).toMatchObject({ id: 4711, ...members });
    expect(response.body.lead).toMatchObject({
      source: "company",
      message: "From our CRM",
      contact_id: 4711,
      contact: { name: "Ada Lovelace", email: "ada@example.com", phone: "+44 20 7946 0958" },
      page: { url: "https://acme.example.com/join" },
    });
    expect(await t.db.prisma.contact.count({ where: { company_id: acme.id } })).toBe(1);
    expect(await t.db.prisma.lead.count({ where: { company_id: acme.id, source: "company" } })).toBe(1);
  });

  it("updates the contact with the same id, changing only the members sent; the same id is another contact in another company", async () => {
    await send({ lead: { message: "First", contact } });
    const response = await send({ lead: { message: "Second", contact: { id: 4711, city: "Paris", phone2: null } } });
    expect(response.status).toBe(201);
    expect(response.body.contact).toMatchObject({ id: 4711, city: "Paris", phone2: null, first_name: "Ada", email: "Ada@Example.com" });
    expect(await t.db.prisma.contact.count()).toBe(1);
    expect(await t.db.prisma.lead.count()).toBe(2);
    await send({ lead: { message: "Elsewhere", contact: { id: 4711, first_name: "Grace" } } }, globex.token);
    expect(await t.db.prisma.contact.count()).toBe(2);
    expect((await t.db.prisma.contact.findFirstOrThrow({ where: { company_id: acme.id } })).first_name).toBe("Ada");
  });

  it("reads the contact's emails trimmed, as every email (a pasted address)", async () => {
    const response = await send({ lead: { message: "Pasted", contact: { ...contact, email: " ann@example.com ", email2: "\tann2@example.com\n" } } });
    expect(response.status).toBe(201);
    expect(response.body.contact).toMatchObject({ email: "ann@example.com", email2: "ann2@example.com" });
    expect(response.body.lead.contact).toMatchObject({ email: "ann@example.com" });
  });

  it("reads a blank in a member of a checked format as null, which a server with no second email or phone sends; free text is kept as sent, a blank full name named by first and last", async () => {
    await send({ lead: { message: "First", contact } });
    const blanks = { email: "", email2: "  ", phone: "", phone2: " ", avatar_url: "", ip: "", requested_at: "", time_zone: "", postal_code: "", language_id: "", country_id: " " };
    const response = await send({ lead: { message: "blank full", contact: { id: 4711, full_name: "", city: "", ...blanks } } });
    expect(response.status).toBe(201);
    expect(response.body.contact).toMatchObject({
      ...Object.fromEntries(Object.keys(blanks).map((key) => [key, null])),
      full_name: "",
      city: "",
      first_name: "Ada",
    });
    expect(response.body.lead).toMatchObject({ contact: { name: "Ada Lovelace", email: null, phone: null } });
  });

  it("reads a null page as absent, as the public lead capture does", async () => {
    const response = await send({ lead: { message: "No page", contact }, page: null });
    expect(response.status).toBe(201);
    expect(response.body.lead.page).toBeNull();
  });

  it("validates the contact member by member, storing nothing", async () => {
    for (const [change, field] of [
      [{ id: undefined }, "lead.contact.id"],
      [{ id: 2_147_483_648 }, "lead.contact.id"],
      [{ id: 1.5 }, "lead.contact.id"],
      [{ email: "nope" }, "lead.contact.email"],
      [{ email2: "nope" }, "lead.contact.email2"],
      [{ phone: "call me" }, "lead.contact.phone"],
      [{ phone2: "12" }, "lead.contact.phone2"],
      [{ avatar_url: "ada.png" }, "lead.contact.avatar_url"],
      [{ ip: "999.1.1.1" }, "lead.contact.ip"],
      [{ requested_at: "June 1st" }, "lead.contact.requested_at"],
      [{ time_zone: "Mars/Olympus" }, "lead.contact.time_zone"],
      [{ postal_code: "!!" }, "lead.contact.postal_code"],
      [{ country_id: "4 4" }, "lead.contact.country_id"],
      [{ first_name: 42 }, "lead.contact.first_name"],
      [{ reason: "x".repeat(2001) }, "lead.contact.reason"],
    ] as const) {
      const response = await send({ lead: { message: "x", contact: { ...contact, ...change } } });
      expect(response.status, JSON.stringify(change)).toBe(422);
      expect(Object.keys(response.body.errors), JSON.stringify(change)).toEqual([field]);
    }
    expect((await send({ lead: { contact } })).body.errors).toEqual({ "lead.message": ["is required"] });
    expect(await t.db.prisma.contact.count()).toBe(0);
    expect(await t.db.prisma.lead.count()).toBe(0);
  });

  it("answers 401 without a company token", async () => {
    expect((await call("POST", "/api/company/leads", { body: { lead: { message: "x", contact } } })).status).toBe(401);
  });
});
