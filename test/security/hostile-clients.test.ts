import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBodyLimit } from "../../src/platform/http/body-limit.js";
import { type CompanyFixture, createCompanyWithToken } from "../helpers/fixtures.js";
import { type Call, httpClient } from "../helpers/http.js";
import { rawClient as connectRaw, sleep, waitUntil } from "../helpers/raw-http.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** Slow, idle and noisy clients: timeouts, body limits per surface, the rate-limited 404. */
let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let port: number;

const TIMEOUTS = { HTTP_HEADERS_TIMEOUT_MS: "1000", HTTP_REQUEST_TIMEOUT_MS: "1500", HTTP_KEEP_ALIVE_TIMEOUT_MS: "400", HTTP_IDLE_TIMEOUT_MS: "800" };

beforeAll(async () => {
  t = await startTestApp({ env: TIMEOUTS });
  call = httpClient(t.url);
  acme = await createCompanyWithToken(t.db.prisma);
  port = Number(new URL(t.url).port);
});
afterAll(async () => {
  await t.close();
});

const rawClient = () => connectRaw(port);

describe("slow clients", () => {
  it("a slowloris crowd trickling headers does not stop others being served, and is cut off after the headers timeout", async () => {
    const crowd = await Promise.all(Array.from({ length: 150 }, () => rawClient()));
    const startedAt = Date.now();
    for (const client of crowd) client.socket.write("GET /api/droplet_installations HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let trickling = true;
    const trickle = (async () => {
      for (let line = 0; trickling && line < 40; line++) {
        await sleep(100);
        for (const client of crowd) if (!client.socket.destroyed) client.socket.write(`X-Slow-${line}: ${"a".repeat(8)}\r\n`);
      }
    })();

    // Meanwhile, ordinary clients are served promptly, over and over.
    const latencies: number[] = [];
    for (let round = 0; round < 10; round++) {
      const before = Date.now();
      const responses = await Promise.all(Array.from({ length: 5 }, () => call("GET", "/api/droplet_installations", { token: acme.token })));
      latencies.push(Date.now() - before);
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
      await sleep(50);
    }
    expect(Math.max(...latencies)).toBeLessThan(1_000);

    // Every trickling socket is answered 408 and closed once its headers are overdue.
    const allClosed = await waitUntil(() => crowd.every((client) => client.closedAt() !== null), 3_000);
    trickling = false;
    await trickle;
    expect(allClosed).toBe(true);
    for (const client of crowd) {
      expect((client.closedAt() as number) - startedAt).toBeLessThan(2_500);
      expect(client.received()).toMatch(/^(HTTP\/1\.1 408|$)/);
    }
  });

  it("a body trickled slower than the request timeout is cut off", async () => {
    const client = await rawClient();
    const startedAt = Date.now();
    client.socket.write(
      `POST /api/droplet_installations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${acme.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"droplet_uuid":"`,
    );
    for (let i = 0; i < 40 && client.closedAt() === null; i++) {
      await sleep(100);
      if (!client.socket.destroyed) client.socket.write("a");
    }
    expect(client.closedAt()).not.toBeNull();
    expect((client.closedAt() as number) - startedAt).toBeLessThan(3_000);
    expect(client.received()).toMatch(/^(HTTP\/1\.1 408|$)/);
    expect(await t.db.prisma.dropletInstallation.count()).toBe(0);
  });

  it("closes a connection that sends nothing, and an idle keep-alive connection", async () => {
    const silent = await rawClient();
    const opened = Date.now();
    expect(await waitUntil(() => silent.closedAt() !== null, 3_000)).toBe(true);
    expect((silent.closedAt() as number) - opened).toBeLessThan(2_500);

    const keepAlive = await rawClient();
    keepAlive.socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(await waitUntil(() => keepAlive.received().includes("\r\n\r\n"), 2_000)).toBe(true);
    const answeredAt = Date.now();
    expect(keepAlive.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(keepAlive.received()).toMatch(/keep-alive: timeout=\d/i);
    expect(await waitUntil(() => keepAlive.closedAt() !== null, 2_000)).toBe(true);
    expect((keepAlive.closedAt() as number) - answeredAt).toBeLessThan(1_500);
  });
});

describe("body limits per surface", () => {
  it("admin takes BODY_LIMIT; a storefront surface's helper lowers it for the routes it registers", async () => {
    const limited = await startTestApp({
      env: { BODY_LIMIT: "8192" },
      async configure(app: FastifyInstance) {
        await app.register(
          async (surface) => {
            useBodyLimit(surface, 1024);
            surface.post("/echo-size", async (request) => ({ size: JSON.stringify(request.body).length }));
          },
          { prefix: "/storefront-probe" },
        );
      },
    });
    try {
      const limitedCall = httpClient(limited.url);
      const company = await createCompanyWithToken(limited.db.prisma);
      const medium = { droplet_uuid: "x".repeat(2000) };
      expect((await limitedCall("POST", "/api/droplet_installations", { token: company.token, body: medium })).status).toBe(422);
      expect((await limitedCall("POST", "/api/droplet_installations", { token: company.token, body: { droplet_uuid: "x".repeat(9000) } })).status).toBe(413);
      const probe = await limitedCall("POST", "/storefront-probe/echo-size", { body: medium });
      expect(probe.status).toBe(413);
      expect(probe.body.error_code).toBe("payload_too_large");
      expect((await limitedCall("POST", "/storefront-probe/echo-size", { body: { a: "small" } })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("every cart and public SDK operation with a body refuses one over its surface's limit", async () => {
    const document = t.app.swagger() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const limits: [string, number][] = [
      ["/api/carts", t.config.cartBodyLimit],
      ["/api/public/", t.config.publicBodyLimit],
    ];
    const refusedBySurface = new Map<string, number[]>();
    for (const [path, operations] of Object.entries(document.paths)) {
      const surface = limits.find(([prefix]) => path.startsWith(prefix));
      if (!surface) continue;
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.requestBody) continue;
        const url = path.replace(/\{[^}]+\}/g, "x");
        const response = await call(method.toUpperCase(), url, { body: { padding: "x".repeat(surface[1] + 1) } });
        // A hook that refuses the request before its body is read (no such cart: 404) is as good.
        expect([413, 401, 404], `${method} ${path}`).toContain(response.status);
        refusedBySurface.set(surface[0], [...(refusedBySurface.get(surface[0]) ?? []), response.status]);
      }
    }
    for (const [surface, statuses] of refusedBySurface) expect(statuses, surface).toContain(413);
  });
});

describe("the 404 handler", () => {
  it("is rate-limited per client: 429 with Retry-After and the error body, known routes unaffected", async () => {
    const limited = await startTestApp({ env: { NOT_FOUND_RATE_LIMIT_PER_MINUTE: "5" } });
    try {
      const limitedCall = httpClient(limited.url);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await limitedCall("GET", `/wp-admin/${i}.php`)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
      const limitedResponse = await limitedCall("GET", "/.env");
      expect(limitedResponse.status).toBe(429);
      expect(Number(limitedResponse.headers["retry-after"])).toBeGreaterThan(0);
      expect(limitedResponse.body).toMatchObject({ error_code: "rate_limited", errors: null });
      expect(Object.keys(limitedResponse.body).sort()).toEqual(["error_code", "error_message", "errors", "meta"]);
      expect((await limitedCall("GET", "/health")).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  // A proxy appends the address it saw to whatever X-Forwarded-For the client sent: trusting
  // every hop made the client's own first entry its address, a new counter per request.
  it("behind TRUST_PROXY proxies, counts the address the proxy saw, not the X-Forwarded-For entries the client wrote", async () => {
    for (const [trustProxy, forwardedBy] of [["true", []], ["2", ["203.0.113.50"]]] as const) {
      const limited = await startTestApp({ env: { NOT_FOUND_RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: trustProxy } });
      try {
        const limitedCall = httpClient(limited.url);
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          const forwardedFor = [`198.51.100.${i}`, "192.0.2.7", ...forwardedBy].join(", ");
          statuses.push((await limitedCall("GET", `/wp-admin/${i}.php`, { headers: { "x-forwarded-for": forwardedFor } })).status);
        }
        expect(statuses, `TRUST_PROXY=${trustProxy}`).toEqual([404, 404, 404, 429, 429]);
        // Another client behind the same proxies has a counter of its own.
        const other = await limitedCall("GET", "/wp-admin/x.php", { headers: { "x-forwarded-for": ["198.51.100.0", "192.0.2.8", ...forwardedBy].join(", ") } });
        expect(other.status, `TRUST_PROXY=${trustProxy}`).toBe(404);
      } finally {
        await limited.close();
      }
    }
  });

  it("shares one budget with the cart and public surfaces' 404s; the public one answers in the public error shape", async () => {
    const limited = await startTestApp({ env: { NOT_FOUND_RATE_LIMIT_PER_MINUTE: "4" } });
    try {
      const limitedCall = httpClient(limited.url);
      const metadata = { svc_shop: "acme", svc_session: "ss_AbCdEfGhJkLmNpQrStUvWx" };
      const unknownPublicPath = (i: number) => limitedCall("POST", `/api/public/v2025-06/probe-${i}`, { body: { metadata } });
      const statuses: number[] = [];
      statuses.push((await limitedCall("GET", "/wp-admin/index.php")).status);
      statuses.push((await limitedCall("POST", "/api/carts/ct_x/probe")).status);
      const notFound = await unknownPublicPath(1);
      statuses.push(notFound.status);
      for (let i = 2; i <= 3; i++) statuses.push((await unknownPublicPath(i)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 429]);
      expect(notFound.body).toMatchObject({ error_code: "route_not_found", status: 404, metadata: { svc_shop: "acme", svc_session: metadata.svc_session } });
      const limitedResponse = await unknownPublicPath(5);
      expect(limitedResponse.status).toBe(429);
      expect(Number(limitedResponse.headers["retry-after"])).toBeGreaterThan(0);
      expect(limitedResponse.body).toMatchObject({ error_code: "rate_limited", status: 429 });
      expect((await limitedCall("GET", "/wp-admin/again.php")).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("shares its counters between instances through Redis when REDIS_URL is set", async (context) => {
    const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
    const probe = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0 });
    const reachable = await probe.connect().then(
      () => true,
      () => false,
    );
    probe.disconnect();
    if (!reachable) context.skip();

    // A client address of its own (through a trusted proxy header), so runs do not share counters.
    const client = `10.${randomBytes(3).join(".")}`;
    const env = { NOT_FOUND_RATE_LIMIT_PER_MINUTE: "4", REDIS_URL: redisUrl, TRUST_PROXY: "true" };
    const first = await startTestApp({ env });
    const second = await startTestApp({ env, database: first.db });
    try {
      const headers = { "x-forwarded-for": client };
      const statuses: number[] = [];
      for (const instance of [first, second, first, second, first]) statuses.push((await httpClient(instance.url)("GET", "/missing", { headers })).status);
      expect(statuses).toEqual([404, 404, 404, 404, 429]);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
