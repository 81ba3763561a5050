import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

describe("bench reference routes", () => {
  let plain: TestApp;
  let bench: TestApp;

  beforeAll(async () => {
    plain = await startTestApp({ listen: false });
    bench = await startTestApp({ listen: false, env: { BENCH_ROUTES: "true" } });
  });

  afterAll(async () => {
    await plain?.close();
    await bench?.close();
  });

  it("do not exist unless BENCH_ROUTES is on", async () => {
    const constant = await plain.app.inject({ method: "GET", url: "/__bench/constant" });
    expect(constant.statusCode).toBe(404);
    const profile = await plain.app.inject({ method: "POST", url: "/__bench/profile/start" });
    expect(profile.statusCode).toBe(404);
  });

  it("serve the constant and the primary-key read", async () => {
    expect((await bench.app.inject({ method: "GET", url: "/__bench/constant" })).json()).toEqual({ status: "ok", items: [1, 2, 3] });
    const [company] = await bench.db.sql.query<{ id: number; name: string }>("INSERT INTO companies (name, shop_domain, shop_slug, updated_at) VALUES ('Bench Co', 'bench.example.com', 'bench', now()) RETURNING id, name");
    const read = await bench.app.inject({ method: "GET", url: `/__bench/pk-read/${company?.id}` });
    expect(read.json()).toEqual({ id: company?.id, name: "Bench Co", shop_domain: "bench.example.com" });
  });

  it("profile the CPU between start and stop, for one scenario's measured round", async () => {
    expect((await bench.app.inject({ method: "POST", url: "/__bench/profile/start" })).json()).toEqual({ profiling: true });
    for (let i = 0; i < 20; i++) await bench.app.inject({ method: "GET", url: "/__bench/constant" });
    const stopped = await bench.app.inject({ method: "POST", url: "/__bench/profile/stop" });
    const profile = stopped.json() as { nodes: unknown[]; samples: number[]; startTime: number; endTime: number };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.endTime).toBeGreaterThan(profile.startTime);
  });
});
