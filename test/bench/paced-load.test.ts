import type { RequestListener } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type PacedLoadProcess, startPacedLoadProcess } from "../../bench/paced-load.js";
import type { RequestSpec } from "../../bench/request-spec.js";
import { type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";

// The half-peak round's load generator runs in a process of its own: what it reports is what the
// bench prints, so every request must reach the server as given and every answer be counted.

let local: LocalHttpServer | undefined;
let generator: PacedLoadProcess | undefined;

afterEach(async () => {
  generator?.close();
  generator = undefined;
  await local?.close();
  local = undefined;
});

async function listen(handler: RequestListener): Promise<string> {
  local = await startLocalHttpServer(handler);
  return local.url;
}

describe("the paced load in its own process", () => {
  it("sends every request in the given order and reports each answer's status", async () => {
    const seen: string[] = [];
    const url = await listen((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on("end", () => {
        seen.push(`${request.method} ${request.url} ${request.headers["content-type"]} ${request.headers.authorization ?? "-"} ${body}`);
        const payload = JSON.stringify({ ok: request.url !== "/busy" });
        response.writeHead(request.url === "/busy" ? 503 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
        response.end(payload);
      });
    });
    const requests: RequestSpec[] = Array.from({ length: 60 }, (_, i) =>
      i % 20 === 19 ? { method: "GET", path: "/busy" } : { method: "POST", path: `/items/${i}`, body: { n: i }, headers: { authorization: "Bearer t" } },
    );

    generator = startPacedLoadProcess();

    const first = await generator.run({ url, connections: 1, rate: 600, requests });
    const second = await generator.run({ url, connections: 2, rate: 600, requests: requests.slice(0, 20) });

    expect(first.errors).toBe(0);
    expect(first.non2xx).toBe(3);
    expect(first.requestsPerSecond).toBeGreaterThan(0);
    expect(first.p50Ms).toBeGreaterThan(0);
    expect(first.p99Ms).toBeGreaterThanOrEqual(first.p50Ms);
    expect(second).toMatchObject({ errors: 0, non2xx: 1 });
    expect(seen.slice(0, 60)).toEqual(
      requests.map((spec, i) => (spec.path === "/busy" ? "GET /busy application/json - " : `POST /items/${i} application/json Bearer t {"n":${i}}`)),
    );
    expect(seen).toHaveLength(80);
  });

  it("fails the round, rather than report one, when the load generator cannot connect", async () => {
    const url = await listen((_request, response) => response.end("{}"));
    await local?.close();
    local = undefined;
    generator = startPacedLoadProcess();

    await expect(generator.run({ url, connections: 2, rate: 1000, requests: [{ method: "GET", path: "/" }] })).rejects.toThrow(
      /the paced load failed: connect ECONNREFUSED/,
    );
  });
});
