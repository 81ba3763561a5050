import type { RequestListener } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRequest, type KeepAlivePool, openKeepAlivePool } from "../../bench/keep-alive-pool.js";
import { type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";

// The paced round's load generator: what it counts is what the bench reports, so a response it
// misreads would pass for the server's latency or status.

interface Answer {
  startedAt: number;
  status: number | null;
}

let local: LocalHttpServer | undefined;
let pool: KeepAlivePool | undefined;

afterEach(async () => {
  pool?.close();
  pool = undefined;
  await local?.close();
  local = undefined;
});

async function listen(handler: RequestListener, keepAliveTimeoutMs?: number): Promise<string> {
  local = await startLocalHttpServer(handler, keepAliveTimeoutMs);
  return local.host;
}

/** Sends the requests and resolves with one answer per request, in the order they came. */
async function exchange(host: string, connections: number, requests: Buffer[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  let allAnswered = () => {};
  const done = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  pool = await openKeepAlivePool(`http://${host}`, connections, (startedAt, status) => {
    answers.push({ startedAt, status });
    if (answers.length === requests.length) allAnswered();
  });
  requests.forEach((request, index) => pool?.send(request, index));
  await done;
  return answers;
}

describe("the paced round's keep-alive pool", () => {
  it("sends method, path, headers and body, and reads each answer's status once its body has arrived", async () => {
    const seen: string[] = [];
    const host = await listen((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on("end", () => {
        seen.push(`${request.method} ${request.url} ${request.headers["x-probe"] ?? ""} ${body}`);
        const payload = "x".repeat(request.url === "/large" ? 200_000 : 10);
        response.writeHead(request.url === "/missing" ? 404 : 200, { "content-type": "text/plain", "content-length": Buffer.byteLength(payload) });
        response.end(payload);
      });
    });
    const answers = await exchange(host, 2, [
      encodeRequest(host, "GET", "/large", {}, undefined),
      encodeRequest(host, "POST", "/items", { "x-probe": "yes", "content-type": "application/json" }, '{"a":"é"}'),
      encodeRequest(host, "GET", "/missing", {}, undefined),
      encodeRequest(host, "GET", "/large", {}, undefined),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 404]);
    expect(answers.map((answer) => answer.startedAt).sort()).toEqual([0, 1, 2, 3]);
    expect(seen.sort()).toEqual(["GET /large  ", "GET /large  ", "GET /missing  ", 'POST /items yes {"a":"é"}']);
  });

  it("counts a response without a Content-Length as a failure and goes on with a new connection", async () => {
    const host = await listen((request, response) => {
      if (request.url === "/chunked") response.write("part");
      response.end("done");
    });
    const answers = await exchange(host, 1, [
      encodeRequest(host, "GET", "/chunked", {}, undefined),
      encodeRequest(host, "GET", "/plain", {}, undefined),
    ]);
    expect(answers).toEqual([
      { startedAt: 0, status: null },
      { startedAt: 1, status: 200 },
    ]);
  });

  it("replaces a connection the server closed while it was idle, so no later request is lost", async () => {
    const host = await listen((_request, response) => response.end("ok"), 50);
    let connections = 0;
    const firstClosed = new Promise<void>((resolve) => {
      local?.server.on("connection", (socket) => {
        connections += 1;
        if (connections === 1) socket.once("close", () => resolve());
      });
    });
    const statuses: Array<number | null> = [];
    let answered = () => {};
    pool = await openKeepAlivePool(`http://${host}`, 1, (_startedAt, status) => {
      statuses.push(status);
      answered();
    });
    const nextAnswer = () =>
      new Promise<void>((resolve) => {
        answered = resolve;
      });
    const first = nextAnswer();
    pool.send(encodeRequest(host, "GET", "/", {}, undefined), 0);
    await first;
    // Past its keep-alive timeout (Node checks it about once a second) the server closes the
    // connection; the pool sees the end a moment later and opens another.
    await firstClosed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = nextAnswer();
    pool.send(encodeRequest(host, "GET", "/", {}, undefined), 1);
    await second;
    expect(statuses).toEqual([200, 200]);
    expect(connections).toBe(2);
  });

  it("answers every request as failed once the server is gone, so a round still ends", async () => {
    const host = await listen((_request, response) => response.end("ok"));
    const statuses: Array<number | null> = [];
    let allAnswered = () => {};
    const done = new Promise<void>((resolve) => {
      allAnswered = resolve;
    });
    pool = await openKeepAlivePool(`http://${host}`, 2, (_startedAt, status) => {
      statuses.push(status);
      if (statuses.length === 5) allAnswered();
    });
    await local?.close();
    local = undefined;
    for (let index = 0; index < 5; index++) pool.send(encodeRequest(host, "GET", "/", {}, undefined), index);
    await done;
    expect(statuses).toEqual([null, null, null, null, null]);
  });
});
