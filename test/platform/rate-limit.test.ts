import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCompanyWithToken } from "../helpers/fixtures.js";
import { httpClient } from "../helpers/http.js";
import { metadataFor, PUBLIC_PREFIX } from "../helpers/public-sdk.js";
import { startTestApp } from "../helpers/test-app.js";

/** A "Redis" that accepts connections and never answers: a store that hangs, the worst kind of outage. */
const connections = new Set<Socket>();
let connectionsOpened = 0;
const silentRedis = createServer((socket) => {
  connectionsOpened++;
  connections.add(socket);
  socket.on("close", () => connections.delete(socket));
  // Reads what it is sent, so that it sees the client hang up.
  socket.resume();
});

beforeAll(async () => {
  await new Promise<void>((resolve) => silentRedis.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  for (const socket of connections) socket.destroy();
  await new Promise((resolve) => silentRedis.close(resolve));
});

describe("the rate limiters' Redis store", () => {
  it("is one connection for every limiter of the app, lets requests through at once while Redis does not answer, and is closed with the app", async () => {
    const t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${(silentRedis.address() as AddressInfo).port}` } });
    try {
      // The app's unknown-path limiter and the public surface's two limiters share it.
      expect(connectionsOpened).toBe(1);
      const call = httpClient(t.url);
      const company = await createCompanyWithToken(t.db.prisma);
      const started = Date.now();
      expect((await call("GET", "/missing")).status).toBe(404);
      const visit = await call("POST", `${PUBLIC_PREFIX}/events/pages/visit`, { body: { page: { url: "https://acme.example.com/" }, metadata: metadataFor(company.shop) } });
      expect(visit.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await t.close();
    }
    await vi.waitFor(() => expect(connections.size).toBe(0), { timeout: 1_000 });
  });
});
