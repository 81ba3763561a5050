import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { httpClient } from "../../helpers/http.js";
import { expectPublicError, metadataFor, PUBLIC_PREFIX } from "../../helpers/public-sdk.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";

const apps: TestApp[] = [];

async function appWith(env: Record<string, string>) {
  const t = await startTestApp({ env });
  apps.push(t);
  const company = await createCompanyWithToken(t.db.prisma, "Acme");
  return { t, call: httpClient(t.url), shop: company.shop };
}

afterAll(async () => {
  await Promise.all(apps.map((t) => t.close()));
});

const visitBody = (metadata: Record<string, unknown>) => ({ page: { url: "https://acme.example.com/" }, metadata });

describe("per-IP limit", () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith({ PUBLIC_RATE_LIMIT_PER_MINUTE: "3" });
  });

  it("answers 429 in the error body with Retry-After once the IP has used its minute", async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: visitBody(metadataFor(app.shop)) })).status);
    expect(statuses).toEqual([201, 201, 201]);
    const limited = await app.call("POST", `${PUBLIC_PREFIX}/media/anything`, { body: { metadata: metadataFor(app.shop) } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(limited.body).toMatchObject({ status: 429, error_code: "rate_limited", errors: null, meta: { request_id: limited.headers["x-request-id"] } });
    expect(await app.t.db.prisma.pageVisit.count()).toBe(3);
    // The admin surface is not the public one: its own requests are not counted here.
    expect((await app.call("GET", "/api/media")).status).toBe(401);
  });
});

describe("per-IP limit behind a proxy (TRUST_PROXY)", () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith({ PUBLIC_RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "true" });
  });

  // svc_session is the client's own choice: one that makes up a new session id for every request
  // never meets the per-session limit. The per-IP limit is what stops it, counting the address the
  // proxy saw, whatever the client wrote in X-Forwarded-For before it.
  it("stops a client that sends a fresh svc_session and a made-up X-Forwarded-For with every request, and only that client", async () => {
    const send = (clientAddress: string, writtenByClient: string[] = []) =>
      app.call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, {
        body: visitBody(metadataFor(app.shop)),
        headers: { "x-forwarded-for": [...writtenByClient, clientAddress].join(", ") },
      });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await send("198.51.100.7", [`192.0.2.${i}`])).status);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    const limited = await send("198.51.100.7");
    expectPublicError(limited, 429);
    expect(limited.body).toMatchObject({ error_code: "rate_limited", errors: null });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // Addresses of one IPv6 /64 are one client: a host there picks any of 2^64 addresses.
    const ipv6 = [];
    for (let i = 1; i <= 4; i++) ipv6.push((await send(`2001:db8:7:7::${i}`)).status);
    expect(ipv6).toEqual([201, 201, 201, 429]);
    // Another shopper behind the same proxy keeps its own budget.
    expect((await send("198.51.100.8")).status).toBe(201);
    expect(await app.t.db.prisma.pageVisit.count()).toBe(7);
  });
});

describe("per-session limit", () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith({ SESSION_RATE_LIMIT_PER_MINUTE: "2" });
  });

  it("limits one flooding session without slowing other sessions, and stores nothing it refuses", async () => {
    const flooding = metadataFor(app.shop);
    const send = (metadata: Record<string, unknown>) => app.call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: visitBody(metadata) });
    expect((await send(flooding)).status).toBe(201);
    expect((await send(flooding)).status).toBe(201);
    const limited = await send(flooding);
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBeDefined();
    expect(limited.body).toMatchObject({ status: 429, error_code: "rate_limited", metadata: { svc_session: flooding.svc_session } });
    expect((await send(metadataFor(app.shop))).status).toBe(201);
    expect(await app.t.db.prisma.pageVisit.count({ where: { svc_session: flooding.svc_session } })).toBe(2);
  });
});

describe("x-ratelimit-* headers", () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith({ PUBLIC_RATE_LIMIT_PER_MINUTE: "4", SESSION_RATE_LIMIT_PER_MINUTE: "3" });
  });

  const limitOf = (response: { headers: Record<string, unknown> }) => ({
    limit: response.headers["x-ratelimit-limit"],
    remaining: response.headers["x-ratelimit-remaining"],
  });

  it("describe whichever of the two limits is nearer to its end, and a browser script may read them", async () => {
    const origin = "https://shop.example.org";
    const send = () => app.call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: visitBody(metadataFor(app.shop)), headers: { origin } });
    const first = await send();
    expect(first.status).toBe(201);
    // A fresh session has 2 of 3 left, the IP 3 of 4: the session is nearer to its end.
    expect(limitOf(first)).toEqual({ limit: "3", remaining: "2" });
    expect(Number(first.headers["x-ratelimit-reset"])).toBeGreaterThan(0);
    expect(String(first.headers["access-control-expose-headers"]).split(", ")).toEqual(
      expect.arrayContaining(["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]),
    );
    await send();
    // Each request has a fresh session (2 of 3 left); the IP now has 1 of 4.
    expect(limitOf(await send())).toEqual({ limit: "4", remaining: "1" });
    expect(limitOf(await send())).toEqual({ limit: "4", remaining: "0" });
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(limitOf(refused)).toEqual({ limit: "4", remaining: "0" });
  });
});

describe("Redis store (REDIS_URL)", () => {
  it("shares the counters between instances", async () => {
    const env = { SESSION_RATE_LIMIT_PER_MINUTE: "2", REDIS_URL: "redis://127.0.0.1:6379" };
    const first = await appWith(env);
    const second = await appWith(env);
    const metadata = metadataFor(first.shop);
    const send = (app: typeof first) => app.call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: visitBody(metadata) });
    expect((await send(first)).status).toBe(201);
    expect((await send(first)).status).toBe(201);
    // The second instance has never seen this session, but Redis has.
    const limited = await send(second);
    expect(limited.status).toBe(429);
    expect(limited.body.error_code).toBe("rate_limited");
  });
});
