import { beforeEach, describe, expect, inject, it } from "vitest";
import { conversationListSchema } from "../../../src/domain/conversations/schemas.js";
import { withMeta } from "../../../src/platform/http/schemas.js";
import { jsonWriterFor } from "../../../src/platform/json-writer.js";
import { createPerson } from "../../helpers/company-server.js";
import { readByStalledClient, valuesReadDuring } from "../../helpers/database-reads.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call, HttpResponse } from "../../helpers/http.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

type Person = Awaited<ReturnType<typeof createPerson>>;

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let alice: Person;
let bob: Person;
let carol: Person;
let dave: Person;
let zed: Person;

const CREATE = "/api/company/messaging/conversations.json";
const LIST = "/api/company/messaging/conversations";
const show = (id: number | string) => `/api/company/messaging/conversations/${id}.json`;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  alice = await createPerson(t.db.prisma, acme.id, "rep", "Alice", "Admin");
  bob = await createPerson(t.db.prisma, acme.id, "rep", "Bob", "Builder");
  carol = await createPerson(t.db.prisma, acme.id, "rep", "Carol", "Cole");
  dave = await createPerson(t.db.prisma, acme.id, "customer", "Dave", "Doe");
  zed = await createPerson(t.db.prisma, globex.id, "rep", "Zed", "Zulu");
});

beforeEach(async () => {
  await t.db.prisma.conversation.deleteMany();
});

function body(type: string, uids: number[], creator: Person = alice, extra: Record<string, unknown> = {}) {
  return { conversation: { type, ...extra }, recipients: uids.map((uid) => ({ uid })), user: { email: creator.email } };
}

async function start(type: string, uids: number[], creator: Person = alice, extra: Record<string, unknown> = {}): Promise<number> {
  const response = await call("POST", CREATE, { token: acme.token, body: body(type, uids, creator, extra) });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

const CONVERSATION_KEYS = [
  "id", "name", "description", "kind", "type", "status", "created_at", "pinned", "unread", "muted", "announcing", "auto_add_recipients",
  "unread_messages_count", "total_recipients", "scheduled_messages_count", "sms_enabled?", "email_enabled?", "messaging_enabled?",
  "draft_message", "broadcasting", "image_url", "avatar_background_color", "avatar_emoji", "avatar_url", "conversation_type",
  "recipients", "creator", "meta",
].sort();

describe("POST /api/company/messaging/conversations.json", () => {
  it("creates a conversation: 201, the conversation object itself with meta, the creator a recipient", async () => {
    const response = await call("POST", CREATE, {
      token: acme.token,
      body: body("GroupConversation", [bob.id, carol.id], alice, { name: "Launch", announcing: true, avatar_emoji: "🚀" }),
    });
    expect(response.status).toBe(201);
    const conversation = response.body;
    expect(Object.keys(conversation).sort()).toEqual(CONVERSATION_KEYS);
    expect(conversation).toMatchObject({
      name: "Launch",
      description: "",
      kind: "group",
      type: "GroupConversation",
      status: "open",
      pinned: false,
      unread: false,
      muted: false,
      announcing: true,
      auto_add_recipients: false,
      unread_messages_count: 0,
      total_recipients: 3,
      scheduled_messages_count: 0,
      "sms_enabled?": false,
      "email_enabled?": false,
      "messaging_enabled?": true,
      draft_message: null,
      broadcasting: null,
      avatar_emoji: "🚀",
      conversation_type: "team",
      creator: { id: alice.id, first_name: "Alice", last_name: "Admin", image_url: null, discarded_at: null, blocked: false, blocker: false },
    });
    expect(conversation.recipients.map((r: { receivable_id: number }) => r.receivable_id)).toEqual([alice.id, bob.id, carol.id]);
    expect(conversation.recipients[1]).toEqual({
      id: expect.any(Number),
      first_name: "Bob",
      last_name: "Builder",
      avatar_url: null,
      image_url: null,
      receivable_id: bob.id,
      receivable_type: "User",
      discarded_at: null,
      left_conversation_at: null,
      blocked: false,
      status: "active",
      last_online: null,
      country_name: null,
    });
    expect(conversation.meta.request_id).toBe(response.headers["x-request-id"]);
  });

  it("names an unnamed conversation after the other people in it; the creator's email matches in any case", async () => {
    const response = await call("POST", CREATE, { token: acme.token, body: { ...body("GroupConversation", [bob.id, carol.id, alice.id]), user: { email: alice.email.toUpperCase() } } });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe("Bob Builder, Carol Cole");
    expect(response.body.total_recipients).toBe(3);
  });

  it("reads a name or description with no visible character (spaces, zero-width characters) as none: named after its members, description \"\"", async () => {
    for (const blank of [null, "   ", "\u200b", " \u200b\u2060\ufeff\u00ad "]) {
      const id = await start("GroupConversation", [bob.id, carol.id], alice, { name: blank, description: blank });
      const shown = await call("GET", show(id), { token: acme.token });
      expect(shown.body, JSON.stringify(blank)).toMatchObject({ name: "Bob Builder, Carol Cole", description: "" });
      expect(await t.db.prisma.conversation.findUniqueOrThrow({ where: { id } }), JSON.stringify(blank)).toMatchObject({ name: null, description: null });
    }
    const customers = await call("GET", LIST, { token: acme.token });
    const id = await start("EmailConversation", [dave.id], alice, { name: "\u200b" });
    const listed = await call("GET", LIST, { token: acme.token });
    expect(listed.body.customers[1].items.length).toBe(customers.body.customers[1].items.length + 1);
    expect(listed.body.customers[1].items).toContain("Dave Doe");
    expect((await call("GET", show(id), { token: acme.token })).body.name).toBe("Dave Doe");
  });

  it("trims invisible characters around a given name and keeps those inside it", async () => {
    const id = await start("GroupConversation", [bob.id], alice, { name: "\u200b Launch \u{1F469}\u200d\u{1F4BB}\u2060 ", description: " Plans\u200b " });
    expect((await call("GET", show(id), { token: acme.token })).body).toMatchObject({ name: "Launch \u{1F469}\u200d\u{1F4BB}", description: "Plans" });
    // The bound counts what is kept.
    const padded = await start("GroupConversation", [carol.id], alice, { name: `\u200b${"n".repeat(255)}\u200b` });
    expect((await call("GET", show(padded), { token: acme.token })).body.name).toBe("n".repeat(255));
    const before = await t.db.prisma.conversation.count();
    const tooLong = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", [bob.id], alice, { name: "n".repeat(256) }) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toMatchObject({ error_code: "validation_failed", errors: { "conversation.name": [expect.any(String)] } });
    expect(await t.db.prisma.conversation.count()).toBe(before);
  });

  it("reads an avatar_emoji with no visible character as none (null), and keeps an emoji's own joiners, selectors and tags", async () => {
    for (const blank of ["", "   ", "\u200b", " \u200b\u2060\ufeff "]) {
      const id = await start("GroupConversation", [bob.id], alice, { avatar_emoji: blank });
      expect((await call("GET", show(id), { token: acme.token })).body.avatar_emoji, JSON.stringify(blank)).toBeNull();
      expect((await t.db.prisma.conversation.findUniqueOrThrow({ where: { id } })).avatar_emoji, JSON.stringify(blank)).toBeNull();
    }
    // A heart with its emoji presentation selector, a family of joined people, the flag of England (tag characters).
    for (const emoji of ["\u2764\ufe0f", "\u{1F468}\u200d\u{1F469}\u200d\u{1F467}", "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"]) {
      const id = await start("GroupConversation", [bob.id], alice, { avatar_emoji: `\u200b ${emoji} ` });
      expect((await call("GET", show(id), { token: acme.token })).body.avatar_emoji).toBe(emoji);
    }
  });

  it("derives kind and the enabled flags from each of the five types", async () => {
    const expected = {
      DirectConversation: ["direct", false, false, true],
      GroupConversation: ["group", false, false, true],
      ChannelConversation: ["channel", false, false, true],
      EmailConversation: ["email", false, true, false],
      SmsConversation: ["sms", true, false, false],
    } as const;
    for (const [type, [kind, sms, email, messaging]] of Object.entries(expected)) {
      const response = await call("POST", CREATE, { token: acme.token, body: body(type, [dave.id]) });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ type, kind, "sms_enabled?": sms, "email_enabled?": email, "messaging_enabled?": messaging });
    }
  });

  it("returns the existing direct conversation between the same two people (200), whoever starts it, also when requests race", async () => {
    const first = await start("DirectConversation", [bob.id]);
    const again = await call("POST", CREATE, { token: acme.token, body: body("DirectConversation", [alice.id], bob) });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first);

    const racing = await Promise.all(Array.from({ length: 5 }, () => call("POST", CREATE, { token: acme.token, body: body("DirectConversation", [carol.id]) })));
    expect(new Set(racing.map((response) => response.body.id)).size).toBe(1);
    expect(racing.filter((response) => response.status === 201)).toHaveLength(1);
    expect(await t.db.prisma.conversation.count({ where: { type: "DirectConversation" } })).toBe(2);
  });

  it("answers 422 for recipients that are unknown or of another company, naming each, creating nothing", async () => {
    const response = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", [bob.id, zed.id, 999_999]) });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "recipients.1.uid": ["is not a user of this company"], "recipients.2.uid": ["is not a user of this company"] });
    expect(await t.db.prisma.conversation.count()).toBe(0);
  });

  it("answers 422 when the creator is not a user of the company", async () => {
    for (const email of ["nobody@example.com", zed.email]) {
      const response = await call("POST", CREATE, { token: acme.token, body: { ...body("GroupConversation", [bob.id]), user: { email } } });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ "user.email": ["is not a user of this company"] });
    }
    expect(await t.db.prisma.conversation.count()).toBe(0);
  });

  it("answers 422 for a direct conversation without exactly one other person, or a conversation with only its creator", async () => {
    const two = await call("POST", CREATE, { token: acme.token, body: body("DirectConversation", [bob.id, carol.id]) });
    expect(two.status).toBe(422);
    expect(Object.keys(two.body.errors)).toEqual(["recipients"]);
    const alone = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", [alice.id]) });
    expect(alone.status).toBe(422);
    expect(alone.body.errors).toEqual({ recipients: ["must name at least one user other than the creator"] });
    expect(await t.db.prisma.conversation.count()).toBe(0);
  });

  it("stores http(s) image and avatar URLs and a hex or keyword background colour", async () => {
    const looks = { image_url: "https://cdn.example.com/launch.png", avatar_url: "http://cdn.example.com/a.png", avatar_background_color: "#1A2b3c" };
    const response = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", [bob.id], alice, looks) });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject(looks);
    for (const avatar_background_color of ["#abc", "#abcd", "#aabbccdd", "RebeccaPurple"]) {
      const colour = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", [bob.id], alice, { avatar_background_color }) });
      expect(colour.status, avatar_background_color).toBe(201);
      expect(colour.body.avatar_background_color).toBe(avatar_background_color);
    }
  });

  it("answers 422 for image and avatar URLs that are not http(s) and a background colour that is not a colour, creating nothing", async () => {
    const response = await call("POST", CREATE, {
      token: acme.token,
      body: body("GroupConversation", [bob.id], alice, { avatar_url: "javascript:alert(1)", image_url: "not a url", avatar_background_color: "red; x" }),
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "conversation.avatar_url": ["must be an http(s) URL"],
      "conversation.image_url": ["must be an http(s) URL"],
      "conversation.avatar_background_color": ["must be a hex colour such as #1a2b3c or a colour keyword such as red"],
    });
    for (const extra of [{ image_url: "data:image/png;base64,AAAA" }, { avatar_url: "ftp://cdn.example.com/a.png" }, { image_url: "" }]) {
      const refused = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", [bob.id], alice, extra) });
      expect(refused.status, JSON.stringify(extra)).toBe(422);
    }
    for (const avatar_background_color of ["#abcde", "#ggg", "url(x)", "red;", "rgb(0,0,0)", "", "#"]) {
      const refused = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", [bob.id], alice, { avatar_background_color }) });
      expect(refused.status, avatar_background_color).toBe(422);
    }
    expect(await t.db.prisma.conversation.count()).toBe(0);
  });

  it("still reads conversations stored before URLs and colours were checked", async () => {
    const id = await start("GroupConversation", [bob.id]);
    await t.db.prisma.conversation.update({ where: { id }, data: { image_url: "not a url", avatar_url: "javascript:alert(1)", avatar_background_color: "red; x" } });
    const shown = await call("GET", show(id), { token: acme.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ image_url: "not a url", avatar_url: "javascript:alert(1)", avatar_background_color: "red; x" });
    expect((await call("GET", LIST, { token: acme.token })).status).toBe(200);
  });

  it("answers 422 for missing required members and an unknown type", async () => {
    const empty = await call("POST", CREATE, { token: acme.token, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ conversation: ["is required"], recipients: ["is required"], user: ["is required"] });
    const inner = await call("POST", CREATE, { token: acme.token, body: { conversation: {}, recipients: [{}], user: {} } });
    expect(inner.body.errors).toEqual({ "conversation.type": ["is required"], "recipients.0.uid": ["is required"], "user.email": ["is required"] });
    const badType = await call("POST", CREATE, { token: acme.token, body: body("PhoneConversation", [bob.id]) });
    expect(badType.status).toBe(422);
    expect(Object.keys(badType.body.errors)).toEqual(["conversation.type"]);
    const noRecipients = await call("POST", CREATE, { token: acme.token, body: body("GroupConversation", []) });
    expect(Object.keys(noRecipients.body.errors)).toEqual(["recipients"]);
    expect(await t.db.prisma.conversation.count()).toBe(0);
  });

  it("answers 401 without a token", async () => {
    expect((await call("POST", CREATE, { body: body("GroupConversation", [bob.id]) })).status).toBe(401);
    expect(await t.db.prisma.conversation.count()).toBe(0);
  });
});

describe("GET /api/company/messaging/conversations/{id}.json", () => {
  it("shows the conversation with counters computed from its messages, scheduled messages and members", async () => {
    const id = await start("GroupConversation", [bob.id, carol.id]);
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes));
    await t.db.prisma.conversationRecipient.updateMany({ where: { conversation_id: id, user_id: alice.id }, data: { last_read_at: at(10), pinned: true, muted: true, draft_message: "Hey" } });
    await t.db.prisma.conversationRecipient.updateMany({ where: { conversation_id: id, user_id: carol.id }, data: { left_at: at(30), blocked_by_id: alice.id } });
    await t.db.prisma.message.createMany({
      data: [
        { company_id: acme.id, conversation_id: id, sender_id: bob.id, body: "read", created_at: at(5) },
        { company_id: acme.id, conversation_id: id, sender_id: bob.id, body: "new 1", created_at: at(20) },
        { company_id: acme.id, conversation_id: id, sender_id: carol.id, body: "new 2", created_at: at(25) },
        { company_id: acme.id, conversation_id: id, sender_id: alice.id, body: "own", created_at: at(26) },
      ],
    });
    await t.db.prisma.scheduledMessage.createMany({
      data: [
        { company_id: acme.id, conversation_id: id, sender_id: alice.id, body: "later", send_at: at(90) },
        { company_id: acme.id, conversation_id: id, sender_id: alice.id, body: "sent", send_at: at(1), sent_at: at(1) },
      ],
    });

    const response = await call("GET", show(id), { token: acme.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(CONVERSATION_KEYS);
    expect(response.body).toMatchObject({
      id,
      unread_messages_count: 2,
      unread: true,
      pinned: true,
      muted: true,
      draft_message: "Hey",
      total_recipients: 2,
      scheduled_messages_count: 1,
      name: "Bob Builder",
      creator: { blocked: false, blocker: true },
    });
    const carolRecipient = response.body.recipients.find((r: { receivable_id: number }) => r.receivable_id === carol.id);
    expect(carolRecipient).toMatchObject({ status: "left", left_conversation_at: at(30).toISOString(), blocked: true });
  });

  it("answers 404 for another company's id, unknown ids and ids that are not numbers; 401 without a token", async () => {
    const id = await start("DirectConversation", [bob.id]);
    expect((await call("GET", show(id), { token: globex.token })).status).toBe(404);
    // A malformed id names nothing, as on every other path: not_found, not route_not_found (an audit).
    for (const path of [show(999_999), show("abc"), show("12abc"), show("-1"), show("1.5"), show("1e3"), show(99_999_999_999)]) {
      const response = await call("GET", path, { token: acme.token });
      expect(response.status, path).toBe(404);
      expect(response.body.error_code, path).toBe("not_found");
    }
    expect((await call("GET", show("abc"), { token: acme.token })).body).toMatchObject({ error_message: "Not found", errors: null });
    expect((await call("GET", `/api/company/messaging/conversations/${id}`, { token: acme.token })).status).toBe(404);
    expect((await call("GET", show(id))).status).toBe(401);
  });
});

describe("GET /api/company/messaging/conversations", () => {
  interface Fixture {
    teamDirect: number;
    teamGroup: number;
    channel: number;
    customerGroup: number;
    sms: number;
    smsUnread: number;
    email: number;
  }
  let f: Fixture;

  // After the conversations' creation, so that messages decide the order of activity.
  const base = Date.now() + 3_600_000;
  const at = (minutes: number) => new Date(base + minutes * 60_000);
  async function message(conversationId: number, sender: Person, minutes: number) {
    await t.db.prisma.message.create({ data: { company_id: acme.id, conversation_id: conversationId, sender_id: sender.id, body: "hi", created_at: at(minutes) } });
  }
  async function readAll(conversationId: number) {
    await t.db.prisma.conversationRecipient.updateMany({ where: { conversation_id: conversationId, user_id: alice.id }, data: { last_read_at: at(59) } });
  }

  beforeEach(async () => {
    f = {
      teamDirect: await start("DirectConversation", [bob.id]),
      teamGroup: await start("GroupConversation", [bob.id, carol.id], alice, { name: "Team" }),
      channel: await start("ChannelConversation", [bob.id, carol.id], alice, { name: "News" }),
      customerGroup: await start("GroupConversation", [bob.id, dave.id], alice, { name: "Dave's order" }),
      sms: await start("SmsConversation", [dave.id], alice, { name: "SMS read" }),
      smsUnread: await start("SmsConversation", [dave.id, carol.id], alice, { name: "SMS unread" }),
      email: await start("EmailConversation", [dave.id], alice),
    };
    // Unread for the creator: the team direct and the unread SMS; the rest read or silent.
    await message(f.teamDirect, bob, 40);
    await message(f.teamGroup, bob, 50);
    await readAll(f.teamGroup);
    await message(f.sms, dave, 30);
    await readAll(f.sms);
    await message(f.smsUnread, dave, 20);
    await t.db.prisma.conversationRecipient.updateMany({ where: { conversation_id: f.channel, user_id: alice.id }, data: { pinned: true } });
    await t.db.prisma.conversation.update({ where: { id: f.customerGroup }, data: { status: "closed" } });
  });

  type Group = [{ pagination: Record<string, number | null> }, { items: Array<{ id: number } | string> }];
  async function list(query = ""): Promise<Record<string, Group>> {
    const response = await call("GET", `${LIST}${query}`, { token: acme.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }
  const ids = (group: Group) => group[1].items.map((item) => (typeof item === "string" ? item : item.id));

  it("answers four groups, each literally [{pagination}, {items}], customers' items being strings", async () => {
    const response = await call("GET", LIST, { token: acme.token });
    expect(Object.keys(response.body).sort()).toEqual(["channels", "customers", "meta", "team_directs", "team_groups"]);
    const body = response.body as Record<string, Group>;
    for (const name of ["team_directs", "team_groups", "channels", "customers"]) {
      const group = body[name] as Group;
      expect(group).toHaveLength(2);
      expect(Object.keys(group[0])).toEqual(["pagination"]);
      expect(Object.keys(group[1])).toEqual(["items"]);
    }
    expect(ids(body.team_directs as Group)).toEqual([f.teamDirect]);
    expect(ids(body.team_groups as Group)).toEqual([f.teamGroup]);
    expect(ids(body.channels as Group)).toEqual([f.channel]);
    // Most recent activity first: the read SMS (+30 min), the unread SMS (+20 min), then newest created first.
    expect(ids(body.customers as Group)).toEqual(["SMS read", "SMS unread", "Dave Doe", "Dave's order"]);
    expect((body.customers as Group)[0].pagination).toEqual({ current: 1, previous: null, next: null, per_page: 25, pages: 1, count: 4 });
    expect((body.team_directs as Group)[1].items[0]).toMatchObject({ id: f.teamDirect, unread_messages_count: 1, conversation_type: "team" });
  });

  it("writes the answer byte for byte as its parsed body is written, groups in the specification's order; a page past the end as empty groups; HEAD with no body", async () => {
    const response = await call("GET", LIST, { token: acme.token });
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.text).toBe(JSON.stringify(response.body));
    // What the route's response serializer wrote when the list was answered as one object.
    expect(response.text).toBe(jsonWriterFor(withMeta(conversationListSchema))(response.body));
    expect(Object.keys(response.body)).toEqual(["team_directs", "team_groups", "channels", "customers", "meta"]);
    expect(response.body.meta).toEqual({ request_id: response.headers["x-request-id"], timestamp: expect.any(String) });
    const beyond = await call("GET", `${LIST}?page=3&per_page=2`, { token: acme.token });
    expect(beyond.status).toBe(200);
    expect(beyond.text).toBe(JSON.stringify(beyond.body));
    expect(Object.values(beyond.body as Record<string, Group>).slice(0, 4).map((group) => group[1].items)).toEqual([[], [], [], []]);
    expect((beyond.body.customers as Group)[0].pagination).toEqual({ current: 3, previous: 2, next: null, per_page: 2, pages: 2, count: 4 });
    const head = await call("HEAD", LIST, { token: acme.token });
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(head.text).toBe("");
  });

  it("filters by status, kind and pinned", async () => {
    const closed = await list("?status=closed");
    expect(ids(closed.customers as Group)).toEqual(["Dave's order"]);
    expect(ids(closed.team_directs as Group)).toEqual([]);
    const open = await list("?status=open");
    expect(ids(open.customers as Group)).not.toContain("Dave's order");
    const direct = await list("?kind=direct");
    expect(ids(direct.team_directs as Group)).toEqual([f.teamDirect]);
    expect(ids(direct.team_groups as Group)).toEqual([]);
    expect((direct.customers as Group)[0].pagination.count).toBe(0);
    const group = await list("?kind=group");
    expect(ids(group.team_groups as Group)).toEqual([f.teamGroup]);
    expect(ids(group.customers as Group)).toEqual(["Dave's order"]);
    const pinned = await list("?pinned=true");
    expect(ids(pinned.channels as Group)).toEqual([f.channel]);
    expect(ids(pinned.team_groups as Group)).toEqual([]);
    const unpinned = await list("?pinned=false");
    expect(ids(unpinned.channels as Group)).toEqual([]);
    expect(ids(unpinned.team_groups as Group)).toEqual([f.teamGroup]);
  });

  it("implements each of the ten templates", async () => {
    const everything = (body: Record<string, Group>) =>
      Object.fromEntries(["team_directs", "team_groups", "channels", "customers"].map((name) => [name, ids(body[name] as Group)]));
    const none = { team_directs: [], team_groups: [], channels: [], customers: [] };
    const expectations: Record<string, Record<string, Array<number | string>>> = {
      new_messages: { team_directs: [f.teamDirect], team_groups: [f.teamGroup], channels: [f.channel], customers: ["SMS unread", "SMS read", "Dave Doe", "Dave's order"] },
      pinned: { ...none, channels: [f.channel] },
      team_groups: { ...none, team_groups: [f.teamGroup] },
      team_directs: { ...none, team_directs: [f.teamDirect] },
      teams: { ...none, team_directs: [f.teamDirect], team_groups: [f.teamGroup] },
      teams_unread: { ...none, team_directs: [f.teamDirect] },
      teams_read: { ...none, team_groups: [f.teamGroup] },
      channels: { ...none, channels: [f.channel] },
      sms: { ...none, customers: ["SMS read", "SMS unread"] },
      sms_read: { ...none, customers: ["SMS read"] },
    };
    expect(Object.keys(expectations)).toHaveLength(10);
    for (const [template, expected] of Object.entries(expectations)) {
      expect(everything(await list(`?template=${template}`)), template).toEqual(expected);
    }
    const combined = await list("?template=teams&kind=group");
    expect(everything(combined)).toEqual({ ...none, team_groups: [f.teamGroup] });
  });

  it("pages every group with page and per_page: current, previous, next, pages, count", async () => {
    const second = await list("?per_page=1&page=2");
    expect(ids(second.customers as Group)).toEqual(["SMS unread"]);
    expect((second.customers as Group)[0].pagination).toEqual({ current: 2, previous: 1, next: 3, per_page: 1, pages: 4, count: 4 });
    expect(ids(second.team_directs as Group)).toEqual([]);
    expect((second.team_directs as Group)[0].pagination).toEqual({ current: 2, previous: 1, next: null, per_page: 1, pages: 1, count: 1 });
    const first = await list("?per_page=1");
    expect((first.customers as Group)[0].pagination).toMatchObject({ current: 1, previous: null, next: 2 });
  });

  it("never lists another company's conversations", async () => {
    const response = await call("GET", LIST, { token: globex.token });
    for (const name of ["team_directs", "team_groups", "channels", "customers"]) {
      expect((response.body[name] as Group)[0].pagination.count).toBe(0);
    }
  });

  it("answers 422 for bad enums and page values, and 401 without a token", async () => {
    for (const query of ["?status=archived", "?kind=video", "?template=unread", "?pinned=yes", "?page=0", "?per_page=101"]) {
      const response = await call("GET", `${LIST}${query}`, { token: acme.token });
      expect(response.status, query).toBe(422);
      expect(Object.keys(response.body.errors)).toHaveLength(1);
    }
    expect((await call("GET", LIST)).status).toBe(401);
  });
});

/**
 * 1,000 new reps (their names padded by `namePadding` characters each) and 100 channels of alice's,
 * each with alice and all of them as members, straight into the database.
 */
async function insertLargestChannels(namePadding: number): Promise<void> {
  const prefix = `m${Date.now()}`;
  await t.db.sql.query(
    `INSERT INTO users (company_id, role, email, first_name, last_name, updated_at)
     SELECT $1, 'rep', $2 || '-' || g || '@example.com', 'First' || g || repeat('f', $3), 'Last' || g || repeat('l', $3), now() FROM generate_series(1, 1000) g`,
    [acme.id, prefix, namePadding],
  );
  await t.db.sql.query(
    `INSERT INTO conversations (company_id, type, name, creator_id, updated_at) SELECT $1, 'ChannelConversation', 'Channel ' || g, $2, now() FROM generate_series(1, 100) g`,
    [acme.id, alice.id],
  );
  await t.db.sql.query(
    `INSERT INTO conversation_recipients (company_id, conversation_id, user_id)
     SELECT $1, c.id, u.id FROM conversations c, users u WHERE c.company_id = $1 AND (u.id = $2 OR u.email LIKE $3 || '-%')`,
    [acme.id, alice.id, prefix],
  );
}

describe("a list page of the largest conversations", () => {
  it("answers 100 conversations of 1,001 members each, every member shown, reading each member's user once", { timeout: 60_000 }, async () => {
    await insertLargestChannels(0);
    let response!: HttpResponse;
    const values = await valuesReadDuring(async () => {
      response = await call("GET", `${LIST}?template=channels&per_page=100`, { token: acme.token });
    });
    expect(response.status).toBe(200);
    const items = response.body.channels[1].items;
    expect(items).toHaveLength(100);
    expect(items.every((conversation: { recipients: unknown[]; total_recipients: number }) => conversation.recipients.length === 1001 && conversation.total_recipients === 1001)).toBe(true);
    expect(items[0].recipients[1]).toMatchObject({ first_name: "First1", last_name: "Last1", receivable_type: "User", status: "active" });
    // Each user is read once, not once per membership with every column of both (56.9 MB for this page, 5-12 s of Prisma's mapping).
    expect(values.reduce((sum, value) => sum + value.length, 0)).toBeLessThan(4_000_000);
  });
});

describe("a list of many of the largest conversations", () => {
  it.skipIf(!inject("databaseServer"))(
    "reads the conversations as the client takes the answer: a client that stops reading holds the server to a few of them; one deleted meanwhile is left out",
    { timeout: 120_000 },
    async () => {
      await insertLargestChannels(500);
      // The list's order: the most recent activity (here creation) first, then the highest id.
      const ids = (await t.db.prisma.conversation.findMany({ where: { company_id: acme.id }, select: { id: true }, orderBy: [{ last_activity_at: "desc" }, { id: "desc" }] })).map(
        (row) => row.id,
      );
      const { readBeforeResuming, answer } = await readByStalledClient<{ channels: [unknown, { items: Array<{ id: number; recipients: unknown[] }> }] }>(
        `${t.url}${LIST}?template=channels&per_page=100`,
        acme.token,
        (value) => /^Channel \d+$/.test(value),
        async () => {
          await t.db.prisma.conversation.delete({ where: { id: ids[99]! } });
        },
      );
      // A conversation of 1,001 members of long names is about 1.2 MB of answer, and a chunk about
      // four of them; the sockets' buffers may hold tens of megabytes of answer (media-size.test.ts).
      expect(readBeforeResuming).toBeGreaterThan(0);
      expect(readBeforeResuming).toBeLessThan(50);
      const items = answer.channels[1].items;
      expect(items.map((conversation) => conversation.id)).toEqual(ids.slice(0, 99));
      expect(items.every((conversation) => conversation.recipients.length === 1001)).toBe(true);
    },
  );
});
