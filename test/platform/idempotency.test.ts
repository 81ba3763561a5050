import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createDroplet } from "../../src/domain/droplets/service.js";
import { fixedClock } from "../helpers/fixed-clock.js";
import { type CompanyFixture, createCompanyWithToken, createPlan } from "../helpers/fixtures.js";
import { type Call, expectReplayOf, httpClient } from "../helpers/http.js";
import { addSubscriptionOrder } from "../helpers/subscription-orders.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** Idempotency-Key over real HTTP, on droplet installation create (any admin or cart POST/PATCH gets the same). */
let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let droplets: { uuid: string }[];
const clock = fixedClock(new Date("2026-03-01T12:00:00.000Z"));
const DAY_MS = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  t = await startTestApp({ clock });
  call = httpClient(t.url);
  acme = await createCompanyWithToken(t.db.prisma, "Acme");
  globex = await createCompanyWithToken(t.db.prisma, "Globex");
  droplets = [];
  for (const name of ["Analytics", "Mailer", "Chat"]) {
    droplets.push(await createDroplet(t.db.prisma, { name, category: "tools", scopes: ["orders:read", "customers:read"] }));
  }
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.db.prisma.dropletInstallation.deleteMany();
  await t.db.prisma.idempotencyKey.deleteMany();
});

const install = (body: unknown, key?: string, token = acme.token) =>
  call("POST", "/api/droplet_installations", { token, body, headers: key === undefined ? {} : { "idempotency-key": key } });
const installations = () => t.db.prisma.dropletInstallation.count();
const storedKeys = () => t.db.prisma.idempotencyKey.findMany({ orderBy: { id: "asc" } });

describe("Idempotency-Key on a body-less PATCH", () => {
  it("takes an empty JSON body for the same request as no body (both read as {}): a replay, not idempotency_key_reused", async () => {
    const plan = await createPlan(t.db.prisma, acme.id);
    const orderId = await addSubscriptionOrder(t.db.prisma, acme.id, plan.id, "active");
    const skip = (headers: Record<string, string>) =>
      call("PATCH", `/api/v2/subscription_orders/${orderId}/skip_order`, { token: acme.token, headers: { "idempotency-key": "skip-1", ...headers }, rawBody: "" });
    const first = await skip({});
    expect(first.status).toBe(200);
    const retry = await skip({ "content-type": "application/json" });
    expectReplayOf(retry, first);
    expect((await t.db.prisma.subscriptionOrder.findUniqueOrThrow({ where: { id: orderId } })).skips_count).toBe(1);
  });
});

describe("Idempotency-Key on POST", () => {
  it("replays the first response to a retry: same status and body, Idempotent-Replayed, no second row", async () => {
    const first = await install({ droplet_uuid: droplets[0]?.uuid }, "retry-1");
    expect(first.status).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    clock.advance(1_000);
    try {
      const retry = await install({ droplet_uuid: droplets[0]?.uuid }, "retry-1");
      expect(retry.status).toBe(201);
      expect(retry.headers["content-type"]).toMatch(/^application\/json/);
      // The body's meta is the retry's, as every body's meta is its own response's: the request id its X-Request-Id, the time now.
      expectReplayOf(retry, first);
      expect(retry.body.meta.timestamp).toBe(clock.now().toISOString());
    } finally {
      clock.set(new Date("2026-03-01T12:00:00.000Z"));
    }
    expect(await installations()).toBe(1);
  });

  it("treats a body with its members in another order as the same request", async () => {
    const body = { droplet_uuid: droplets[0]?.uuid, scopes: ["orders:read"] };
    expect((await install(body, "order-1")).status).toBe(201);
    const retry = await install({ scopes: ["orders:read"], droplet_uuid: droplets[0]?.uuid }, "order-1");
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(await installations()).toBe(1);
  });

  it("answers 422 idempotency_key_reused for the same key with a different body, and changes nothing", async () => {
    expect((await install({ droplet_uuid: droplets[0]?.uuid }, "reused-1")).status).toBe(201);
    const other = await install({ droplet_uuid: droplets[1]?.uuid }, "reused-1");
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error_code: "idempotency_key_reused", errors: null });
    expect(Object.keys(other.body).sort()).toEqual(["error_code", "error_message", "errors", "meta"]);
    expect(await installations()).toBe(1);
  });

  it("answers 409 idempotency_key_in_progress while the first request runs", async () => {
    const body = { droplet_uuid: droplets[0]?.uuid };
    expect((await install(body, "running-1")).status).toBe(201);
    // Put the claim back as it stood while that request's handler ran.
    const now = clock.now();
    await t.db.prisma.idempotencyKey.updateMany({
      where: { key: "running-1" },
      data: { status: null, body: null, content_type: null, locked_until: new Date(now.getTime() + 60_000) },
    });
    const running = await install(body, "running-1");
    expect(running.status).toBe(409);
    expect(running.body.error_code).toBe("idempotency_key_in_progress");
    expect(running.headers["retry-after"]).toBe("1");
    expect(await installations()).toBe(1);
  });

  it("lets exactly one of many concurrent requests with one key run", async () => {
    const body = { droplet_uuid: droplets[2]?.uuid };
    const responses = await Promise.all(Array.from({ length: 8 }, () => install(body, "race-1")));
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = responses.filter((response) => response.status === 201);
    expect(created.filter((response) => response.headers["idempotent-replayed"] !== "true")).toHaveLength(1);
    expect(new Set(created.map((response) => response.body.droplet_installation.uuid)).size).toBe(1);
    expect(await installations()).toBe(1);
  });

  it("stores a 422 of the service (unknown role) and replays it", async () => {
    const body = { droplet_uuid: droplets[0]?.uuid, role_id: 999_999 };
    const first = await install(body, "invalid-1");
    expect(first.status).toBe(422);
    const retry = await install(body, "invalid-1");
    expectReplayOf(retry, first);
    expect((await storedKeys()).map((row) => row.status)).toEqual([422]);
  });

  it("releases the key after an answer that depends on the state of things (404, 409): a retry runs again", async () => {
    const unknownDroplet = { droplet_uuid: "00000000-0000-4000-8000-000000000000" };
    expect((await install(unknownDroplet, "missing-1")).status).toBe(404);
    const again = await install(unknownDroplet, "missing-1");
    expect(again.status).toBe(404);
    expect(again.headers["idempotent-replayed"]).toBeUndefined();

    expect((await install({ droplet_uuid: droplets[0]?.uuid })).status).toBe(201);
    expect((await install({ droplet_uuid: droplets[0]?.uuid }, "conflict-1")).status).toBe(409);
    expect(await storedKeys()).toEqual([]);
    await t.db.prisma.dropletInstallation.deleteMany();
    expect((await install({ droplet_uuid: droplets[0]?.uuid }, "conflict-1")).status).toBe(201);
  });

  it("releases the key after a 5xx, so the client can retry once the fault is gone", async () => {
    await t.db.sql.query("ALTER TABLE droplet_installations RENAME TO droplet_installations_away");
    try {
      const failed = await install({ droplet_uuid: droplets[0]?.uuid }, "fault-1");
      expect(failed.status).toBe(500);
      expect(await storedKeys()).toEqual([]);
    } finally {
      await t.db.sql.query("ALTER TABLE droplet_installations_away RENAME TO droplet_installations");
    }
    const retry = await install({ droplet_uuid: droplets[0]?.uuid }, "fault-1");
    expect(retry.status).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(await installations()).toBe(1);
  });

  it("forgets a response after 24 hours, and takes over a claim abandoned by a dead request", async () => {
    expect((await install({ droplet_uuid: droplets[0]?.uuid }, "old-1")).status).toBe(201);
    clock.advance(DAY_MS + 1_000);
    try {
      const later = await install({ droplet_uuid: droplets[0]?.uuid }, "old-1");
      expect(later.status).toBe(409);
      expect(later.body.error_code).toBe("already_installed");

      const now = clock.now();
      await t.db.prisma.idempotencyKey.create({
        data: {
          scope: `company:${acme.id}`,
          key: "abandoned-1",
          fingerprint: "a request whose process died",
          created_at: new Date(now.getTime() - 120_000),
          locked_until: new Date(now.getTime() - 60_000),
          expires_at: new Date(now.getTime() + DAY_MS),
        },
      });
      const takeover = await install({ droplet_uuid: droplets[1]?.uuid }, "abandoned-1");
      expect(takeover.status).toBe(201);
    } finally {
      clock.set(new Date("2026-03-01T12:00:00.000Z"));
    }
  });

  it("scopes keys to the company: another company's identical key is its own", async () => {
    const mine = await install({ droplet_uuid: droplets[0]?.uuid }, "shared-key");
    const theirs = await install({ droplet_uuid: droplets[0]?.uuid }, "shared-key", globex.token);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    expect(theirs.body.droplet_installation.uuid).not.toBe(mine.body.droplet_installation.uuid);
    expect((await storedKeys()).map((row) => row.scope).sort()).toEqual([`company:${acme.id}`, `company:${globex.id}`].sort());
  });

  it("answers 422 for a key over 255 characters or with spaces, and runs nothing", async () => {
    for (const key of ["k".repeat(256), "two words"]) {
      const response = await install({ droplet_uuid: droplets[0]?.uuid }, key);
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ "Idempotency-Key": ["must be 1 to 255 visible ASCII characters, sent once"] });
    }
    expect((await install({ droplet_uuid: droplets[0]?.uuid }, "k".repeat(255))).status).toBe(201);
    expect(await installations()).toBe(1);
  });

  it("ignores the header on methods that are idempotent already, and without a credential", async () => {
    const created = await install({ droplet_uuid: droplets[0]?.uuid });
    const uuid = created.body.droplet_installation.uuid as string;
    const put = await call("PUT", `/api/droplet_installations/${uuid}`, {
      token: acme.token,
      body: { uuid, droplet_installation: { active: false } },
      headers: { "idempotency-key": "put-1" },
    });
    expect(put.status).toBe(200);
    const anonymous = await call("POST", "/api/droplet_installations", { body: {}, headers: { "idempotency-key": "anon-1" } });
    expect(anonymous.status).toBe(401);
    expect(await storedKeys()).toEqual([]);
  });

  it("is documented on every admin POST and PATCH of the OpenAPI document", async () => {
    const document = (await call("GET", "/openapi.json")).body;
    const post = document.paths["/api/droplet_installations"].post;
    expect(post.parameters).toContainEqual(expect.objectContaining({ in: "header", name: "Idempotency-Key", required: false }));
    const get = document.paths["/api/droplet_installations"].get;
    expect((get.parameters ?? []).some((parameter: { name: string }) => parameter.name === "Idempotency-Key")).toBe(false);
  });

  it("is neither honoured nor documented on cart create, which has no credential to scope a key by", async () => {
    const document = (await call("GET", "/openapi.json")).body;
    const named = (operation: { parameters?: Array<{ name: string }> }) => (operation.parameters ?? []).some((parameter) => parameter.name === "Idempotency-Key");
    expect(named(document.paths["/api/carts"].post)).toBe(false);
    expect(named(document.paths["/api/carts/{cart_token}/items"].post)).toBe(true);
    const body = { country_code: "US", svc_shop: acme.shop };
    const headers = { "idempotency-key": "create-1" };
    const first = await call("POST", "/api/carts", { body, headers });
    const second = await call("POST", "/api/carts", { body, headers });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.body.cart.cart_token).not.toBe(first.body.cart.cart_token);
    expect(await storedKeys()).toEqual([]);
  });
});

describe("sweeping expired keys", () => {
  it("is each app's own: an app whose clock is far ahead does not stop another app in the process from sweeping", async () => {
    const ahead = await startTestApp({ clock: fixedClock(new Date("2100-01-01T00:00:00.000Z")) });
    const onTime = await startTestApp({ clock: fixedClock(new Date("2026-03-01T12:00:00.000Z")), database: t.db });
    try {
      const aheadCompany = await createCompanyWithToken(ahead.db.prisma, "Ahead");
      // Any keyed request claims its key, and a claim is when expired keys are swept.
      const claim = (app: TestApp, token: string, key: string) =>
        httpClient(app.url)("POST", "/api/droplet_installations", { token, body: {}, headers: { "idempotency-key": key } });
      expect((await claim(ahead, aheadCompany.token, "ahead-1")).status).toBe(422);
      await t.db.prisma.idempotencyKey.create({
        data: {
          scope: `company:${acme.id}`,
          key: "expired-1",
          fingerprint: "a request of last month",
          created_at: new Date("2026-01-30T12:00:00.000Z"),
          locked_until: new Date("2026-01-30T12:01:00.000Z"),
          expires_at: new Date("2026-01-31T12:00:00.000Z"),
        },
      });
      expect((await claim(onTime, acme.token, "on-time-1")).status).toBe(422);
      await vi.waitFor(async () => expect((await storedKeys()).map((row) => row.key)).toEqual(["on-time-1"]), { timeout: 2_000 });
    } finally {
      await onTime.close();
      await ahead.close();
    }
  });
});
